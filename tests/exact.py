"""Exact answers for tiny problems, written independently of the package's kernels.

Enumerated posteriors over every assignment Z, and a chi-square goodness-of-fit test with a
stated false-alarm rate, shared by the sampler tests.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy import stats
from scipy.special import gammaln

FALSE_ALARM = 1e-3  # probability that a correct sampler fails one goodness-of-fit test


def lda_log_joint(docs: list[list[int]], z: tuple, n_topics: int, n_words: int, alpha, beta: float) -> float:
    """log p(W, Z) of collapsed LDA by the textbook formula (symmetric beta; alpha a number or a
    (K,) vector), plain NumPy."""
    alpha = np.broadcast_to(np.asarray(alpha, dtype=float), (n_topics,))
    n_dk = np.zeros((len(docs), n_topics))
    n_kw = np.zeros((n_topics, n_words))
    i = 0
    for d, doc in enumerate(docs):
        for v in doc:
            n_dk[d, z[i]] += 1
            n_kw[z[i], v] += 1
            i += 1
    a_sum, v_beta = alpha.sum(), n_words * beta
    total = np.sum(gammaln(a_sum) - gammaln(n_dk.sum(1) + a_sum))
    total += np.sum(gammaln(n_dk + alpha) - gammaln(alpha))
    total += np.sum(gammaln(v_beta) - gammaln(n_kw.sum(1) + v_beta))
    total += np.sum(gammaln(n_kw + beta) - gammaln(beta))
    return float(total)


def token_arrays(docs: list[list[int]]):
    """(word_ids int32, doc_ptr int64) of a list of documents of word ids."""
    word_ids = np.array([v for doc in docs for v in doc], np.int32)
    doc_ptr = np.concatenate(([0], np.cumsum([len(d) for d in docs]))).astype(np.int64)
    return word_ids, doc_ptr


def zbar_of(docs: list[list[int]], z: tuple, n_topics: int) -> np.ndarray:
    out = np.zeros((len(docs), n_topics))
    i = 0
    for d, doc in enumerate(docs):
        for _ in doc:
            out[d, z[i]] += 1.0 / len(doc)
            i += 1
    return out


def all_states(n_tokens: int, n_topics: int) -> list[tuple]:
    return list(itertools.product(range(n_topics), repeat=n_tokens))


def normalize_log(logp: np.ndarray) -> np.ndarray:
    p = np.exp(logp - logp.max())
    return p / p.sum()


def chi_square_pvalue(observed: np.ndarray, probs: np.ndarray, min_expected: float = 5.0) -> float:
    """Pearson chi-square p-value of counts against probabilities; bins with expected counts below
    ``min_expected`` are pooled into one."""
    n = observed.sum()
    expected = probs * n
    small = expected < min_expected
    obs = np.append(observed[~small], observed[small].sum())
    exp = np.append(expected[~small], expected[small].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    return float(stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue)


def state_index(z: np.ndarray, n_topics: int) -> int:
    """Index of assignment z in ``all_states`` order (base-K digits, first token most significant)."""
    idx = 0
    for k in z:
        idx = idx * n_topics + int(k)
    return idx
