"""The collapsed-bias benchmark's exact reference: its two-topic marginals and posterior draws
against the enumerated posterior of tests/exact.py, and its statistic's folding."""

import functools

import numpy as np
import pytest

from bench_suites import load
from exact import FALSE_ALARM, Tiny, all_states, chi_square_pvalue, fixed_augmentation

load("rows")  # the suite imports these as sibling modules
marginals = load("marginals")
bench = load("bench_collapsed_bias")

UNEVEN = ((0, 1, 0, 0), (1, 2, 2), (0, 1, 0), (2, 1, 2))  # 13 tokens: 8,192 assignments


@functools.cache
def _enumerated(docs, target: str, alpha: float = bench.ALPHA) -> np.ndarray:
    """p(Z | W) over ``all_states`` order by enumeration, with the benchmark's fixed augmentation
    (document d: kappa and w rows d mod 2) for 'supervised'."""
    rows = np.arange(len(docs)) % 2
    factor = fixed_augmentation(bench.ETA, bench.KAPPA[rows], bench.W[rows]) if target == "supervised" else None
    return Tiny(tuple(map(tuple, docs)), bench.V, bench.K, alpha, bench.BETA).posterior(log_factor=factor)


def _posterior(docs, target: str):
    """The benchmark's exact posterior of ``docs``; supervised: the augmentation's factor of
    document d given n_d0 (zbar_d = (n_d0, N_d - n_d0) / N_d)."""
    def factor(d: int, n0: np.ndarray) -> np.ndarray:
        zbar = np.stack([n0, len(docs[d]) - n0], axis=1) / len(docs[d])
        omega = zbar @ bench.ETA.T
        return (bench.KAPPA[d % 2] * omega - 0.5 * bench.W[d % 2] * omega ** 2).sum(axis=1)
    return marginals.TwoTopicPosterior([list(doc) for doc in docs], bench.V, bench.ALPHA, bench.BETA,
                                       None if target == "lda" else factor)


@pytest.mark.parametrize("target", ["lda", "supervised"])
def test_doc_marginals_match_enumeration(target):
    docs = UNEVEN
    exact = _enumerated(docs, target)
    states = np.array(all_states(sum(map(len, docs)), 2))
    posterior = _posterior(docs, target)
    start = 0
    for d, doc in enumerate(docs):
        n0 = (states[:, start:start + len(doc)] == 0).sum(axis=1)
        brute = np.bincount(n0, weights=exact, minlength=len(doc) + 1)
        np.testing.assert_allclose(posterior.doc_marginal(d), brute, atol=1e-12)
        start += len(doc)


@pytest.mark.parametrize("target", ["lda", "supervised"])
def test_cell_statistic_is_the_enumerated_one(target):
    cell = bench.Cell(4, 3, target)
    exact = _enumerated(tuple(map(tuple, cell.docs())), target)
    n0 = (np.array(all_states(12, 2))[:, :3] == 0).sum(axis=1)
    brute = cell.fold(np.bincount(n0, weights=exact, minlength=4))
    np.testing.assert_allclose(cell.exact(cell.posterior()), brute, atol=1e-12)
    assert brute.size == (2 if target == "lda" else 4)


@pytest.mark.parametrize("target", ["lda", "supervised"])
def test_draws_follow_the_posterior(target):
    """10,000 draws, chi-square at ``FALSE_ALARM``; the same histogram rejects alpha = 0.4."""
    docs = UNEVEN
    draws = _posterior(docs, target).draws(np.random.default_rng(3), 10000)
    index = draws @ (2 ** np.arange(draws.shape[1] - 1, -1, -1))
    hist = np.bincount(index, minlength=2 ** draws.shape[1]).astype(float)
    assert chi_square_pvalue(hist, _enumerated(docs, target)) > FALSE_ALARM
    assert chi_square_pvalue(hist, _enumerated(docs, target, alpha=0.4)) < FALSE_ALARM


def test_fold_sums_label_swapped_counts():
    p = np.array([0.1, 0.2, 0.3, 0.4])
    np.testing.assert_allclose(bench.Cell(2, 3, "lda").fold(p), [0.5, 0.5])
    np.testing.assert_allclose(bench.Cell(2, 2, "lda").fold(np.array([0.2, 0.5, 0.3])), [0.5, 0.5])
    np.testing.assert_allclose(bench.Cell(2, 3, "supervised").fold(p), p)
