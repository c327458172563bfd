"""Two or more light collapsed LDA chains from one state, their sweeps alternating in one process.

The machine's speed drifts by 20% or more between runs, so a kernel change is measured as the
median over pairs of (one chain's sweep time / the other's), each pair run back to back with the
order swapped every pair. A chain differs from the others only by the samplers-module functions
it patches for its own sweeps (how its hash is allocated or laid out).
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from pathlib import Path
from typing import Callable

import numpy as np

from medlda import samplers
from medlda.data.readers import read_corpus
from medlda.engine.training import SamplerState, warm_up

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "20news-bydate.tar.gz"


def warm_state(corpus, n_topics: int, warm: int, seed: int) -> SamplerState:
    """LDA (alpha = 6.4 / K, beta = 0.01) on ``corpus`` after ``warm`` light collapsed sweeps."""
    rng = np.random.default_rng(seed)
    state = SamplerState.initialize(corpus.word_ids, corpus.doc_ptr, corpus.n_words, n_topics,
                                    np.full(n_topics, 6.4 / n_topics), 0.01, rng)
    no_eta, no_aux = np.zeros((0, n_topics)), np.zeros((corpus.n_docs, 0))
    sampler = samplers.Light("collapsed")
    for _ in range(warm):
        sampler.sweep(state, no_eta, no_aux, no_aux, rng)
    return state


def alternate(state: SamplerState, patches: dict[str, dict[str, Callable]], pairs: int, seed: int) -> dict:
    """Sweep one copy of ``state`` per chain, alternating; ``patches[name]`` maps names in
    ``medlda.samplers`` to what that chain's sweeps use instead. The first round (compilation,
    first hash build) is not timed. Returns each chain's sweep times."""
    n_topics, n_docs = state.n_k.size, state.doc_ptr.size - 1
    no_eta, no_aux = np.zeros((0, n_topics)), np.zeros((n_docs, 0))
    chains = {name: (copy.deepcopy(state), samplers.Light("collapsed"), np.random.default_rng(seed + 1))
              for name in patches}
    saved = {attr: getattr(samplers, attr) for patch in patches.values() for attr in patch}
    times = {name: [] for name in chains}
    try:
        for r in range(pairs + 1):
            for name in (list(chains) if r % 2 == 0 else list(chains)[::-1]):
                for attr, original in saved.items():
                    setattr(samplers, attr, patches[name].get(attr, original))
                chain_state, sampler, chain_rng = chains[name]
                tic = time.perf_counter()
                sampler.sweep(chain_state, no_eta, no_aux, no_aux, chain_rng)
                if r > 0:
                    times[name].append(time.perf_counter() - tic)
    finally:
        for attr, original in saved.items():
            setattr(samplers, attr, original)
    return {name: np.array(t) for name, t in times.items()}


def summary(times: dict, new: str, old: str) -> dict:
    """Median sweep seconds of both chains and the median over pairs of new / old."""
    return {f"{new}_median_seconds": float(np.median(times[new])), f"{old}_median_seconds": float(np.median(times[old])),
            f"ratio_{new}_to_{old}_median_of_pairs": float(np.median(times[new] / times[old]))}


def main(description: str, compare: Callable, **extra) -> None:
    """Command line of a paired benchmark: ``compare(corpus, K, warm, pairs, seed)`` for each K
    of ``--ks`` on the 20 Newsgroups training set, printed as JSON with ``extra`` fields."""
    p = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=DEFAULT_DATA)
    p.add_argument("--ks", default="100,1000")
    p.add_argument("--warm", type=int, default=15, help="sweeps before the timed pairs")
    p.add_argument("--pairs", type=int, default=12)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    warm_up()
    corpus = read_corpus(args.data, subset="train")
    rows = [compare(corpus, int(k), args.warm, args.pairs, args.seed) for k in args.ks.split(",") if k]
    print(json.dumps({**extra, "runs": rows}, indent=1))
