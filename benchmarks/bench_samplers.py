"""Sampler speed on 20 Newsgroups (suite "samplers"): seconds per iteration, tokens/s, accuracy.

- ``binary``: alt.atheism against talk.religion.misc, MedLDAClassifier, test accuracy;
- ``lda-full``: LDA on the full training set, seconds per iteration as K grows, and the log joint
  after each iteration (measured outside the timed sweeps) to compare how fast each sampler
  climbs per second;
- ``sensitivity`` (the KDD paper's study): the binary task at one K with light, one knob at a
  time away from the defaults (proposal, n_mh, n_gibbs).

For each task, K and sampler (gibbs, light partial, light collapsed): rows of seconds per
iteration and tokens/s (JIT compilation apart), then derived rows: light's speed-up over gibbs
at each K and light's cost growth with K, as ratios of the median fits over ``--repeats``
interleaved repeats (each repeat's own ratio beside, in ``each_repeat``).

    python benchmarks/bench_samplers.py                                   # everything (about 15 minutes)
    python benchmarks/bench_samplers.py --ks 100,400 --skip-lda --skip-sensitivity \\
        --samplers gibbs,light-collapsed --repeats 3                      # light against gibbs
    python benchmarks/bench_samplers.py --ks 100,1000 --skip-binary --skip-sensitivity \\
        --samplers light-collapsed --repeats 5                            # cost growth with K
    python benchmarks/bench_samplers.py --ks 20 --iters 3 --lda-iters 2 --skip-lda --skip-sensitivity  # smoke
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

from rows import RowWriter, add_out_argument, row

from medlda import LDA, MedLDAClassifier
from medlda.data.readers import read_corpus

SUITE = "samplers"
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "20news-bydate.tar.gz"
SAMPLERS = {"gibbs": dict(sampler="gibbs"),
            "light-partial": dict(sampler="light", light_variant="partial"),
            "light-collapsed": dict(sampler="light", light_variant="collapsed")}
BINARY = ["alt.atheism", "talk.religion.misc"]


def binary_task(archive: Path):
    train = read_corpus(archive, subset="train", categories=BINARY)
    test = read_corpus(archive, subset="test", categories=BINARY, vocabulary=train.vocabulary)
    return train, train.single_labels(), test, test.single_labels()


def _config(task: str, name: str, k: int) -> dict:
    """A fit's config; light-partial's names its phi_every."""
    config = {"task": task, "sampler": name, "n_topics": k}
    if "phi_every" in SAMPLERS[name]:
        config["phi_every"] = SAMPLERS[name]["phi_every"]
    return config


def _fit_rows(out: RowWriter, config: dict, n_iter: int, stats: dict, **extra) -> None:
    """The rows every fit gives: seconds per iteration, tokens/s, compile seconds."""
    out.write(config, "seconds_per_iter", stats["train_seconds"] / n_iter, "s", n_iter=n_iter, **extra)
    out.write(config, "tokens_per_second", stats["tokens_per_second"], "tokens/s", n_tokens=stats["n_tokens"],
              **extra)
    out.write(config, "compile_seconds", stats["compile_seconds"], "s", **extra)


def _binary_fit(out: RowWriter, data, config: dict, n_iter: int, seed: int, options: dict, **extra) -> None:
    train, y, test, y_test = data
    model = MedLDAClassifier(config["n_topics"], max_iter=n_iter, random_state=seed, **options).fit(train, y)
    tic = time.perf_counter()
    accuracy = float(model.score(test, y_test))
    predict_seconds = time.perf_counter() - tic
    _fit_rows(out, config, n_iter, model.fit_stats_, seed=seed, **extra)
    out.write(config, "test_accuracy", accuracy, "", seed=seed, **extra)
    out.write(config, "train_accuracy", float(model.train_accuracy_), "", seed=seed, **extra)
    out.write(config, "predict_seconds", predict_seconds, "s", seed=seed, **extra)


def supervised_runs(out: RowWriter, data, ks: list[int], n_iter: int, seed: int, samplers: list[str],
                    repeats: int) -> None:
    for repeat in range(repeats):
        for k in ks:
            for name in samplers:
                config = _config("binary", name, k)
                _binary_fit(out, data, config, n_iter, seed, SAMPLERS[name], repeat=repeat)


def unsupervised_runs(out: RowWriter, archive: Path, ks: list[int], n_iter: int, seed: int, samplers: list[str],
                      repeats: int) -> None:
    train = read_corpus(archive, subset="train")
    for repeat in range(repeats):
        for k in ks:
            for name in samplers:
                config = _config("lda-full", name, k)
                model = LDA(k, max_iter=n_iter, random_state=seed, trace=True, **SAMPLERS[name]).fit(train)
                _fit_rows(out, config, n_iter, model.fit_stats_, seed=seed, repeat=repeat)
                out.write(config, "log_joint", float(model.log_joint_), "", seed=seed, repeat=repeat)
                out.write(config, "tokens_per_second_second_half", second_half_rate(model.trace_, train.n_tokens),
                          "tokens/s", seed=seed, repeat=repeat)
                out.write(config, "log_joint_climb", [[round(t["seconds"], 3), t["log_joint"]] for t in model.trace_],
                          "[s, log joint]", seed=seed, repeat=repeat)


def second_half_rate(trace: list[dict], n_tokens: int) -> float:
    """Tokens per second over the second half of the iterations: the speed once the chain has left
    its random start (the first sweeps move most tokens and cost more)."""
    seconds = [0.0] + [t["seconds"] for t in trace]
    half = len(trace) // 2
    return n_tokens * (len(trace) - half) / (seconds[-1] - seconds[half])


def sensitivity_runs(out: RowWriter, data, k: int, n_iter: int, seed: int, variant: str) -> None:
    """The KDD paper's study: one knob at a time away from the defaults (mixture, 6, 2)."""
    settings = ([{"proposal": p} for p in ("mixture", "scan", "cycle", "doc", "word", "exp")]
                + [{"n_mh": n} for n in (1, 2, 4, 8)] + [{"n_gibbs": n} for n in (1, 4, 8)])
    for setting in settings:
        config = {"task": "sensitivity", "sampler": f"light-{variant}", "n_topics": k, **setting}
        _binary_fit(out, data, config, n_iter, seed, {"sampler": "light", "light_variant": variant, **setting})


