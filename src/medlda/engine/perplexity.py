"""Mixing measures of a chain (docs/mathematics.md §9): held-out perplexity by document completion.

The log joint is ``ChainState.log_joint``; this module holds the completion split (each
held-out document's tokens shuffled and halved) and a measure that scores a chain's current
topics on a fixed split, so that perplexities of successive iterations, and of different
samplers given the same seed, are comparable.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from medlda._kernels.measures import completion_log_likelihood
from medlda.samplers import ExactGibbs


@dataclass(frozen=True)
class CompletionSplit:
    """Held-out documents halved: theta is inferred from the first halves (``first_ids``,
    ``first_ptr``), the second halves (``second_ids``, ``second_ptr``) are scored."""

    first_ids: np.ndarray
    first_ptr: np.ndarray
    second_ids: np.ndarray
    second_ptr: np.ndarray

    @classmethod
    def draw(cls, word_ids: np.ndarray, doc_ptr: np.ndarray, rng: np.random.Generator) -> "CompletionSplit":
        """Shuffle each document's tokens (one uniform per token from ``rng``), first half of
        floor(N_d / 2) tokens for inference, the rest scored. Vectorized, no loop per token."""
        lengths = np.diff(doc_ptr)
        keys = rng.random(word_ids.size) + np.repeat(np.arange(lengths.size), lengths)
        order = np.argsort(keys, kind="stable")  # shuffles tokens within each document
        first = lengths // 2
        rank = np.arange(word_ids.size) - np.repeat(doc_ptr[:-1], lengths)
        in_first = rank < np.repeat(first, lengths)
        shuffled = word_ids[order]
        return cls(shuffled[in_first], np.concatenate(([0], np.cumsum(first))).astype(np.int64),
                   shuffled[~in_first], np.concatenate(([0], np.cumsum(lengths - first))).astype(np.int64))

    def perplexity(self, phi_wk: np.ndarray, alpha: np.ndarray, sampler, n_burn: int, n_avg: int,
                   rng: np.random.Generator, n_jobs: int = 1) -> float:
        """exp(-sum log sum_k theta_dk phi_kw / #scored tokens), theta inferred by
        ``sampler.infer`` (on ``n_jobs`` threads) from the first halves with phi (V, K) fixed
        (docs/mathematics.md §7, §9)."""
        first = np.diff(self.first_ptr)
        counts = sampler.infer(self.first_ids, self.first_ptr, phi_wk, alpha, n_burn, n_avg, rng, n_jobs)
        theta = (counts + alpha) / (first + alpha.sum())[:, None]
        total = completion_log_likelihood(self.second_ids, self.second_ptr, theta, phi_wk)
        return float(np.exp(-total / max(self.second_ptr[-1], 1)))


class HeldoutPerplexity:
    """A per-iteration measure for ``loop.train``: the completion perplexity of fixed
    held-out documents under the chain's current point estimate phi = (n_kw + beta) / (n_k +
    V beta). It draws from its own generator, so measuring never changes the chain."""

    def __init__(self, word_ids: np.ndarray, doc_ptr: np.ndarray, sampler, n_burn: int, n_avg: int,
                 rng: np.random.Generator):
        self.split = CompletionSplit.draw(word_ids, doc_ptr, rng)
        self.sampler = sampler
        self.n_burn = n_burn
        self.n_avg = n_avg
        self.rng = rng

    def __call__(self, state) -> dict:
        """{"perplexity": ...} for the chain ``state`` (a ``ChainState``)."""
        phi_wk = (state.n_wk + state.beta) / (state.n_k + state.vbeta)[None, :]
        return {"perplexity": self.split.perplexity(phi_wk, state.alpha, self.sampler, self.n_burn,
                                                    self.n_avg, self.rng)}


def completion_perplexity(word_ids: np.ndarray, doc_ptr: np.ndarray, phi_wk: np.ndarray,
                          alpha: np.ndarray, n_burn: int, n_avg: int, rng: np.random.Generator,
                          sampler=None, n_jobs: int = 1) -> float:
    """Perplexity by document completion: infer theta (on ``n_jobs`` threads) from a random half
    of each document's tokens, score the other half: exp(-sum log sum_k theta_dk phi_kw / #scored
    tokens)."""
    split = CompletionSplit.draw(word_ids, doc_ptr, rng)
    sampler = ExactGibbs() if sampler is None else sampler
    return split.perplexity(phi_wk, alpha, sampler, n_burn, n_avg, rng, n_jobs)
