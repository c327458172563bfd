"""Every task on the benchmark data (suite "tasks"): accuracy, F1 and R^2 with training time.

- ``news``: 20 Newsgroups, 20 classes: test accuracy and training time for each K, sampler
  (light, gibbs), strategy (multitask, ovr) and loss (hinge, logistic), and the topics' coherence
  (NPMI in the test documents) for multitask models;
- ``hotel``: hotel reviews regression: test R^2 for each K (epsilon-insensitive loss by default),
  training R^2 both in the chain (``train_r2``, the fit's own) and of the training documents'
  topics inferred as a test document's are (``train_r2_inferred``), and the baseline row
  tf-idf + Ridge (scikit-learn's defaults) on the same words;
- ``hotel-validation``: the hotel training set without its test set: a random fifth (seed 123)
  held out, the rest trains; R^2 on it for regression settings given as JSON objects
  (``--settings``), the way the regression defaults were chosen;
- ``reuters``: Reuters-21578 ModApte multi-label (90 categories): F1 micro and macro for each K;
- ``r52``: Reuters-21578 R52 (ModApte documents with one topic, 52 categories, 6,532 / 2,568):
  test and training accuracy for each K (``--r52-ks``), sampler and setting (``--settings``);
- ``r8``: R52's documents of its eight largest training classes (5,485 / 2,189), as ``r52``;
- ``binary``: 20 Newsgroups' alt.atheism against talk.religion.misc (the papers' binary task), as ``r52``;
- ``synthetic``: documents drawn from the model (``make_supervised_corpus``, generator seed 0):
  4,000 documents of 80 words, 30 planted topics, 30 classes of Zipf shares (``class_skew`` 1,
  the largest 750 documents, the smallest 25), a fifth of the labels redrawn at random; the first
  3,000 train, the rest test; accuracies as for ``r52``;
- ``validation``: 20 Newsgroups without its test set: a random fifth of the 20-class training
  set (seed 123) held out, the rest trains; accuracy on it for estimator settings given as JSON
  objects (``--settings``), the way the defaults were chosen.

``--seeds`` repeats every run with each seed. ``--trace`` adds each classification fit's training
accuracy after every iteration (metric ``train_accuracy_trace``, a list); ``--settings`` (JSON
objects of estimator arguments) applies to news, reuters, r52, r8 and synthetic as well.
``--eta-lag`` (r52, r8, synthetic) measures how far light's eta lies from its exact conditional
(``EtaLag``). Derived rows compare means over the seeds within the run: logistic - hinge,
one-vs-rest - multitask, and the training time at K = 400 over K = 100 (single fits of a topic
model differ by about 0.005-0.01 accuracy from seed to seed).

    python benchmarks/bench_tasks.py --parts news --ks 50,100 --samplers light --strategies multitask \\
        --losses hinge,logistic
    python benchmarks/bench_tasks.py --parts hotel --hotel-ks 10,20 --samplers light --seeds 0,1,2
    python benchmarks/bench_tasks.py --parts hotel-validation --hotel-ks 20 --samplers light \
        --settings '{"c": 9};{"c": 36};{"c": 144}'
    python benchmarks/bench_tasks.py --parts reuters --reuters-ks 50,100 --samplers light --strategies multitask
    python benchmarks/bench_tasks.py --parts validation --ks 200 --samplers light --seeds 0,1,2 \
        --settings '{"c": 1.6};{"c": 3.2}'
    python benchmarks/bench_tasks.py --parts r52,synthetic --r52-ks 20,50 --samplers light,gibbs --seeds 0,1,2
    python benchmarks/bench_tasks.py --parts r52 --r52-ks 50 --samplers light --eta-lag \
        --settings '{"eta_draw": "coordinate"};{}'
    python benchmarks/bench_tasks.py --parts news --ks 20,50 --iters 20 --strategies multitask --losses hinge \
        --samplers light,gibbs --trace
    python benchmarks/bench_tasks.py --parts hotel --hotel-ks 5 --hotel-iters 2 --samplers light   # smoke
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from rows import RowWriter, add_out_argument, row
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.linear_model import Ridge
from sklearn.metrics import f1_score, r2_score
from task_labels import EtaLag, label_summary, r8_split, r52_split, synthetic_split

from medlda import MedLDAClassifier, MedLDARegressor
from medlda.data.corpus import Corpus
from medlda.data.readers import read_corpus
from medlda.data.text import PAPERS, make_vectorizer

SUITE = "tasks"
DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
ARCHIVES = {"news": "20news-bydate.tar.gz", "hotel": "hotel-reviews.tar.gz", "reuters": "reuters21578.tar.gz",
            "validation": "20news-bydate.tar.gz", "hotel-validation": "hotel-reviews.tar.gz",
            "r52": "reuters21578.tar.gz", "r8": "reuters21578.tar.gz", "synthetic": None,
            "binary": "20news-bydate.tar.gz"}
BINARY = ("alt.atheism", "talk.religion.misc")  # the papers' binary 20 Newsgroups task


def _split(path: Path, **kwargs):
    train = read_corpus(path, subset="train", **kwargs)
    return train, read_corpus(path, subset="test", vocabulary=train.vocabulary, **kwargs)


def _fit_rows(out: RowWriter, config: dict, model, predict_seconds: float, scores: dict, seed: int) -> None:
    stats = model.fit_stats_
    out.write(config, "train_seconds", stats["train_seconds"], "s", seed=seed, n_iter=model.max_iter)
    out.write(config, "predict_seconds", predict_seconds, "s", seed=seed)
    for metric, value in scores.items():
        out.write(config, metric, float(value), "", seed=seed)


def _jobs(args, strategy: str) -> int | None:
    """--n-jobs is one-vs-rest's processes; a multitask model samples on one core (threads would
    also switch light to its parallel sweep)."""
    return args.n_jobs if strategy == "ovr" else None


def _settings(args) -> list[dict]:
    return [json.loads(text) for text in args.settings.split(";") if text.strip()] or [{}]


def _trace_row(out: RowWriter, args, config: dict, model, seed: int) -> None:
    """With ``--trace``: the training accuracy after each iteration of a multitask fit."""
    trace = getattr(model, "trace_", [])
    if args.trace and trace and "train_accuracy" in trace[0]:
        out.write(config, "train_accuracy_trace", [round(t["train_accuracy"], 4) for t in trace], "", seed=seed)


def _news_reading(args) -> dict:
    """read_corpus keywords of --news: the papers' preprocessing (headers) or the library's (all)."""
    return {"vectorizer": make_vectorizer(**PAPERS)} if args.news == "headers" else {}


def news_runs(out: RowWriter, args) -> None:
    train, test = _split(args.data / ARCHIVES["news"], **_news_reading(args))
    y, y_test = train.single_labels(), test.single_labels()
    grid = [(k, sampler, strategy, loss, seed, setting) for k in args.ks for sampler in args.samplers
            for strategy in args.strategies for loss in args.losses for seed in args.seeds
            for setting in _settings(args)]
    for k, sampler, strategy, loss, seed, setting in grid:
        model = MedLDAClassifier(k, sampler=sampler, strategy=strategy, loss=loss, max_iter=args.iters,
                                 n_jobs=_jobs(args, strategy), random_state=seed, **setting).fit(train, y)
        tic = time.perf_counter()
        pred = model.predict(test)
        seconds = time.perf_counter() - tic
        config = {"part": "news", "sampler": sampler, "strategy": strategy, "loss": loss, "n_topics": k, **setting}
        scores = {"accuracy": np.mean(pred == y_test), "train_accuracy": model.train_accuracy_}
        if strategy == "multitask":  # the mean NPMI of the topics' top 10 words in the test documents
            scores["coherence_npmi"] = np.nanmean(model.coherence(test, "npmi"))
        _fit_rows(out, config, model, seconds, scores, seed)
        _trace_row(out, args, config, model, seed)


def single_label_runs(out: RowWriter, args, part: str, train: Corpus, test: Corpus) -> None:
    """Multitask hinge fits of each K, sampler, seed and setting on a single-label split: test and
    training accuracy, times, and with ``--trace`` the training accuracy per iteration."""
    y, y_test = train.single_labels(), test.single_labels()
    grid = [(k, sampler, seed, setting) for k in args.r52_ks for sampler in args.samplers for seed in args.seeds
            for setting in _settings(args)]
    for k, sampler, seed, setting in grid:
        model = MedLDAClassifier(k, sampler=sampler, max_iter=args.r52_iters, random_state=seed, **setting)
        lag = EtaLag() if args.eta_lag and sampler == "light" else None
        if lag is None:
            model.fit(train, y)
        else:
            with lag:
                model.fit(train, y)
        tic = time.perf_counter()
        pred = model.predict(test)
        seconds = time.perf_counter() - tic
        config = {"part": part, "sampler": sampler, "n_topics": k, **setting}
        _fit_rows(out, config, model, seconds, {"accuracy": np.mean(pred == y_test),
                                                "train_accuracy": model.train_accuracy_}, seed)
        _trace_row(out, args, config, model, seed)
        if lag is not None:  # the fit's time includes the measurement
            out.write(config, "eta_lag", [[i, round(d2, 3), round(z, 3)] for i, d2, z in lag.lag], "", seed=seed)


def r52_runs(out: RowWriter, args) -> None:
    single_label_runs(out, args, "r52", *r52_split(args.data / ARCHIVES["r52"]))


def r8_runs(out: RowWriter, args) -> None:
    single_label_runs(out, args, "r8", *r8_split(args.data / ARCHIVES["r8"]))


def binary_runs(out: RowWriter, args) -> None:
    single_label_runs(out, args, "binary", *_split(args.data / ARCHIVES["binary"], categories=BINARY,
                                                   **_news_reading(args)))


def synthetic_runs(out: RowWriter, args) -> None:
    single_label_runs(out, args, "synthetic", *synthetic_split())


def hotel_runs(out: RowWriter, args) -> None:
    train, test = _split(args.data / ARCHIVES["hotel"])
    y, y_test = train.real_labels(), test.real_labels()
    tfidf = TfidfTransformer().fit(train.to_sparse())
    ridge = Ridge().fit(tfidf.transform(train.to_sparse()), y)
    baseline = {"part": "hotel", "model": "tfidf-ridge"}
    out.write(baseline, "r2", float(r2_score(y_test, ridge.predict(tfidf.transform(test.to_sparse())))), "")
    out.write(baseline, "train_r2", float(r2_score(y, ridge.predict(tfidf.transform(train.to_sparse())))), "")
    grid = [(k, s, seed, setting) for k in args.hotel_ks for s in args.samplers for seed in args.seeds
            for setting in _settings(args)]
    for k, sampler, seed, setting in grid:
        model = MedLDARegressor(k, sampler=sampler, loss=args.regression_loss, max_iter=args.hotel_iters,
                                random_state=seed, **setting).fit(train, y)
        tic = time.perf_counter()
        pred = model.predict(test)
        seconds = time.perf_counter() - tic
        config = {"part": "hotel", "sampler": sampler, "loss": args.regression_loss, "n_topics": k, **setting}
        scores = {"r2": r2_score(y_test, pred), "train_r2": model.train_score_,
                  "train_r2_inferred": r2_score(y, model.predict(train)), "c_": model.c_}
        _fit_rows(out, config, model, seconds, scores, seed)


def hotel_validation_runs(out: RowWriter, args) -> None:
    full = read_corpus(args.data / ARCHIVES["hotel-validation"], subset="train")
    y = full.real_labels()
    perm = np.random.default_rng(123).permutation(full.n_docs)
    held, kept = np.sort(perm[: full.n_docs // 5]), np.sort(perm[full.n_docs // 5:])
    train, test = full.subset(kept), full.subset(held)
    settings = [json.loads(text) for text in args.settings.split(";") if text.strip()] or [{}]
    grid = [(k, sampler, seed, setting) for k in args.hotel_ks for sampler in args.samplers for seed in args.seeds
            for setting in settings]
    for k, sampler, seed, setting in grid:
        setting = {"loss": args.regression_loss, **setting}
        model = MedLDARegressor(k, sampler=sampler, max_iter=args.hotel_iters, random_state=seed,
                                **setting).fit(train, y[kept])
        tic = time.perf_counter()
        pred = model.predict(test)
        seconds = time.perf_counter() - tic
        config = {"part": "hotel-validation", "sampler": sampler, "n_topics": k, **setting}
        _fit_rows(out, config, model, seconds, {"r2": r2_score(y[held], pred), "train_r2": model.train_score_},
                  seed)


def indicator(labels: list[tuple[str, ...]], names: list[str]) -> np.ndarray:
    """(D, C) 0/1 matrix of each document's labels among ``names`` (others dropped)."""
    index = {name: c for c, name in enumerate(names)}
    Y = np.zeros((len(labels), len(names)), np.int64)
    for d, labs in enumerate(labels):
        for lab in labs:
            if lab in index:
                Y[d, index[lab]] = 1
    return Y


