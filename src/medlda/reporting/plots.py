"""Figures of a fitted model: training curves, topics and their words, the topics that weigh most
per class, a map of documents by their topics, the confusion matrix, predicted against true values,
and the topics behind one document's prediction.

Each function draws on ``ax`` when given (one Axes, or a sequence of them for the many-panel
figures), else on a new pyplot figure, and returns the matplotlib Figure, as scikit-learn's
displays do. Needs matplotlib (``pip install 'medlda[plots]'``); nothing else in medlda does.
"""

from __future__ import annotations

import math
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np
from sklearn.decomposition import PCA
from sklearn.manifold import TSNE
from sklearn.metrics import ConfusionMatrixDisplay
from threadpoolctl import threadpool_limits

from medlda.data.counts import count_matrix_shape
from medlda.evaluation.explain import top_topics
from medlda.evaluation.metrics import r2
from medlda.io.atomic import atomic_write
from medlda.reporting.reports import class_topic_weights, topic_words

if TYPE_CHECKING:
    from matplotlib.figure import Figure

TRACE_METRICS = {"train_accuracy": "training accuracy", "log_joint": "log joint  log p(W, Z)",
                 "perplexity": "held-out perplexity"}
MAX_LABELED_CLASSES = 20  # more classes than this: a map gets a colour bar, not a legend


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("medlda's plots need matplotlib: pip install 'medlda[plots]'") from None
    return plt


def _panels(ax, n: int, ncols: int = 1, panel_size: tuple[float, float] = (5.0, 3.2)):
    """(figure, list of n Axes): the caller's (one Axes for n = 1, else a sequence of >= n), or
    a new figure's grid of ``ncols`` columns with the unused cells hidden."""
    if ax is not None:
        axes = list(np.ravel(np.asarray(ax, dtype=object)))
        if len(axes) < n:
            raise ValueError(f"this figure has {n} panels; ax gives {len(axes)} Axes")
        return axes[0].figure, axes[:n]
    plt = _pyplot()
    ncols = max(1, min(ncols, n))
    nrows = math.ceil(n / ncols)
    fig, grid = plt.subplots(nrows, ncols, figsize=(panel_size[0] * ncols, panel_size[1] * nrows),
                             squeeze=False, layout="constrained")
    cells = list(grid.ravel())
    for extra in cells[n:]:
        extra.set_visible(False)
    return fig, cells[:n]


def plot_trace(model, x: str = "iteration", ax=None) -> Figure:
    """Training curves from ``model.trace_``: training accuracy (supervised models), the log joint
    (fit with ``trace=True`` or ``verbose``) and held-out perplexity (``LDA.fit(X, heldout=...)``),
    one panel each, against ``x`` = "iteration" or "seconds" of sampling. A one-vs-rest model
    draws one line per class from its binary models' traces."""
    if x not in ("iteration", "seconds"):
        raise ValueError(f"x must be 'iteration' or 'seconds', got {x!r}")
    if getattr(model, "trace_", None) is None:
        raise ValueError("the model is not fitted: no training trace to plot")
    subs = getattr(model, "estimators_", None)
    traces = {str(c): m.trace_ for c, m in zip(model.classes_, subs)} if subs else {None: model.trace_}
    rows = [row for trace in traces.values() for row in trace]
    metrics = [m for m in TRACE_METRICS if any(m in row for row in rows)]
    if not metrics:
        raise ValueError("the trace holds no measured curve; fit with trace=True to record the log joint")
    fig, axes = _panels(ax, len(metrics), ncols=len(metrics), panel_size=(4.5, 3.2))
    for a, metric in zip(axes, metrics):
        for label, trace in traces.items():
            points = [row for row in trace if metric in row]
            a.plot([row[x] for row in points], [row[metric] for row in points], label=label,
                   marker="." if len(points) < 60 and len(traces) == 1 else None)
        a.set_xlabel("iteration" if x == "iteration" else "seconds of sampling")
        a.set_ylabel(TRACE_METRICS[metric])
        a.grid(alpha=0.3)
    if subs:
        axes[-1].legend(fontsize=6, ncols=2 if len(subs) > 10 else 1, frameon=False)
    seconds = sum(trace[-1]["seconds"] for trace in traces.values() if trace)
    axes[0].set_title(f"{type(model).__name__}, K = {model.n_components}, {seconds:.1f} s", loc="left")
    return fig


