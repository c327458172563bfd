"""Sampler speed and accuracy on 20 Newsgroups, printed as JSON (SPEC §9 measures).

- supervised: binary alt.atheism vs talk.religion.misc, MedLDAClassifier, test accuracy;
- unsupervised: LDA on the full training set, seconds per iteration as K grows, and the log
  joint after each iteration (measured outside the timed sampling) to compare how fast each
  sampler climbs per second;
- sensitivity (KDD paper): binary task at one K with light, varying the proposal composition,
  n_mh and n_gibbs.
For each K and sampler (gibbs, light partially collapsed, light collapsed): seconds per
iteration, tokens/s (training tokens x iterations / sampling seconds), JIT compile time apart,
and the ratios of interest measured in this one run.

    python benchmarks/bench_samplers.py > bench.json          # everything (about 15 minutes)
    python benchmarks/bench_samplers.py --ks 20,100,400 --iters 20 --lda-iters 10 --skip-sensitivity
    python benchmarks/bench_samplers.py --ks 100,1000 --skip-binary --skip-sensitivity --repeats 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

from medlda import LDA, MedLDAClassifier
from medlda.data.readers import read_corpus
from medlda.engine.training import warm_up

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "20news-bydate.tar.gz"
SAMPLERS = {"gibbs": dict(sampler="gibbs"),
            "light-partial": dict(sampler="light", light_variant="partial"),
            "light-collapsed": dict(sampler="light", light_variant="collapsed")}
BINARY = ["alt.atheism", "talk.religion.misc"]


def binary_task(archive: Path):
    train = read_corpus(archive, subset="train", categories=BINARY)
    test = read_corpus(archive, subset="test", categories=BINARY, vocabulary=train.vocabulary)
    return train, train.single_labels(), test, test.single_labels()


def _binary_run(data, k: int, n_iter: int, seed: int, options: dict) -> dict:
    train, y, test, y_test = data
    model = MedLDAClassifier(k, n_iter=n_iter, random_state=seed, **options).fit(train, y)
    tic = time.perf_counter()
    accuracy = float(model.score(test, y_test))
    return {"stats": model.fit_stats_, "accuracy": accuracy, "predict_seconds": time.perf_counter() - tic,
            "train_accuracy": model.train_accuracy_}


def supervised_runs(data, ks: list[int], n_iter: int, seed: int, samplers: list[str], repeats: int = 1) -> list[dict]:
    rows = []
    for repeat in range(repeats):
        for k in ks:
            for name in samplers:
                run = _binary_run(data, k, n_iter, seed, SAMPLERS[name])
                rows.append(_row("binary", name, k, n_iter, run.pop("stats"), repeat=repeat, **run))
                print(json.dumps(rows[-1]), file=sys.stderr)
    return rows


def unsupervised_runs(archive: Path, ks: list[int], n_iter: int, seed: int, samplers: list[str],
                      repeats: int = 1) -> list[dict]:
    train = read_corpus(archive, subset="train")
    rows = []
    for repeat in range(repeats):
        for k in ks:
            for name in samplers:
                model = LDA(k, n_iter=n_iter, random_state=seed, trace=True, **SAMPLERS[name]).fit(train)
                climb = [[round(t["seconds"], 3), t["log_joint"]] for t in model.trace_]
                rows.append(_row("lda-full", name, k, n_iter, model.fit_stats_, repeat=repeat,
                                 log_joint=model.log_joint_,
                                 tokens_per_second_second_half=_second_half_rate(model.trace_, train.n_tokens),
                                 seconds_log_joint=climb))
                print(json.dumps({k: v for k, v in rows[-1].items() if k != "seconds_log_joint"}), file=sys.stderr)
    return rows


def _second_half_rate(trace: list[dict], n_tokens: int) -> float:
    """Tokens per second over the second half of the iterations: the speed once the chain has left
    its random start (the first sweeps move most tokens and cost more)."""
    seconds = [0.0] + [t["seconds"] for t in trace]
    half = len(trace) // 2
    return n_tokens * (len(trace) - half) / (seconds[-1] - seconds[half])


def sensitivity_runs(data, k: int, n_iter: int, seed: int, variant: str) -> list[dict]:
    """The KDD paper's study: one knob at a time away from the defaults (mixture, 6, 2)."""
    settings = ([{"proposal": p} for p in ("mixture", "scan", "cycle", "doc", "word", "exp")]
                + [{"n_mh": n} for n in (1, 2, 4, 8)] + [{"n_gibbs": n} for n in (1, 4, 8)])
    rows = []
    for setting in settings:
        run = _binary_run(data, k, n_iter, seed, {"sampler": "light", "light_variant": variant, **setting})
        rows.append(_row("sensitivity", f"light-{variant}", k, n_iter, run.pop("stats"), **setting, **run))
        print(json.dumps(rows[-1]), file=sys.stderr)
    return rows


