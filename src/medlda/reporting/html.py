"""A fitted model and its errors on documents as one self-contained HTML page (``medlda report``).

The page holds: what the model is; its topics (top words with their weights, each topic's share
of the training tokens); the topics that weigh most for each class (a regressor: those that raise
and lower the response); the inter-topic map; with documents, the map of the documents coloured
by their labels, and with labels, each class's precision and recall and the confusion matrix (a
regressor: its errors); and the training curves. Figures are inline PNG images and the style is
inline: the file opens anywhere, with no network and no script. Every word, class name and title
is escaped. Needs matplotlib (``pip install 'medlda[plots]'``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from medlda.data.counts import count_matrix_shape
from medlda.evaluation.metrics import evaluate
from medlda.evaluation.scoring import model_task
from medlda.io.atomic import atomic_write_text
from medlda.reporting.html_parts import Markup, bullet_list, cell, element, escape, figure, join, note, page, table
from medlda.reporting.reports import background_mask, class_topic_weights, model_summary, summary_lines, topic_shares

MEASURE_NAMES = {"accuracy": "accuracy", "f1_micro": "F1 (micro)", "f1_macro": "F1 (macro)",
                 "f1_weighted": "F1 (weighted by support)", "r2": "predictive R²", "mae": "mean absolute error",
                 "rmse": "root mean squared error"}
MANY_CLASSES = 5  # more classes than this: the confusion matrix's column names run upwards


def write_report(model: Any, X: Any, y: Any, path: str | os.PathLike, **options: Any) -> Path:
    """Write the HTML report of ``model`` (``report_html``) to ``path``, atomically.

    Parameters
    ----------
    model : LDA, MedLDAClassifier or MedLDARegressor
        A fitted model.
    X : Corpus, count matrix or None
        Documents to map and to score the model on (held-out ones, usually); None: the model alone.
    y : array-like or None
        The true labels of X in the form the model predicts them (class labels; a multi-label
        model's 0/1 indicator matrix; a regressor's responses); for an LDA, optional labels that
        colour the document map. None: no errors measured, the map uncoloured.
    path : str or Path
        The file to write (``.html``).
    **options
        Passed to ``report_html``.

    Returns
    -------
    Path
        ``path``.

    Examples
    --------
    >>> from medlda import MedLDAClassifier
    >>> from medlda.reporting.html import write_report
    >>> from medlda.data.synthetic import make_supervised_corpus
    >>> corpus, truth = make_supervised_corpus(300, 5, doc_length=30, n_classes=3, random_state=0)
    >>> train, test = corpus.holdout(100, random_state=0)
    >>> clf = MedLDAClassifier(5, max_iter=10, random_state=0).fit(train, train.single_labels())
    >>> path = write_report(clf, test, test.single_labels(), "report.html", method="pca")
    >>> path.read_text().startswith("<!DOCTYPE html>")
    True
    """
    return atomic_write_text(path, report_html(model, X, y, **options))


def report_html(model, X=None, y=None, *, title: str = "medlda report", data_name: str | None = None,
                n_words: int = 10, n_class_topics: int = 3, method: str = "tsne", random_state=0,
                n_jobs: int | None = None, max_map_docs: int = 2000) -> str:
    """The HTML report of ``model`` as text (see the module docstring).

    Parameters
    ----------
    model : LDA, MedLDAClassifier or MedLDARegressor
        A fitted model.
    X : Corpus, count matrix or None
        Documents whose topics are inferred once (``model.transform``) for the document map and
        the predictions.
    y : array-like or None
        True labels of X, as for ``write_report``.
    title : str
        The page's title and first heading.
    data_name : str or None
        What X is (a file name), said in the summary.
    n_words : int
        Top words shown per topic.
    n_class_topics : int
        Topics listed per class.
    method : {"tsne", "pca"}
        The document map's embedding (``medlda.reporting.plots.plot_topic_map``).
    random_state : int
        Seed of the embedding and of the documents drawn for the map.
    n_jobs : int or None
        Threads of the embedding.
    max_map_docs : int
        At most this many documents on the map, drawn at random (``random_state``) from X.

    Returns
    -------
    str
        The page, a whole HTML document.
    """
    if method not in ("tsne", "pca"):
        raise ValueError(f"method must be 'tsne' or 'pca', got {method!r}")
    task = model_task(model)
    n_docs = None if X is None else count_matrix_shape(X)[0]
    if y is not None:
        if X is None:
            raise ValueError("y labels the documents X: give X too")
        y = np.asarray(y)
        if y.shape[0] != n_docs:
            raise ValueError(f"y has {y.shape[0]} labels for {n_docs} documents")
    sections = [("topics", "Topics", _topics(model, n_words))]
    if task != "unsupervised":
        heading = "Topics that weigh most for each class" if hasattr(model, "classes_") else \
            "Topics that raise or lower the response"
        sections.append(("class-topics", heading, _class_topics(model, n_class_topics)))
    sections.append(("intertopic-map", "Inter-topic map", _intertopic(model)))
    if X is not None:
        zbar = np.asarray(model.transform(X))  # one inference for the map and the predictions
        sections.append(("document-map", "Document map",
                         _document_map(zbar, y, method, random_state, n_jobs, max_map_docs)))
        if y is not None and task != "unsupervised":
            sections += _errors(model, task, zbar, y)
    sections.append(("training-curves", "Training curves", _curves(model)))
    return page(title, _summary(model, n_docs, data_name, X), sections)


def _summary(model, n_docs: int | None, data_name: str | None, X) -> Markup:
    """What the model is (``model_summary`` in words) and what documents the report applies it to."""
    lines = summary_lines(model_summary(model))
    params = [line for line in lines if line.startswith("parameters: ")]
    items = [line for line in lines if not line.startswith("parameters: ")]
    if n_docs is None:
        items.append("documents: none given (the report shows the model alone)")
    else:
        skipped = [f"{n} {what}" for n, what in ((getattr(X, "n_empty_skipped", 0), "empty documents skipped"),
                                                 (getattr(X, "n_oov_dropped", 0), "unknown tokens dropped")) if n]
        items.append(f"documents: {n_docs:,}" + (f" from {data_name}" if data_name else "")
                     + (f" ({', '.join(skipped)})" if skipped else ""))
    out = bullet_list(items)
    if params:
        out += element("details", element("summary", "parameters") + element("p", params[0][len("parameters: "):]))
    return out


def _topics(model, n_words: int) -> Markup:
    """A table of the topics: id (a background topic marked), share of the training tokens (with a
    bar), top words with their probability in the topic."""
    shares = topic_shares(model)
    top = model.top_words(n_words)
    background = background_mask(model)
    widest = max(float(shares.max()), 1e-12)
    rows = []
    for k, (share, pairs) in enumerate(zip(shares, top)):
        bar = element("span", element("span", "", cls="bar", style=f"width: {60 * share / widest:.1f}px")
                      + escape(f"{share:.1%}"), cls="share")
        words = join(element("span", escape(word) + element("span", f"{weight:.3g}", cls="weight"), cls="word")
                     for word, weight in pairs) if pairs else element("span", "(empty: no training token)",
                                                                       cls="empty")
        rows.append([f"{k} (background)" if background[k] else str(k), bar, words])
    return (note(f"Each topic's {n_words} most probable words, each with its probability in the topic "
                 "p(word | topic), and the topic's share of the training tokens.")
            + table(["topic", "share of tokens", "top words (probability)"], rows))


def _class_topics(model, n_topics: int) -> Markup:
    """For each class (a regressor: raising and lowering the response), the topics whose weight
    eta favours it most, with the weight and the topics' words."""
    classifier = hasattr(model, "classes_")
    words = model.words_of(model.top_word_ids(6))
    rows = []
    several = classifier and model.eta_.shape[0] > 1  # a weight per class: only positive ones favour it
    for label, weighted in class_topic_weights(model, n_topics).items():
        name = str(label) if classifier else ("raise the response" if label == "high" else "lower the response")
        weighted = [(k, w) for k, w in weighted if w > 0] if several else weighted
        if not weighted:
            rows.append([name, "", "", element("span", "none", cls="empty")])
        for i, (k, weight) in enumerate(weighted):
            rows.append([name if i == 0 else "", str(k), f"{weight:+.3f}", " ".join(words[k])])
    what = ("Each class's topics with the largest positive classifier weight eta toward it (binary models: one "
            "weight per topic, positive favouring the second class, negative the first)" if classifier else
            "The topics whose regression weight eta raises the predicted response most, and those that lower it most")
    return note(what + "; empty topics are left out.") + table(["class" if classifier else "topics that",
                                                               "topic", "weight eta", "top words"], rows)


