"""Checkpoints: the whole state of a training run, written atomically every N iterations.

A checkpoint holds what the next iteration needs and nothing that can be recomputed: the topic
assignments z (counts follow from z), the kernels' random streams, eta and the eta samples kept
so far, the NumPy generator's state (as JSON), the Ray workers' generator states, the iteration
number, the trace so far, the learned alpha (``optimize_alpha``), and the configuration and
corpus fingerprint it belongs to. One ``.npz`` archive of arrays plus JSON metadata, no pickle,
replaced atomically: a run killed at any
moment (even by SIGKILL) resumes from the last checkpoint and, single-threaded, ends with the same
arrays as an uninterrupted run with the same seed. A sampler whose next draws read more than the
counts keeps that too (``Sampler.chain_arrays``): light collapsed's per-word hashes, whose slot
order (which orders the word-proposal tables) depends on the run's history and cannot be rebuilt
from the counts.

Reading one back (``load_snapshot``) checks every member and value before the chain sees it
(``io.validate``: sizes bounded before inflating, z in [0, K) and of the corpus' length, streams,
eta, iteration, generator states), and refuses a checkpoint of another estimator, corpus or
configuration, naming each setting that differs.

``Checkpoints`` is a training-loop callback: it writes what the loop keeps (``loop.Progress``)
and what the backend gives of its chain (``ChainArrays``); a resumed run gets both back.
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from medlda._kernels.rng import DOCS_PER_STREAM, stream_chunks
from medlda._version import __version__
from medlda.engine.loop import IterationInfo, Progress, Run, Supervision
from medlda.exceptions import MedLDAError
from medlda.io.atomic import atomic_write, check_writable
from medlda.io.model_file import learned_alpha
from medlda.io.validate import (
    ETA_LIMIT,
    OBJECT,
    ROWS,
    TEXT,
    Field,
    NpzReader,
    Where,
    check_array,
    check_fields,
    integer,
    real,
    short,
)

FORMAT_NAME = "medlda-checkpoint"
FORMAT_VERSION = 1
_META_KEY = "__metadata__"
_SAMPLER_PREFIX = "sampler."  # archive keys of the sampler's own arrays
# parameters that do not change the chain: a run may resume with other values of these (n_jobs
# changes light collapsed's chain: ``training_config`` keeps its thread chunks for it)
NEUTRAL_PARAMS = ("verbose", "trace", "checkpoint_every", "checkpoint_path", "resume", "ray_address",
                  "n_jobs", "n_infer_burn", "n_infer_avg")


class CheckpointError(MedLDAError, ValueError):
    """A checkpoint is unreadable, foreign, or belongs to another corpus or configuration."""


@dataclass
class Snapshot:
    """Everything a run needs to go on after ``iteration`` iterations."""

    iteration: int
    z: np.ndarray
    streams: np.ndarray
    eta: np.ndarray | None
    kept_eta: list[np.ndarray]
    rng_state: dict
    worker_rng_states: list[dict] = field(default_factory=list)
    trace: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    sampler_arrays: dict[str, np.ndarray] = field(default_factory=dict)  # the sampler's own (``chain_arrays``)
    alpha: np.ndarray | None = None  # the learned doc-topic prior (None: the one the chain started with)
    path: Path | None = None  # the file it was read from (named in errors)


def corpus_fingerprint(word_ids: np.ndarray, doc_ptr: np.ndarray, n_words: int,
                       targets: np.ndarray | None = None) -> str:
    """A hash of the token arrays, the vocabulary size and the task targets (hex digest)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{word_ids.size} {doc_ptr.size} {n_words}".encode())
    for arr in (np.asarray(word_ids, np.int32), np.asarray(doc_ptr, np.int64)):
        h.update(memoryview(np.ascontiguousarray(arr)).cast("B"))
    if targets is not None:
        h.update(np.ascontiguousarray(targets, dtype=np.float64).tobytes())
    return h.hexdigest()


