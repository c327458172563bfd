"""The exact posterior of two-topic LDA on corpora too long to enumerate token by token: one
document's marginal, and independent draws of every assignment.

With K = 2 the collapsed joint p(W, Z) depends on Z only through, per document d and word v, the
number c_dv of d's tokens of v in topic 0: prod_v C(m_dv, c_dv) assignments share a
configuration, the document factor reads n_d0 = sum_v c_dv, and the topic-word factor reads the
corpus totals T_v = sum_d c_dv. Summing the documents out one at a time over the vector of
partial totals (a convolution in log space, a forward pass) costs O(D x prod_v (M_v + 1) x
prod_v (m_dv + 1)) where enumerating Z costs 2^N; the same messages, read backwards, draw Z
exactly. A supervised factor that reads n_d0 only (a fixed classifier and augmentation) is one
more per-document term. Plain NumPy and SciPy: nothing here uses the package.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
from scipy.special import gammaln, logsumexp

# log factor of document d given its topic-0 counts n0 (an array): a supervised term
DocFactor = Callable[[int, np.ndarray], np.ndarray]


def doc_configurations(m_d: np.ndarray) -> np.ndarray:
    """(n, V) every c with 0 <= c_v <= m_dv: a document's topic-0 counts per word."""
    ranges = [range(int(m) + 1) for m in m_d]
    return np.array(list(itertools.product(*ranges)), dtype=np.int64).reshape(-1, m_d.size)


def shifted(shape: tuple[int, ...], c: np.ndarray) -> tuple[tuple[slice, ...], tuple[slice, ...]]:
    """Index pairs (high, low): high[T] pairs with low[T - c] for every T >= c in range."""
    return (tuple(slice(int(cv), n) for cv, n in zip(c, shape)),
            tuple(slice(0, n - int(cv)) for cv, n in zip(c, shape)))