def f1_scores(Y: np.ndarray, pred: np.ndarray) -> dict:
    """Micro F1, and macro F1 over the labels the truth or the predictions hold (a label absent
    from both would count as an F1 of 0)."""
    on = np.flatnonzero(Y.any(axis=0) | pred.any(axis=0))
    macro = f1_score(Y, pred, labels=on, average="macro", zero_division=0) if on.size else 0.0
    return {"f1_micro": f1_score(Y, pred, average="micro", zero_division=0), "f1_macro": macro}


def reuters_runs(out: RowWriter, args) -> None:
    train, test = _split(args.data / ARCHIVES["reuters"])
    names = sorted({lab for labs in train.multi_labels() for lab in labs})
    Y, Y_test = indicator(train.multi_labels(), names), indicator(test.multi_labels(), names)
    grid = [(k, sampler, strategy, seed, setting) for k in args.reuters_ks for sampler in args.samplers
            for strategy in args.strategies for seed in args.seeds for setting in _settings(args)]
    for k, sampler, strategy, seed, setting in grid:
        model = MedLDAClassifier(k, sampler=sampler, strategy=strategy, max_iter=args.reuters_iters,
                                 positive_cost=args.positive_cost, n_jobs=_jobs(args, strategy),
                                 random_state=seed, **setting).fit(train, Y)
        tic = time.perf_counter()
        pred = np.asarray(model.predict(test))
        seconds = time.perf_counter() - tic
        config = {"part": "reuters", "sampler": sampler, "strategy": strategy, "n_topics": k,
                  "positive_cost": args.positive_cost, **setting}
        _fit_rows(out, config, model, seconds, f1_scores(Y_test, pred), seed)