def training_config(model, doc_ptr: np.ndarray) -> dict:
    """The estimator's parameters that determine the chain, as plain JSON values; for light
    collapsed, whose threads sweep against their own snapshots of the counts, also the number of
    thread chunks n_jobs splits ``doc_ptr``'s documents into (as ``n_jobs``)."""
    params = {k: v for k, v in model.get_params(deep=False).items() if k not in NEUTRAL_PARAMS}
    params["estimator"] = type(model).__name__
    sampler = getattr(model, "sampler_", getattr(model, "sampler", None))  # "auto" as resolved for this fit
    if sampler == "light" and getattr(model, "light_variant", None) == "collapsed":
        params["n_jobs"] = int(stream_chunks(doc_ptr, sampler_threads(getattr(model, "n_jobs", None))).size - 1)
    return json.loads(json.dumps(params, default=str))


def sampler_threads(n_jobs: int | None) -> int:
    """The threads a sampler gets for ``n_jobs`` as joblib reads it (None: 1, -1: every core), at
    most one per core (``medlda.models.labels.effective_jobs``)."""
    cores = os.cpu_count() or 1
    threads = 1 if n_jobs is None else max(cores + 1 + n_jobs, 1) if n_jobs < 0 else n_jobs
    return max(1, min(threads, cores))


def save_snapshot(path, snap: Snapshot, config: dict, fingerprint: str) -> None:
    """Write ``snap`` to ``path`` atomically (npz + JSON metadata, no pickle)."""
    arrays = {"z": np.asarray(snap.z, np.int32), "streams": np.asarray(snap.streams, np.uint64)}
    arrays.update({_SAMPLER_PREFIX + name: value for name, value in snap.sampler_arrays.items()})
    if snap.alpha is not None:
        arrays["alpha"] = np.asarray(snap.alpha, np.float64)
    if snap.eta is not None:
        arrays["eta"] = snap.eta
        arrays["kept_eta"] = (np.array(snap.kept_eta) if snap.kept_eta
                              else np.zeros((0,) + snap.eta.shape))
    meta = {"format": FORMAT_NAME, "format_version": FORMAT_VERSION, "medlda_version": __version__,
            "iteration": snap.iteration, "rng_state": snap.rng_state,
            "worker_rng_states": snap.worker_rng_states, "trace": snap.trace,
            "seconds": snap.seconds, "config": config, "fingerprint": fingerprint}
    arrays[_META_KEY] = np.frombuffer(json.dumps(meta, default=_json_default).encode(), np.uint8)
    atomic_write(path, lambda f: np.savez(f, **arrays))


def valid_rng_state(state) -> bool:
    """Whether ``state`` is a state a PCG64 generator takes (as ``bit_generator.state``)."""
    if not isinstance(state, dict) or state.get("bit_generator") != "PCG64":
        return False
    try:
        np.random.PCG64().state = state
    except (TypeError, ValueError, KeyError, OverflowError, AttributeError):
        return False
    return True


@dataclass(frozen=True)
class ChainShape:
    """What the resuming run's arrays must be: z of ``n_tokens`` topics in [0, ``n_topics``),
    ``n_streams`` kernel streams, eta of ``eta_shape`` (T, K) (None: unsupervised, no eta), and
    at most ``n_iter`` iterations done."""

    n_tokens: int
    n_streams: int
    n_topics: int
    eta_shape: tuple[int, int] | None
    n_iter: int


RNG_STATE = Field(valid_rng_state, "a PCG64 generator state")
META_FIELDS = {"format": TEXT, "format_version": integer(), "medlda_version": TEXT, "iteration": integer(0),
               "rng_state": RNG_STATE, "worker_rng_states": Field(lambda v: isinstance(v, list) and all(
                   valid_rng_state(s) for s in v), "a list of PCG64 generator states"),
               "trace": ROWS, "seconds": real(0), "config": OBJECT, "fingerprint": TEXT}


