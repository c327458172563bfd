"""Sampler speed and accuracy on 20 Newsgroups, printed as JSON (SPEC §9 measures).

- supervised: binary alt.atheism vs talk.religion.misc, MedLDAClassifier, test accuracy;
- unsupervised: LDA on the full training set, seconds per iteration as K grows.
For each K and sampler (gibbs, light partially collapsed, light collapsed): seconds per
iteration, tokens/s (training tokens x iterations / sampling seconds), JIT compile time apart,
and the ratios of interest measured in this one run.

    python benchmarks/bench_samplers.py --ks 20,100,400 --iters 20 --lda-iters 5 > bench.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from medlda import LDA, MedLDAClassifier
from medlda.readers import read_corpus
from medlda.training import warm_up

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "20news-bydate.tar.gz"
SAMPLERS = {"gibbs": dict(sampler="gibbs"),
            "light-partial": dict(sampler="light", light_variant="partial"),
            "light-collapsed": dict(sampler="light", light_variant="collapsed")}
BINARY = ["alt.atheism", "talk.religion.misc"]


def supervised_runs(archive: Path, ks: list[int], n_iter: int, seed: int) -> list[dict]:
    train = read_corpus(archive, subset="train", categories=BINARY)
    test = read_corpus(archive, subset="test", categories=BINARY, vocabulary=train.vocabulary)
    y, y_test = train.single_labels(), test.single_labels()
    rows = []
    for k in ks:
        for name, options in SAMPLERS.items():
            model = MedLDAClassifier(k, n_iter=n_iter, random_state=seed, **options).fit(train, y)
            tic = time.perf_counter()
            accuracy = float(model.score(test, y_test))
            rows.append(_row("binary", name, k, n_iter, model.fit_stats_, accuracy=accuracy,
                             predict_seconds=time.perf_counter() - tic))
            print(json.dumps(rows[-1]), file=sys.stderr)
    return rows


def unsupervised_runs(archive: Path, ks: list[int], n_iter: int, seed: int) -> list[dict]:
    train = read_corpus(archive, subset="train")
    rows = []
    for k in ks:
        for name, options in SAMPLERS.items():
            model = LDA(k, n_iter=n_iter, random_state=seed, **options).fit(train)
            rows.append(_row("lda-full", name, k, n_iter, model.fit_stats_, log_joint=model.log_joint_))
            print(json.dumps(rows[-1]), file=sys.stderr)
    return rows


def _row(task: str, sampler: str, k: int, n_iter: int, stats: dict, **extra) -> dict:
    return {"task": task, "sampler": sampler, "n_topics": k, "n_iter": n_iter,
            "seconds_per_iter": stats["train_seconds"] / n_iter,
            "tokens_per_second": stats["tokens_per_second"], "n_tokens": stats["n_tokens"], **extra}


def ratios(rows: list[dict]) -> dict:
    """Speed-ups of light over gibbs at each K, and light's cost growth with K (same run)."""
    out = {}
    for task in sorted({r["task"] for r in rows}):
        table = {(r["sampler"], r["n_topics"]): r for r in rows if r["task"] == task}
        ks = sorted({k for _, k in table})
        for name in ("light-partial", "light-collapsed"):
            for k in ks:
                if ("gibbs", k) in table and (name, k) in table:
                    out[f"{task}/{name}/speedup_vs_gibbs/K={k}"] = (
                        table[("gibbs", k)]["seconds_per_iter"] / table[(name, k)]["seconds_per_iter"])
            if len(ks) > 1:
                out[f"{task}/{name}/seconds_ratio_K={ks[-1]}_vs_K={ks[0]}"] = (
                    table[(name, ks[-1])]["seconds_per_iter"] / table[(name, ks[0])]["seconds_per_iter"])
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="20news-bydate.tar.gz")
    p.add_argument("--ks", default="10,20,50,100,200,400,1000")
    p.add_argument("--iters", type=int, default=50, help="iterations of the supervised runs")
    p.add_argument("--lda-iters", type=int, default=5, help="iterations of the unsupervised runs")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--skip-lda", action="store_true")
    args = p.parse_args()
    if not args.data.is_file():
        sys.exit(f"20 Newsgroups archive not found at {args.data}; pass --data")
    ks = [int(k) for k in args.ks.split(",")]
    compile_seconds = warm_up()
    rows = supervised_runs(args.data, ks, args.iters, args.seed)
    if not args.skip_lda:
        rows += unsupervised_runs(args.data, ks, args.lda_iters, args.seed)
    print(json.dumps({"compile_seconds": compile_seconds, "runs": rows, "ratios": ratios(rows)}, indent=1))


if __name__ == "__main__":
    main()
