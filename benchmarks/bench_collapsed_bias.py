"""How far the collapsed light sampler's stationary distribution is from the exact one, and how
that shrinks as the corpus grows (suite "collapsed_bias").

Corpus: the tiny supervised corpus of tests/test_light.py grown r-fold: ``--grow docs`` makes r
copies of its documents (more tokens per word: the frozen word table's staleness shrinks),
``--grow both`` also repeats each document's tokens r times (longer documents: the exp table's
staleness, which depends on the document length, shrinks too). Same eta / kappa / w per copy.
Statistic: the joint distribution of the first document's first three assignments (8 states),
from one long chain per sampler (ergodic averages after burn-in).
Reference: exact collapsed Gibbs. The partially collapsed light sampler (exact) gives the Monte
Carlo noise floor. Rows: the total variation to the reference ("tv_to_exact") for each r and
sampler.

    python benchmarks/bench_collapsed_bias.py --reps 1,2,4,8,16 --sweeps 400000 --grow docs
    python benchmarks/bench_collapsed_bias.py --reps 1,2,4,8 --sweeps 400000 --grow both
    python benchmarks/bench_collapsed_bias.py --reps 1 --sweeps 2000          # smoke
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from rows import RowWriter, add_out_argument

from medlda.engine.state import ChainState
from medlda.samplers import ExactGibbs, Light

DOCS = [[0, 1, 0], [1, 2]]
V, K = 3, 2
ALPHA, BETA = 0.5, 0.3
ETA = np.array([[1.5, -1.0], [-0.5, 2.0]])
KAPPA = np.array([[1.0, -0.5], [-1.0, 0.7]])
W = np.array([[0.8, 0.3], [1.2, 0.5]])


def doc0_histogram(sampler, reps: int, n_sweeps: int, seed: int, grow: str) -> np.ndarray:
    """Frequencies of doc 0's first assignment triple over a long chain (burn-in: 1000 sweeps)."""
    docs = [doc * (reps if grow == "both" else 1) for doc in DOCS] * reps
    word_ids = np.array([v for doc in docs for v in doc], np.int32)
    doc_ptr = np.concatenate(([0], np.cumsum([len(doc) for doc in docs]))).astype(np.int64)
    kappa, w = np.tile(KAPPA, (reps, 1)), np.tile(W, (reps, 1))
    rng = np.random.default_rng(seed)
    state = ChainState.initialize(word_ids, doc_ptr, V, K, np.full(K, ALPHA), BETA, rng)
    hist = np.zeros(K ** 3)
    for sweep in range(n_sweeps + 1000):
        sampler.sweep(state, ETA, kappa, w, rng)
        if sweep >= 1000:
            z = state.z
            hist[z[0] * 4 + z[1] * 2 + z[2]] += 1
    return hist / hist.sum()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--reps", default="1,2,4,8", help="corpus copies r")
    p.add_argument("--sweeps", type=int, default=200000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--grow", choices=["docs", "both"], default="docs")
    add_out_argument(p)
    args = p.parse_args()
    out = RowWriter("collapsed_bias", args.out)
    for reps in [int(r) for r in args.reps.split(",")]:
        ref = doc0_histogram(ExactGibbs(), reps, args.sweeps, args.seed, args.grow)
        tokens = 5 * reps * (reps if args.grow == "both" else 1)
        for name, sampler in (("light-partial", Light("partial", n_mh=4)), ("light-collapsed", Light("collapsed", n_mh=4))):
            tic = time.perf_counter()
            hist = doc0_histogram(sampler, reps, args.sweeps, args.seed + 1, args.grow)
            out.write({"grow": args.grow, "r": reps, "sampler": name}, "tv_to_exact",
                      round(0.5 * float(np.abs(hist - ref).sum()), 4), "", tokens=tokens, sweeps=args.sweeps,
                      chain_seconds=round(time.perf_counter() - tic, 1))
    print(out.path)


if __name__ == "__main__":
    main()
