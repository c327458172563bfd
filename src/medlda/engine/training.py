"""The training loop: sampler state, one iteration (aux, topics, eta), schedule and callbacks.

Above the kernels, below the estimators. Sampling time is measured apart from JIT compilation
and from optional measurements (log joint), so reported speeds are the sampler's own.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from medlda.samplers.blocked import BlockedGibbs
from medlda._kernels.counts import fill_counts, fill_doc_topic
from medlda._kernels.eta import columns_omega, topic_columns_from_counts
from medlda._kernels.measures import log_joint
from medlda._kernels.rng import make_streams
from medlda.engine.perplexity import CompletionSplit
from medlda.samplers import ExactGibbs, Light, make_sampler


@dataclass
class SamplerState:
    """Token arrays, assignments and counts of one chain (flat arrays, shared with the kernels).

    ``n_dk`` and ``n_wk`` are the dense counts as read; a sampler may leave them behind z during
    its sweeps (``doc_topic_behind``, ``topic_word_behind``) and they are brought up to date on
    the next read: the collapsed light sampler keeps n_kw in its hash and, for LDA, n_d in its
    records, and writing both into the dense D x K and V x K arrays made an LDA sweep take
    1.04-1.12x the time (20 Newsgroups, K = 100 and 1000). ``doc_topic`` and ``topic_word`` are
    the arrays themselves, for a sampler that writes them or knows they are current."""

    word_ids: np.ndarray
    doc_ptr: np.ndarray
    z: np.ndarray
    doc_topic: np.ndarray
    topic_word: np.ndarray
    n_k: np.ndarray
    alpha: np.ndarray
    beta: float
    streams: np.ndarray
    topic_word_source: object | None = field(default=None, repr=False, compare=False)
    doc_topic_lags: bool = field(default=False, repr=False, compare=False)

    @classmethod
    def initialize(cls, word_ids: np.ndarray, doc_ptr: np.ndarray, n_words: int, n_topics: int,
                   alpha: np.ndarray, beta: float, rng: np.random.Generator) -> "SamplerState":
        """Uniformly random assignments and their counts."""
        z = rng.integers(0, n_topics, size=word_ids.size).astype(np.int32)
        n_docs = doc_ptr.size - 1
        state = cls(word_ids, doc_ptr, z, np.zeros((n_docs, n_topics), np.int32),
                    np.zeros((n_words, n_topics), np.int32), np.zeros(n_topics, np.int64),
                    np.asarray(alpha, dtype=np.float64), float(beta), make_streams(rng, n_docs))
        state.refresh_counts()
        return state

    def refresh_counts(self) -> None:
        """All counts recomputed from z."""
        fill_counts(self.word_ids, self.doc_ptr, self.z, self.doc_topic, self.topic_word, self.n_k)
        self.topic_word_source, self.doc_topic_lags = None, False

    @property
    def n_dk(self) -> np.ndarray:
        """Doc-topic counts (D, K), refilled from z first if a sweep left them behind."""
        if self.doc_topic_lags:
            fill_doc_topic(self.doc_ptr, self.z, self.doc_topic)
            self.doc_topic_lags = False
        return self.doc_topic

    @property
    def n_wk(self) -> np.ndarray:
        """Topic-word counts (V, K), written first from the sampler's own copy if a sweep left
        them behind."""
        if self.topic_word_source is not None:
            source, self.topic_word_source = self.topic_word_source, None
            source.write_topic_word(self.topic_word)
        return self.topic_word

    def set_topic_word(self, counts: np.ndarray) -> None:
        """n_wk overwritten with ``counts`` (a distributed driver's counts of the whole corpus)."""
        self.topic_word[:] = counts
        self.topic_word_source = None

    def doc_topic_behind(self) -> None:
        """A sweep moved tokens without writing n_dk: refill it from z when next read."""
        self.doc_topic_lags = True

    def topic_word_behind(self, source) -> None:
        """A sweep moved tokens without writing n_wk; ``source.write_topic_word(n_wk)`` writes the
        counts as they are now when n_wk is next read (``source`` must keep them so until then)."""
        self.topic_word_source = source

    @property
    def doc_lengths(self) -> np.ndarray:
        return np.diff(self.doc_ptr)

    @property
    def vbeta(self) -> float:
        return self.topic_word.shape[0] * self.beta

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
        """log p(W, Z) with theta and phi collapsed (SPEC §9)."""
        return float(log_joint(self.n_dk, self.n_wk, self.n_k, self.doc_lengths, self.alpha, self.beta))


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


def sweep_topics(sampler, state: SamplerState, eta: np.ndarray, kappa: np.ndarray, w: np.ndarray,
                 rng: np.random.Generator | None = None) -> None:
    """One sweep over every token with ``sampler`` (an object, or a name with default options)."""
    if isinstance(sampler, str):
        sampler = make_sampler(sampler)
    sampler.sweep(state, eta, kappa, w, rng if rng is not None else np.random.default_rng(0))


def train(state: SamplerState, supervision: Supervision | None, *, n_iter: int, n_eta_keep: int,
          rng: np.random.Generator, sampler=None, measure_log_joint: bool = False,
          callback: Callable[[IterationInfo], None] | None = None, start_iteration: int = 0,
          kept_eta: list | None = None, measure: Callable[[SamplerState], dict] | None = None,
          measure_every: int = 1) -> TrainResult:
    """Run ``n_iter`` iterations: aux for all (d, t); topics for all tokens; eta for all tasks.

    Keeps the eta of the last ``n_eta_keep`` iterations. Unsupervised when ``supervision`` is None.
    ``sampler`` is a sampler object (default: exact Gibbs). A resumed run (medlda.engine.checkpoint)
    starts at ``start_iteration`` with the eta samples ``kept_eta`` already kept. The log joint
    (``measure_log_joint``) and ``measure(state)`` (a dict merged into the trace, e.g.
    mixing.HeldoutPerplexity) are taken every ``measure_every`` iterations and after the last,
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
        if measure_log_joint and measured:
            info.log_joint = state.log_joint()
        trace.append({k: v for k, v in vars(info).items() if v is not None and k != "n_iter"})
        if measure is not None and measured:
            trace[-1].update(measure(state))
        if callback is not None:
            callback(info)
    eta_samples = np.array(kept) if supervision is not None else None
    return TrainResult(eta_samples, seconds, trace)


def completion_perplexity(word_ids: np.ndarray, doc_ptr: np.ndarray, phi_wk: np.ndarray,
                          alpha: np.ndarray, n_burn: int, n_avg: int, rng: np.random.Generator,
                          sampler=None, n_jobs: int = 1) -> float:
    """Perplexity by document completion: infer theta (on ``n_jobs`` threads) from a random half
    of each document's tokens, score the other half: exp(-sum log sum_k theta_dk phi_kw / #scored
    tokens)."""
    split = CompletionSplit.draw(word_ids, doc_ptr, rng)
    sampler = ExactGibbs() if sampler is None else sampler
    return split.perplexity(phi_wk, alpha, sampler, n_burn, n_avg, rng, n_jobs)


_COMPILED: dict[tuple, float] = {}  # seconds each group of kernels took to compile or load, per process


def warm_up(sampler=None, n_tasks: int | None = None) -> float:
    """Compile (or load from cache) on a tiny problem the kernels that training with ``sampler``
    on ``n_tasks`` tasks (0: LDA; None: 0 and 1) runs (its sweeps, threaded ones too when it has
    n_jobs > 1, its eta draw, its inference and the log joint), or with ``sampler=None`` every
    kernel, once per process; returns the seconds that took (0 once they are loaded). Compiling
    only what a sampler needs keeps a fresh install's first fit from compiling every sampler
    (69.9 s for all of them on this VM)."""
    groups = _warm_groups(sampler, n_tasks)
    todo = [g for g in groups if g not in _COMPILED]
    for group in todo:
        tic = time.perf_counter()
        _warm_group(*group)
        _COMPILED[group] = time.perf_counter() - tic
    return sum(_COMPILED[g] for g in todo)


def _warm_groups(sampler, n_tasks: int | None) -> list[tuple]:
    """The kernel groups ``warm_up`` compiles for ``sampler`` (None: all of them) on ``n_tasks``.
    The light sweeps are compiled for one proposal mode, n_mh and kind of task count each
    (``kernels.light.sweeps_for``), so their groups name those."""
    if sampler is None:
        light = [("light", variant, True, "mixture", 6, tasks) for variant in ("partial", "collapsed")
                 for tasks in (0, 1)]
        return [("gibbs",), *light, ("blocked", "backward"), ("blocked", "nested")]
    if isinstance(sampler, BlockedGibbs):
        return [("blocked", sampler.simulation)]
    if isinstance(sampler, Light):
        kinds = (0, 1) if n_tasks is None else (min(int(n_tasks), 2),)  # 2 stands for any T >= 2
        return [("light", sampler.variant, int(sampler.n_jobs) > 1, sampler.proposal, int(sampler.n_mh), tasks)
                for tasks in kinds]
    return [("gibbs",)]


def _warm_group(kind: str, variant: str | None = None, threaded: bool = False, proposal: str = "mixture",
                n_mh: int = 6, n_tasks: int = 0) -> None:
    """Run one group's kernels on a tiny problem (4 tokens; 300 one-token documents for threads),
    the light sweeps with ``proposal``, ``n_mh`` and ``n_tasks`` tasks."""
    rng = np.random.default_rng(0)
    word_ids = np.array([0, 1, 1, 2], np.int32)
    doc_ptr = np.array([0, 2, 4], np.int64)
    state = SamplerState.initialize(word_ids, doc_ptr, 3, 2, np.full(2, 0.5), 0.1, rng)
    state.log_joint()
    none = np.zeros((0, 2)), np.zeros((2, 0)), np.zeros((2, 0))
    if kind == "blocked":  # blocked Gibbs: unsupervised LDA only
        BlockedGibbs(variant).sweep(state, *none, rng)
        completion_perplexity(word_ids, doc_ptr, np.full((3, 2), 1 / 3), state.alpha, 1, 1, rng, ExactGibbs())
        return
    if kind == "gibbs":  # one kernel for any number of tasks
        sampler = ExactGibbs()
        sampler.sweep(state, *none, rng)
        sampler.sweep(state, np.ones((1, 2)), np.ones((2, 1)), np.ones((2, 1)), rng)
    else:
        sampler = Light(variant, proposal, n_mh, eta_draw="coordinate")
        sampler.sweep(state, np.ones((n_tasks, 2)), np.ones((2, n_tasks)), np.ones((2, n_tasks)), rng)
    sampler.draw_eta(state, np.ones((1, 2)), np.ones((2, 1)), np.ones((2, 1)), 1.0, rng)
    completion_perplexity(word_ids, doc_ptr, np.full((3, 2), 1 / 3), state.alpha, 1, 1, rng, sampler)
    if threaded:  # the threaded kernels only run with two or more stream blocks of documents (or tasks)
        many = SamplerState.initialize(np.zeros(300, np.int32), np.arange(301, dtype=np.int64), 1, 2,
                                       np.full(2, 0.5), 0.1, rng)
        light = Light(variant, proposal, n_mh, n_jobs=2, eta_draw="coordinate")
        light.sweep(many, np.ones((n_tasks, 2)), np.ones((300, n_tasks)), np.ones((300, n_tasks)), rng)
        light.draw_eta(many, np.ones((2, 2)), np.ones((300, 2)), np.ones((300, 2)), 1.0, rng)  # tasks on threads
