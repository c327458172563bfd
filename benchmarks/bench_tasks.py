"""Every task on the benchmark data, printed as JSON (issue 4's figures; SPEC §9 measures).

- 20 Newsgroups, 20 classes: test accuracy and training time for each K, sampler (light, gibbs),
  strategy (multitask, ovr) and loss (hinge, logistic);
- hotel reviews regression: predictive R^2 for each K (epsilon-insensitive loss by default);
- Reuters-21578 ModApte multi-label (90 categories): F1 micro and macro for each K.

Each run prints one JSON line on stderr as it finishes, and the whole report on stdout. ``--seeds``
repeats every run with each seed; the summary compares means over the seeds (single runs of a topic
model differ by about 0.005-0.01 accuracy from seed to seed). Flags pick subsets, so a reduced run
is possible, e.g.

    python benchmarks/bench_tasks.py --parts news --ks 50,100 --samplers light --strategies multitask \\
        --losses hinge,logistic --iters 50
    python benchmarks/bench_tasks.py --parts hotel --hotel-ks 10,20
    python benchmarks/bench_tasks.py --parts reuters --reuters-ks 50
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from medlda import MedLDAClassifier, MedLDARegressor
from medlda.data.readers import read_corpus
from medlda.data.tasks import label_matrix, measures
from medlda.engine.training import warm_up

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def _split(path: Path, **kwargs):
    train = read_corpus(path, subset="train", **kwargs)
    return train, read_corpus(path, subset="test", vocabulary=train.vocabulary, **kwargs)


def _row(part: str, model, seconds_predict: float, **extra) -> dict:
    stats = model.fit_stats_
    row = {"part": part, "n_topics": model.n_topics, "sampler": model.sampler, "loss": model.loss,
           "n_iter": model.n_iter, "train_seconds": stats["train_seconds"],
           "wall_seconds": stats.get("wall_seconds", stats["train_seconds"]),
           "predict_seconds": seconds_predict, **extra}
    print(json.dumps(row), file=sys.stderr, flush=True)
    return row


def _jobs(args, strategy: str) -> int | None:
    """--n-jobs is one-vs-rest's processes; a multitask model samples on one core, as the issue's
    timings are defined (threads would also switch light to its snapshot-merging parallel sweep)."""
    return args.n_jobs if strategy == "ovr" else None


def news_runs(args) -> list[dict]:
    train, test = _split(args.data / "20news-bydate.tar.gz")
    y, y_test = train.single_labels(), test.single_labels()
    rows = []
    grid = [(k, sampler, strategy, loss, seed) for k in args.ks for sampler in args.samplers
            for strategy in args.strategies for loss in args.losses for seed in args.seeds]
    for k, sampler, strategy, loss, seed in grid:
        model = MedLDAClassifier(k, sampler=sampler, strategy=strategy, loss=loss, n_iter=args.iters,
                                 n_jobs=_jobs(args, strategy), random_state=seed).fit(train, y)
        tic = time.perf_counter()
        acc = measures("classification", y_test, model.predict(test))["accuracy"]
        rows.append(_row("news20", model, time.perf_counter() - tic, strategy=strategy, seed=seed, accuracy=acc,
                         train_accuracy=model.train_accuracy_, n_jobs=model.n_jobs))
    return rows


def hotel_runs(args) -> list[dict]:
    train, test = _split(args.data / "hotel-reviews.tar.gz")
    y, y_test = train.real_labels(), test.real_labels()
    rows = []
    for k, sampler, seed in [(k, s, seed) for k in args.hotel_ks for s in args.samplers for seed in args.seeds]:
        model = MedLDARegressor(k, sampler=sampler, loss=args.regression_loss, n_iter=args.hotel_iters,
                                random_state=seed).fit(train, y)
        tic = time.perf_counter()
        r2 = measures("regression", y_test, model.predict(test))["r2"]
        rows.append(_row("hotel", model, time.perf_counter() - tic, seed=seed, r2=r2, train_r2=model.train_score_))
    return rows


def reuters_runs(args) -> list[dict]:
    train, test = _split(args.data / "reuters21578.tar.gz")
    Y, names, _ = label_matrix(train)
    Y_test, _, _ = label_matrix(test, names)
    rows = []
    grid = [(k, sampler, strategy, seed) for k in args.reuters_ks for sampler in args.samplers
            for strategy in args.strategies for seed in args.seeds]
    for k, sampler, strategy, seed in grid:
        model = MedLDAClassifier(k, sampler=sampler, strategy=strategy, n_iter=args.reuters_iters,
                                 positive_cost=args.positive_cost, n_jobs=_jobs(args, strategy),
                                 random_state=seed).fit(train, Y)
        tic = time.perf_counter()
        scores = measures("multilabel", Y_test, model.predict(test))
        rows.append(_row("reuters", model, time.perf_counter() - tic, strategy=strategy, seed=seed,
                         positive_cost=model.positive_cost_, **scores))
    return rows


def summary(rows: list[dict]) -> dict:
    """The issue's comparisons within this run, on means over the seeds: logistic - hinge,
    ovr - multitask, K=400 / K=100 training time; and the mean and spread of each setting."""
    groups: dict = {}
    for r in rows:
        if r["part"] == "news20":
            groups.setdefault((r["sampler"], r["strategy"], r["loss"], r["n_topics"]), []).append(r)
    news = {key: {"accuracy": float(np.mean([r["accuracy"] for r in g])),
                  "train_seconds": float(np.mean([r["train_seconds"] for r in g]))} for key, g in groups.items()}
    out = {}
    for (sampler, strategy, loss, k), g in sorted(groups.items()):
        acc = [r["accuracy"] for r in g]
        out[f"news20/{sampler}/{strategy}/{loss}/K={k}/accuracy"] = {
            "mean": float(np.mean(acc)), "min": float(np.min(acc)), "max": float(np.max(acc)),
            "seeds": [r["seed"] for r in g]}
    for (sampler, strategy, loss, k), r in news.items():
        if loss == "logistic" and (sampler, strategy, "hinge", k) in news:
            out[f"news20/{sampler}/{strategy}/K={k}/logistic_minus_hinge"] = (
                r["accuracy"] - news[(sampler, strategy, "hinge", k)]["accuracy"])
        if strategy == "ovr" and (sampler, "multitask", loss, k) in news:
            out[f"news20/{sampler}/{loss}/K={k}/ovr_minus_multitask"] = (
                r["accuracy"] - news[(sampler, "multitask", loss, k)]["accuracy"])
        if k == 400 and (sampler, strategy, loss, 100) in news:
            out[f"news20/{sampler}/{strategy}/{loss}/train_seconds_K=400_over_K=100"] = (
                r["train_seconds"] / news[(sampler, strategy, loss, 100)]["train_seconds"])
    return out


def _ints(text: str) -> list[int]:
    return [int(v) for v in text.split(",") if v]


def _names(text: str) -> list[str]:
    return [v for v in text.split(",") if v]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=DATA, help="folder with the three archives")
    p.add_argument("--parts", type=_names, default=["news", "hotel", "reuters"])
    p.add_argument("--ks", type=_ints, default=[20, 50, 100, 200, 400], help="20 Newsgroups K values")
    p.add_argument("--samplers", type=_names, default=["light", "gibbs"])
    p.add_argument("--strategies", type=_names, default=["multitask", "ovr"])
    p.add_argument("--losses", type=_names, default=["hinge", "logistic"])
    p.add_argument("--iters", type=int, default=50, help="20 Newsgroups training iterations")
    p.add_argument("--hotel-ks", type=_ints, default=[5, 10, 20, 30, 50])
    p.add_argument("--hotel-iters", type=int, default=40)
    p.add_argument("--regression-loss", default="epsilon", choices=["epsilon", "squared"])
    p.add_argument("--reuters-ks", type=_ints, default=[50, 100])
    p.add_argument("--reuters-iters", type=int, default=50)
    p.add_argument("--n-jobs", type=int, default=-1, help="processes for one-vs-rest (multitask runs use one core)")
    p.add_argument("--seeds", type=_ints, default=[0], help="seeds; each run is repeated with each")
    p.add_argument("--positive-cost", default="auto", type=lambda v: v if v == "auto" else float(v),
                   help="Reuters: c times this on positive documents (default auto: 4 for multi-label)")
    args = p.parse_args()
    for name in ("20news-bydate.tar.gz", "hotel-reviews.tar.gz", "reuters21578.tar.gz"):
        if not (args.data / name).is_file():
            sys.exit(f"{name} not found in {args.data}; pass --data")
    compile_seconds = warm_up()
    runs = {"news": news_runs, "hotel": hotel_runs, "reuters": reuters_runs}
    rows = [row for part in args.parts for row in runs[part](args)]
    print(json.dumps({"compile_seconds": compile_seconds, "runs": rows, "summary": summary(rows)}, indent=1))


if __name__ == "__main__":
    main()
