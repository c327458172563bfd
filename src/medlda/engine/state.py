"""The chain state: token arrays, topic assignments and their counts (flat arrays shared with the
kernels), and the sampler's per-chain cache."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from medlda._kernels.counts import fill_counts
from medlda._kernels.eta import columns_omega, topic_columns_from_counts
from medlda._kernels.measures import log_joint
from medlda._kernels.rng import make_streams


class ChainArrays(NamedTuple):
    """What a checkpoint keeps of a chain: z (N,), the kernels' streams, the distributed
    workers' generator states (none for a local chain) and the sampler's own arrays
    (``Sampler.chain_arrays``); the counts follow from z."""

    z: np.ndarray
    streams: np.ndarray
    worker_rng_states: list[dict]
    sampler_arrays: dict[str, np.ndarray]


@dataclass
class ChainState:
    """One chain: tokens (``word_ids``, ``doc_ptr``), assignments ``z``, counts ``n_dk`` (D, K),
    ``n_wk`` (V, K), ``n_k`` (K,), the priors and the kernels' random streams.

    A sampler may leave ``n_dk`` and ``n_wk`` behind z during its sweeps (the collapsed light
    sampler keeps n_kw in hashes); ``Sampler.sync`` brings them up to date, and the training loop
    calls it before anything reads them. ``cache`` is the sampler's own per-chain cache (tables,
    scratch, schedules): it belongs to this chain, and setting the counts from outside a sweep
    (``refresh_counts``, ``set_counts``) drops it."""

    word_ids: np.ndarray
    doc_ptr: np.ndarray
    z: np.ndarray
    n_dk: np.ndarray
    n_wk: np.ndarray
    n_k: np.ndarray
    alpha: np.ndarray
    beta: float
    streams: np.ndarray
    cache: object | None = field(default=None, repr=False, compare=False)

    @classmethod
    def initialize(cls, word_ids: np.ndarray, doc_ptr: np.ndarray, n_words: int, n_topics: int,
                   alpha: np.ndarray, beta: float, rng: np.random.Generator) -> "ChainState":
        """Uniformly random assignments and their counts."""
        z = rng.integers(0, n_topics, size=word_ids.size).astype(np.int32)
        n_docs = doc_ptr.size - 1
        state = cls(word_ids, doc_ptr, z, np.zeros((n_docs, n_topics), np.int32),
                    np.zeros((n_words, n_topics), np.int32), np.zeros(n_topics, np.int64),
                    np.asarray(alpha, dtype=np.float64), float(beta), make_streams(rng, n_docs))
        state.refresh_counts()
        return state

    def refresh_counts(self) -> None:
        """All counts recomputed from z (the sampler's cache is dropped)."""
        fill_counts(self.word_ids, self.doc_ptr, self.z, self.n_dk, self.n_wk, self.n_k)
        self.cache = None

    def set_counts(self, n_wk: np.ndarray, n_k: np.ndarray) -> None:
        """Topic-word counts overwritten (a distributed driver's counts of the whole corpus; the
        sampler's cache is dropped)."""
        self.n_wk[:] = n_wk
        self.n_k[:] = n_k
        self.cache = None

    @property
    def doc_lengths(self) -> np.ndarray:
        return np.diff(self.doc_ptr)

    @property
    def vbeta(self) -> float:
        return self.n_wk.shape[0] * self.beta

    def zbar(self) -> np.ndarray:
        """Normalized topic counts per document (D, K)."""
        return self.n_dk / np.maximum(self.doc_lengths, 1)[:, None]

    def topic_columns(self) -> tuple:
        """zbar as sparse topic columns (ptr, doc, value), read from n_dk: what the eta draw and
        ``omega`` work on, O(DK) to build and O(nnz) to use."""
        return topic_columns_from_counts(self.n_dk, self.doc_lengths)

    def omega(self, eta: np.ndarray, columns: tuple | None = None) -> np.ndarray:
        """The discriminants omega = zbar @ eta.T (D, T), always summed the same way (a resumed
        run must draw the same aux as an uninterrupted one)."""
        columns = self.topic_columns() if columns is None else columns
        return columns_omega(*columns, np.asarray(eta, dtype=np.float64), self.n_dk.shape[0])

    def log_joint(self) -> float:
        """log p(W, Z) with theta and phi collapsed (docs/mathematics.md §9)."""
        return float(log_joint(self.n_dk, self.n_wk, self.n_k, self.doc_lengths, self.alpha, self.beta))
