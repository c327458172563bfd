"""Blocked collapsed Gibbs (docs/mathematics.md §8) against single-site Gibbs (suite "blocked"): mixing and speed.

(a) ``synthetic``: the paper's generated corpus (D = 2000, V = 25, K = 10, 100 tokens per
    document, alpha_k = 0.1, beta = 0.01; topics are Griffiths & Steyvers' 5 x 5 bars, or
    phi_k ~ Dir(beta) with ``--topic-kind dirichlet``) plus 200 held-out documents from the same
    model; ``--chains`` chains per sampler, each run through ``LDA(trace=True).fit(X, heldout=)``:
    log joint and completion perplexity against iteration (mean over chains, and the spread).
(b) ``news``: the 20 Newsgroups training set, each K in ``--ks``: log joint against iteration and
    seconds of the sweeps per iteration (the first apart: it also groups the tokens) for
    single-site, backward and nested, and how many iterations each blocked sampler needs to
    reach the log joint single-site has at its last iteration.

    python benchmarks/bench_blocked.py --parts synthetic --chains 5 --iters 100
    python benchmarks/bench_blocked.py --parts news --ks 256,512,1024 --news-iters 200
    python benchmarks/bench_blocked.py --parts synthetic,news --chains 1 --iters 3 --ks 8 --news-iters 2  # smoke

Full runs: ``--chains 20 --iters 500`` and ``--ks 8,16,32,64,128,256,512,1024 --news-iters 200``
(hours; ``--resume ROWS.jsonl`` skips the news runs an interrupted run's rows file holds).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from rows import RowWriter, add_out_argument, read_rows, row
from scipy.sparse import csr_matrix

from medlda import LDA, Corpus
from medlda.data.readers import read_corpus
from medlda.data.text import PAPERS, make_vectorizer

SUITE = "blocked"
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "20news-bydate.tar.gz"
SAMPLERS = {"single-site": dict(sampler="gibbs"),
            "backward": dict(sampler="blocked", block_simulation="backward"),
            "nested": dict(sampler="blocked", block_simulation="nested")}


def bars(n_topics: int = 10, side: int = 5) -> np.ndarray:
    """Griffiths & Steyvers' topics: each row and each column of a side x side grid of words."""
    phi = np.zeros((2 * side, side * side))
    grid = np.arange(side * side).reshape(side, side)
    for i in range(side):
        phi[i, grid[i]] = 1.0 / side
        phi[side + i, grid[:, i]] = 1.0 / side
    return phi[:n_topics]


def generate(n_docs: int, phi: np.ndarray, alpha: float, length: int, rng) -> Corpus:
    """Documents from LDA: theta_d ~ Dir(alpha), z ~ theta_d, w ~ phi_z, ``length`` tokens each."""
    n_topics, n_words = phi.shape
    theta = rng.dirichlet(np.full(n_topics, alpha), size=n_docs)
    z = (rng.random((n_docs, length, 1)) > np.cumsum(theta, axis=1)[:, None, :]).sum(-1).clip(max=n_topics - 1)
    cum = np.cumsum(phi, axis=1)
    words = (rng.random((n_docs, length, 1)) > cum[z]).sum(-1).clip(max=n_words - 1)
    counts = np.zeros((n_docs, n_words), np.int64)
    np.add.at(counts, (np.repeat(np.arange(n_docs), length), words.ravel()), 1)
    return Corpus.from_sparse(csr_matrix(counts))


def synthetic_runs(out: RowWriter, args) -> None:
    rng = np.random.default_rng(args.seed)
    phi = bars() if args.topic_kind == "bars" else rng.dirichlet(np.full(25, 0.01), size=10)
    train_docs = generate(2000, phi, 0.1, 100, rng)
    held = generate(200, phi, 0.1, 100, rng)
    for name, options in SAMPLERS.items():
        lj, pp, secs = [], [], []
        for chain in range(args.chains):
            model = LDA(10, alpha_sum=1.0, beta=0.01, max_iter=args.iters, trace=True, n_infer_burn=10,
                        n_infer_avg=10, random_state=args.seed + 1000 * chain, **options)
            model.fit(train_docs, heldout=held)
            lj.append([t["log_joint"] for t in model.trace_])
            pp.append([t["perplexity"] for t in model.trace_])
            secs.append(model.fit_stats_["train_seconds"] / args.iters)
        lj, pp = np.array(lj), np.array(pp)
        config = {"part": "synthetic", "topics": args.topic_kind, "sampler": name}
        extra = {"n_chains": args.chains, "n_iter": args.iters}
        out.write(config, "log_joint_mean", lj.mean(0).round(2).tolist(), "per iteration",
                  sd=lj.std(0).round(2).tolist(), **extra)
        out.write(config, "perplexity_mean", pp.mean(0).round(4).tolist(), "per iteration",
                  sd=pp.std(0).round(4).tolist(), **extra)
        out.write(config, "final_log_joint", float(lj[:, -1].mean()), "", sd=float(lj[:, -1].std()), **extra)
        out.write(config, "final_perplexity", float(pp[:, -1].mean()), "", sd=float(pp[:, -1].std()), **extra)
        out.write(config, "seconds_per_iter", float(np.mean(secs)), "s", **extra)


