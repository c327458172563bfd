"""A symmetric against a learned asymmetric document-topic prior (suite "tasks", part
"alpha_prior"): on 20 Newsgroups, binary (``alt.atheism`` vs ``talk.religion.misc``) and 20
classes, MedLDAClassifier (and, with ``--models lda,medlda``, LDA) at each K with the symmetric prior
(alpha_sum / K per topic) and with ``optimize_alpha=True``, on the library's news preprocessing
or (``--news headers``) the papers'.

Rows per fit: ``accuracy`` (test accuracy; MedLDA only), ``npmi_weighted`` (the topics' NPMI of
their top 10 words in the test documents, each topic weighted by its share of the training
tokens), ``largest_share`` and ``two_largest_share`` (the largest topic's, and the two largest
topics', share of the training tokens), ``alpha_max_share`` (the largest alpha_k over
sum(alpha)), ``largest_eta_share`` (the largest topic's share of sum_t |eta_tk|: how much the
classifier leans on it; MedLDA only), ``train_seconds``; summary rows: means over the seeds.

    python benchmarks/alpha_prior.py                                   # the figures of docs/benchmarks.md
    python benchmarks/alpha_prior.py --tasks binary --ks 5 --iters 12 --seeds 0   # smoke
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from rows import RowWriter, add_out_argument, row

from medlda import LDA, MedLDAClassifier
from medlda.data.readers import read_corpus
from medlda.data.text import PAPERS, make_vectorizer
from medlda.models.params import INFERENCE_METHODS

SUITE = "tasks"
PART = "alpha_prior"
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "20news-bydate.tar.gz"
TASKS = {"binary": ["alt.atheism", "talk.religion.misc"], "20class": None}
MODELS = ("lda", "medlda")
PRIORS = {"symmetric": False, "optimized": True}  # the alpha column: optimize_alpha


def weighted_npmi(npmi: np.ndarray, shares: np.ndarray) -> float:
    """The topics' NPMI weighted by their token shares, topics without a defined NPMI (NaN) left
    out and the other weights renormalised."""
    keep = ~np.isnan(npmi)
    weight = shares[keep].sum()
    return float(npmi[keep] @ shares[keep] / weight) if weight > 0 else float("nan")


def fit_rows(out: RowWriter, config: dict, model, test, y_test, seed: int) -> None:
    """The rows of one fitted model on the test documents."""
    totals = model.topic_word_counts_.sum(axis=1).astype(float)
    shares = totals / max(totals.sum(), 1.0)
    out.write(config, "npmi_weighted", weighted_npmi(model.coherence(test, "npmi"), shares), "", seed=seed)
    out.write(config, "largest_share", float(shares.max()), "", seed=seed)
    out.write(config, "two_largest_share", float(np.sort(shares)[-2:].sum()), "", seed=seed)
    out.write(config, "alpha_max_share", float(model.alpha_.max() / model.alpha_.sum()), "", seed=seed,
              alpha_sum=float(model.alpha_.sum()))
    out.write(config, "train_seconds", model.fit_stats_["train_seconds"], "s", seed=seed, n_iter=model.max_iter)
    if y_test is not None:
        out.write(config, "accuracy", float(np.mean(model.predict(test) == y_test)), "", seed=seed)
        weight = np.abs(model.eta_).sum(axis=0)
        out.write(config, "largest_eta_share", float(weight[np.argmax(shares)] / max(weight.sum(), 1e-300)), "",
                  seed=seed)


def runs(out: RowWriter, args) -> None:
    for task in args.tasks:
        vectorizer = make_vectorizer(**PAPERS) if args.news == "headers" else None  # None: the library's
        train = read_corpus(args.data, subset="train", categories=TASKS[task], vectorizer=vectorizer)
        test = read_corpus(args.data, subset="test", categories=TASKS[task], vocabulary=train.vocabulary,
                           vectorizer=vectorizer)
        y, y_test = train.single_labels(), test.single_labels()
        out.write({"part": PART, "task": task, "news": args.news}, "n_words", train.n_words, "", n_docs=train.n_docs,
                  n_tokens=int(train.doc_lengths.sum()), n_test_docs=test.n_docs)
        for k in args.ks:
            for seed in args.seeds:
                for kind in args.models:
                    for prior in PRIORS:
                        config = {"part": PART, "task": task, "model": kind, "n_topics": k, "alpha": prior,
                                  "sampler": args.sampler, "iters": args.iters, "news": args.news}
                        common = dict(optimize_alpha=PRIORS[prior], sampler=args.sampler, max_iter=args.iters,
                                      random_state=seed, n_jobs=1)
                        if kind == "lda":
                            fit_rows(out, config, LDA(k, **common).fit(train), test, None, seed)
                        else:
                            model = MedLDAClassifier(k, inference=args.inference, **common).fit(train, y)
                            fit_rows(out, config, model, test, y_test, seed)


def summary(rows: list[dict]) -> list[dict]:
    """Means (min, max) over the seeds of each (task, model, K, alpha, preprocessing) and metric."""
    groups = defaultdict(list)
    for r in rows:
        c = r["config"]
        if c.get("part") == PART and "seed" in r:
            groups[(c["task"], c["model"], c["n_topics"], c["alpha"], c.get("news"), r["metric"])].append(r["value"])
    return [row(SUITE, {"part": PART, "task": task, "model": model, "n_topics": k, "alpha": prior, "news": news},
                "mean_" + metric, float(np.mean(values)), "s" if metric == "train_seconds" else "",
                min=float(np.min(values)), max=float(np.max(values)), n=len(values))
            for (task, model, k, prior, news, metric), values in sorted(groups.items(), key=str)]


def table(rows: list[dict]) -> str:
    """A markdown table of the summary rows: one line per task, model, K and alpha."""
    means = {(r["config"]["task"], r["config"]["model"], r["config"]["n_topics"], r["config"]["alpha"],
              r["metric"][5:]): r for r in rows if r["metric"].startswith("mean_")}
    keys = sorted({key[:4] for key in means}, key=lambda t: (t[0], t[1], t[2], t[3] != "symmetric"))
    lines = ["| task | model | K | alpha | test accuracy | NPMI (token-weighted) | largest topic share | "
             "two largest | largest's share of abs(eta) | largest alpha_k / sum | train s |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]

    def cell(key, metric, spread=False):
        r = means.get((*key, metric))
        if r is None:
            return "-"
        text = f"{r['value']:.3f}" if metric != "train_seconds" else f"{r['value']:.0f}"
        return text + (f" ({r['min']:.3f}-{r['max']:.3f})" if spread and r["n"] > 1 else "")
    for key in keys:
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {cell(key, 'accuracy', True)} | "
                     f"{cell(key, 'npmi_weighted', True)} | {cell(key, 'largest_share')} | "
                     f"{cell(key, 'two_largest_share')} | {cell(key, 'largest_eta_share')} | "
                     f"{cell(key, 'alpha_max_share')} | {cell(key, 'train_seconds')} |")
    return "\n".join(lines)


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="20news-bydate.tar.gz")
    p.add_argument("--tasks", type=_names, default=list(TASKS), help="any of binary, 20class")
    p.add_argument("--models", type=_names, default=["medlda"], help="any of lda, medlda")
    p.add_argument("--ks", type=lambda t: [int(k) for k in _names(t)], default=[20, 100])
    p.add_argument("--seeds", type=lambda t: [int(k) for k in _names(t)], default=[0, 1])
    p.add_argument("--iters", type=int, default=100)
    p.add_argument("--sampler", default="light")
    p.add_argument("--inference", choices=INFERENCE_METHODS, default="gibbs", help="MedLDA's prediction")
    p.add_argument("--news", choices=["all", "headers"], default="all",
                   help="all: the library's news preprocessing (headers, quotes and signatures dropped); "
                        "headers: the papers' (the header block dropped but its Subject)")
    add_out_argument(p)
    args = p.parse_args(argv)
    for value, known, flag in ((args.tasks, TASKS, "--tasks"), (args.models, MODELS, "--models")):
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
