"""Figures of a fitted model: training curves, topics and their words, the topics that weigh most
per class, a map of documents by their topics, the confusion matrix, predicted against true values,
and the topics behind one document's prediction.

Each function draws on ``ax`` when given (one Axes, or a sequence of them for the many-panel
figures), else on a new pyplot figure, and returns the matplotlib Figure, as scikit-learn's
displays do. Needs matplotlib (``pip install 'medlda[plots]'``); nothing else in medlda does.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
from sklearn.metrics import ConfusionMatrixDisplay

from medlda.data.counts import count_matrix_shape
from medlda.evaluation.explain import top_topics
from medlda.evaluation.metrics import r2
from medlda.io.atomic import atomic_write
from medlda.reporting import figures
from medlda.reporting.figures import figure_format
from medlda.reporting.reports import class_topic_weights, topic_words

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def plot_trace(model: Any, x: str = "iteration", ax: Any = None) -> Figure:
    """Training curves from ``model.trace_``, one panel per measure.

    Training accuracy, log joint (``trace=True``), held-out perplexity (``LDA.fit(X, heldout=...)``).

    Parameters
    ----------
    model : LDA, MedLDAClassifier or MedLDARegressor
        A fitted model.
    x : {"iteration", "seconds"}, default="iteration"
        The horizontal axis: iterations, or seconds of sampling.
    ax : matplotlib Axes or sequence of them, optional
        Where to draw; default: a new figure.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from medlda import MedLDAClassifier
    >>> from medlda.data.synthetic import make_supervised_corpus
    >>> corpus, truth = make_supervised_corpus(300, 5, doc_length=30, n_classes=3, random_state=0)
    >>> clf = MedLDAClassifier(5, max_iter=10, trace=True, random_state=0).fit(corpus, truth.y)
    >>> [a.get_ylabel() for a in plot_trace(clf).axes]
    ['training accuracy', 'log joint  log p(W, Z)']
    """
    if x not in ("iteration", "seconds"):
        raise ValueError(f"x must be 'iteration' or 'seconds', got {x!r}")
    if getattr(model, "trace_", None) is None:
        raise ValueError("the model is not fitted: no training trace to plot")
    traces, metrics = figures.trace_curves(model)
    fig, axes = figures.panels(ax, len(metrics), ncols=len(metrics), panel_size=(4.5, 3.2))
    figures.draw_traces(axes, traces, metrics, x)
    seconds = sum(trace[-1]["seconds"] for trace in traces.values() if trace)
    axes[0].set_title(f"{type(model).__name__}, K = {model.n_components}, {seconds:.1f} s", loc="left")
    return fig


def plot_topics(model: Any, topics: Sequence[int] | None = None, n_words: int = 10, vocabulary: Any = None,
                ax: Any = None, relevance: float = 1.0) -> Figure:
    """The top words of each topic as bars of their probability phi_kw, one panel per topic.

    Parameters
    ----------
    model : LDA, MedLDAClassifier or MedLDARegressor
        A fitted model.
    topics : sequence of int, optional
        The topics to draw; default: the first 12. An empty topic is titled so, without bars.
    n_words : int, default=10
        Words per topic.
    vocabulary : sequence of str, optional
        The words of the columns (as in ``top_words``).
    ax : matplotlib Axes or sequence of them, optional
        Where to draw; default: a new figure.
    relevance : float, default=1.0
        How words are ranked (``top_word_ids``).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from medlda import MedLDAClassifier
    >>> from medlda.data.synthetic import make_supervised_corpus
    >>> corpus, truth = make_supervised_corpus(300, 5, doc_length=30, n_classes=3, random_state=0)
    >>> clf = MedLDAClassifier(5, max_iter=10, trace=True, random_state=0).fit(corpus, truth.y)
    >>> len(plot_topics(clf, topics=[0, 1], n_words=5).axes)
    2
    """
    phi = model.topic_word_
    topics = list(range(min(12, phi.shape[0]))) if topics is None else [int(k) for k in topics]
    bad = [k for k in topics if not 0 <= k < phi.shape[0]]
    if bad:
        raise ValueError(f"topics {bad} out of range: the model has {phi.shape[0]} topics")
    ids = model.top_word_ids(n_words, relevance)  # one ranking for the bars and their labels
    words = topic_words(model, n_words, relevance, vocabulary)
    fig, axes = figures.panels(ax, len(topics), ncols=4, panel_size=(3.2, 0.25 * n_words + 1.0))
    for a, k in zip(axes, topics):
        top = phi[k, ids[k]][:len(words[k])]
        a.barh(np.arange(len(top)), top, color="tab:blue")
        a.set_yticks(np.arange(len(top)), words[k])
        a.invert_yaxis()
        a.set_title(f"topic {k}" if words[k] else f"topic {k} (empty)", loc="left")
        a.set_xlabel("p(word | topic)")
    return fig


def plot_class_topics(model: Any, n_topics: int = 3, n_words: int = 5, vocabulary: Any = None, ax: Any = None,
                      relevance: float = 1.0) -> Figure:
    """For each class (a regressor: each side), the topics whose weight favours it most, with their words.

    Parameters
    ----------
    model : MedLDAClassifier or MedLDARegressor
        A fitted supervised model.
    n_topics : int, default=3
        Topics per class.
    n_words : int, default=5
        Words in each topic's label.
    vocabulary : sequence of str, optional
        The words of the columns (as in ``top_words``).
    ax : matplotlib Axes or sequence of them, optional
        Where to draw; default: a new figure.
    relevance : float, default=1.0
        How words are ranked (``top_word_ids``).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from medlda import MedLDAClassifier
    >>> from medlda.data.synthetic import make_supervised_corpus
    >>> corpus, truth = make_supervised_corpus(300, 5, doc_length=30, n_classes=3, random_state=0)
    >>> clf = MedLDAClassifier(5, max_iter=10, trace=True, random_state=0).fit(corpus, truth.y)
    >>> [a.get_title(loc="left") for a in plot_class_topics(clf, n_topics=2).axes if a.get_visible()]
    ['class 0', 'class 1', 'class 2']
    """
    if not hasattr(model, "eta_samples_"):
        raise ValueError("an unsupervised LDA has no classifier weights: use plot_topics")
    weights = class_topic_weights(model, n_topics)
    words = topic_words(model, n_words, relevance, vocabulary)
    fig, axes = figures.panels(ax, len(weights), ncols=2, panel_size=(6.5, 0.45 * n_topics + 1.0))
    for a, (label, weighted) in zip(axes, weights.items()):
        ks = [k for k, _ in weighted]
        eta = [w for _, w in weighted]
        a.barh(np.arange(len(ks)), eta, color=["tab:green" if w >= 0 else "tab:red" for w in eta])
        a.set_yticks(np.arange(len(ks)), [f"{k}: {' '.join(words[k])}" for k in ks], fontsize=8)
        a.invert_yaxis()
        a.axvline(0.0, color="black", linewidth=0.6)
        a.set_title(f"class {label}" if hasattr(model, "classes_") else f"{label} response", loc="left", fontsize=10)
        a.set_xlabel("eta")
    return fig


def plot_explanation(model: Any, X: Any, doc: int = 0, n_topics: int = 8, n_words: int = 5, label: Any = None,
                     vocabulary: Any = None, ax: Any = None, name: str | None = None) -> Figure:
    """Why one document got its prediction: the topics that move its decision most.

    Bars of ``decision_contributions``, the largest in size first, coloured by the side each
    favours. X is inferred whole, as by ``predict``, so the figure shows what ``predict`` decided.

    Parameters
    ----------
    model : MedLDAClassifier or MedLDARegressor
        A fitted supervised model.
    X : Corpus, count matrix or lists of tokens
        Documents.
    doc : int, default=0
        The row of X to explain.
    n_topics : int, default=8
        Topics to show.
    n_words : int, default=5
        Words in each topic's label.
    label : class label, optional
        Explain that class's score instead of the prediction (``decision_contributions``).
    vocabulary : sequence of str, optional
        The words of the columns (as in ``top_words``).
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure.
    name : str, optional
        The document's title; default "document <doc>".

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from medlda import MedLDAClassifier
    >>> from medlda.data.synthetic import make_supervised_corpus
    >>> corpus, truth = make_supervised_corpus(300, 5, doc_length=30, n_classes=3, random_state=0)
    >>> clf = MedLDAClassifier(5, max_iter=10, trace=True, random_state=0).fit(corpus, truth.y)
    >>> plot_explanation(clf, corpus[:5], doc=1, n_topics=3).axes[0].get_title(loc="left")
    'document 1: predicted 0, ahead of 1 by 119'
    """
    if not hasattr(model, "decision_contributions"):
        raise ValueError("an unsupervised LDA makes no prediction to explain")
    n_docs = count_matrix_shape(X)[0]
    if not 0 <= doc < n_docs:
        raise ValueError(f"doc {doc} is out of range: X has {n_docs} documents")
    classifier = hasattr(model, "classes_")
    task = model.label_index(label) if classifier else None  # refused before the inference
    zbar = model.transform(X)
    name = f"document {doc}" if name is None else name
    parts, title, sides, axis = figures.explanation(model, zbar, doc, task, name)
    ids, values = top_topics(parts[None, :], n_topics, absolute=True)
    words = topic_words(model, n_words, vocabulary=vocabulary)
    fig, (a,) = figures.panels(ax, 1, panel_size=(7.0, 0.4 * ids.shape[1] + 1.6))
    figures.draw_explanation(a, ids[0], values[0], words, sides, axis, title)
    return fig


def plot_topic_map(model: Any, X: Any, y: Any = None, method: str = "tsne", random_state: Any = 0,
                   n_jobs: int | None = None, ax: Any = None) -> Figure:
    """Documents placed in 2-d by their inferred topic proportions, coloured by their labels.

    How well the topics separate the classes: ``model.transform(X)`` embedded by t-SNE or PCA.

    Parameters
    ----------
    model : LDA, MedLDAClassifier or MedLDARegressor
        A fitted model.
    X : Corpus, count matrix or lists of tokens
        At least 3 documents.
    y : array-like of shape (n_docs,), optional
        Labels or responses that colour the points.
    method : {"tsne", "pca"}, default="tsne"
        The embedding.
    random_state : int or None, default=0
        Seed of the embedding.
    n_jobs : int, optional
        Cap on the embedding's threads; default: scikit-learn's.
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from medlda import MedLDAClassifier
    >>> from medlda.data.synthetic import make_supervised_corpus
    >>> corpus, truth = make_supervised_corpus(300, 5, doc_length=30, n_classes=3, random_state=0)
    >>> clf = MedLDAClassifier(5, max_iter=10, trace=True, random_state=0).fit(corpus, truth.y)
    >>> plot_topic_map(clf, corpus[:60], truth.y[:60], method="pca").axes[0].get_title(loc="left")
    'documents by their topic proportions (PCA, K = 5)'
    """
    if method not in ("tsne", "pca"):
        raise ValueError(f"method must be 'tsne' or 'pca', got {method!r}")
    zbar = np.asarray(model.transform(X))
    if zbar.shape[0] < 3:
        raise ValueError(f"a map needs at least 3 documents, got {zbar.shape[0]}")
    if y is not None:
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != zbar.shape[0]:
            raise ValueError(f"y should be one label per document ({zbar.shape[0]},), got shape {y.shape}")
    xy = figures.embed(zbar, method, random_state, n_jobs)
    fig, (a,) = figures.panels(ax, 1, panel_size=(7.0, 6.0))
    figures.scatter_by_label(fig, a, xy, y)
    a.set_title(f"documents by their topic proportions ({method.upper()}, K = {zbar.shape[1]})", loc="left")
    a.set_xticks([])
    a.set_yticks([])
    return fig


def plot_confusion(model: Any, X: Any, y: Any, normalize: str | None = "true", ax: Any = None) -> Figure:
    """The confusion matrix of ``model.predict(X)`` against the true labels ``y``.

    Parameters
    ----------
    model : MedLDAClassifier
        A fitted single-label classifier.
    X : Corpus, count matrix or lists of tokens
        Documents.
    y : array-like of shape (n_docs,)
        Their true labels.
    normalize : {"true", "pred", "all"} or None, default="true"
        As in scikit-learn (rows: true classes); None: counts.
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from medlda import MedLDAClassifier
    >>> from medlda.data.synthetic import make_supervised_corpus
    >>> corpus, truth = make_supervised_corpus(300, 5, doc_length=30, n_classes=3, random_state=0)
    >>> clf = MedLDAClassifier(5, max_iter=10, trace=True, random_state=0).fit(corpus, truth.y)
    >>> plot_confusion(clf, corpus[:100], truth.y[:100]).axes[0].get_title(loc="left")
    'accuracy 0.9100'
    """
    if getattr(model, "multilabel_", False) or not hasattr(model, "classes_"):
        raise ValueError("a confusion matrix needs a single-label classifier")
    y = np.asarray(y)
    fig, (a,) = figures.panels(ax, 1, panel_size=(7.5, 6.5))
    pred = model.predict(X)
    ConfusionMatrixDisplay.from_predictions(y, pred, labels=model.classes_, normalize=normalize, ax=a,
                                            include_values=len(model.classes_) <= 10, xticks_rotation="vertical",
                                            values_format=".2f" if normalize else "d", colorbar=True)
    a.set_title(f"accuracy {np.mean(pred == y):.4f}", loc="left")
    return fig


def plot_predictions(model: Any, X: Any, y: Any, ax: Any = None) -> Figure:
    """A regressor's predicted against true responses, with the diagonal and the predictive R^2.

    Parameters
    ----------
    model : MedLDARegressor
        A fitted regressor.
    X : Corpus, count matrix or lists of tokens
        Documents.
    y : array-like of shape (n_docs,)
        Their true responses.
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from medlda import MedLDARegressor
    >>> from medlda.data.synthetic import make_regression_corpus
    >>> corpus, truth = make_regression_corpus(300, 5, doc_length=30, random_state=0)
    >>> reg = MedLDARegressor(5, max_iter=10, random_state=0).fit(corpus, truth.y)
    >>> plot_predictions(reg, corpus[:100], truth.y[:100]).axes[0].get_title(loc="left")
    'predictive R^2 = 0.895'
    """
    if not hasattr(model, "y_mean_"):
        raise ValueError("predicted against true values needs a MedLDARegressor")
    y = np.asarray(y, dtype=float)
    pred = model.predict(X)
    fig, (a,) = figures.panels(ax, 1, panel_size=(5.5, 5.0))
    a.scatter(y, pred, s=6, alpha=0.6)
    lo, hi = float(min(y.min(), pred.min())), float(max(y.max(), pred.max()))
    a.plot([lo, hi], [lo, hi], color="black", linewidth=0.8)
    a.set_xlabel("true")
    a.set_ylabel("predicted")
    a.set_title(f"predictive R^2 = {r2(y, pred):.3f}", loc="left")
    return fig


def save_figure(fig: Figure, path: str | os.PathLike, dpi: int = 150) -> Path:
    """Write a figure to a file, atomically, in the format its suffix names (png, pdf, svg, ...).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.
    path : str or path-like
        The file to write.
    dpi : int, default=150
        Dots per inch of raster formats.

    Returns
    -------
    Path
        ``path``.

    Examples
    --------
    >>> from medlda import MedLDAClassifier
    >>> from medlda.data.synthetic import make_supervised_corpus
    >>> corpus, truth = make_supervised_corpus(300, 5, doc_length=30, n_classes=3, random_state=0)
    >>> clf = MedLDAClassifier(5, max_iter=10, trace=True, random_state=0).fit(corpus, truth.y)
    >>> save_figure(plot_trace(clf), "trace.png").name
    'trace.png'
    """
    path = Path(path)
    fmt = figure_format(path)
    return atomic_write(path, lambda f: fig.savefig(f, format=fmt, dpi=dpi))