def plot_topics(model, topics: Sequence[int] | None = None, n_words: int = 10, vocabulary=None, ax=None,
                relevance: float = 1.0) -> Figure:
    """The ``n_words`` top words of each topic in ``topics`` (default: the first 12; the most
    probable, or by ``relevance``, see ``top_word_ids``) as bars of their probability phi_kw, one
    panel per topic; an empty topic (no training token) is titled so, without bars."""
    phi = model.topic_word_
    topics = list(range(min(12, phi.shape[0]))) if topics is None else [int(k) for k in topics]
    bad = [k for k in topics if not 0 <= k < phi.shape[0]]
    if bad:
        raise ValueError(f"topics {bad} out of range: the model has {phi.shape[0]} topics")
    ids = model.top_word_ids(n_words, relevance)  # one ranking for the bars and their labels
    words = topic_words(model, n_words, relevance, vocabulary)
    fig, axes = _panels(ax, len(topics), ncols=4, panel_size=(3.2, 0.25 * n_words + 1.0))
    for a, k in zip(axes, topics):
        top = phi[k, ids[k]][:len(words[k])]
        a.barh(np.arange(len(top)), top, color="tab:blue")
        a.set_yticks(np.arange(len(top)), words[k])
        a.invert_yaxis()
        a.set_title(f"topic {k}" if words[k] else f"topic {k} (empty)", loc="left")
        a.set_xlabel("p(word | topic)")
    return fig


def plot_class_topics(model, n_topics: int = 3, n_words: int = 5, vocabulary=None, ax=None,
                      relevance: float = 1.0) -> Figure:
    """For each class (a regressor: the topics that raise and lower the response), the
    ``n_topics`` topics whose weight eta favours it most, as bars labeled with their top words."""
    if not hasattr(model, "eta_samples_"):
        raise ValueError("an unsupervised LDA has no classifier weights: use plot_topics")
    weights = class_topic_weights(model, n_topics)
    words = topic_words(model, n_words, relevance, vocabulary)
    fig, axes = _panels(ax, len(weights), ncols=2, panel_size=(6.5, 0.45 * n_topics + 1.0))
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