def validation_runs(out: RowWriter, args) -> None:
    full = read_corpus(args.data / ARCHIVES["validation"], subset="train", **_news_reading(args))
    y = full.single_labels()
    perm = np.random.default_rng(123).permutation(full.n_docs)
    held, kept = np.sort(perm[: full.n_docs // 5]), np.sort(perm[full.n_docs // 5:])
    train, test = full.subset(kept), full.subset(held)
    settings = [json.loads(text) for text in args.settings.split(";") if text.strip()] or [{}]
    grid = [(k, sampler, seed, setting) for k in args.ks for sampler in args.samplers for seed in args.seeds
            for setting in settings]
    for k, sampler, seed, setting in grid:
        model = MedLDAClassifier(k, sampler=sampler, max_iter=args.iters, n_jobs=1, random_state=seed,
                                 **setting).fit(train, y[kept])
        tic = time.perf_counter()
        pred = model.predict(test)
        seconds = time.perf_counter() - tic
        config = {"part": "validation", "sampler": sampler, "n_topics": k, **setting}
        _fit_rows(out, config, model, seconds, {"accuracy": np.mean(pred == y[held]),
                                                "train_accuracy": model.train_accuracy_}, seed)


def summary(rows: list[dict]) -> list[dict]:
    """Derived rows of the news part, on means over the seeds: each setting's mean accuracy (with
    min, max and seeds), logistic - hinge, one-vs-rest - multitask, and the training time at
    K = 400 over K = 100."""
    acc, secs = defaultdict(list), defaultdict(list)
    for r in rows:
        c = r["config"]
        if c.get("part") == "news" and r["metric"] in ("accuracy", "train_seconds"):
            key = (c["sampler"], c["strategy"], c["loss"], c["n_topics"])
            (acc if r["metric"] == "accuracy" else secs)[key].append(r)
    out = []
    mean = {key: float(np.mean([r["value"] for r in g])) for key, g in acc.items()}
    for (sampler, strategy, loss, k), g in sorted(acc.items()):
        values = [r["value"] for r in g]
        config = {"part": "news", "sampler": sampler, "strategy": strategy, "loss": loss, "n_topics": k}
        out.append(row(SUITE, config, "mean_accuracy", mean[sampler, strategy, loss, k], "",
                       min=min(values), max=max(values), seeds=[r["seed"] for r in g]))
        if loss == "logistic" and (sampler, strategy, "hinge", k) in mean:
            out.append(row(SUITE, {**config, "loss": "logistic-hinge"}, "accuracy_difference",
                           mean[sampler, strategy, loss, k] - mean[sampler, strategy, "hinge", k], ""))
        if strategy == "ovr" and (sampler, "multitask", loss, k) in mean:
            out.append(row(SUITE, {**config, "strategy": "ovr-multitask"}, "accuracy_difference",
                           mean[sampler, strategy, loss, k] - mean[sampler, "multitask", loss, k], ""))
    for (sampler, strategy, loss, k), g in sorted(secs.items()):
        low = secs.get((sampler, strategy, loss, 100))
        if k == 400 and low:
            config = {"part": "news", "sampler": sampler, "strategy": strategy, "loss": loss, "n_topics": 400,
                      "against_n_topics": 100}
            out.append(row(SUITE, config, "train_seconds_ratio",
                           np.mean([r["value"] for r in g]) / np.mean([r["value"] for r in low]), "x"))
    return out


def _ints(text: str) -> list[int]:
    return [int(v) for v in text.split(",") if v]


def _names(text: str) -> list[str]:
    return [v for v in text.split(",") if v]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=DATA, help="folder with the three archives")
    p.add_argument("--parts", type=_names, default=["news", "hotel", "reuters"],
                   help="any of news, hotel, reuters, validation, hotel-validation, r52, r8, synthetic, binary")
    p.add_argument("--ks", type=_ints, default=[20, 50, 100, 200, 400], help="20 Newsgroups K values")
    p.add_argument("--samplers", type=_names, default=["light", "gibbs"])
    p.add_argument("--strategies", type=_names, default=["multitask", "ovr"])
    p.add_argument("--losses", type=_names, default=["hinge", "logistic"])
    p.add_argument("--iters", type=int, default=50, help="20 Newsgroups training iterations")
    p.add_argument("--news", choices=["headers", "all"], default="headers",
                   help="20 Newsgroups preprocessing: headers (the papers': the header block dropped but its "
                        "Subject) or all (the library's default: quotes and signatures dropped too)")
    p.add_argument("--settings", default="{}",
                   help="validation, hotel, hotel-validation, news, r52, r8, synthetic: ';'-separated JSON objects of "
                        "estimator arguments, each a configuration")
    p.add_argument("--trace", action="store_true",
                   help="news, r52, r8, synthetic: also each fit's training accuracy after every iteration")
    p.add_argument("--hotel-ks", type=_ints, default=[5, 10, 20, 30, 50])
    p.add_argument("--hotel-iters", type=int, default=40)
    p.add_argument("--regression-loss", default="epsilon", choices=["epsilon", "squared"])
    p.add_argument("--reuters-ks", type=_ints, default=[50, 100])
    p.add_argument("--reuters-iters", type=int, default=50)
    p.add_argument("--eta-lag", action="store_true",
                   help="r52, r8, synthetic: how far light's eta lies from its exact conditional every 5 iterations "
                        "(metric eta_lag: [iteration, whitened squared distance / K, bias z-score]; the fit's "
                        "time then includes the measurement)")
    p.add_argument("--r52-ks", type=_ints, default=[20, 50], help="r52, r8, binary and synthetic K values")
    p.add_argument("--r52-iters", type=int, default=50, help="r52, r8, binary and synthetic training iterations")
    p.add_argument("--n-jobs", type=int, default=-1, help="processes for one-vs-rest (multitask runs use one core)")
    p.add_argument("--seeds", type=_ints, default=[0], help="seeds; each run is repeated with each")
    p.add_argument("--positive-cost", default="auto", type=lambda v: v if v == "auto" else float(v),
                   help="Reuters: c times this on positive documents (default auto: 4 for multi-label)")
    add_out_argument(p)
    args = p.parse_args()
    for part in args.parts:
        if part not in ARCHIVES:
            sys.exit(f"unknown part {part!r}; choose from {list(ARCHIVES)}")
        if ARCHIVES[part] and not (args.data / ARCHIVES[part]).is_file():
            sys.exit(f"{ARCHIVES[part]} not found in {args.data}; pass --data")
    out = RowWriter(SUITE, args.out)
    runs = {"news": news_runs, "hotel": hotel_runs, "reuters": reuters_runs, "validation": validation_runs,
            "hotel-validation": hotel_validation_runs, "r52": r52_runs, "r8": r8_runs,
            "synthetic": synthetic_runs, "binary": binary_runs}
    for part in args.parts:
        runs[part](out, args)
    for derived in summary(out.rows) + label_summary(out.rows):
        out.put(derived)
    print(out.path)


if __name__ == "__main__":
    main()
