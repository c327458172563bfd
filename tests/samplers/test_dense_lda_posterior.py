"""LDA's dense exact Gibbs sweep (``dense_lda_sweep``, below ``SPARSE_FROM`` topics) against enumerated
posteriors, and its power: the same chains with one line of the kernel wrong are rejected."""

from __future__ import annotations

import inspect

import pytest
from numba import njit

from exact import FALSE_ALARM, Tiny, chi_square_pvalue, sweeps
from medlda._kernels import gibbs
from medlda._kernels.records import Counts, Tokens
from medlda.samplers.gibbs import ExactGibbs

THREE = Tiny(((0, 0, 0), (0, 1, 1)), 2, 3)
N_CHAINS, N_SWEEPS = 3000, 12


class _Mutant(ExactGibbs):
    """The dense LDA sweep with one line of its source replaced (compiled afresh, not cached)."""

    def __init__(self, line: str, replacement: str) -> None:
        super().__init__()
        source = inspect.getsource(gibbs)
        assert source.count(line) == 1, "the line to mutate is not in the kernel: update the test"
        namespace: dict = {"__name__": "mutant"}
        exec(compile(source.replace(line, replacement).replace("cache=True", "cache=False"), "<mutant>", "exec"),
             namespace)
        self.kernel = namespace["dense_lda_sweep"]
        assert isinstance(self.kernel, type(njit(lambda: 0)))

    def sweep(self, state, eta, kappa, w, rng, phi_wk=None) -> None:
        self.kernel(Tokens(state.word_ids, state.doc_ptr, state.z), Counts(state.n_dk, state.n_wk, state.n_k),
                    state.alpha, state.beta, state.vbeta, state.streams)


def test_the_dense_sweep_is_the_one_small_lda_takes():
    assert THREE.n_topics < ExactGibbs().sparse_from


@pytest.mark.parametrize("line, replacement", [
    ("            inv[old] = 1.0 / (n_k[old] + vbeta)\n", ""),  # 1 / (n_k + V beta) of the topic left: stale
    ("            dk[old] = n_dk[d, old] + alpha[old]\n", ""),  # the document's count of it: stale
])
def test_a_dense_sweep_with_a_stale_factor_fails_the_enumerated_posterior(line, replacement):
    mutant = _Mutant(line, replacement)
    right = THREE.final_states(sweeps(ExactGibbs(), N_SWEEPS, *THREE.no_tasks), N_CHAINS, 5)
    wrong = THREE.final_states(sweeps(mutant, N_SWEEPS, *THREE.no_tasks), N_CHAINS, 5)
    assert chi_square_pvalue(right, THREE.posterior()) > FALSE_ALARM
    assert chi_square_pvalue(wrong, THREE.posterior()) < FALSE_ALARM
