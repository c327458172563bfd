"""Readable topics under each text preprocessing (suite "tasks", part "topic_quality"): on 20
Newsgroups, binary (``alt.atheism`` vs ``talk.religion.misc``) and 20 classes, LDA and
MedLDAClassifier at the same K, trained on the words each preprocessing gives:

- ``headers``: the header block dropped but its Subject (the MedLDA papers' convention,
  ``medlda.data.text.PAPERS``);
- ``all``: also quoted lines, attribution lines and the signature (the library's default for news);
- ``all-maxdf``: ``all`` and the words of more than ``--max-df`` of the training documents dropped.

Rows per fit: ``accuracy`` (MedLDA's test accuracy), ``npmi_weighted`` (the topics' NPMI of their
top 10 words in the test documents, each topic weighted by its share of the training tokens),
``npmi_mean`` (unweighted), ``largest_share`` (the largest topic's share of the tokens),
``train_seconds``; derived rows, on means over the seeds: MedLDA's weighted NPMI minus LDA's
(``npmi_gap``). Model ``svm``: tf-idf + LinearSVC on the same words, ``accuracy`` once per task
and preprocessing. Each preprocessing's test documents are read with its own vectorizer.

    python benchmarks/topic_quality.py                        # the figures of docs/benchmarks.md
    python benchmarks/topic_quality.py --tasks binary --ks 5 --iters 2 --seeds 0   # smoke
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from rows import RowWriter, add_out_argument, row
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.svm import LinearSVC

from medlda import LDA, MedLDAClassifier
from medlda.data.readers import read_corpus
from medlda.data.text import PAPERS, make_vectorizer

SUITE = "tasks"
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "20news-bydate.tar.gz"
BINARY = ["alt.atheism", "talk.religion.misc"]
TASKS = {"binary": BINARY, "20class": None}
MODELS = ("lda", "medlda", "svm")


def preprocessings(max_df: float) -> dict[str, dict]:
    """The ``make_vectorizer`` keywords of each preprocessing compared."""
    return {"headers": dict(PAPERS), "all": {"news": True, "quotes": True},
            "all-maxdf": {"news": True, "quotes": True, "max_df": max_df}}


def topic_shares(topic_word_counts: np.ndarray) -> np.ndarray:
    """Each topic's share (K,) of the tokens assigned to topics."""
    totals = np.asarray(topic_word_counts, dtype=float).sum(axis=1)
    return totals / max(totals.sum(), 1.0)


def weighted_npmi(npmi: np.ndarray, shares: np.ndarray) -> float:
    """The topics' NPMI weighted by their token shares; topics without a defined NPMI (NaN) are
    left out and the other weights renormalised (NaN when none is left)."""
    npmi, shares = np.asarray(npmi, dtype=float), np.asarray(shares, dtype=float)
    keep = ~np.isnan(npmi)
    weight = shares[keep].sum()
    return float(npmi[keep] @ shares[keep] / weight) if weight > 0 else float("nan")


def fit_rows(out: RowWriter, config: dict, model, test, y_test, seed: int) -> None:
    """The rows of one fitted model on the test documents."""
    shares = topic_shares(model.topic_word_counts_)
    npmi = model.coherence(test, "npmi")
    out.write(config, "npmi_weighted", weighted_npmi(npmi, shares), "", seed=seed)
    out.write(config, "npmi_mean", float(np.nanmean(npmi)), "", seed=seed)
    out.write(config, "largest_share", float(shares.max()), "", seed=seed)
    out.write(config, "train_seconds", model.fit_stats_["train_seconds"], "s", seed=seed, n_iter=model.max_iter)
    if y_test is not None:
        out.write(config, "accuracy", float(np.mean(model.predict(test) == y_test)), "", seed=seed)


def runs(out: RowWriter, args) -> None:
    for task in args.tasks:
        for name in args.preprocessings:
            vectorizer = make_vectorizer(**preprocessings(args.max_df)[name])
            train = read_corpus(args.data, subset="train", categories=TASKS[task], vectorizer=vectorizer)
            test = read_corpus(args.data, subset="test", categories=TASKS[task], vectorizer=vectorizer,
                               vocabulary=train.vocabulary)
            y, y_test = train.single_labels(), test.single_labels()
            out.write({"part": "topic_quality", "task": task, "preprocessing": name}, "n_words", train.n_words, "",
                      n_tokens=int(train.doc_lengths.sum()), n_test_tokens=int(test.doc_lengths.sum()))
            if "svm" in args.models:
                tfidf = TfidfTransformer().fit(train.to_sparse())
                svm = LinearSVC().fit(tfidf.transform(train.to_sparse()), y)
                accuracy = np.mean(svm.predict(tfidf.transform(test.to_sparse())) == y_test)
                out.write({"part": "topic_quality", "task": task, "preprocessing": name, "model": "svm"},
                          "accuracy", float(accuracy), "")
            for k in args.ks:
                for seed in args.seeds:
                    for kind in (m for m in args.models if m != "svm"):
                        config = {"part": "topic_quality", "task": task, "preprocessing": name, "model": kind,
                                  "n_topics": k, "sampler": args.sampler}
                        common = dict(sampler=args.sampler, max_iter=args.iters, random_state=seed, n_jobs=1)
                        if kind == "lda":
                            model = LDA(k, **common).fit(train)
                            fit_rows(out, config, model, test, None, seed)
                        else:
                            inference = {"inference": args.inference} if args.inference else {}
                            model = MedLDAClassifier(k, **inference, **common).fit(train, y)
                            fit_rows(out, config, model, test, y_test, seed)


