"""The local backend: one chain in this process, swept by one sampler (on its own threads)."""

from __future__ import annotations

import numpy as np

from medlda.engine.aux import draw_aux
from medlda.engine.checkpoint import CheckpointError, Snapshot
from medlda.engine.loop import Supervision
from medlda.engine.state import ChainArrays, ChainState
from medlda.samplers import Sampler


class LocalBackend:
    """Each iteration: the aux from omega (on ``n_jobs`` threads), one sweep of ``sampler`` over
    ``state``, eta drawn by the sampler (which returns omega for the eta it drew, so the next aux
    needs no zbar)."""

    def __init__(self, state: ChainState, sampler: Sampler, n_jobs: int = 1):
        self.state = state
        self.sampler = sampler
        self.n_jobs = n_jobs
        self.n_tokens = state.word_ids.size
        self.omega = None

    @classmethod
    def initialize(cls, word_ids: np.ndarray, doc_ptr: np.ndarray, n_words: int, n_topics: int,
                   alpha: np.ndarray, beta: float, sampler: Sampler, rng: np.random.Generator,
                   snapshot: Snapshot | None = None, n_jobs: int = 1) -> "LocalBackend":
        """A chain with uniformly random assignments drawn from ``rng``, then, given a
        checkpoint's ``snapshot``, its assignments, streams and the sampler's arrays."""
        backend = cls(ChainState.initialize(word_ids, doc_ptr, n_words, n_topics, alpha, beta, rng), sampler,
                      n_jobs)
        if snapshot is not None:
            backend.restore(snapshot)
        return backend

    def restore(self, snapshot: Snapshot) -> None:
        state = self.state
        if snapshot.z.shape != state.z.shape or snapshot.streams.shape != state.streams.shape:
            raise CheckpointError(f"{snapshot.path}: checkpoint arrays do not match the corpus")
        state.z[:] = snapshot.z
        state.streams[:] = snapshot.streams
        state.refresh_counts()
        if snapshot.sampler_arrays:
            try:
                self.sampler.restore_chain_arrays(state, snapshot.sampler_arrays)
            except (ValueError, KeyError) as exc:
                raise CheckpointError(f"{snapshot.path}: the sampler's arrays in the checkpoint do not fit "
                                      f"({exc})") from None

    def start(self, supervision: Supervision | None) -> None:
        self.omega = None if supervision is None else self.state.omega(supervision.eta)

    def iterate(self, iteration: int, supervision: Supervision | None, rng: np.random.Generator,
                measure_log_joint: bool) -> np.ndarray | None:
        state, sampler = self.state, self.sampler
        if supervision is None:
            n_docs, n_topics = state.n_dk.shape
            sampler.sweep(state, np.zeros((0, n_topics)), np.zeros((n_docs, 0)), np.zeros((n_docs, 0)), rng)
            return None
        kappa, w = draw_aux(supervision.loss, self.omega, supervision.targets, rng, self.n_jobs)
        sampler.sweep(state, supervision.eta, kappa, w, rng)
        supervision.eta, self.omega = sampler.draw_eta(state, supervision.eta, kappa, w, supervision.nu, rng,
                                                       supervision.n_supervised)
        return self.omega

    def set_alpha(self, alpha: np.ndarray) -> None:
        """The chain's doc-topic prior from its next sweep on (the samplers read ``state.alpha``
        afresh each sweep)."""
        self.state.alpha = np.array(alpha, dtype=np.float64)

    def log_joint(self) -> float:
        return self.chain().log_joint()

    def chain(self) -> ChainState:
        self.sampler.sync(self.state)
        return self.state

    def chain_arrays(self) -> ChainArrays:
        return ChainArrays(self.state.z, self.state.streams, [], self.sampler.chain_arrays(self.state))

    def stats(self) -> dict:
        return {}