def ratios(rows: list[dict]) -> list[dict]:
    """Derived rows from the binary and LDA rows of seconds per iteration: light's speed-up over
    gibbs at each K ("speedup_vs_gibbs") and its cost growth with K ("seconds_ratio", K = 1000
    against 100 and the largest K against the smallest). Each is the ratio of the medians over
    the repeated fits; with several repeats, ``each_repeat`` lists each repeat's own ratio."""
    out = []
    table = defaultdict(list)  # (task, sampler, K): seconds per iteration of each repeat, in order
    for r in rows:
        c = r["config"]
        if r["metric"] == "seconds_per_iter" and c.get("task") in ("binary", "lda-full"):
            table[(c["task"], c["sampler"], c["n_topics"])].append(r["value"])

    def put(metric: str, config: dict, num: tuple, den: tuple) -> None:
        extra = {}
        if len(table[num]) > 1 and len(table[num]) == len(table[den]):
            extra["each_repeat"] = [a / b for a, b in zip(table[num], table[den])]
        out.append(row(SUITE, config, metric, statistics.median(table[num]) / statistics.median(table[den]), "x",
                       **extra))

    for task in sorted({t for t, _, _ in table}):
        ks = sorted({k for t, _, k in table if t == task})
        for name in ("light-partial", "light-collapsed"):
            mine = [k for k in ks if (task, name, k) in table]
            for k in mine:
                if (task, "gibbs", k) in table:
                    put("speedup_vs_gibbs", {"task": task, "sampler": name, "n_topics": k},
                        (task, "gibbs", k), (task, name, k))
            pairs = [(1000, 100)] if 1000 in mine and 100 in mine else []
            if len(mine) > 1:
                pairs.append((mine[-1], mine[0]))
            for high, low in dict.fromkeys(pairs):
                put("seconds_ratio", {"task": task, "sampler": name, "n_topics": high, "against_n_topics": low},
                    (task, name, high), (task, name, low))
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
    add_out_argument(p)
    args = p.parse_args()
    SAMPLERS["light-partial"]["phi_every"] = args.phi_every
    if not args.data.is_file():
        sys.exit(f"20 Newsgroups archive not found at {args.data}; pass --data")
    ks = [int(k) for k in args.ks.split(",")]
    samplers = [s for s in args.samplers.split(",") if s]
    unknown = set(samplers) - set(SAMPLERS)
    if unknown:
        sys.exit(f"unknown samplers {sorted(unknown)}; choose from {list(SAMPLERS)}")
    out = RowWriter(SUITE, args.out)
    data = binary_task(args.data)
    if not args.skip_binary:
        supervised_runs(out, data, ks, args.iters, args.seed, samplers, args.repeats)
    if not args.skip_lda:
        unsupervised_runs(out, args.data, ks, args.lda_iters, args.seed, samplers, args.repeats)
    if not args.skip_sensitivity:
        sensitivity_runs(out, data, args.sensitivity_k, args.iters, args.seed, args.sensitivity_variant)
    for derived in ratios(out.rows):
        out.put(derived)
    print(out.path)


if __name__ == "__main__":
    main()