def summary(rows: list[dict]) -> list[dict]:
    """Means over the seeds of each (task, preprocessing, K, model) and metric, and MedLDA's
    weighted NPMI minus LDA's (``npmi_gap``)."""
    groups = defaultdict(list)
    for r in rows:
        c = r["config"]
        if c.get("part") == "topic_quality" and "seed" in r and c.get("model") != "svm":
            groups[(c["task"], c["preprocessing"], c["n_topics"], c["model"], r["metric"])].append(r["value"])
    out = []
    for (task, name, k, model, metric), values in sorted(groups.items()):
        config = {"part": "topic_quality", "task": task, "preprocessing": name, "n_topics": k, "model": model}
        out.append(row(SUITE, config, "mean_" + metric, float(np.mean(values)), "s" if metric == "train_seconds"
                       else "", min=float(np.min(values)), max=float(np.max(values)), n=len(values)))
        lda = groups.get((task, name, k, "lda", metric))
        if model == "medlda" and metric == "npmi_weighted" and lda:
            config = {"part": "topic_quality", "task": task, "preprocessing": name, "n_topics": k}
            out.append(row(SUITE, config, "npmi_gap", float(np.mean(values) - np.mean(lda)), ""))
    return out


def table(rows: list[dict]) -> str:
    """A markdown table of the summary rows (and the svm rows): one line per task, preprocessing and K."""
    means = {(r["config"]["task"], r["config"]["preprocessing"], r["config"]["n_topics"], r["config"]["model"],
              r["metric"]): r["value"] for r in rows if r["metric"].startswith("mean_")}
    svm = {(r["config"]["task"], r["config"]["preprocessing"]): r["value"] for r in rows
           if r["config"].get("model") == "svm" and r["metric"] == "accuracy"}
    keys = sorted({key[:3] for key in means}, key=lambda t: (t[0], t[2], t[1]))
    lines = ["| task | preprocessing | K | MedLDA accuracy | tf-idf SVM | NPMI (w) LDA | NPMI (w) MedLDA | "
             "largest share LDA | largest share MedLDA |", "|---|---|---|---|---|---|---|---|---|"]

    def cell(key, model, metric):
        value = means.get((*key, model, "mean_" + metric))
        return "-" if value is None else f"{value:.3f}"
    for key in keys:
        baseline = "-" if key[:2] not in svm else f"{svm[key[:2]]:.3f}"
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {cell(key, 'medlda', 'accuracy')} | {baseline} | "
                     f"{cell(key, 'lda', 'npmi_weighted')} | {cell(key, 'medlda', 'npmi_weighted')} | "
                     f"{cell(key, 'lda', 'largest_share')} | {cell(key, 'medlda', 'largest_share')} |")
    return "\n".join(lines)


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="20news-bydate.tar.gz")
    p.add_argument("--tasks", type=_names, default=list(TASKS), help="any of binary, 20class")
    p.add_argument("--preprocessings", type=_names, default=["headers", "all", "all-maxdf"],
                   help="any of headers, all, all-maxdf")
    p.add_argument("--models", type=_names, default=list(MODELS), help="any of lda, medlda, svm")
    p.add_argument("--ks", type=lambda t: [int(k) for k in _names(t)], default=[20, 100])
    p.add_argument("--seeds", type=lambda t: [int(k) for k in _names(t)], default=[0])
    p.add_argument("--iters", type=int, default=100)
    p.add_argument("--sampler", default="light")
    p.add_argument("--inference", default=None, help="MedLDA's inference for prediction (default: the estimator's)")
    p.add_argument("--max-df", type=float, default=0.2, help="all-maxdf: the largest document fraction kept")
    add_out_argument(p)
    args = p.parse_args(argv)
    for value, known, flag in ((args.tasks, TASKS, "--tasks"), (args.models, MODELS, "--models"),
                               (args.preprocessings, preprocessings(args.max_df), "--preprocessings")):
        if not set(value) <= set(known):
            p.error(f"{flag}: unknown {', '.join(sorted(set(value) - set(known)))}")
    if not args.data.exists():
        p.error(f"{args.data}: no such file (--data)")
    out = RowWriter(SUITE, args.out)
    runs(out, args)
    for r in summary(out.rows):
        out.put(r)
    print(table(out.rows), file=sys.stderr)
    print(out.path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
