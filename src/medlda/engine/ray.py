"""Data-parallel (DP) training on a Ray cluster (Zhu et al. 2013, docs/mathematics.md §4a and §5).

Workers (Ray actors) hold contiguous document shards: their tokens, assignments z, doc-topic
counts, the kernels' random streams and a NumPy generator for their documents' aux draws. Each
iteration the driver broadcasts eta and either phi ~ Dir(n_k. + beta) drawn from the global counts
(light, partial variant: exact, the documents are independent given phi) or what brings each
worker's copy of the global topic-word counts up to date (collapsed light, Gibbs: the approximate
distributed-LDA scheme): all of them in the first iteration of a backend (a run or a resumed
one), afterwards the sum of all workers' sparse count changes of the iteration before, so the
driver's work and traffic are in the changed cells, not V x K. Each worker draws the aux of its
documents from their omega, sweeps its shard, and returns its topic-word count changes and its
classifier statistics (docs/mathematics.md (4): sum_d w zbar zbar^T and sum_d kappa zbar per
task); the driver merges the changes, draws eta exactly from the summed statistics and
broadcasts it. ``RayBackend`` is a backend of the training loop (``engine.loop``),
which keeps the eta samples and the trace. Shards start at multiples of
DOCS_PER_STREAM documents, so every document keeps the kernel stream it has in a local run.
"""

from __future__ import annotations

import logging
import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import numpy as np

from medlda._kernels.measures import log_joint
from medlda._kernels.rng import DOCS_PER_STREAM, make_streams
from medlda.engine.checkpoint import Snapshot
from medlda.engine.loop import Supervision
from medlda.engine.ray_worker import ShardWorker, merge_change, sum_changes
from medlda.engine.state import ChainArrays, ChainState
from medlda.exceptions import MedLDAError
from medlda.limits import RAY_SECONDS
from medlda.samplers import Sampler
from medlda.samplers.eta import draw_eta_from_statistics
from medlda.samplers.light import draw_phi_wk

logger = logging.getLogger(__name__)
logger.addHandler(logging.NullHandler())


class WorkerLostError(MedLDAError, RuntimeError):
    """A Ray worker died or failed, so its document shard's state is gone and training stopped."""


