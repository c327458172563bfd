"""The exact samplers against enumerated posteriors of tiny corpora (goodness-of-fit tests).

Each test draws independent samples (independent chains, or independent documents) and runs a
chi-square test at the false-alarm rate ``exact.FALSE_ALARM``; each also checks the same
samples against a slightly wrong posterior, so a test that cannot fail would show up.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from exact import (
    FALSE_ALARM,
    all_states,
    chi_square_pvalue,
    lda_log_joint,
    normalize_log,
    state_index,
    token_arrays,
    zbar_of,
)
from medlda._kernels.measures import log_joint
from medlda.engine.state import ChainState
from medlda.samplers import ExactGibbs
from medlda.samplers.eta import draw_eta_exact

DOCS = [[0, 1, 0], [1, 2]]
V, K = 3, 2
ALPHA, BETA = 0.5, 0.3


def _final_states(n_chains: int, n_sweeps: int, seed: int, step) -> np.ndarray:
    """Histogram of the final assignment of independent chains; ``step(state)`` is one sweep."""
    word_ids, doc_ptr = token_arrays(DOCS)
    rng = np.random.default_rng(seed)
    hist = np.zeros(K ** word_ids.size)
    for _ in range(n_chains):
        state = ChainState.initialize(word_ids, doc_ptr, V, K, np.full(K, ALPHA), BETA, rng)
        for _ in range(n_sweeps):
            step(state, rng)
        hist[state_index(state.z, K)] += 1
    return hist


def _lda_posterior(alpha=ALPHA, beta=BETA) -> np.ndarray:
    return normalize_log(np.array([lda_log_joint(DOCS, z, K, V, alpha, beta) for z in all_states(5, K)]))


def test_log_joint_kernel_matches_textbook_formula():
    word_ids, doc_ptr = token_arrays(DOCS)
    rng = np.random.default_rng(1)
    for _ in range(5):
        state = ChainState.initialize(word_ids, doc_ptr, V, K, np.full(K, ALPHA), BETA, rng)
        expected = lda_log_joint(DOCS, tuple(state.z), K, V, ALPHA, BETA)
        got = log_joint(state.n_dk, state.n_wk, state.n_k, state.doc_lengths, state.alpha, BETA)
        assert got == pytest.approx(expected, rel=1e-12)


def test_collapsed_gibbs_lda_matches_enumerated_posterior():
    def step(state, rng):
        ExactGibbs().sweep(state, np.zeros((0, K)), np.zeros((2, 0)), np.zeros((2, 0)), np.random.default_rng(0))

    hist = _final_states(3000, 15, 0, step)
    assert chi_square_pvalue(hist, _lda_posterior()) > FALSE_ALARM
    assert chi_square_pvalue(hist, _lda_posterior(alpha=0.25)) < FALSE_ALARM  # the test has power


# fixed classifier and augmentation, two tasks: exercises G_d(k) of SPEC (3) with T > 1
ETA = np.array([[1.5, -1.0], [-0.5, 2.0]])
KAPPA = np.array([[1.0, -0.5], [-1.0, 0.7]])
W = np.array([[0.8, 0.3], [1.2, 0.5]])


def _supervised_posterior(eta=ETA) -> np.ndarray:
    logp = []
    for z in all_states(5, K):
        omega = zbar_of(DOCS, z, K) @ eta.T
        logp.append(lda_log_joint(DOCS, z, K, V, ALPHA, BETA) + np.sum(KAPPA * omega - 0.5 * W * omega ** 2))
    return normalize_log(np.array(logp))


def test_supervised_gibbs_sweep_matches_enumerated_conditional():
    def step(state, rng):
        ExactGibbs().sweep(state, ETA, KAPPA, W, np.random.default_rng(0))

    hist = _final_states(3000, 15, 1, step)
    assert chi_square_pvalue(hist, _supervised_posterior()) > FALSE_ALARM
    assert chi_square_pvalue(hist, _supervised_posterior(ETA * 0.5)) < FALSE_ALARM


def test_exact_eta_draw_matches_gaussian_conditional():
    rng = np.random.default_rng(2)
    n_docs, n_topics = 40, 3
    zbar = rng.dirichlet(np.ones(n_topics), size=n_docs)
    kappa = rng.normal(size=(n_docs, 1))
    w = rng.gamma(2.0, size=(n_docs, 1))
    nu = 0.7
    precision = nu * np.eye(n_topics) + sum(w[d, 0] * np.outer(zbar[d], zbar[d]) for d in range(n_docs))
    cov = np.linalg.inv(precision)
    mean = cov @ (zbar.T @ kappa[:, 0])
    draws = np.array([draw_eta_exact(zbar, kappa, w, nu, rng)[0] for _ in range(4000)])
    white = (draws - mean) @ np.linalg.cholesky(precision)  # N(0, I) if the draw is right
    for j in range(n_topics):
        assert stats.kstest(white[:, j], "norm").pvalue > FALSE_ALARM
    assert stats.kstest((white ** 2).sum(1), stats.chi2(n_topics).cdf).pvalue > FALSE_ALARM
    wrong = (draws - mean) @ np.linalg.cholesky(precision * 1.2)
    assert stats.kstest((wrong ** 2).sum(1), stats.chi2(n_topics).cdf).pvalue < FALSE_ALARM
