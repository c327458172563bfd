"""JIT warm-up: compile (or load from numba's cache) the kernels a training run will use on a
tiny problem, before the timed sweeps."""

from __future__ import annotations

import time

import numpy as np

from medlda.engine.perplexity import completion_perplexity
from medlda.engine.state import ChainState
from medlda.samplers import REGISTRY, sampler_class

_INFERENCE = "inference"  # the first field of the group that compiles a sampler's inference
_COMPILED: dict[tuple, float] = {}  # seconds each group of kernels took to compile or load, per process


def warm_up(sampler=None, n_tasks: int | None = None, sizes: tuple[int, int, int] | None = None,
            inference: bool = False) -> float:
    """Compile (or load from cache) on a tiny problem the kernels that training with ``sampler``
    on ``n_tasks`` tasks (0: LDA; None: 0 and 1) runs (its sweeps, threaded ones too when it has
    n_jobs > 1, its eta draw and the log joint), and its inference when ``inference`` (a run that
    measures held-out perplexity), or with ``sampler=None`` every kernel, once per process;
    returns the seconds that took (0 once they are loaded). ``sizes`` (documents, tokens, topics
    of the run) lets the sampler leave out kernels the run will not use
    (``Sampler.warm_up_groups``). Compiling only what a run needs keeps a fresh install's first
    fit from compiling every sampler and variant; inference compiles on its first use."""
    if sampler is None:
        groups = [group for cls in REGISTRY.values() for group in cls.every_warm_up_group()]
        groups += [(_INFERENCE, name) for name in REGISTRY]
    else:
        groups = sampler.warm_up_groups(n_tasks, sizes)
        if inference:
            groups.append((_INFERENCE, sampler.name))
    todo = [g for g in groups if g not in _COMPILED]
    for group in todo:
        tic = time.perf_counter()
        _warm_group(group)
        _COMPILED[group] = time.perf_counter() - tic
    return sum(_COMPILED[g] for g in todo)


def _tasks(n_tasks: int, n_docs: int, n_topics: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """eta, kappa and w of ``n_tasks`` tasks (ones) for a sweep."""
    return np.ones((n_tasks, n_topics)), np.ones((n_docs, n_tasks)), np.ones((n_docs, n_tasks))


def _warm_group(group: tuple) -> None:
    """Run one group's kernels (``Sampler.warm_up_plan``) on a tiny problem: 4 tokens, and 300
    one-token documents for the threaded kernels (they only run with two or more stream blocks
    of documents, or tasks)."""
    rng = np.random.default_rng(0)
    word_ids = np.array([0, 1, 1, 2], np.int32)
    doc_ptr = np.array([0, 2, 4], np.int64)
    if group[0] == _INFERENCE:
        completion_perplexity(word_ids, doc_ptr, np.full((3, 2), 1 / 3), np.full(2, 0.5), 1, 1, rng,
                              sampler_class(group[1])())
        return
    sampler, sweep_tasks, on_threads = sampler_class(group[0]).warm_up_plan(group)
    state = ChainState.initialize(word_ids, doc_ptr, 3, 2, np.full(2, 0.5), 0.1, rng)
    state.log_joint()
    for n_tasks in sweep_tasks:
        sampler.sweep(state, *_tasks(n_tasks, 2), rng)
    sampler.sync(state)
    if sampler.supports_supervision:
        sampler.draw_eta(state, *_tasks(1, 2), 1.0, rng)
    if on_threads is not None:
        many = ChainState.initialize(np.zeros(300, np.int32), np.arange(301, dtype=np.int64), 1, 2,
                                     np.full(2, 0.5), 0.1, rng)
        on_threads.sweep(many, *_tasks(sweep_tasks[-1], 300), rng)
        on_threads.sync(many)
        on_threads.draw_eta(many, *_tasks(2, 300), 1.0, rng)  # tasks on threads