def _intertopic(model) -> Markup:
    from medlda.reporting.intertopic import plot_intertopic_map

    return figure(plot_intertopic_map(model), "inter-topic map",
                  "Topics close together have similar words (Hellinger distance between their word "
                  "distributions, in 2-d by classical scaling); a circle's area is the topic's share of the "
                  "training tokens, its colour the class its weight favours most.")


class _Inferred:
    """A stand-in for the model that ``plot_topic_map`` asks for the documents' topics: the report
    has inferred them already, once for the map and the predictions."""

    def __init__(self, zbar: np.ndarray) -> None:
        self.zbar = zbar

    def transform(self, X) -> np.ndarray:
        return self.zbar


def _document_map(zbar: np.ndarray, y, method: str, random_state, n_jobs, max_docs: int) -> Markup:
    """The documents placed by their topic proportions, coloured by ``y`` when it holds one label
    (or number) per document; at most ``max_docs`` documents, drawn at random."""
    from medlda.reporting.intertopic import plain_text
    from medlda.reporting.plots import plot_topic_map

    n = zbar.shape[0]
    if n < 3:
        return note(f"A map needs at least 3 documents; {n} given.")
    shown = np.arange(n)
    if n > max_docs:
        shown = np.sort(np.random.default_rng(random_state).choice(n, max_docs, replace=False))
    colours, why = None, "uncoloured: the documents carry no labels"
    if y is not None and y.ndim == 1:
        colours = y[shown] if y.dtype.kind in "fc" else np.array([plain_text(v) for v in y[shown].tolist()])
        why = "coloured by the response" if y.dtype.kind in "fc" else "coloured by the true label"
    elif y is not None:
        why = "uncoloured: a document may carry several labels"
    fig = plot_topic_map(_Inferred(zbar[shown]), None, colours, method=method, random_state=random_state,
                         n_jobs=n_jobs)
    drawn = f"{len(shown):,} of the {n:,} documents, drawn at random" if len(shown) < n else f"all {n:,} documents"
    return figure(fig, "document map", f"Each point a document ({drawn}), placed by its inferred topic proportions "
                                       f"({method.upper()}), {why}.")