def plot_explanation(model, X, doc: int = 0, n_topics: int = 8, n_words: int = 5, label=None, vocabulary=None,
                     ax=None, name: str | None = None) -> Figure:
    """Why document ``doc`` (a row of X, from 0) got its prediction: the ``n_topics`` topics that
    move its decision most (``decision_contributions``: each topic's share of the document times
    its weight), in size, labeled with their words, coloured by the class each favours (a legend
    says which); ``name`` titles the document (default "document <doc>"). X is inferred whole, as
    by ``predict``, so the figure shows what ``predict`` decided."""
    if not hasattr(model, "decision_contributions"):
        raise ValueError("an unsupervised LDA makes no prediction to explain")
    n_docs = count_matrix_shape(X)[0]
    if not 0 <= doc < n_docs:
        raise ValueError(f"doc {doc} is out of range: X has {n_docs} documents")
    classifier = hasattr(model, "classes_")
    task = model.label_index(label) if classifier else None  # refused before the inference
    zbar = model.transform(X)
    name = f"document {doc}" if name is None else name
    if classifier:
        parts = model.contributions_from_topics(zbar, task)[doc]
        if task is None:
            omega = model.decision_from_topics(zbar)
            predicted = model.labels_from_decision(omega)[doc]
            rival = _runner_up(model, omega[doc], predicted)
            title = f"{name}: predicted {predicted}, ahead of {rival} by {parts.sum():.3g}"
            sides = (f"favours {predicted}", f"favours {rival}")
        else:
            target = model.classes_[task]
            title = f"{name}: score of {target} = {parts.sum():+.3g}"
            sides = (f"for {target}", f"against {target}")
        axis = "how much the topic moves the decision (its share of the document x its weight)"
    else:
        parts = model.contributions_from_topics(zbar)[doc]
        title = f"{name}: predicted {model.predict_from_topics(zbar)[doc]:.4g} (mean response {model.y_mean_:.4g})"
        sides = ("raises the prediction", "lowers the prediction")
        axis = "how much the topic moves the prediction from the mean (its share of the document x its weight)"
    ids, values = top_topics(parts[None, :], n_topics, absolute=True)
    words = topic_words(model, n_words, vocabulary=vocabulary)
    fig, (a,) = _panels(ax, 1, panel_size=(7.0, 0.4 * ids.shape[1] + 1.6))
    colors = {True: "tab:green", False: "tab:red"}
    a.barh(np.arange(ids.shape[1]), values[0], color=[colors[bool(v > 0)] for v in values[0]])
    a.set_yticks(np.arange(ids.shape[1]), [f"{k}: {' '.join(words[k]) or '(empty)'}" for k in ids[0]], fontsize=8)
    a.invert_yaxis()
    a.axvline(0.0, color="black", linewidth=0.6)
    from matplotlib.patches import Patch

    a.legend(handles=[Patch(color=colors[True], label=sides[0]), Patch(color=colors[False], label=sides[1])],
             fontsize=8, loc="best", frameon=False)
    a.set_xlabel(axis, fontsize=8)
    a.set_title(title, loc="left", fontsize=10)
    return fig


def _runner_up(model, omega: np.ndarray, predicted) -> str:
    """The class a document's prediction beat: binary, the other class; else the second-highest
    score's."""
    classes = [str(c) for c in model.classes_]
    if np.size(omega) == 1:
        return next(c for c in classes if c != str(predicted))
    return classes[int(np.argsort(-np.asarray(omega), kind="stable")[1])]


def _embed(zbar: np.ndarray, method: str, random_state, n_jobs: int | None) -> np.ndarray:
    """2-d coordinates of the rows of zbar. ``n_jobs`` > 0 caps t-SNE's OpenMP threads: on a
    core another process holds, its threads wait on each other."""
    if method == "pca":
        return PCA(n_components=2, random_state=random_state).fit_transform(zbar)
    perplexity = min(30.0, max(1.0, (zbar.shape[0] - 1) / 3.0))
    with threadpool_limits(n_jobs, user_api="openmp") if n_jobs and n_jobs > 0 else nullcontext():
        return TSNE(n_components=2, perplexity=perplexity, init="pca",
                    random_state=random_state).fit_transform(zbar)