def load_snapshot(path, config: dict, fingerprint: str, shape: ChainShape) -> Snapshot:
    """Read a checkpoint, refusing one of another format, corpus or configuration, and any
    member or value that does not fit the run ``shape`` describes."""
    path = Path(path)
    where = Where(path, CheckpointError)
    if not path.is_file() or not zipfile.is_zipfile(path):
        raise where.fail("not a medlda checkpoint (not an npz archive)")
    with NpzReader(where, "not a medlda checkpoint") as npz:
        if _META_KEY not in npz.keys:
            raise where.fail("not a medlda checkpoint (no metadata)")
        meta = npz.json(_META_KEY)
        if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
            raise where.fail("not a medlda checkpoint")
        if meta.get("format_version") != FORMAT_VERSION:
            raise where.fail(f"checkpoint format version {short(meta.get('format_version'))} is not supported "
                             f"(this medlda reads version {FORMAT_VERSION})")
        check_fields(where, "checkpoint metadata", meta, META_FIELDS)
        check_config(where, meta, config, fingerprint)
        supervised = {"eta", "kept_eta"} if shape.eta_shape is not None else set()
        npz.check_keys({_META_KEY, "z", "streams"} | supervised, {"alpha"},
                       extra=lambda k: k.startswith(_SAMPLER_PREFIX))
        arrays = {k: npz.array(k) for k in npz.keys if k != _META_KEY}
    return _snapshot(where, meta, arrays, shape)


def check_config(where: Where, meta: dict, config: dict, fingerprint: str) -> None:
    """Refuse a checkpoint of another estimator, corpus or configuration, naming each setting
    that differs with its value in the checkpoint and now."""
    stored = meta["config"]
    if stored.get("estimator") != config.get("estimator"):  # named first: its labels would differ too
        written_by = stored.get("estimator")
        written_by = written_by[:60] if isinstance(written_by, str) else short(written_by)
        raise where.fail(f"the checkpoint was written by {written_by}, not "
                         f"{config.get('estimator')}; resume with the estimator that wrote it")
    if meta["fingerprint"] != fingerprint:
        raise where.fail("the checkpoint was written for a different corpus (tokens, vocabulary size or labels "
                         "differ); resume with the same training data")
    differ = sorted(k for k in set(stored) | set(config) if stored.get(k) != config.get(k))
    if differ:
        detail = ", ".join(f"{k}={short(stored.get(k))} in the checkpoint, {config.get(k)!r} now" for k in differ)
        raise where.fail(f"the checkpoint was written with another configuration ({detail}); "
                         "resume with the same settings")


def _snapshot(where: Where, meta: dict, arrays: dict, shape: ChainShape) -> Snapshot:
    """The checked arrays and metadata as a Snapshot."""
    iteration = meta["iteration"]
    if iteration > shape.n_iter:
        raise where.fail(f"checkpoint is at iteration {iteration}, beyond max_iter={shape.n_iter}")
    if len(meta["trace"]) != iteration:
        raise where.fail(f"the trace holds {len(meta['trace'])} iterations, the checkpoint is at {iteration}")
    z = check_array(where, "z", arrays["z"], kinds="iu", shape=(shape.n_tokens,), low=0, high=shape.n_topics - 1,
                    dtype=np.int32)
    streams = check_array(where, "streams", arrays["streams"], kinds="u", shape=(shape.n_streams,), low=1,
                          dtype=np.uint64)
    eta, kept = None, []
    if shape.eta_shape is not None:
        eta = check_array(where, "eta", arrays["eta"], kinds="f", shape=shape.eta_shape, low=-ETA_LIMIT,
                          high=ETA_LIMIT, dtype=np.float64)
        kept_eta = check_array(where, "kept_eta", arrays["kept_eta"], kinds="f", shape=("S", *shape.eta_shape),
                               low=-ETA_LIMIT, high=ETA_LIMIT, dtype=np.float64)
        if kept_eta.shape[0] > iteration:
            raise where.fail(f"kept_eta holds {kept_eta.shape[0]} samples after {iteration} iterations")
        kept = list(kept_eta)
    sampler_arrays = {k[len(_SAMPLER_PREFIX):]: v for k, v in arrays.items() if k.startswith(_SAMPLER_PREFIX)}
    alpha = None if "alpha" not in arrays else learned_alpha(where, arrays["alpha"], shape.n_topics)
    return Snapshot(iteration, z, streams, eta, kept, meta["rng_state"], meta["worker_rng_states"], meta["trace"],
                    float(meta["seconds"]), sampler_arrays, alpha, where.path)


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def check_run_params(model) -> None:
    """Check how a fit's parameters of checkpointing fit together (each one alone is checked with
    the estimator's declared parameters): a path to write to, a period the phi schedule allows, and
    a strategy whose chain is one."""
    every = model.checkpoint_every
    if (every or model.resume) and model.checkpoint_path is None:
        raise ValueError("checkpoint_every and resume need a checkpoint_path")
    phi_every = getattr(model, "phi_every", 1)
    if every and every % phi_every:
        raise ValueError(f"checkpoint_every ({every}) must be a multiple of phi_every ({phi_every}): a resumed "
                         "run draws phi at once, as the uninterrupted run does only every phi_every iterations")
    if every and getattr(model, "strategy", "multitask") == "ovr":
        raise ValueError("checkpoints are not supported with strategy='ovr' (its binary models train "
                         "apart); use strategy='multitask' or checkpoint_every=0")


