"""The worker side of data-parallel training on Ray (``engine.ray``): a document shard's sampler
state as a Ray actor, and the sparse or dense form of the topic-word count changes it exchanges
with the driver."""

from __future__ import annotations

import os
import resource

import numpy as np

from medlda._kernels.measures import log_joint
from medlda.engine.state import ChainState
from medlda.samplers.eta import count_statistics


class ShardWorker:
    """One document shard and its sampler state (a Ray actor; plain class so it can be tested)."""

    def __init__(self, source, doc_ptr: np.ndarray, z: np.ndarray, streams: np.ndarray, n_words: int,
                 n_topics: int, alpha: np.ndarray, beta: float, sampler, loss, targets, rng_state: dict):
        word_ids = _open_tokens(source)
        # writable arrays (Ray hands out read-only ones): numba compiles kernels per writability
        self.state = ChainState.initialize(word_ids, np.array(doc_ptr), n_words, n_topics, np.array(alpha),
                                             beta, np.random.default_rng(0))
        self.state.z[:] = z
        self.state.streams[:] = streams
        self.state.refresh_counts()
        self.sampler = sampler
        self.loss = loss
        self.targets = targets
        self.rng = np.random.default_rng()
        self.rng.bit_generator.state = rng_state
        self.omega = None
        self.n_wk = None  # this worker's copy of the global topic-word counts (collapsed schemes)

    def set_eta(self, eta: np.ndarray, want_omega: bool):
        """Keep omega = zbar eta^T of this shard (the next aux draw needs it); return it if asked."""
        self.omega = self.state.zbar() @ np.asarray(eta).T
        return self.omega if want_omega else None

    def step(self, eta: np.ndarray, phi_or_counts, measure_log_joint: bool) -> dict:
        """Aux draw, one sweep of the shard, and what the driver reduces: count changes (sparse or
        dense), n_k changes, classifier statistics, and the shard's part of the log joint.
        ``phi_or_counts``: phi (V, K), or the global counts as a dict with ``n_k`` and either
        ``n_wk`` (all of them) or the summed change of all shards since the last step (the
        :func:`compress_change` encoding), which this worker adds to its copy."""
        state = self.state
        n_docs, n_topics = state.n_dk.shape
        eta = np.array(eta)  # writable copies: the kernels are compiled for writable arrays
        if self.loss is None:
            eta, kappa, w = np.zeros((0, n_topics)), np.zeros((n_docs, 0)), np.zeros((n_docs, 0))
        else:
            kappa, w = self.loss.draw_aux(self.omega, self.targets, self.rng)
            kappa, w = np.ascontiguousarray(kappa), np.ascontiguousarray(w)
        if isinstance(phi_or_counts, np.ndarray):  # phi (V, K): exact partially collapsed sweep
            before = state.n_wk.copy()
            before_k = state.n_k.copy()
            self.sampler.sweep(state, eta, kappa, w, self.rng, phi_wk=np.array(phi_or_counts))
        else:  # the global counts: sweep against them (the sweep changes state's copy, not self.n_wk)
            if "n_wk" in phi_or_counts:
                self.n_wk = np.array(phi_or_counts["n_wk"])  # writable: Ray hands out read-only arrays
            else:
                merge_change(self.n_wk, phi_or_counts)
            before, before_k = self.n_wk, phi_or_counts["n_k"]
            state.set_counts(before, before_k)
            self.sampler.sweep(state, eta, kappa, w, self.rng)
        self.sampler.sync(state)
        delta = state.n_wk - before
        out = {"n_k": state.n_k - before_k, **compress_change(delta)}
        if self.loss is not None:
            out["gram"], out["linear"] = count_statistics(state.n_dk, state.doc_lengths, kappa, w)
        if measure_log_joint:
            out["log_joint"] = float(log_joint(state.n_dk, np.zeros((1, n_topics), state.n_wk.dtype),
                                               np.zeros(n_topics, state.n_k.dtype), state.doc_lengths,
                                               state.alpha, state.beta))
        return out

    def ready(self) -> bool:
        """True once the worker is built (its process started, medlda imported, kernels loaded)."""
        return True

    def snapshot(self) -> tuple:
        """(z, streams, generator state) of the shard."""
        return self.state.z, self.state.streams, self.rng.bit_generator.state

    def peak_rss(self) -> int:
        """Peak resident memory of this worker process, in bytes."""
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

    def pid(self) -> int:
        """The id of this worker's process (to watch or stop it from outside)."""
        return os.getpid()


def _open_tokens(source) -> np.ndarray:
    if isinstance(source, tuple):  # (file, first token, end token): the worker maps its own slice
        path, start, end = source
        return np.load(path, mmap_mode="c", allow_pickle=False)[start:end]
    return np.array(source, dtype=np.int32)  # a writable copy; Ray frees its own after the constructor


def compress_change(delta: np.ndarray) -> dict:
    """A count change as flat indices and values when that is smaller than the dense array."""
    flat = delta.reshape(-1)
    nz = np.flatnonzero(flat)
    if nz.size * 12 < flat.nbytes:
        return {"index": nz, "values": flat[nz]}
    return {"dense": delta}


def merge_change(n_wk: np.ndarray, change: dict) -> None:
    """Add a worker's count change (from :func:`compress_change`, dense or sparse) to ``n_wk`` in place."""
    if "dense" in change:
        n_wk += change["dense"]
    else:
        n_wk.reshape(-1)[change["index"]] += change["values"]


def sum_changes(changes: list[dict], like: np.ndarray) -> dict:
    """The sum of count changes (each from :func:`compress_change`) of arrays shaped as ``like``,
    in the same encoding: 12 bytes per changed cell, or dense when that is not smaller. Work in
    the changed cells when all of them are sparse."""
    if any("dense" in change for change in changes):
        total = np.zeros_like(like)
        for change in changes:
            merge_change(total, change)
        return compress_change(total)
    index = np.concatenate([change["index"] for change in changes])
    values = np.concatenate([change["values"] for change in changes]).astype(like.dtype, copy=False)
    if index.size:
        order = np.argsort(index, kind="stable")
        index, values = index[order], values[order]
        first = np.flatnonzero(np.r_[True, index[1:] != index[:-1]])
        index, values = index[first], np.add.reduceat(values, first, dtype=like.dtype)
        index, values = index[values != 0], values[values != 0]
    if index.size * 12 < like.nbytes:
        return {"index": index, "values": values}
    dense = np.zeros(like.size, like.dtype)
    dense[index] = values
    return {"dense": dense.reshape(like.shape)}
