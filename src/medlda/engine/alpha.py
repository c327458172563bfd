"""A learned, asymmetric document-topic prior alpha (K,): Minka's fixed-point update from the
chain's doc-topic counts, in the histogram form of Wallach (2008), taken every few iterations
after a burn-in (Wallach, Mimno and McCallum 2009, "Rethinking LDA: why priors matter": words
that every document uses gather in a topic whose alpha is large, where they do no harm).

The update maximises the Dirichlet-multinomial likelihood of the counts n_dk given alpha,

    alpha_k <- alpha_k * sum_d [psi(n_dk + alpha_k) - psi(alpha_k)] / sum_d [psi(N_d + alpha_0) - psi(alpha_0)],

alpha_0 = sum_k alpha_k, iterated to its fixed point. The sums over documents are sums over the
distinct values of n_dk per topic (and of N_d), weighted by how many documents take each: the
histograms cost O(D K) to build once per update, and each step only O(distinct values).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import digamma

ALPHA_BURN_IN = 10  # the first update follows this iteration
ALPHA_EVERY = 5  # then one every this many iterations
ALPHA_FLOOR = 1e-6  # the least alpha_k: a topic that holds no tokens keeps a positive prior
MAX_STEPS = 1000  # fixed-point steps per update, at most
TOLERANCE = 1e-9  # an update stops once no alpha_k changes by more than this, relatively


@dataclass(frozen=True)
class CountHistograms:
    """The doc-topic counts as histograms: per topic the distinct non-zero counts (``topic``,
    ``count``) and how many documents hold each (``docs``); the distinct document lengths
    (``lengths``) and how many documents have each (``length_docs``)."""

    topic: np.ndarray
    count: np.ndarray
    docs: np.ndarray
    lengths: np.ndarray
    length_docs: np.ndarray
    n_topics: int

    @classmethod
    def of(cls, n_dk: np.ndarray, doc_lengths: np.ndarray) -> "CountHistograms":
        """The histograms of ``n_dk`` (D, K) and ``doc_lengths`` (D,)."""
        n_dk = np.asarray(n_dk)
        n_topics = n_dk.shape[1]
        width = int(n_dk.max(initial=0)) + 1
        keys = (np.arange(n_topics, dtype=np.int64) * width)[None, :] + n_dk.astype(np.int64)
        hist = np.bincount(keys.ravel(), minlength=n_topics * width).reshape(n_topics, width)
        hist[:, 0] = 0  # a zero count adds psi(alpha_k) - psi(alpha_k) = 0
        topic, count = np.nonzero(hist)
        lengths, length_docs = np.unique(np.asarray(doc_lengths, np.int64), return_counts=True)
        keep = lengths > 0
        return cls(topic, count.astype(np.float64), hist[topic, count].astype(np.float64),
                   lengths[keep].astype(np.float64), length_docs[keep].astype(np.float64), n_topics)


def minka_alpha(n_dk: np.ndarray, doc_lengths: np.ndarray, alpha: np.ndarray, max_steps: int = MAX_STEPS,
                tol: float = TOLERANCE) -> np.ndarray:
    """The alpha (K,) that maximises the likelihood of the doc-topic counts ``n_dk`` (D, K) of
    documents of ``doc_lengths`` (D,) under theta_d ~ Dirichlet(alpha): Minka's fixed point from
    ``alpha``, stopped when no component changes by more than ``tol`` relatively or after
    ``max_steps`` steps; every alpha_k at least ``ALPHA_FLOOR``. Deterministic."""
    hist = CountHistograms.of(n_dk, doc_lengths)
    alpha = np.maximum(np.asarray(alpha, np.float64).copy(), ALPHA_FLOOR)
    if hist.lengths.size == 0:
        return alpha
    for _ in range(max_steps):
        total = alpha.sum()
        denominator = float(np.dot(hist.length_docs, digamma(hist.lengths + total) - digamma(total)))
        a = alpha[hist.topic]
        numerator = np.bincount(hist.topic, weights=hist.docs * (digamma(hist.count + a) - digamma(a)),
                                minlength=hist.n_topics)
        new = np.maximum(alpha * numerator / denominator, ALPHA_FLOOR)
        change = float(np.max(np.abs(new - alpha) / alpha))
        alpha = new
        if change <= tol:
            break
    return alpha


@dataclass(frozen=True)
class AlphaOptimizer:
    """When the training loop updates alpha: after iteration ``burn_in`` and every ``every``
    iterations from then on, each time to the fixed point of ``minka_alpha`` from the chain's
    current counts."""

    burn_in: int = ALPHA_BURN_IN
    every: int = ALPHA_EVERY

    def due(self, iteration: int) -> bool:
        """Whether alpha is updated after ``iteration`` (1-based)."""
        return iteration >= self.burn_in and (iteration - self.burn_in) % self.every == 0

    def update(self, chain) -> np.ndarray:
        """The new alpha (K,) of ``chain`` (a ``ChainState`` whose n_dk is current)."""
        return minka_alpha(chain.n_dk, chain.doc_lengths, chain.alpha)
