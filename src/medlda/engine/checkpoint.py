"""Checkpoints: the whole state of a training run, written atomically every N iterations.

A checkpoint holds what the next iteration needs and nothing that can be recomputed: the topic
assignments z (counts follow from z), the kernels' random streams, eta and the eta samples kept
so far, the NumPy generator's state (as JSON), the Ray workers' generator states, the iteration
number, the trace so far, and the configuration and corpus fingerprint it belongs to. One
``.npz`` archive of arrays plus JSON metadata, no pickle, replaced atomically: a run killed at any
moment (even by SIGKILL) resumes from the last checkpoint and, single-threaded, ends with the same
arrays as an uninterrupted run with the same seed. A sampler whose next draws read more than the
counts keeps that too (``Sampler.chain_arrays``): light collapsed's per-word hashes, whose slot
order (which orders the word-proposal tables) depends on the run's history and cannot be rebuilt
from the counts.

``Checkpoints`` is a training-loop callback: it writes what the loop keeps (``loop.Progress``)
and what the backend gives of its chain (``ChainArrays``); a resumed run gets both back.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from medlda._version import __version__
from medlda.engine.loop import IterationInfo, Progress, Run, Supervision
from medlda.exceptions import MedLDAError
from medlda.io.atomic import atomic_write, check_writable

FORMAT_NAME = "medlda-checkpoint"
FORMAT_VERSION = 1
_META_KEY = "__metadata__"
_SAMPLER_PREFIX = "sampler."  # archive keys of the sampler's own arrays
# parameters that do not change the chain: a run may resume with other values of these
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


def training_config(model) -> dict:
    """The estimator's parameters that determine the chain, as plain JSON values."""
    params = {k: v for k, v in model.get_params(deep=False).items() if k not in NEUTRAL_PARAMS}
    params["estimator"] = type(model).__name__
    return json.loads(json.dumps(params, default=str))


def save_snapshot(path, snap: Snapshot, config: dict, fingerprint: str) -> None:
    """Write ``snap`` to ``path`` atomically (npz + JSON metadata, no pickle)."""
    arrays = {"z": np.asarray(snap.z, np.int32), "streams": np.asarray(snap.streams, np.uint64)}
    arrays.update({_SAMPLER_PREFIX + name: value for name, value in snap.sampler_arrays.items()})
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


def load_snapshot(path, config: dict, fingerprint: str) -> Snapshot:
    """Read a checkpoint, refusing one of another format, corpus or configuration."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {k: archive[k] for k in archive.files}
        meta = json.loads(arrays.pop(_META_KEY).tobytes().decode("utf-8"))
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, KeyError, AttributeError) as exc:
        raise CheckpointError(f"{path}: not a medlda checkpoint ({exc.__class__.__name__}: {exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise CheckpointError(f"{path}: not a medlda checkpoint")
    if meta.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(f"{path}: checkpoint format version {meta.get('format_version')!r} is "
                              f"not supported (this medlda reads version {FORMAT_VERSION})")
    stored = meta.get("config", {})
    if stored.get("estimator") != config.get("estimator"):  # named first: its labels would differ too
        raise CheckpointError(f"{path}: the checkpoint was written by {stored.get('estimator')}, not "
                              f"{config.get('estimator')}; resume with the estimator that wrote it")
    if meta.get("fingerprint") != fingerprint:
        raise CheckpointError(f"{path}: the checkpoint was written for a different corpus (tokens, "
                              "vocabulary size or labels differ); resume with the same training data")
    differ = sorted(k for k in set(stored) | set(config) if stored.get(k) != config.get(k))
    if differ:
        detail = ", ".join(f"{k}={stored.get(k)!r} in the checkpoint, {config.get(k)!r} now" for k in differ)
        raise CheckpointError(f"{path}: the checkpoint was written with another configuration ({detail}); "
                              "resume with the same settings")
    eta = arrays.get("eta")
    sampler_arrays = {k[len(_SAMPLER_PREFIX):]: v for k, v in arrays.items() if k.startswith(_SAMPLER_PREFIX)}
    return Snapshot(int(meta["iteration"]), arrays["z"], arrays["streams"], eta,
                    [] if eta is None else list(arrays["kept_eta"]), meta["rng_state"],
                    meta.get("worker_rng_states", []), meta.get("trace", []), float(meta.get("seconds", 0.0)),
                    sampler_arrays, path)


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

    With ``every == 0`` and no resume it does nothing (no files touched).
    """

    def __init__(self, path, every: int, resume: bool, config: dict, fingerprint: str, n_iter: int) -> None:
        self.path = None if path is None else Path(path)
        self.every = int(every)
        self.config = config
        self.fingerprint = fingerprint
        self.loaded = None
        if self.path is not None and self.every:
            check_writable(self.path)  # before the first iteration, not at the first checkpoint
        if resume and self.path is not None and self.path.exists():
            self.loaded = load_snapshot(self.path, config, fingerprint)
            if self.loaded.iteration > n_iter:
                raise CheckpointError(f"{self.path}: checkpoint is at iteration {self.loaded.iteration}, "
                                      f"beyond n_iter={n_iter}")

    @classmethod
    def for_model(cls, model, word_ids, doc_ptr, n_words, supervision: Supervision | None) -> "Checkpoints":
        """From the estimator's ``checkpoint_every``, ``checkpoint_path`` and ``resume``."""
        path = getattr(model, "checkpoint_path", None)
        every = getattr(model, "checkpoint_every", 0) or 0
        resume = bool(getattr(model, "resume", False))
        if path is None or (not every and not resume):
            return cls(None, 0, False, {}, "", model.n_iter)
        targets = None if supervision is None else supervision.targets
        weight = None if supervision is None else supervision.loss.doc_weight
        if weight is not None:  # weighted documents are another task: resuming needs the same weights
            targets = np.column_stack([targets, weight])
        return cls(path, every, resume, training_config(model),
                   corpus_fingerprint(word_ids, doc_ptr, n_words, targets), model.n_iter)

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
        return Progress(snap.iteration, list(snap.kept_eta), list(snap.trace), snap.seconds)

    def __call__(self, info: IterationInfo, run: Run) -> None:
        """After each iteration: every ``every`` iterations, write the run as it now stands."""
        if not self.every or info.iteration % self.every:
            return
        chain = run.backend.chain_arrays()
        eta = None if run.supervision is None else run.supervision.eta
        progress = run.progress
        save_snapshot(self.path, Snapshot(info.iteration, chain.z, chain.streams, eta, progress.kept_eta,
                                          run.rng.bit_generator.state, chain.worker_rng_states, progress.trace,
                                          progress.seconds, chain.sampler_arrays),
                      self.config, self.fingerprint)
