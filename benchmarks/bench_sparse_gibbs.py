"""LDA's exact Gibbs sweep, dense in topics against sparse (suite "sparse_gibbs"), on one thread.

For each K, a chain on the full 20 Newsgroups training set is burned in (``--burn-in`` sweeps of
the sparse sweep from a seeded random start); from that state a dense chain and a sparse chain
(and with ``--light`` a light collapsed chain, the estimators' default light sampler) sweep
``--sweeps`` times each, interleaved sweep by sweep (the order alternating), so that both meet
the same load. Rows: each sampler's tokens per second of CPU time of the sweeping thread (median
over the sweeps; CPU time counts what a busy machine's other jobs take less than wall time does)
and of wall time, and the sparse sweep's speed-up over the dense one (and over light): the
median of the paired sweeps' ratios, with their range.

    python benchmarks/bench_sparse_gibbs.py --ks 10,15,20,50,100,400 --light
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from rows import RowWriter, add_out_argument

from medlda.data.readers import read_corpus
from medlda.data.text import PAPERS, make_vectorizer
from medlda.engine.state import ChainState
from medlda.samplers import ExactGibbs, Light

SUITE = "sparse_gibbs"
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "20news-bydate.tar.gz"
ALPHA_SUM, BETA = 6.4, 0.01  # the estimators' defaults


def burned_in(word_ids, doc_ptr, n_words: int, n_topics: int, n_sweeps: int, seed: int) -> ChainState:
    rng = np.random.default_rng(seed)
    state = ChainState.initialize(word_ids, doc_ptr, n_words, n_topics, np.full(n_topics, ALPHA_SUM / n_topics),
                                  BETA, rng)
    sparse, no_tasks = ExactGibbs(sparse_from=1), _no_tasks(state)
    for _ in range(n_sweeps):
        sparse.sweep(state, *no_tasks, rng)
    return state


def _no_tasks(state: ChainState):
    n_docs, n_topics = state.n_dk.shape
    return np.zeros((0, n_topics)), np.zeros((n_docs, 0)), np.zeros((n_docs, 0))


def _copy(state: ChainState) -> ChainState:
    return ChainState(state.word_ids, state.doc_ptr, state.z.copy(), state.n_dk.copy(), state.n_wk.copy(),
                      state.n_k.copy(), state.alpha.copy(), state.beta, state.streams.copy())


def compare(out: RowWriter, start: ChainState, n_sweeps: int, light: bool, seed: int) -> None:
    n_topics, n_tokens = start.n_k.size, start.word_ids.size
    samplers = {"dense": ExactGibbs(sparse_from=n_topics + 1), "sparse": ExactGibbs(sparse_from=1)}
    if light:
        samplers["light"] = Light()
    chains = {name: _copy(start) for name in samplers}
    rngs = {name: np.random.default_rng(seed) for name in samplers}
    cpu = {name: [] for name in samplers}
    wall = {name: [] for name in samplers}
    names = list(samplers)
    no_tasks = _no_tasks(start)
    for sweep in range(n_sweeps + 1):  # the first sweep of each compiles (or loads) and is not timed
        for name in names if sweep % 2 == 0 else names[::-1]:
            tic, tic_wall = time.thread_time(), time.perf_counter()
            samplers[name].sweep(chains[name], *no_tasks, rngs[name])  # no sync: light keeps its counts hashed
            if sweep > 0:
                cpu[name].append(time.thread_time() - tic)
                wall[name].append(time.perf_counter() - tic_wall)
    config = {"n_topics": n_topics}
    for name in names:
        out.write({**config, "sampler": name}, "tokens_per_cpu_second", n_tokens / statistics.median(cpu[name]),
                  "tokens/s", n_sweeps=n_sweeps)
        out.write({**config, "sampler": name}, "tokens_per_second", n_tokens / statistics.median(wall[name]),
                  "tokens/s", n_sweeps=n_sweeps)
    for other in names[:1] + names[2:]:
        ratios = [a / b for a, b in zip(cpu[other], cpu["sparse"])]
        out.write({**config, "against": other}, "sparse_speedup", statistics.median(ratios), "x",
                  low=min(ratios), high=max(ratios))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--ks", default="10,20,50,100,400")
    parser.add_argument("--burn-in", type=int, default=20, help="sweeps before the timed ones (default 20)")
    parser.add_argument("--sweeps", type=int, default=10, help="timed sweeps per sampler (default 10)")
    parser.add_argument("--light", action="store_true", help="time the light collapsed sweep too")
    parser.add_argument("--seed", type=int, default=0)
    add_out_argument(parser)
    args = parser.parse_args(argv)
    train = read_corpus(args.data, subset="train", vectorizer=make_vectorizer(**PAPERS))
    out = RowWriter(SUITE, args.out)
    for n_topics in [int(k) for k in args.ks.split(",")]:
        start = burned_in(train.word_ids, train.doc_ptr, train.n_words, n_topics, args.burn_in, args.seed)
        compare(out, start, args.sweeps, args.light, args.seed)


if __name__ == "__main__":
    main()
