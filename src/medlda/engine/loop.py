"""THE training loop: per iteration the aux draw, a sweep of the topics and the eta draw; keeps
eta samples, records the trace and calls the callbacks. Sampling time is measured apart from
optional measurements (log joint), so reported speeds are the sampler's own."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from medlda.engine.state import ChainState
from medlda.samplers import ExactGibbs


@dataclass
class Supervision:
    """What ties the topics to the labels: a loss, task targets (D, T), the prior on eta."""

    loss: object
    targets: np.ndarray
    nu: float
    eta: np.ndarray
    metric: Callable[[np.ndarray], float] | None = None


@dataclass
class IterationInfo:
    """What a callback sees after each iteration."""

    iteration: int
    n_iter: int
    seconds: float
    tokens_per_second: float
    train_accuracy: float | None = None
    log_joint: float | None = None


@dataclass
class TrainResult:
    eta_samples: np.ndarray | None
    seconds: float
    trace: list[dict] = field(default_factory=list)


def train(state: ChainState, supervision: Supervision | None, *, n_iter: int, n_eta_keep: int,
          rng: np.random.Generator, sampler=None, measure_log_joint: bool = False,
          callback: Callable[[IterationInfo], None] | None = None, start_iteration: int = 0,
          kept_eta: list | None = None, measure: Callable[[ChainState], dict] | None = None,
          measure_every: int = 1) -> TrainResult:
    """Run ``n_iter`` iterations: aux for all (d, t); topics for all tokens; eta for all tasks.

    Keeps the eta of the last ``n_eta_keep`` iterations. Unsupervised when ``supervision`` is None.
    ``sampler`` is a sampler object (default: exact Gibbs). A resumed run (medlda.engine.checkpoint)
    starts at ``start_iteration`` with the eta samples ``kept_eta`` already kept. The log joint
    (``measure_log_joint``) and ``measure(state)`` (a dict merged into the trace, e.g.
    perplexity.HeldoutPerplexity) are taken every ``measure_every`` iterations and after the last,
    outside the timed sampling.
    """
    sampler = ExactGibbs() if sampler is None else sampler
    n_docs, n_topics = state.n_dk.shape
    no_tasks = np.zeros((0, n_topics)), np.zeros((n_docs, 0)), np.zeros((n_docs, 0))
    kept = [] if kept_eta is None else list(kept_eta)
    trace = []
    seconds = 0.0
    n_tokens = state.word_ids.size
    # omega = zbar @ eta.T of the current state; draw_eta returns it for the state it saw and the
    # eta it drew, so the next iteration's aux and the training metric need no zbar of their own
    omega = state.omega(supervision.eta) if supervision is not None else None
    for it in range(start_iteration, n_iter):
        tic = time.perf_counter()
        if supervision is None:
            sampler.sweep(state, *no_tasks, rng)
        else:
            kappa, w = supervision.loss.draw_aux(omega, supervision.targets, rng)
            kappa, w = np.ascontiguousarray(kappa), np.ascontiguousarray(w)
            sampler.sweep(state, supervision.eta, kappa, w, rng)
            supervision.eta, omega = sampler.draw_eta(state, supervision.eta, kappa, w, supervision.nu, rng)
            if it >= n_iter - n_eta_keep:
                kept.append(supervision.eta.copy())
        seconds += time.perf_counter() - tic
        info = IterationInfo(it + 1, n_iter, seconds, n_tokens * (it + 1 - start_iteration) / max(seconds, 1e-12))
        if supervision is not None and supervision.metric is not None:
            info.train_accuracy = supervision.metric(omega)
        measured = (it + 1) % max(measure_every, 1) == 0 or it + 1 == n_iter
        if (measure_log_joint or measure is not None) and measured:
            sampler.sync(state)
        if measure_log_joint and measured:
            info.log_joint = state.log_joint()
        trace.append({k: v for k, v in vars(info).items() if v is not None and k != "n_iter"})
        if measure is not None and measured:
            trace[-1].update(measure(state))
        if callback is not None:
            callback(info)
    sampler.sync(state)
    eta_samples = np.array(kept) if supervision is not None else None
    return TrainResult(eta_samples, seconds, trace)