def news_runs(out: RowWriter, args) -> None:
    corpus = read_corpus(args.data, subset="train", vectorizer=make_vectorizer(**PAPERS))
    done = set()
    if args.resume:
        for r in read_rows(args.resume):
            if r["metric"] == "log_joint_trace" and r["config"].get("part") == "news":
                done.add((r["config"]["n_topics"], r["config"]["chain"], r["config"]["sampler"]))
                out.put(r)
    for k in args.ks:
        for chain in range(args.news_chains):
            for name, options in SAMPLERS.items():
                if (k, chain, name) in done:
                    continue
                model = LDA(k, alpha_sum=args.alpha_sum, beta=0.01, max_iter=args.news_iters, trace=True,
                            random_state=args.seed + chain, **options).fit(corpus)
                seconds = np.diff([0.0] + [t["seconds"] for t in model.trace_])
                config = {"part": "news", "n_topics": k, "chain": chain, "sampler": name}
                out.write(config, "seconds_per_iter_trace", seconds.round(4).tolist(), "s")
                out.write(config, "log_joint_trace", [round(t["log_joint"], 1) for t in model.trace_], "")


def news_summary(rows: list[dict]) -> list[dict]:
    """Per K: seconds per iteration (after the first, which also groups the tokens), the blocked
    samplers' time relative to single-site, and iterations to reach single-site's last log joint."""
    traces = {}
    for r in rows:
        c = r["config"]
        if c.get("part") == "news" and r["metric"] in ("seconds_per_iter_trace", "log_joint_trace"):
            traces.setdefault((c["n_topics"], c["sampler"]), {}).setdefault(r["metric"], []).append(r["value"])
    out = []
    for k in sorted({k for k, _ in traces}):
        if any((k, name) not in traces for name in SAMPLERS):
            continue
        secs = {name: float(np.mean([np.mean(s[1:] or s) for s in traces[k, name]["seconds_per_iter_trace"]]))
                for name in SAMPLERS}
        log_joint = {name: np.mean(traces[k, name]["log_joint_trace"], axis=0) for name in SAMPLERS}
        target = log_joint["single-site"][-1]
        for name in SAMPLERS:
            config = {"part": "news", "n_topics": k, "sampler": name}
            out.append(row(SUITE, config, "seconds_per_iter", secs[name], "s"))
            out.append(row(SUITE, config, "final_log_joint", float(log_joint[name][-1]), ""))
            if name == "single-site":
                continue
            out.append(row(SUITE, {**config, "against": "single-site"}, "time_ratio",
                           secs[name] / secs["single-site"], "x"))
            reached = np.flatnonzero(log_joint[name] >= target)
            out.append(row(SUITE, {**config, "against": "single-site"}, "iterations_to_final_log_joint",
                           int(reached[0] + 1) if reached.size else None, "iterations",
                           n_iter=len(log_joint[name])))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--parts", default="synthetic,news", help="comma-separated: synthetic, news")
    p.add_argument("--chains", type=int, default=20, help="chains per sampler, synthetic corpus")
    p.add_argument("--iters", type=int, default=500, help="iterations, synthetic corpus")
    p.add_argument("--topic-kind", choices=["bars", "dirichlet"], default="bars")
    p.add_argument("--data", type=Path, default=DEFAULT_DATA)
    p.add_argument("--ks", default="8,16,32,64,128,256,512,1024")
    p.add_argument("--news-iters", type=int, default=200)
    p.add_argument("--news-chains", type=int, default=1)
    p.add_argument("--alpha-sum", type=float, default=6.4, help="20 Newsgroups prior (alpha_k = alpha_sum / K)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--resume", type=Path, default=None,
                   help="rows file of an interrupted run: its finished news runs are kept, not run again")
    add_out_argument(p)
    args = p.parse_args(argv)
    args.ks = [int(k) for k in args.ks.split(",") if k]
    parts = [s.strip() for s in args.parts.split(",") if s.strip()]
    if "news" in parts and not args.data.is_file():
        sys.exit(f"20 Newsgroups archive not found at {args.data}; pass --data")
    out = RowWriter(SUITE, args.out)
    if "synthetic" in parts:
        synthetic_runs(out, args)
    if "news" in parts:
        news_runs(out, args)
        for derived in news_summary(out.rows):
            out.put(derived)
    print(out.path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