class TwoTopicPosterior:
    """p(Z | W) of two-topic LDA with symmetric priors ``alpha`` and ``beta``, times
    ``doc_factor(d, n_d0)`` per document when given."""

    def __init__(self, docs: list[list[int]], n_words: int, alpha: float, beta: float,
                 doc_factor: DocFactor | None = None):
        self.docs = [np.asarray(doc, dtype=np.int64) for doc in docs]
        self.m = np.array([np.bincount(doc, minlength=n_words) for doc in self.docs], dtype=np.int64)
        self.alpha, self.beta, self.doc_factor = float(alpha), float(beta), doc_factor
        self.shape = tuple(int(x) + 1 for x in self.m.sum(axis=0))
        self.configs = [doc_configurations(m_d) for m_d in self.m]
        self.log_weights = [self._doc_log_weights(d) for d in range(len(self.docs))]
        self.log_g = self._topic_word_log_factor()
        self._messages: list[np.ndarray] | None = None

    def _doc_log_weights(self, d: int) -> np.ndarray:
        """log of (the number of assignments with these counts) x Gamma(n_d0 + alpha) x
        Gamma(n_d1 + alpha) x the supervised factor, per configuration (constants dropped)."""
        m_d, c = self.m[d], self.configs[d]
        n0 = c.sum(axis=1)
        logw = np.sum(gammaln(m_d + 1) - gammaln(c + 1) - gammaln(m_d - c + 1), axis=1)
        logw = logw + gammaln(n0 + self.alpha) + gammaln(int(m_d.sum()) - n0 + self.alpha)
        if self.doc_factor is not None:
            logw = logw + self.doc_factor(d, n0)
        return logw

    def _topic_word_log_factor(self) -> np.ndarray:
        """log prod_k [prod_v Gamma(n_kv + beta)] / Gamma(n_k + V beta) over every vector of
        topic-0 totals T (topic 1 holds M_v - T_v)."""
        v_beta = len(self.shape) * self.beta
        grids = np.meshgrid(*(np.arange(n) for n in self.shape), indexing="ij")
        t0, total = sum(grids), sum(n - 1 for n in self.shape)
        out = -gammaln(t0 + v_beta) - gammaln(total - t0 + v_beta)
        for g, n in zip(grids, self.shape):
            out = out + gammaln(g + self.beta) + gammaln(n - 1 - g + self.beta)
        return out

    def _add_doc(self, acc: np.ndarray, d: int) -> np.ndarray:
        """The log-space convolution of ``acc`` (over partial totals) with document d's weights."""
        out = np.full(self.shape, -np.inf)
        for c, lw in zip(self.configs[d], self.log_weights[d]):
            high, low = shifted(self.shape, c)
            np.logaddexp(out[high], acc[low] + lw, out=out[high])
        return out

    def _start(self) -> np.ndarray:
        acc = np.full(self.shape, -np.inf)
        acc[(0,) * len(self.shape)] = 0.0
        return acc

    def messages(self) -> list[np.ndarray]:
        """messages[j]: log weight of documents 0..j-1 by their topic-0 totals (j = 0..D)."""
        if self._messages is None:
            acc = [self._start()]
            for d in range(len(self.docs)):
                acc.append(self._add_doc(acc[-1], d))
            self._messages = acc
        return self._messages

    def doc_marginal(self, doc: int) -> np.ndarray:
        """p(n_{doc,0} = n | W) for n = 0..N_doc: the probability that n of the document's tokens
        are in topic 0."""
        last = len(self.docs) - 1
        if doc == last:
            rest = self.messages()[last]
        else:
            rest = self._start()
            for d in range(len(self.docs)):
                if d != doc:
                    rest = self._add_doc(rest, d)
        configs, logw = self.configs[doc], self.log_weights[doc]
        logp = np.empty(len(configs))
        for i, c in enumerate(configs):
            high, low = shifted(self.shape, c)
            logp[i] = logw[i] + logsumexp(rest[low] + self.log_g[high])
        p = np.exp(logp - logsumexp(logp))
        return np.bincount(configs.sum(axis=1), weights=p, minlength=int(self.m[doc].sum()) + 1)

    def draws(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """(n, N) independent exact draws of Z (topics of the tokens, documents concatenated):
        the corpus totals from their marginal, then each document's configuration given the totals
        left, last document first, then which of its tokens of each word hold topic 0."""
        messages = self.messages()
        totals = np.array(np.unravel_index(categorical(rng, (messages[-1] + self.log_g).ravel()[None, :], n),
                                           self.shape), dtype=np.int64).T  # (n, V)
        z = []
        for d in range(len(self.docs) - 1, -1, -1):
            configs = self.configs[d]
            rest = totals[:, None, :] - configs[None, :, :]  # (n, configs, V)
            ok = np.all(rest >= 0, axis=2)
            logp = np.full(ok.shape, -np.inf)
            logp[ok] = (self.log_weights[d][None, :] + np.zeros(ok.shape))[ok] + messages[d][tuple(rest[ok].T)]
            c = configs[categorical(rng, logp, n)]  # (n, V)
            totals = totals - c
            z_d = np.ones((n, self.docs[d].size), np.int32)
            for v in range(c.shape[1]):
                at = np.flatnonzero(self.docs[d] == v)
                rank = np.argsort(np.argsort(rng.random((n, at.size)), axis=1), axis=1)
                z_d[:, at] = np.where(rank < c[:, v:v + 1], 0, 1)
            z.append(z_d)
        return np.concatenate(z[::-1], axis=1)


def categorical(rng: np.random.Generator, logp: np.ndarray, n: int) -> np.ndarray:
    """n draws of an index, row i of ``logp`` (unnormalised log probabilities; one row serves all
    draws) the distribution of draw i."""
    p = np.exp(logp - logsumexp(logp, axis=1, keepdims=True))
    cdf = np.cumsum(p, axis=1)
    u = rng.random(n) * cdf[:, -1]
    return np.minimum((cdf < u[:, None]).sum(axis=1), logp.shape[1] - 1)
