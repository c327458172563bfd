"""Inference of new documents at the estimators' default sweeps, against the enumerated posterior
of a document whose start (z_i ~ theta_k phi_kw, theta from a few fixed-point passes) is not the
posterior: the default burn-in leaves no start bias that 20,000 chains can see, and the default
average has the posterior mean. Each check is a z-test per topic at ``exact.FALSE_ALARM`` in all,
and each is shown to reject what it should (no burn-in; the posterior under another alpha)."""

from __future__ import annotations

import numpy as np
from scipy import stats
from scipy.special import gammaln

from exact import FALSE_ALARM, all_states, normalize_log
from medlda.models.params import PARAMS
from medlda.samplers import ExactGibbs

N_TOPICS = 3
# word 0 is as likely under topic 0 as under topic 1, word 1 only under topic 1: the posterior puts
# the word-0 tokens with the word-1 tokens in topic 1 (0.29 tokens in topic 0 on average), the
# start about 0.46
PHI = np.array([[0.45, 0.45, 0.01],
                [0.05, 0.50, 0.04],
                [0.50, 0.05, 0.95]])  # (V, K): each topic's column sums to 1
ALPHA = np.full(N_TOPICS, 0.1)
DOC = [0, 0, 0, 0, 1, 1]
BURN = PARAMS["n_infer_burn"].default
AVG = PARAMS["n_infer_avg"].default


def posterior_mean(alpha: np.ndarray) -> np.ndarray:
    """E[n_dk] of DOC given PHI, from all K^N assignments: prod_i phi_{w_i z_i} times the
    Dirichlet-multinomial of the counts."""
    states = np.array(all_states(len(DOC), N_TOPICS))
    counts = np.stack([np.bincount(z, minlength=N_TOPICS) for z in states])
    logp = np.log(PHI[DOC, :][np.arange(len(DOC)), states]).sum(axis=1)
    logp += gammaln(counts + alpha).sum(axis=1)
    return normalize_log(logp) @ counts


def chains(n_copies: int, n_burn: int, n_avg: int, seed: int) -> np.ndarray:
    """Each copy of DOC its own chain (independent streams): the estimated counts (n_copies, K)."""
    word_ids = np.array(DOC * n_copies, np.int32)
    doc_ptr = np.arange(0, len(DOC) * n_copies + 1, len(DOC), dtype=np.int64)
    return ExactGibbs().infer(word_ids, doc_ptr, PHI, ALPHA, n_burn, n_avg, np.random.default_rng(seed))


def off_by(est: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """|mean estimate - posterior mean| / its standard error, per topic."""
    return np.abs(est.mean(axis=0) - posterior_mean(alpha)) / (est.std(axis=0) / np.sqrt(len(est)))


BOUND = stats.norm.isf(FALSE_ALARM / (2 * N_TOPICS))  # two-sided, Bonferroni over the topics


def test_default_burn_in_leaves_no_start_bias():
    """20,000 chains of the default burn-in, then one averaged sweep: the mean estimate is the
    posterior mean; with no burn-in the same test sees the start."""
    assert np.all(off_by(chains(20_000, BURN, 1, seed=1), ALPHA) < BOUND)
    assert np.any(off_by(chains(20_000, 0, 1, seed=1), ALPHA) > BOUND)


def test_default_average_has_the_posterior_mean():
    """2,000 chains at the default sweeps (what transform runs for each document): each estimate
    sums to N_d and their mean is the posterior mean; the posterior under 3 alpha is rejected."""
    est = chains(2_000, BURN, AVG, seed=2)
    np.testing.assert_allclose(est.sum(axis=1), len(DOC))
    assert np.all(off_by(est, ALPHA) < BOUND)
    assert np.any(off_by(est, 3 * ALPHA) > BOUND)