def _row(task: str, sampler: str, k: int, n_iter: int, stats: dict, **extra) -> dict:
    return {"task": task, "sampler": sampler, "n_topics": k, "n_iter": n_iter,
            "seconds_per_iter": stats["train_seconds"] / n_iter,
            "tokens_per_second": stats["tokens_per_second"], "n_tokens": stats["n_tokens"], **extra}


def ratios(rows: list[dict]) -> dict:
    """Speed-ups of light over gibbs at each K, and light's cost growth with K (same run): ratios
    of the medians of seconds per iteration over the repeated fits, and with ``--repeats`` above 1
    each repeat's own ratios beside them (key + "/each_repeat"), to show the spread."""
    out = {}
    for task in sorted({r["task"] for r in rows}):
        table = defaultdict(list)  # (sampler, K): seconds per iteration of each repeat, in order
        for r in rows:
            if r["task"] == task:
                table[(r["sampler"], r["n_topics"])].append(r["seconds_per_iter"])

        def put(key: str, num: tuple, den: tuple) -> None:
            out[key] = statistics.median(table[num]) / statistics.median(table[den])
            if len(table[num]) > 1 and len(table[num]) == len(table[den]):
                out[key + "/each_repeat"] = [a / b for a, b in zip(table[num], table[den])]

        ks = sorted({k for _, k in table})
        for name in ("light-partial", "light-collapsed"):
            mine = [k for k in ks if (name, k) in table]
            for k in mine:
                if ("gibbs", k) in table:
                    put(f"{task}/{name}/speedup_vs_gibbs/K={k}", ("gibbs", k), (name, k))
            pairs = [(1000, 100)] if (name, 1000) in table and (name, 100) in table else []
            if len(mine) > 1:
                pairs.append((mine[-1], mine[0]))
            for high, low in dict.fromkeys(pairs):
                put(f"{task}/{name}/seconds_ratio_K={high}_vs_K={low}", (name, high), (name, low))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="20news-bydate.tar.gz")
    p.add_argument("--ks", default="10,20,50,100,200,400,1000")
    p.add_argument("--iters", type=int, default=50, help="iterations of the supervised runs")
    p.add_argument("--lda-iters", type=int, default=30, help="iterations of the unsupervised runs")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeats", type=int, default=1,
                   help="fits of every binary and LDA configuration, interleaved (every K and sampler once, then "
                        "again), so that the machine's drift falls on all alike; ratios use the medians")
    p.add_argument("--samplers", default=",".join(SAMPLERS), help="subset of " + ",".join(SAMPLERS))
    p.add_argument("--skip-binary", action="store_true")
    p.add_argument("--skip-lda", action="store_true")
    p.add_argument("--skip-sensitivity", action="store_true")
    p.add_argument("--sensitivity-k", type=int, default=100)
    p.add_argument("--sensitivity-variant", default="collapsed", choices=["collapsed", "partial"])
    p.add_argument("--phi-every", type=int, default=1, help="light-partial draws phi every N iterations")
    args = p.parse_args()
    SAMPLERS["light-partial"]["phi_every"] = args.phi_every
    if not args.data.is_file():
        sys.exit(f"20 Newsgroups archive not found at {args.data}; pass --data")
    ks = [int(k) for k in args.ks.split(",")]
    samplers = [s for s in args.samplers.split(",") if s]
    unknown = set(samplers) - set(SAMPLERS)
    if unknown:
        sys.exit(f"unknown samplers {sorted(unknown)}; choose from {list(SAMPLERS)}")
    compile_seconds = warm_up()
    data = binary_task(args.data)
    rows = [] if args.skip_binary else supervised_runs(data, ks, args.iters, args.seed, samplers, args.repeats)
    if not args.skip_lda:
        rows += unsupervised_runs(args.data, ks, args.lda_iters, args.seed, samplers, args.repeats)
    if not args.skip_sensitivity:
        rows += sensitivity_runs(data, args.sensitivity_k, args.iters, args.seed, args.sensitivity_variant)
    print(json.dumps({"compile_seconds": compile_seconds, "phi_every": args.phi_every, "runs": rows,
                      "ratios": ratios(rows)}, indent=1))


if __name__ == "__main__":
    main()
