"""Alias tables: what a table draws is exactly its weights, and its draws follow them."""

import numpy as np
import pytest

from exact import FALSE_ALARM, chi_square_pvalue
from medlda._kernels.alias import alias_draws, build_alias_rows


def test_alias_table_draws_its_stored_proposal():
    rng = np.random.default_rng(0)
    weights = np.array([[0.0, 3.0, 1.0, 0.5, 0.0, 7.5], [1, 1, 1, 1, 1, 1], [0, 0, 0, 0, 0, 0.0]])
    prob, alias, q = np.empty(weights.shape), np.empty(weights.shape, np.int64), np.empty(weights.shape)
    build_alias_rows(weights, prob, alias, q)
    assert np.allclose(q[0], weights[0] / weights[0].sum()) and np.allclose(q[2], 1 / 6)
    for row in range(3):
        draws = alias_draws(prob[row], alias[row], 60000, np.uint64(rng.integers(1, 2**62)))
        hist = np.bincount(draws, minlength=6)
        assert chi_square_pvalue(hist, q[row]) > FALSE_ALARM
    assert np.bincount(alias_draws(prob[0], alias[0], 10000, np.uint64(5)), minlength=6)[[0, 4]].sum() == 0


@pytest.mark.parametrize("n_topics", [1, 2, 7, 400])
def test_alias_table_holds_exactly_its_weights(n_topics):
    """What a table draws, read off exactly: P(k) = (prob_k + sum over j aliased to k of
    (1 - prob_j)) / K must be weights / sum, for flat, skewed, sparse and equal weights."""
    rng = np.random.default_rng(n_topics)
    weights = np.vstack([rng.random((5, n_topics)), rng.exponential(1.0, (5, n_topics)) ** 8,
                         (rng.random((5, n_topics)) < 0.1) * rng.random((5, n_topics)), np.ones((1, n_topics))])
    weights[weights.sum(axis=1) == 0, 0] = 1.0
    prob, alias, q = np.empty(weights.shape), np.empty(weights.shape, np.int64), np.empty(weights.shape)
    build_alias_rows(weights, prob, alias, q)
    for row in range(weights.shape[0]):
        assert np.all((prob[row] >= 0) & (prob[row] <= 1)) and np.all((alias[row] >= 0) & (alias[row] < n_topics))
        drawn = prob[row].copy()
        np.add.at(drawn, alias[row], 1.0 - prob[row])
        assert np.allclose(drawn / n_topics, weights[row] / weights[row].sum(), rtol=0, atol=1e-13)
