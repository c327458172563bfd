"""Readable topics under each text preprocessing and document-topic prior (suite "tasks", part
"topic_quality"): on 20 Newsgroups, binary (``alt.atheism`` vs ``talk.religion.misc``) and 20
classes, LDA and MedLDAClassifier at the same K, trained on the words each preprocessing gives:

- ``headers``: the header block dropped but its Subject (the MedLDA papers' convention,
  ``medlda.data.text.PAPERS``);
- ``all``: also quoted lines, attribution lines and the signature (the library's default for news);
- ``all-maxdf``: ``all`` and the words of more than ``--max-df`` of the training documents dropped;

with each prior of ``--priors``: ``symmetric`` (alpha_sum / K per topic) and ``optimized``
(``optimize_alpha=True``: an asymmetric alpha learned from the chain).

Rows per fit: ``accuracy`` (MedLDA's test accuracy), ``npmi_weighted`` (the topics' NPMI of their
top 10 words in the test documents, each topic weighted by its share of the training tokens),
``npmi_mean`` (unweighted), ``largest_share`` and ``two_largest_share`` (the largest topic's, and
the two largest topics', share of the tokens), ``alpha_max_share`` (the largest alpha_k over
sum(alpha)), ``largest_eta_share`` (the largest topic's share of sum_t |eta_tk|: how much the
classifier leans on it; MedLDA only), ``train_seconds``; derived rows, on means over the seeds:
MedLDA's weighted NPMI minus LDA's (``npmi_gap``). Model ``svm``: tf-idf + LinearSVC on the same
words, ``accuracy`` once per task and preprocessing. Each preprocessing's test documents are read
with its own vectorizer.

    python benchmarks/topic_quality.py                        # preprocessings, symmetric prior
    python benchmarks/topic_quality.py --models lda,medlda --preprocessings all --priors symmetric,optimized
    python benchmarks/topic_quality.py --tasks binary --preprocessings all --sigma2 100 --chains 4  # eta prior, chains
    python benchmarks/topic_quality.py --tasks 20class --preprocessings all --ks 100 --background-topics 20
    python benchmarks/topic_quality.py --tasks 20class --preprocessings all --ks 100 --background-topics 20 \
        --sigma2 10 --alpha-sum 50                             # a smoother document prior, both models
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
from medlda.models.params import INFERENCE_METHODS

SUITE = "tasks"
PART = "topic_quality"
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "20news-bydate.tar.gz"
BINARY = ["alt.atheism", "talk.religion.misc"]
TASKS = {"binary": BINARY, "20class": None}
MODELS = ("lda", "medlda", "svm")
PRIORS = {"symmetric": False, "optimized": True}  # the config's "alpha": optimize_alpha


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


def eta_share(eta: np.ndarray, shares: np.ndarray) -> float:
    """The largest topic's (by token share) share of sum_t |eta_tk|, for ``eta`` (n_classes, K)."""
    weight = np.abs(np.asarray(eta, dtype=float)).sum(axis=0)
    return float(weight[np.argmax(shares)] / max(weight.sum(), 1e-300))


def fit_rows(out: RowWriter, config: dict, model, test, y_test, seed: int) -> None:
    """The rows of one fitted model on the test documents; a model of several chains: the shares
    within each chain's topics (the largest over the chains), the NPMI of all their topics."""
    chains = getattr(model, "chains_", None) or [model]
    shares = np.concatenate([topic_shares(m.topic_word_counts_) for m in chains])
    per_chain = shares.reshape(len(chains), -1)
    npmi = model.coherence(test, "npmi")
    out.write(config, "npmi_weighted", weighted_npmi(npmi, shares), "", seed=seed)
    out.write(config, "npmi_mean", float(np.nanmean(npmi)), "", seed=seed)
    out.write(config, "largest_share", float(per_chain.max()), "", seed=seed)
    out.write(config, "two_largest_share", float(np.sort(per_chain, axis=1)[:, -2:].sum(axis=1).max()), "",
              seed=seed)
    out.write(config, "alpha_max_share", float(model.alpha_.max() / model.alpha_.sum()), "", seed=seed,
              alpha_sum=float(model.alpha_.sum()))
    out.write(config, "train_seconds", model.fit_stats_["train_seconds"], "s", seed=seed, n_iter=model.max_iter)
    if y_test is not None:
        out.write(config, "accuracy", float(np.mean(model.predict(test) == y_test)), "", seed=seed)
        out.write(config, "largest_eta_share", max(eta_share(m.eta_, topic_shares(m.topic_word_counts_))
                                                   for m in chains), "", seed=seed)


