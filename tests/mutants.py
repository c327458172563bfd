"""Kernels with one line of their source replaced, compiled afresh (never cached): what a test with
power must reject."""

from __future__ import annotations

import inspect

from numba import njit

from medlda._kernels.records import Counts, Tokens
from medlda.samplers.gibbs import ExactGibbs


def mutant_kernel(module, name: str, line: str, replacement: str):
    """Kernel ``name`` of ``module`` with ``line`` (which must occur once) replaced."""
    source = inspect.getsource(module)
    assert source.count(line) == 1, "the line to mutate is not in the kernel: update the test"
    namespace: dict = {"__name__": "mutant"}
    exec(compile(source.replace(line, replacement).replace("cache=True", "cache=False"), "<mutant>", "exec"),
         namespace)
    kernel = namespace[name]
    assert isinstance(kernel, type(njit(lambda: 0)))
    return kernel


class MutantLdaSweep(ExactGibbs):
    """ExactGibbs whose LDA sweep is a mutant of kernel ``name`` of ``module`` (called as LDA's
    sweeps are: tokens, counts, alpha, beta, V beta, streams)."""

    def __init__(self, module, name: str, line: str, replacement: str) -> None:
        super().__init__()
        self.kernel = mutant_kernel(module, name, line, replacement)

    def sweep(self, state, eta, kappa, w, rng, phi_wk=None) -> None:
        self.kernel(Tokens(state.word_ids, state.doc_ptr, state.z), Counts(state.n_dk, state.n_wk, state.n_k),
                    state.alpha, state.beta, state.vbeta, state.streams)