class Checkpoints:
    """The checkpointing of one fit: the snapshot to resume from (``loaded``), and, as a
    training-loop callback, a snapshot written every ``every`` iterations.

    With ``every == 0`` and no resume it does nothing (no files touched). ``shape``: what the
    resuming run's arrays must be (needed to resume).
    """

    def __init__(self, path, every: int, resume: bool, config: dict, fingerprint: str,
                 shape: ChainShape | None) -> None:
        self.path = None if path is None else Path(path)
        self.every = int(every)
        self.config = config
        self.fingerprint = fingerprint
        self.loaded = None
        if self.path is not None and self.every:
            check_writable(self.path)  # before the first iteration, not at the first checkpoint
        if resume and self.path is not None and self.path.exists():
            self.loaded = load_snapshot(self.path, config, fingerprint, shape)

    @classmethod
    def for_model(cls, model, word_ids, doc_ptr, n_words, supervision: Supervision | None) -> "Checkpoints":
        """From the estimator's ``checkpoint_every``, ``checkpoint_path`` and ``resume``."""
        path = getattr(model, "checkpoint_path", None)
        every = getattr(model, "checkpoint_every", 0) or 0
        resume = bool(getattr(model, "resume", False))
        if path is None or (not every and not resume):
            return cls(None, 0, False, {}, "", None)
        targets = None if supervision is None else supervision.targets
        weight = None if supervision is None else supervision.loss.doc_weight
        if weight is not None:  # weighted documents are another task: resuming needs the same weights
            targets = np.column_stack([targets, weight])
        shape = ChainShape(word_ids.size, max(1, -(-(doc_ptr.size - 1) // DOCS_PER_STREAM)), model.n_components,
                           None if supervision is None else supervision.eta.shape, model.max_iter)
        return cls(path, every, resume, training_config(model, doc_ptr),
                   corpus_fingerprint(word_ids, doc_ptr, n_words, targets), shape)

    @property
    def written(self) -> Path | None:
        """Where this run writes its checkpoints (None: it writes none)."""
        return self.path if self.every else None

    def resume(self, rng: np.random.Generator, supervision: Supervision | None) -> Progress | None:
        """Put the loaded snapshot's generator state and eta back, and return the loop's progress
        to go on from (None: nothing loaded, a new run). The backend takes the chain's arrays."""
        snap = self.loaded
        if snap is None:
            return None
        rng.bit_generator.state = snap.rng_state
        if supervision is not None:
            supervision.eta = np.array(snap.eta)
        return Progress(snap.iteration, list(snap.kept_eta), list(snap.trace), snap.seconds, snap.alpha)

    def __call__(self, info: IterationInfo, run: Run) -> None:
        """After each iteration: every ``every`` iterations, write the run as it now stands."""
        if not self.every or info.iteration % self.every:
            return
        chain = run.backend.chain_arrays()
        eta = None if run.supervision is None else run.supervision.eta
        progress = run.progress
        save_snapshot(self.path, Snapshot(info.iteration, chain.z, chain.streams, eta, progress.kept_eta,
                                          run.rng.bit_generator.state, chain.worker_rng_states, progress.trace,
                                          progress.seconds, chain.sampler_arrays, progress.alpha),
                      self.config, self.fingerprint)