def import_ray():
    """The ray module, or a MedLDAError saying how to install it."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        import ray
    except ImportError:
        raise MedLDAError("backend='ray' needs Ray: pip install 'medlda[ray]'") from None
    return ray


def shard_bounds(doc_ptr: np.ndarray, n_workers: int) -> list[tuple[int, int]]:
    """Contiguous document ranges, one per worker, cut at multiples of DOCS_PER_STREAM documents
    and balanced by tokens; fewer ranges than workers when there are fewer stream blocks."""
    n_docs = doc_ptr.size - 1
    starts = np.r_[np.arange(0, n_docs, DOCS_PER_STREAM), n_docs]  # where a cut may go
    tokens_at = doc_ptr[starts]
    targets = doc_ptr[-1] * np.arange(1, n_workers) / n_workers
    right = np.clip(np.searchsorted(tokens_at, targets), 1, starts.size - 1)
    left = right - 1
    nearer = np.where(np.abs(tokens_at[left] - targets) <= np.abs(tokens_at[right] - targets), left, right)
    cuts = starts[nearer]
    edges = np.unique(np.concatenate(([0], cuts, [n_docs])))
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:]) if b > a]


class RayBackend:
    """The driver side of data-parallel training: shards on Ray actors, global counts here.
    ``timeout``: the seconds every worker has to answer one round trip (None: no bound); a worker
    silent that long is lost, as a dead one is."""

    def __init__(self, ray, word_ids: np.ndarray, doc_ptr: np.ndarray, n_words: int, n_topics: int,
                 alpha: np.ndarray, beta: float, sampler: Sampler, supervision: Supervision | None, n_workers: int,
                 rng: np.random.Generator, mmap_file: str | None = None, snapshot: Snapshot | None = None,
                 timeout: float | None = None):
        self.ray = ray
        self.timeout = timeout
        self.n_words, self.n_topics = n_words, n_topics
        self.word_ids, self.doc_ptr = word_ids, doc_ptr
        self.n_tokens = word_ids.size
        self.alpha, self.beta = np.asarray(alpha, np.float64), float(beta)
        self.sampler = sampler
        self.exact = sampler.exact_given_phi
        self.cache = sampler.new_cache()  # the driver's part of the chain: the phi schedule
        self._phi_payload = None
        # the summed count change of the last iteration, which the workers add to their copies of the
        # global counts (collapsed schemes); None: they get all of the counts (the first iteration)
        self._change = None
        self._log_joint_parts = 0.0
        self.want_omega = supervision is not None and supervision.metric is not None
        # the same draws as ChainState.initialize, so a one-worker run starts like a local one
        z = rng.integers(0, n_topics, size=word_ids.size).astype(np.int32)
        streams = make_streams(rng, doc_ptr.size - 1)
        seeds = np.random.SeedSequence(int(rng.integers(0, 2**63))).spawn(n_workers)
        worker_states = [np.random.default_rng(s).bit_generator.state for s in seeds]
        self.bounds = shard_bounds(doc_ptr, n_workers)
        if snapshot is not None:
            z, streams = snapshot.z, snapshot.streams
            if len(snapshot.worker_rng_states) != len(self.bounds):
                raise MedLDAError(f"the checkpoint has {len(snapshot.worker_rng_states)} worker states, "
                                  f"this run {len(self.bounds)} shards")
            worker_states = snapshot.worker_rng_states
        self.n_wk = np.zeros((n_words, n_topics), np.int32)
        flat = self.n_wk.reshape(-1)
        for start in range(0, word_ids.size, 1 << 22):  # chunks: no O(tokens) int64 temporaries
            chunk = slice(start, start + (1 << 22))
            np.add.at(flat, word_ids[chunk].astype(np.int64) * n_topics + z[chunk], 1)
        self.n_k = self.n_wk.sum(axis=0, dtype=np.int64)
        total_cpus = ray.cluster_resources().get("CPU", 1.0)
        actor = ray.remote(ShardWorker).options(num_cpus=min(1.0, total_cpus / len(self.bounds)))
        self.workers = []
        for i, (a, b) in enumerate(self.bounds):
            t0, t1 = int(doc_ptr[a]), int(doc_ptr[b])
            source = (mmap_file, t0, t1) if mmap_file else word_ids[t0:t1]
            s0, s1 = a // DOCS_PER_STREAM, -(-b // DOCS_PER_STREAM)
            targets = None if supervision is None else supervision.targets[a:b]
            loss = None if supervision is None else supervision.loss.for_docs(a, b)
            self.workers.append(actor.remote(source, doc_ptr[a:b + 1] - t0, z[t0:t1], streams[s0:s1],
                                             n_words, n_topics, self.alpha, self.beta, sampler, loss,
                                             targets, worker_states[i]))
        tic = time.perf_counter()
        self._gather([w.ready.remote() for w in self.workers], "start-up")
        self.startup_seconds = time.perf_counter() - tic

    # -- one round trip to every worker, failures named --------------------------------------
    def _gather(self, refs: list, what: str) -> list:
        out = []
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        for i, ref in enumerate(refs):
            try:
                if deadline is None:
                    out.append(self.ray.get(ref))
                else:
                    out.append(self.ray.get(ref, timeout=max(deadline - time.monotonic(), 0.0)))
            except self.ray.exceptions.RayError as exc:
                a, b = self.bounds[i]
                tokens = int(self.doc_ptr[b] - self.doc_ptr[a])
                if isinstance(exc, getattr(self.ray.exceptions, "GetTimeoutError", ())):
                    how = (f"stopped responding during {what} (no answer within {self.timeout:g} s; set the "
                           f"environment variable {RAY_SECONDS.variable} to wait longer)")
                else:
                    died = isinstance(exc, self.ray.exceptions.RayActorError)
                    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                    how = f"{'died' if died else 'failed'} during {what} ({type(exc).__name__}: {first})"
                raise WorkerLostError(f"Ray worker {i} (documents {a}..{b - 1}, {tokens} tokens) {how}; "
                                      "its shard's assignments are lost, so training stopped") from exc
        return out

    def set_eta(self, eta: np.ndarray, want_omega: bool) -> np.ndarray | None:
        """Broadcast eta; with ``want_omega`` return omega of all documents (D, T)."""
        ref = self.ray.put(eta)
        parts = self._gather([w.set_eta.remote(ref, want_omega) for w in self.workers], "the eta broadcast")
        return np.concatenate(parts) if want_omega else None

    def start(self, supervision: Supervision | None) -> None:
        if supervision is not None:
            self.set_eta(supervision.eta, False)

    def iterate(self, iteration: int, supervision: Supervision | None, rng: np.random.Generator,
                measure_log_joint: bool) -> np.ndarray | None:
        """One DP iteration: phi (exact scheme, on a local sweep's schedule) or the global counts
        out, every shard's aux and sweep, the count changes merged, eta drawn from the summed
        statistics and broadcast (omega gathered for the training metric)."""
        eta = supervision.eta if supervision is not None else np.zeros((0, self.n_topics))
        if self.exact:
            if self.sampler.phi_due(self.cache):
                self._phi_payload = self.ray.put(np.ascontiguousarray(draw_phi_wk(self.n_wk, self.beta, rng)))
            payload = self._phi_payload
        else:
            counts = {"n_wk": self.n_wk} if self._change is None else self._change
            payload = self.ray.put({**counts, "n_k": self.n_k})
        eta_ref = self.ray.put(eta)
        outs = self._gather([w.step.remote(eta_ref, payload, measure_log_joint) for w in self.workers],
                            f"iteration {iteration}")
        change = sum_changes(outs, self.n_wk)
        merge_change(self.n_wk, change)
        self.n_k += sum(out["n_k"] for out in outs)
        self._change = None if self.exact else change
        if measure_log_joint:
            self._log_joint_parts = sum(out["log_joint"] for out in outs)
        if supervision is None:
            return None
        gram = sum(out["gram"] for out in outs)
        linear = sum(out["linear"] for out in outs)
        supervision.eta = draw_eta_from_statistics(gram, linear, supervision.nu, rng, supervision.n_supervised)
        return self.set_eta(supervision.eta, self.want_omega)

    def log_joint(self) -> float:
        """The topic-word part from the global counts plus the shards' doc-topic parts."""
        word_part = log_joint(np.zeros((0, self.n_topics), np.int32), self.n_wk, self.n_k,
                              np.zeros(0, np.int64), self.alpha, self.beta)
        return float(word_part + self._log_joint_parts)

    def snapshot(self) -> tuple[np.ndarray, np.ndarray, list[dict]]:
        """z and streams of the whole corpus and every worker's generator state."""
        parts = self._gather([w.snapshot.remote() for w in self.workers], "a snapshot")
        return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
                [p[2] for p in parts])

    def chain_arrays(self) -> ChainArrays:
        return ChainArrays(*self.snapshot(), {})

    def peak_rss(self) -> list[int]:
        """Each worker's peak resident memory in bytes."""
        return self._gather([w.peak_rss.remote() for w in self.workers], "the memory query")

    def chain(self) -> ChainState:
        """The whole chain gathered into one local ChainState; checks the merged counts."""
        z, streams, _ = self.snapshot()
        state = ChainState.initialize(self.word_ids, self.doc_ptr, self.n_words, self.n_topics,
                                      self.alpha, self.beta, np.random.default_rng(0))
        state.z[:] = z
        state.streams[:] = streams
        state.refresh_counts()
        if not (np.array_equal(state.n_wk, self.n_wk) and np.array_equal(state.n_k, self.n_k)):
            raise MedLDAError("internal error: the merged topic-word counts disagree with the shards' z")
        return state

    def stats(self) -> dict:
        return {"backend": "ray", "n_workers": len(self.workers), "worker_startup_seconds": self.startup_seconds,
                "worker_peak_rss_bytes": self.peak_rss()}

    def close(self) -> None:
        for w in self.workers:
            self.ray.kill(w)
        self.workers = []


