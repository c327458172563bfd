"""Kernels with one line of their source replaced, compiled afresh (never cached): what a test with
power must reject."""

from __future__ import annotations

import inspect

from numba import njit

from medlda._kernels.records import Counts, Supervision, Tokens
from medlda.samplers.gibbs import ExactGibbs


def mutant_kernel(module, name: str, line: str, replacement: str):
    """Kernel ``name`` of ``module`` with ``line`` (which must occur once in it) replaced."""
    source = inspect.getsource(module)
    kernel_source = inspect.getsource(getattr(module, name).py_func)
    assert source.count(kernel_source) == 1 and kernel_source.count(line) == 1, \
        "the line to mutate is not in the kernel: update the test"
    source = source.replace(kernel_source, kernel_source.replace(line, replacement))
    namespace: dict = {"__name__": "mutant"}
    exec(compile(source.replace("cache=True", "cache=False"), "<mutant>", "exec"), namespace)
    kernel = namespace[name]
    assert isinstance(kernel, type(njit(lambda: 0)))
    return kernel


class MutantLdaSweep(ExactGibbs):
    """ExactGibbs whose LDA sweep is a mutant of kernel ``name`` of ``module``, called with tokens,
    counts, alpha, beta, V beta, the supervision record when ``supervised`` (``gibbs_sweep``'s
    signature) and the streams."""

    def __init__(self, module, name: str, line: str, replacement: str, supervised: bool = False) -> None:
        super().__init__()
        self.kernel = mutant_kernel(module, name, line, replacement)
        self.supervised = supervised

    def sweep(self, state, eta, kappa, w, rng, phi_wk=None) -> None:
        tokens = Tokens(state.word_ids, state.doc_ptr, state.z)
        counts = Counts(state.n_dk, state.n_wk, state.n_k)
        if self.supervised:
            self.kernel(tokens, counts, state.alpha, state.beta, state.vbeta, Supervision(eta, kappa, w),
                        state.streams)
        else:
            self.kernel(tokens, counts, state.alpha, state.beta, state.vbeta, state.streams)