def plot_topic_map(model, X, y=None, method: str = "tsne", random_state=0, n_jobs: int | None = None,
                   ax=None) -> Figure:
    """Documents X placed in 2-d by their inferred topic proportions (``model.transform``), by
    t-SNE or PCA, coloured by ``y``: the MedLDA papers' picture of how well the topics separate the
    classes. Categorical labels get a legend; numeric responses a colour bar. ``n_jobs`` caps the
    embedding's threads (default: scikit-learn's)."""
    if method not in ("tsne", "pca"):
        raise ValueError(f"method must be 'tsne' or 'pca', got {method!r}")
    zbar = np.asarray(model.transform(X))
    if zbar.shape[0] < 3:
        raise ValueError(f"a map needs at least 3 documents, got {zbar.shape[0]}")
    if y is not None:
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != zbar.shape[0]:
            raise ValueError(f"y should be one label per document ({zbar.shape[0]},), got shape {y.shape}")
    xy = _embed(zbar, method, random_state, n_jobs)
    fig, (a,) = _panels(ax, 1, panel_size=(7.0, 6.0))
    if y is None:
        a.scatter(xy[:, 0], xy[:, 1], s=6, alpha=0.7)
    elif y.dtype.kind in "fc" or np.unique(y).size > MAX_LABELED_CLASSES:
        points = a.scatter(xy[:, 0], xy[:, 1], c=y.astype(float), s=6, alpha=0.8, cmap="viridis")
        fig.colorbar(points, ax=a, label="response")
    else:
        colors = _pyplot().get_cmap("tab20" if np.unique(y).size > 10 else "tab10")
        for i, label in enumerate(np.unique(y)):
            on = y == label
            a.scatter(xy[on, 0], xy[on, 1], s=6, alpha=0.8, color=colors(i), label=str(label))
        a.legend(markerscale=3, fontsize=7, loc="best", frameon=False)
    a.set_title(f"documents by their topic proportions ({method.upper()}, K = {zbar.shape[1]})", loc="left")
    a.set_xticks([])
    a.set_yticks([])
    return fig


def plot_confusion(model, X, y, normalize: str | None = "true", ax=None) -> Figure:
    """The confusion matrix of ``model.predict(X)`` against labels ``y`` (rows: true classes;
    ``normalize`` as in scikit-learn: "true", "pred", "all" or None for counts)."""
    if getattr(model, "multilabel_", False) or not hasattr(model, "classes_"):
        raise ValueError("a confusion matrix needs a single-label classifier")
    y = np.asarray(y)
    fig, (a,) = _panels(ax, 1, panel_size=(7.5, 6.5))
    pred = model.predict(X)
    ConfusionMatrixDisplay.from_predictions(y, pred, labels=model.classes_, normalize=normalize, ax=a,
                                            include_values=len(model.classes_) <= 10, xticks_rotation="vertical",
                                            values_format=".2f" if normalize else "d", colorbar=True)
    a.set_title(f"accuracy {np.mean(pred == y):.4f}", loc="left")
    return fig


def plot_predictions(model, X, y, ax=None) -> Figure:
    """Predicted against true responses of a regressor, with the diagonal and predictive R^2."""
    if not hasattr(model, "y_mean_"):
        raise ValueError("predicted against true values needs a MedLDARegressor")
    y = np.asarray(y, dtype=float)
    pred = model.predict(X)
    fig, (a,) = _panels(ax, 1, panel_size=(5.5, 5.0))
    a.scatter(y, pred, s=6, alpha=0.6)
    lo, hi = float(min(y.min(), pred.min())), float(max(y.max(), pred.max()))
    a.plot([lo, hi], [lo, hi], color="black", linewidth=0.8)
    a.set_xlabel("true")
    a.set_ylabel("predicted")
    a.set_title(f"predictive R^2 = {r2(y, pred):.3f}", loc="left")
    return fig


def save_figure(fig: Figure, path, dpi: int = 150) -> Path:
    """Write ``fig`` to ``path`` (format from its suffix: png, pdf, svg, ...) atomically, raster
    formats at ``dpi`` dots per inch."""
    path = Path(path)
    fmt = figure_format(path)
    return atomic_write(path, lambda f: fig.savefig(f, format=fmt, dpi=dpi))


def figure_format(path) -> str:
    """The figure format named by ``path``'s suffix, refused by name unless matplotlib writes it
    (callers check before drawing, not after)."""
    from matplotlib.backend_bases import FigureCanvasBase

    path = Path(path)
    fmt = path.suffix.lstrip(".").lower()
    supported = FigureCanvasBase.get_supported_filetypes()
    if fmt not in supported:
        raise ValueError(f"{path}: unknown figure format {fmt!r}; use one of {', '.join(sorted(supported))}")
    return fmt
