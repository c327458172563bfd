"""Inference of new documents against a fixed phi: the prior buckets hold alpha_k phi_kv exactly,
and the chains, through both their sweeps (over all K topics and over the topics in use) and their
averaging over several chains, target the enumerated posterior. The estimator's single-chain
case (n_avg = 1) is also tested in test_light.py."""

from __future__ import annotations

import numpy as np
from scipy import stats
from scipy.special import gammaln

from exact import FALSE_ALARM, all_states, chi_square_pvalue
from medlda._kernels.inference import DENSE_SHARE, prior_tables, sparse_infer_doc_topic
from medlda._kernels.rng import make_streams
from medlda.samplers import ExactGibbs

N_TOPICS = 10  # a sweep is dense above N_TOPICS // DENSE_SHARE = 2 topics in use: both kinds run
DOC = [0, 1, 1, 4, 3]
N_COPIES = 20000


def _phi_wk(seed: int = 0, n_words: int = 6, beta: float = 0.05) -> np.ndarray:
    """A point estimate (n_kv + beta) / (n_k + V beta) from sparse counts, word-major (V, K)."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 6, size=(N_TOPICS, n_words)) * (rng.random((N_TOPICS, n_words)) < 0.4)
    counts[:, 0] += 3 * (np.arange(N_TOPICS) < 2)  # word 0 belongs to topics 0 and 1
    return ((counts + beta) / (counts.sum(axis=1, keepdims=True) + n_words * beta)).T.copy()


PHI = _phi_wk()
ALPHA = np.linspace(0.05, 0.3, N_TOPICS)


def _posterior(phi: np.ndarray, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every topic-count vector of DOC and its posterior probability: prod_i phi_{w_i z_i} times
    the Dirichlet-multinomial of the counts, summed over the assignments that give it."""
    states = np.array(all_states(len(DOC), N_TOPICS))
    logp = np.log(phi[DOC, :][np.arange(len(DOC)), states]).sum(axis=1)
    counts = np.stack([np.bincount(z, minlength=N_TOPICS) for z in states])
    logp += (gammaln(counts + alpha) - gammaln(alpha)).sum(axis=1)
    keys, inverse = np.unique(counts, axis=0, return_inverse=True)
    probs = np.bincount(inverse.ravel(), weights=np.exp(logp - logp.max()))
    return keys, probs / probs.sum()


def _copies():
    word_ids = np.array(DOC * N_COPIES, np.int32)
    return word_ids, np.arange(0, len(DOC) * N_COPIES + 1, len(DOC), dtype=np.int64)


def test_prior_buckets_hold_alpha_phi_exactly():
    """Smooth weight plus word entries give alpha_k phi_kv back; a word has an entry only where
    its count is non-zero; each word's alias table draws exactly its entries' weights."""
    assert N_TOPICS // DENSE_SHARE >= 2
    words, smooth = prior_tables(PHI, ALPHA)
    rebuilt = np.tile(smooth.weight, (PHI.shape[0], 1))
    for v in range(PHI.shape[0]):
        lo, hi = words.ptr[v], words.ptr[v + 1]
        rebuilt[v, words.topic[lo:hi]] += words.weight[lo:hi]
        assert np.isclose(words.mass[v], words.weight[lo:hi].sum())
        drawn = words.prob[lo:hi].copy()
        np.add.at(drawn, words.alias[lo:hi], 1.0 - words.prob[lo:hi])
        assert np.allclose(drawn / (hi - lo), words.weight[lo:hi] / words.mass[v], rtol=0, atol=1e-13)
    np.testing.assert_allclose(rebuilt, ALPHA * PHI, rtol=1e-12)
    assert np.array_equal(np.diff(words.ptr), (PHI > PHI.min(axis=0)).sum(axis=1))
    assert np.isclose(smooth.mass, smooth.weight.sum())


def test_chains_of_dense_and_sparse_sweeps_match_the_enumerated_posterior():
    """20,000 independent chains of DOC (a start, 6 sweeps) against the enumerated posterior of its
    topic counts (p above the false-alarm rate), and against the posterior under 2 alpha (rejected:
    the test sees a wrong prior part, which the sparse sweeps draw from the buckets)."""
    word_ids, doc_ptr = _copies()
    out = np.zeros((N_COPIES, N_TOPICS))
    sparse_infer_doc_topic(word_ids, doc_ptr, PHI, ALPHA, *prior_tables(PHI, ALPHA), 5, 1,
                           make_streams(np.random.default_rng(6), N_COPIES), out, False)
    keys, probs = _posterior(PHI, ALPHA)
    index = {tuple(k): j for j, k in enumerate(keys)}
    observed = np.bincount([index[tuple(c)] for c in out.astype(int)], minlength=len(keys))
    assert chi_square_pvalue(observed, probs) > FALSE_ALARM
    assert chi_square_pvalue(observed, _posterior(PHI, 2 * ALPHA)[1]) < FALSE_ALARM


def test_mean_over_several_chains_is_the_posterior_mean():
    """What prediction reads with several chains (n_avg = 16: 4 to 16 chains of 8 + 1 sweeps,
    stopped by their standard error): each copy's estimate sums to N_d and their mean is the
    posterior mean of the counts of topics 0 and 1 (a z-test each at half the false-alarm rate);
    the posterior under 2 alpha is rejected."""
    word_ids, doc_ptr = _copies()
    est = ExactGibbs().infer(word_ids, doc_ptr, PHI, ALPHA, 8, 16, np.random.default_rng(7))
    np.testing.assert_allclose(est.sum(axis=1), len(DOC))
    bound = stats.norm.isf(FALSE_ALARM / 4) * est[:, :2].std(axis=0) / np.sqrt(N_COPIES)

    def off(alpha: np.ndarray) -> np.ndarray:
        keys, probs = _posterior(PHI, alpha)
        return np.abs(est[:, :2].mean(axis=0) - probs @ keys[:, :2])

    assert np.all(off(ALPHA) < bound)
    assert np.any(off(2 * ALPHA) > bound)