def connect(ray, address: str | None, n_workers: int) -> bool:
    """Join the running Ray session, the cluster at ``address``, or start a local one; True when
    this call started it (and so should shut it down)."""
    if ray.is_initialized():
        return False
    if address:
        try:
            ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise MedLDAError(f"cannot join the Ray cluster at {address}: {exc} (is it running and reachable? with "
                              "token authentication, set RAY_AUTH_MODE=token here as on its nodes)") from exc
    else:  # "local": a cluster of its own, even where `ray start` runs one on this machine
        ray.init(address="local", num_cpus=max(n_workers, os.cpu_count() or 1), include_dashboard=False,
                 logging_level=logging.WARNING, log_to_driver=False)
    return True


@contextmanager
def ray_backend(word_ids: np.ndarray, doc_ptr: np.ndarray, n_words: int, n_topics: int, alpha: np.ndarray,
                beta: float, sampler: Sampler, supervision: Supervision | None, rng: np.random.Generator, *,
                n_workers: int, address: str | None = None, mmap_file: str | None = None,
                snapshot: Snapshot | None = None, checkpoint: Path | None = None) -> Iterator[RayBackend]:
    """A ``RayBackend`` on the cluster at ``address`` (None: the running session, or a local
    cluster started for it and shut down after); ``mmap_file`` is the corpus's token file, which
    workers map when they run on this machine. A lost worker's error names ``checkpoint`` (the
    path this run checkpoints to; None: it writes none) to resume from. A worker silent for
    ``medlda.limits.RAY_SECONDS`` (MEDLDA_RAY_TIMEOUT) in a round trip is lost as a dead one is."""
    timeout = RAY_SECONDS.value  # a malformed setting is refused before Ray starts
    ray = import_ray()
    started = connect(ray, address, n_workers)
    backend = None
    try:
        # workers map their own slice of a memory-mapped corpus when they can see the file
        if len([n for n in ray.nodes() if n.get("Alive")]) != 1:
            mmap_file = None
        backend = RayBackend(ray, word_ids, doc_ptr, n_words, n_topics, alpha, beta, sampler, supervision,
                             n_workers, rng, mmap_file=mmap_file, snapshot=snapshot, timeout=timeout)
        yield backend
    except WorkerLostError as exc:
        if checkpoint is not None and checkpoint.exists():
            raise WorkerLostError(f"{exc}; the last checkpoint is {checkpoint}: resume from it with "
                                  "resume=True (--resume)") from exc.__cause__
        if checkpoint is not None:
            raise WorkerLostError(f"{exc}; no checkpoint had been written yet") from exc.__cause__
        raise
    finally:
        if backend is not None:
            backend.close()
        if started:
            ray.shutdown()


def map_on_ray(address: str | None, n_workers: int, fn, corpus, per_task: list[tuple]) -> list:
    """``[fn(*args[:1], corpus, *args[1:]) for args in per_task]`` as Ray tasks, one CPU each: the
    label-parallel (LP) scheme for one-vs-rest, each class's binary model trained on one worker,
    and independent chains, each on one worker. The corpus is put in the object store once."""
    ray = import_ray()
    started = connect(ray, address, n_workers)
    try:
        remote = ray.remote(num_cpus=1, max_retries=0)(fn)
        corpus_ref = ray.put(corpus)
        refs = [remote.remote(args[0], corpus_ref, *args[1:]) for args in per_task]
        out = []
        for t, ref in enumerate(refs):
            try:
                out.append(ray.get(ref))
            except ray.exceptions.RayError as exc:
                for other in refs:
                    ray.cancel(other, force=True)
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise WorkerLostError(f"the Ray task training model {t} (a class's or a chain's) failed "
                                      f"({type(exc).__name__}: {first}); training stopped") from exc
        return out
    finally:
        if started:
            ray.shutdown()
