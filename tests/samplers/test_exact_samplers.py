"""The exact sampler's pieces against exact answers: the log joint kernel against the textbook
formula, and the exact eta draw against its Gaussian conditional (KS tests at the false-alarm
rate ``exact.FALSE_ALARM``, with a slightly wrong target rejected). Its chains against the
enumerated posterior are in test_exact_posterior.py."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from exact import FALSE_ALARM, lda_log_joint, token_arrays
from medlda._kernels.measures import log_joint
from medlda.engine.state import ChainState
from medlda.samplers.eta import draw_eta_exact

DOCS = [[0, 1, 0], [1, 2]]
V, K = 3, 2
ALPHA, BETA = 0.5, 0.3


def test_log_joint_kernel_matches_textbook_formula():
    word_ids, doc_ptr = token_arrays(DOCS)
    rng = np.random.default_rng(1)
    for _ in range(5):
        state = ChainState.initialize(word_ids, doc_ptr, V, K, np.full(K, ALPHA), BETA, rng)
        expected = lda_log_joint(DOCS, tuple(state.z), K, V, ALPHA, BETA)
        got = log_joint(state.n_dk, state.n_wk, state.n_k, state.doc_lengths, state.alpha, BETA)
        assert got == pytest.approx(expected, rel=1e-12)


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