def _errors(model, task: str, zbar: np.ndarray, y) -> list[tuple[str, str, Markup]]:
    """The sections of the model's errors on the documents: overall measures and per-class
    precision and recall (classifiers), the confusion matrix (single-label classifiers), or a
    regressor's errors."""
    if task == "regression":
        pred = model.predict_from_topics(zbar)
    else:
        pred = model.labels_from_decision(model.decision_from_topics(zbar))
    report = evaluate(task, y, pred, getattr(model, "classes_", None))
    overall = [[MEASURE_NAMES[k], f"{report[k]:.4f}"] for k in MEASURE_NAMES if k in report]
    measures = table(["measure", "value"], overall, cls="numbers", row_headers=True)
    if task == "regression":
        return [("errors", "Prediction errors", note(f"On {report['n_docs']:,} documents.") + measures)]
    rows = [[name, f"{m['precision']:.3f}", f"{m['recall']:.3f}", f"{m['f1']:.3f}", str(m["support"])]
            for name, m in report["per_class"].items()]
    body = (note(f"On {report['n_docs']:,} documents; classes that neither the labels nor the predictions hold "
                 "are left out. Precision: the share of the documents predicted in the class that are in it; "
                 "recall: the share of the class's documents predicted in it.") + measures
            + table(["class", "precision", "recall", "F1", "support"], rows, cls="numbers", row_headers=True))
    out = [("per-class", "Precision and recall per class", body)]
    if "confusion" in report:
        out.append(("confusion", "Confusion matrix", _confusion(report["classes"], np.array(report["confusion"]))))
    return out


def _confusion(names: list[str], matrix: np.ndarray) -> Markup:
    """The confusion matrix as a table, full class names, rows the true classes; each cell's shade
    its share of the row, the diagonal bold."""
    totals = np.maximum(matrix.sum(axis=1, keepdims=True), 1)
    rows = []
    for i, (name, row) in enumerate(zip(names, matrix)):
        cells = []
        for j, count in enumerate(row):
            shade = f"background: rgba(76, 120, 168, {0.85 * count / totals[i, 0]:.3f}); display: block"
            content = element("b", str(count)) if i == j else str(count)
            cells.append(cell(content, shade))
        rows.append([name, *cells])
    cls = "confusion many" if len(names) > MANY_CLASSES else "confusion"
    return (note("Rows: the true class; columns: the predicted class; each cell the number of documents, "
                 "shaded by its share of the row (the class's recall on the diagonal).")
            + table(["true \\ predicted", *names], rows, cls=cls, row_headers=True))


def _curves(model) -> Markup:
    from medlda.reporting.plots import plot_trace

    try:
        fig = plot_trace(model)
    except ValueError as exc:
        return note(f"No training curves: {exc}.")
    return figure(fig, "training curves", "The measures recorded during training, per iteration (model.trace_).")


__all__ = ["report_html", "write_report"]
