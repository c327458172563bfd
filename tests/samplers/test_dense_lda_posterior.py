"""LDA's dense exact Gibbs sweep (``dense_lda_sweep``, below ``SPARSE_FROM`` topics) against enumerated
posteriors, and its power: the same chains with one line of the kernel wrong are rejected."""

from __future__ import annotations

import pytest

from exact import FALSE_ALARM, Tiny, chi_square_pvalue, sweeps
from medlda._kernels import gibbs
from medlda.samplers.gibbs import ExactGibbs
from mutants import MutantLdaSweep

THREE = Tiny(((0, 0, 0), (0, 1, 1)), 2, 3)
N_CHAINS, N_SWEEPS = 3000, 12


def test_the_dense_sweep_is_the_one_small_lda_takes():
    assert THREE.n_topics < ExactGibbs().sparse_from


@pytest.mark.parametrize("line, replacement", [
    ("            inv[old] = 1.0 / (n_k[old] + vbeta)\n", ""),  # 1 / (n_k + V beta) of the topic left: stale
    ("            dk[old] = n_dk[d, old] + alpha[old]\n", ""),  # the document's count of it: stale
])
def test_a_dense_sweep_with_a_stale_factor_fails_the_enumerated_posterior(line, replacement):
    mutant = MutantLdaSweep(gibbs, "dense_lda_sweep", line, replacement)
    right = THREE.final_states(sweeps(ExactGibbs(), N_SWEEPS, *THREE.no_tasks), N_CHAINS, 5)
    wrong = THREE.final_states(sweeps(mutant, N_SWEEPS, *THREE.no_tasks), N_CHAINS, 5)
    assert chi_square_pvalue(right, THREE.posterior()) > FALSE_ALARM
    assert chi_square_pvalue(wrong, THREE.posterior()) < FALSE_ALARM
