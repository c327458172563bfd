"""Blocked collapsed Gibbs (SPEC §8) against single-site Gibbs: mixing and speed, printed as JSON.

(a) ``synthetic``: the paper's generated corpus (D = 2000, V = 25, K = 10, 100 tokens per
    document, alpha_k = 0.1, beta = 0.01; topics are Griffiths & Steyvers' 5 x 5 bars, or
    phi_k ~ Dir(beta) with ``--topic-kind dirichlet``) plus 200 held-out documents from the same
    model; ``--chains`` chains per sampler, each run through ``LDA(trace=True).fit(X, heldout=)``:
    log joint and completion perplexity against iteration (mean over chains, and the spread).
(b) ``news``: the 20 Newsgroups training set, each K in ``--ks``: log joint against iteration
    and seconds per iteration (CPU seconds of the sweeps alone, and wall seconds) for
    single-site, backward and nested, and how many iterations each blocked sampler needs to
    reach the log joint single-site has at its last iteration (200 in the full run).

    python benchmarks/bench_blocked.py --parts synthetic --chains 5 --iters 100 > a.json
    python benchmarks/bench_blocked.py --parts news --ks 64,256,1024 --news-iters 10 > b.json

Full runs: ``--chains 20 --iters 500`` and ``--ks 8,16,32,64,128,256,512,1024 --news-iters 200``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from medlda import LDA
from medlda.samplers.blocked import BlockedGibbs
from medlda.data.corpus import Corpus
from medlda.data.readers import read_corpus
from medlda.samplers import ExactGibbs
from medlda.engine.training import SamplerState, train, warm_up

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
    from scipy.sparse import csr_matrix
    return Corpus.from_sparse(csr_matrix(counts))


def synthetic_runs(args) -> dict:
    rng = np.random.default_rng(args.seed)
    phi = bars() if args.topic_kind == "bars" else rng.dirichlet(np.full(25, 0.01), size=10)
    train_docs = generate(2000, phi, 0.1, 100, rng)
    held = generate(200, phi, 0.1, 100, rng)
    out = {"corpus": {"D": 2000, "V": 25, "K": 10, "tokens_per_doc": 100, "alpha_k": 0.1, "beta": 0.01,
                      "topics": args.topic_kind, "heldout_docs": 200},
           "n_iter": args.iters, "n_chains": args.chains, "samplers": {}}
    for name, options in SAMPLERS.items():
        lj, pp, secs = [], [], []
        for chain in range(args.chains):
            model = LDA(10, alpha_sum=1.0, beta=0.01, n_iter=args.iters, trace=True, n_infer_burn=10,
                        n_infer_avg=10, random_state=args.seed + 1000 * chain, **options)
            model.fit(train_docs, heldout=held)
            lj.append([t["log_joint"] for t in model.trace_])
            pp.append([t["perplexity"] for t in model.trace_])
            secs.append(model.fit_stats_["train_seconds"] / args.iters)
        lj, pp = np.array(lj), np.array(pp)
        out["samplers"][name] = {
            "log_joint_mean": lj.mean(0).round(2).tolist(), "log_joint_sd": lj.std(0).round(2).tolist(),
            "perplexity_mean": pp.mean(0).round(4).tolist(), "perplexity_sd": pp.std(0).round(4).tolist(),
            "final_log_joint": lj[:, -1].round(2).tolist(), "seconds_per_iter": float(np.mean(secs))}
        print(f"synthetic {name}: final log joint {lj[:, -1].mean():.1f} +- {lj[:, -1].std():.1f}, "
              f"perplexity {pp[:, -1].mean():.3f}", file=sys.stderr)
    out["summary"] = _synthetic_summary(out["samplers"], args.iters)
    return out


def _synthetic_summary(samplers: dict, n_iter: int) -> dict:
    marks = sorted({m for m in (5, 10, 20, 50, 100, 200, 500) if m <= n_iter} | {n_iter})
    return {name: {f"it{m}": {"log_joint": s["log_joint_mean"][m - 1], "perplexity": s["perplexity_mean"][m - 1]}
                   for m in marks} for name, s in samplers.items()}


class _Timed:
    """A sampler whose sweeps are timed in CPU seconds (robust to other load on the machine)."""

    def __init__(self, sampler):
        self.sampler, self.cpu = sampler, []

    def sweep(self, *args) -> None:
        tic = time.process_time()
        self.sampler.sweep(*args)
        self.cpu.append(time.process_time() - tic)


def news_runs(args) -> dict:
    corpus = read_corpus(args.data, subset="train")
    sizes = np.diff(np.asarray(corpus.to_sparse().indptr))
    blocks = corpus.to_sparse().data
    out = {"corpus": {"docs": corpus.n_docs, "words": corpus.n_words, "tokens": corpus.n_tokens,
                      "blocks": int(blocks.size), "tokens_in_blocks_of_2_or_more": float(blocks[blocks > 1].sum() / blocks.sum()),
                      "largest_block": int(blocks.max()), "mean_doc_length": float(sizes.mean())},
           "alpha_sum": args.alpha_sum, "beta": 0.01, "n_iter": args.news_iters, "runs": []}
    makers = {"single-site": ExactGibbs, "backward": lambda: BlockedGibbs("backward"),
              "nested": lambda: BlockedGibbs("nested")}
    done = _load_runs(args.runs_file)
    for k in args.ks:
        for chain in range(args.news_chains):
            for name, make in makers.items():
                if (k, chain, name) in done:
                    out["runs"].append(done[k, chain, name])
                    continue
                rng = np.random.default_rng(args.seed + chain)
                state = SamplerState.initialize(corpus.word_ids, corpus.doc_ptr, corpus.n_words, k,
                                                np.full(k, args.alpha_sum / k), 0.01, rng)
                timed = _Timed(make())
                result = train(state, None, n_iter=args.news_iters, n_eta_keep=0, rng=rng, sampler=timed,
                               measure_log_joint=True)
                wall = np.diff([0.0] + [t["seconds"] for t in result.trace])
                row = {"n_topics": k, "chain": chain, "sampler": name,
                       "cpu_seconds_per_iter": timed.cpu, "wall_seconds_per_iter": wall.round(4).tolist(),
                       "log_joint": [round(t["log_joint"], 1) for t in result.trace]}
                out["runs"].append(row)
                if args.runs_file:
                    with open(args.runs_file, "a") as f:
                        f.write(json.dumps(row) + "\n")
                print(f"news K={k} {name}: {np.mean(timed.cpu[1:] or timed.cpu):.3f} cpu s/iter, "
                      f"log joint {row['log_joint'][-1]:.6g}", file=sys.stderr)
    out["summary"] = _news_summary(out["runs"])
    return out


def _load_runs(path: Path | None) -> dict:
    """Runs already finished by an interrupted invocation (one JSON row per line), by (K, chain, sampler)."""
    if path is None or not path.exists():
        return {}
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {(r["n_topics"], r["chain"], r["sampler"]): r for r in rows}


def _news_summary(runs: list[dict]) -> dict:
    """Per K: seconds per iteration (after the first, which also groups the tokens), the blocked
    samplers' time relative to single-site, and iterations to reach single-site's last log joint."""
    summary = {}
    for k in sorted({r["n_topics"] for r in runs}):
        rows = [r for r in runs if r["n_topics"] == k]
        entry = {}
        for name in SAMPLERS:
            mine = [r for r in rows if r["sampler"] == name]
            cpu = np.mean([np.mean(r["cpu_seconds_per_iter"][1:] or r["cpu_seconds_per_iter"]) for r in mine])
            first = np.mean([r["cpu_seconds_per_iter"][0] for r in mine])
            wall = np.mean([np.mean(r["wall_seconds_per_iter"][1:] or r["wall_seconds_per_iter"]) for r in mine])
            lj = np.mean([r["log_joint"] for r in mine], axis=0)
            entry[name] = {"cpu_seconds_per_iter": float(cpu), "first_iter_cpu_seconds": float(first),
                           "wall_seconds_per_iter": float(wall), "final_log_joint": float(lj[-1])}
        target = entry["single-site"]["final_log_joint"]
        n_iter = len(rows[0]["log_joint"])
        for name in ("backward", "nested"):
            entry[name]["cpu_time_vs_single_site"] = entry[name]["cpu_seconds_per_iter"] / entry["single-site"]["cpu_seconds_per_iter"]
            lj = np.mean([r["log_joint"] for r in rows if r["sampler"] == name], axis=0)
            reached = np.flatnonzero(lj >= target)
            entry[name][f"iterations_to_single_site_log_joint_at_{n_iter}"] = int(reached[0] + 1) if reached.size else None
        summary[f"K={k}"] = entry
    return summary


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
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
    p.add_argument("--runs-file", type=Path, default=None,
                   help="20 Newsgroups: append each finished run here (JSON lines) and skip runs already in it, "
                        "so an interrupted grid resumes where it stopped")
    args = p.parse_args(argv)
    args.ks = [int(k) for k in args.ks.split(",") if k]
    parts = [s.strip() for s in args.parts.split(",") if s.strip()]
    result = {"compile_seconds": warm_up()}
    if "synthetic" in parts:
        result["synthetic"] = synthetic_runs(args)
    if "news" in parts:
        result["news"] = news_runs(args)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
