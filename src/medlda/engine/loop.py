"""THE training loop: the only code that iterates, keeps eta samples, records the trace and calls
the callbacks. Each iteration a backend (``engine.local``, ``engine.ray``) draws the aux, sweeps
the topics and draws eta; checkpoints and progress bars are callbacks reading what the loop keeps.
Sampling time is measured apart from the optional measurements (log joint, ``measure``), so
reported speeds are the sampler's own."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Protocol

import numpy as np

from medlda.engine.alpha import AlphaOptimizer
from medlda.engine.state import ChainArrays, ChainState


@dataclass
class Supervision:
    """What ties the topics to the labels: a loss, task targets (D, T), the prior on eta (its
    precision ``nu``), the current eta (T, K), an optional training metric of omega, and how many
    of the topics, the first ones, carry weights (None: all; the others are background topics,
    their weights held at 0)."""

    loss: object
    targets: np.ndarray
    nu: float
    eta: np.ndarray
    metric: Callable[[np.ndarray], float] | None = None
    n_supervised: int | None = None


@dataclass
class IterationInfo:
    """What a callback sees after each iteration (``seconds``: sampling time since this process
    took the run up)."""

    iteration: int
    n_iter: int
    seconds: float
    tokens_per_second: float
    train_accuracy: float | None = None
    log_joint: float | None = None


@dataclass
class Progress:
    """What the loop keeps of a run: the iterations done, the eta samples kept, the trace, the
    sampling seconds so far and the learned alpha (None: the chain's prior is still the one it
    started with); a resumed run starts from a checkpoint's."""

    iteration: int = 0
    kept_eta: list[np.ndarray] = field(default_factory=list)
    trace: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    alpha: np.ndarray | None = None


@dataclass
class TrainResult:
    """Eta samples (S, T, K; None unsupervised), sampling seconds, the trace (one dict per
    iteration), and the backend's and the run's statistics (``stats``)."""

    eta_samples: np.ndarray | None
    seconds: float
    trace: list[dict] = field(default_factory=list)
    stats: dict = field(default_factory=dict)


class Backend(Protocol):
    """Where the iterations run: sweeps the chain's shards and reduces their statistics."""

    n_tokens: int

    def start(self, supervision: Supervision | None) -> None:
        """Before the first iteration this process runs (omega for the first aux draw)."""

    def iterate(self, iteration: int, supervision: Supervision | None, rng: np.random.Generator,
                measure_log_joint: bool) -> np.ndarray | None:
        """Iteration ``iteration`` (1-based): aux, sweep, ``supervision.eta`` redrawn; returns
        omega (D, T) for the training metric (None when unsupervised or not gathered)."""

    def log_joint(self) -> float:
        """log p(W, Z) of the chain (after an iteration asked to measure it)."""

    def chain(self) -> ChainState:
        """The whole chain in one state with current counts."""

    def set_alpha(self, alpha: np.ndarray) -> None:
        """Give the chain the doc-topic prior ``alpha`` (K,) from its next sweep on."""

    def chain_arrays(self) -> ChainArrays:
        """What a checkpoint keeps of the chain."""

    def stats(self) -> dict:
        """Statistics of the backend for ``TrainResult.stats``."""


@dataclass
class Run:
    """A run as callbacks see it: its backend, supervision (eta), generator and progress."""

    backend: Backend
    supervision: Supervision | None
    rng: np.random.Generator
    progress: Progress


Callback = Callable[[IterationInfo, Run], None]


def train(backend: Backend, supervision: Supervision | None, *, n_iter: int, n_eta_keep: int,
          rng: np.random.Generator, progress: Progress | None = None, measure_log_joint: bool = False,
          measure: Callable[[ChainState], dict] | None = None, measure_every: int = 1,
          callbacks: tuple[Callback, ...] | list[Callback] = (),
          alpha_optimizer: AlphaOptimizer | None = None) -> TrainResult:
    """Run the iterations ``progress.iteration + 1 .. n_iter`` on ``backend``: aux for all (d, t),
    topics for all tokens, eta for all tasks (unsupervised when ``supervision`` is None).

    Keeps the eta of the last ``n_eta_keep`` iterations. ``progress`` is a resumed run's (None: a
    new run). The log joint (``measure_log_joint``) and ``measure(chain)`` (a dict merged into the
    trace, e.g. ``perplexity.HeldoutPerplexity``) are taken every ``measure_every`` iterations
    and after the last. Each callback is called as ``callback(info, run)`` after each iteration.
    With ``alpha_optimizer``, the chain's alpha is learned from its counts after the iterations
    it says (``engine.alpha``); ``progress.alpha`` keeps it.
    """
    resumed = progress is not None
    progress = Progress() if progress is None else progress
    run = Run(backend, supervision, rng, progress)
    start, earlier, seconds = progress.iteration, progress.seconds, 0.0
    if progress.alpha is not None:
        backend.set_alpha(progress.alpha)
    backend.start(supervision)
    for it in range(start, n_iter):
        measured = (it + 1) % max(measure_every, 1) == 0 or it + 1 == n_iter
        tic = time.perf_counter()
        omega = backend.iterate(it + 1, supervision, rng, measure_log_joint and measured)
        if supervision is not None and it >= n_iter - n_eta_keep:
            progress.kept_eta.append(supervision.eta.copy())
        if alpha_optimizer is not None and alpha_optimizer.due(it + 1):
            progress.alpha = alpha_optimizer.update(backend.chain())
            backend.set_alpha(progress.alpha)
        seconds += time.perf_counter() - tic
        info = IterationInfo(it + 1, n_iter, seconds, backend.n_tokens * (it + 1 - start) / max(seconds, 1e-12))
        if supervision is not None and supervision.metric is not None:
            info.train_accuracy = supervision.metric(omega)
        if measure_log_joint and measured:
            info.log_joint = backend.log_joint()
        progress.trace.append({k: v for k, v in vars(info).items() if v is not None and k != "n_iter"})
        if measure is not None and measured:
            progress.trace[-1].update(measure(backend.chain()))
        progress.iteration, progress.seconds = it + 1, earlier + seconds
        for callback in callbacks:
            callback(info, run)
    stats = backend.stats()
    if resumed:
        stats["resumed_from_iteration"] = start
    eta_samples = np.array(progress.kept_eta) if supervision is not None else None
    return TrainResult(eta_samples, earlier + seconds, list(progress.trace), stats)