def svm_row(out: RowWriter, config: dict, train, y, test, y_test) -> None:
    """tf-idf + LinearSVC's test accuracy on the same words."""
    tfidf = TfidfTransformer().fit(train.to_sparse())
    svm = LinearSVC().fit(tfidf.transform(train.to_sparse()), y)
    accuracy = np.mean(svm.predict(tfidf.transform(test.to_sparse())) == y_test)
    out.write({**config, "model": "svm"}, "accuracy", float(accuracy), "")


def runs(out: RowWriter, args) -> None:
    inference = {"inference": args.inference} if args.inference else {}
    for task in args.tasks:
        for name in args.preprocessings:
            vectorizer = make_vectorizer(**preprocessings(args.max_df)[name])
            train = read_corpus(args.data, subset="train", categories=TASKS[task], vectorizer=vectorizer)
            test = read_corpus(args.data, subset="test", categories=TASKS[task], vectorizer=vectorizer,
                               vocabulary=train.vocabulary)
            y, y_test = train.single_labels(), test.single_labels()
            data = {"part": PART, "task": task, "preprocessing": name}
            out.write(data, "n_words", train.n_words, "", n_docs=train.n_docs, n_test_docs=test.n_docs,
                      n_tokens=int(train.doc_lengths.sum()), n_test_tokens=int(test.doc_lengths.sum()))
            if "svm" in args.models:
                svm_row(out, data, train, y, test, y_test)
            for k in args.ks:
                for seed in args.seeds:
                    for kind in (m for m in args.models if m != "svm"):
                        for prior in args.priors:
                            config = {**data, "model": kind, "n_topics": k, "alpha": prior,
                                      "sampler": args.sampler, "iters": args.iters}
                            common = dict(optimize_alpha=PRIORS[prior], sampler=args.sampler, max_iter=args.iters,
                                          random_state=seed, n_jobs=1)
                            if args.alpha_sum is not None:
                                config["alpha_sum"] = common["alpha_sum"] = args.alpha_sum
                            if kind == "lda":
                                fit_rows(out, config, LDA(k, **common).fit(train), test, None, seed)
                            else:
                                model = MedLDAClassifier(k, sigma2=args.sigma2, n_chains=args.chains,
                                                         background_topics=args.background_topics, **inference,
                                                         **common).fit(train, y)
                                fit_rows(out, {**config, "sigma2": args.sigma2, "n_chains": args.chains,
                                               "background_topics": args.background_topics}, model, test, y_test,
                                         seed)


def summary(rows: list[dict]) -> list[dict]:
    """Means (min, max) over the seeds of each (task, preprocessing, K, alpha, model) and metric,
    and MedLDA's weighted NPMI minus LDA's (``npmi_gap``)."""
    groups = defaultdict(list)
    for r in rows:
        c = r["config"]
        if c.get("part") == PART and "seed" in r and c.get("model") != "svm":
            groups[(c["task"], c["preprocessing"], c["n_topics"], c["alpha"], c["model"], r["metric"])].append(
                r["value"])
    out = []
    for (task, name, k, prior, model, metric), values in sorted(groups.items(), key=str):
        config = {"part": PART, "task": task, "preprocessing": name, "n_topics": k, "alpha": prior}
        out.append(row(SUITE, {**config, "model": model}, "mean_" + metric, float(np.mean(values)),
                       "s" if metric == "train_seconds" else "", min=float(np.min(values)),
                       max=float(np.max(values)), n=len(values)))
        lda = groups.get((task, name, k, prior, "lda", metric))
        if model == "medlda" and metric == "npmi_weighted" and lda:
            out.append(row(SUITE, config, "npmi_gap", float(np.mean(values) - np.mean(lda)), ""))
    return out


COLUMNS = (("MedLDA accuracy", "medlda", "accuracy", True), ("NPMI (w) LDA", "lda", "npmi_weighted", False),
           ("NPMI (w) MedLDA", "medlda", "npmi_weighted", True), ("largest share LDA", "lda", "largest_share", False),
           ("largest share MedLDA", "medlda", "largest_share", False),
           ("two largest MedLDA", "medlda", "two_largest_share", False),
           ("largest's share of abs(eta)", "medlda", "largest_eta_share", False),
           ("largest alpha_k / sum: MedLDA", "medlda", "alpha_max_share", False),
           ("LDA", "lda", "alpha_max_share", False), ("train s MedLDA", "medlda", "train_seconds", False))
"""The table's columns after the tf-idf SVM's: title, model, metric, whether to show the seeds' range."""


def table(rows: list[dict]) -> str:
    """A markdown table of the summary rows (and the svm rows): one line per task, preprocessing,
    K and prior."""
    means = {(r["config"]["task"], r["config"]["preprocessing"], r["config"]["n_topics"], r["config"]["alpha"],
              r["config"]["model"], r["metric"][5:]): r for r in rows if r["metric"].startswith("mean_")}
    svm = {(r["config"]["task"], r["config"]["preprocessing"]): r["value"] for r in rows
           if r["config"].get("model") == "svm" and r["metric"] == "accuracy"}
    keys = sorted({key[:4] for key in means}, key=lambda t: (t[0], t[2], t[1], t[3] != "symmetric", t[3]))
    titles = ["task", "preprocessing", "K", "alpha", "MedLDA accuracy", "tf-idf SVM", *(c[0] for c in COLUMNS[1:])]
    lines = ["| " + " | ".join(titles) + " |", "|" + "---|" * len(titles)]

    def cell(key, model, metric, spread):
        r = means.get((*key, model, metric))
        if r is None:
            return "-"
        text = f"{r['value']:.0f}" if metric == "train_seconds" else f"{r['value']:.3f}"
        return text + (f" ({r['min']:.3f}-{r['max']:.3f})" if spread and r["n"] > 1 else "")
    for key in keys:
        cells = [cell(key, *column[1:]) for column in COLUMNS]
        baseline = "-" if key[:2] not in svm else f"{svm[key[:2]]:.3f}"
        lines.append("| " + " | ".join([*map(str, key), cells[0], baseline, *cells[1:]]) + " |")
    return "\n".join(lines)


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="20news-bydate.tar.gz")
    p.add_argument("--tasks", type=_names, default=list(TASKS), help="any of binary, 20class")
    p.add_argument("--preprocessings", type=_names, default=["headers", "all", "all-maxdf"],
                   help="any of headers, all, all-maxdf")
    p.add_argument("--priors", type=_names, default=["symmetric"],
                   help="any of symmetric, optimized (optimize_alpha=True)")
    p.add_argument("--models", type=_names, default=list(MODELS), help="any of lda, medlda, svm")
    p.add_argument("--ks", type=lambda t: [int(k) for k in _names(t)], default=[20, 100])
    p.add_argument("--seeds", type=lambda t: [int(k) for k in _names(t)], default=[0])
    p.add_argument("--iters", type=int, default=100)
    p.add_argument("--sampler", default="light")
    p.add_argument("--inference", choices=INFERENCE_METHODS, default=None,
                   help="MedLDA's inference for prediction (default: the estimator's)")
    p.add_argument("--sigma2", type=float, default=1.0, help="MedLDA's prior variance of eta (its default: 1)")
    p.add_argument("--alpha-sum", type=float, default=None,
                   help="both models' alpha_sum, the document-topic prior's mass (default: theirs, 6.4)")
    p.add_argument("--chains", type=int, default=1, help="MedLDA's n_chains (its default: 1)")
    p.add_argument("--background-topics", type=int, default=0,
                   help="MedLDA's background_topics: topics without classifier weights (its default: 0)")
    p.add_argument("--max-df", type=float, default=0.2, help="all-maxdf: the largest document fraction kept")
    add_out_argument(p)
    args = p.parse_args(argv)
    for value, known, flag in ((args.tasks, TASKS, "--tasks"), (args.models, MODELS, "--models"),
                               (args.priors, PRIORS, "--priors"),
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
