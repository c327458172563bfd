"""The drawing helpers of ``medlda.reporting.plots``: pyplot (imported when first drawn), the
panels of a figure, a 2-d map of topic proportions, and the class a prediction beat."""

from __future__ import annotations

import math
import os
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.decomposition import PCA
from sklearn.manifold import TSNE
from threadpoolctl import threadpool_limits

TRACE_METRICS = {"train_accuracy": "training accuracy", "log_joint": "log joint  log p(W, Z)",
                 "perplexity": "held-out perplexity"}
MAX_LABELED_CLASSES = 20  # more classes than this: a map gets a colour bar, not a legend


def pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("medlda's plots need matplotlib: pip install 'medlda[plots]'") from None
    return plt


def panels(ax, n: int, ncols: int = 1, panel_size: tuple[float, float] = (5.0, 3.2)):
    """(figure, list of n Axes): the caller's (one Axes for n = 1, else a sequence of >= n), or
    a new figure's grid of ``ncols`` columns with the unused cells hidden."""
    if ax is not None:
        axes = list(np.ravel(np.asarray(ax, dtype=object)))
        if len(axes) < n:
            raise ValueError(f"this figure has {n} panels; ax gives {len(axes)} Axes")
        return axes[0].figure, axes[:n]
    plt = pyplot()
    ncols = max(1, min(ncols, n))
    nrows = math.ceil(n / ncols)
    fig, grid = plt.subplots(nrows, ncols, figsize=(panel_size[0] * ncols, panel_size[1] * nrows),
                             squeeze=False, layout="constrained")
    cells = list(grid.ravel())
    for extra in cells[n:]:
        extra.set_visible(False)
    return fig, cells[:n]


def embed(zbar: np.ndarray, method: str, random_state, n_jobs: int | None) -> np.ndarray:
    """2-d coordinates of the rows of zbar. ``n_jobs`` > 0 caps t-SNE's OpenMP threads: on a
    core another process holds, its threads wait on each other."""
    if method == "pca":
        return PCA(n_components=2, random_state=random_state).fit_transform(zbar)
    perplexity = min(30.0, max(1.0, (zbar.shape[0] - 1) / 3.0))
    with threadpool_limits(n_jobs, user_api="openmp") if n_jobs and n_jobs > 0 else nullcontext():
        return TSNE(n_components=2, perplexity=perplexity, init="pca",
                    random_state=random_state).fit_transform(zbar)


def runner_up(model, omega: np.ndarray, predicted) -> str:
    """The class a document's prediction beat: binary, the other class; else the second-highest
    score's."""
    classes = [str(c) for c in model.classes_]
    if np.size(omega) == 1:
        return next(c for c in classes if c != str(predicted))
    return classes[int(np.argsort(-np.asarray(omega), kind="stable")[1])]


def explanation(model: Any, zbar: np.ndarray, doc: int, task: int | None,
                name: str) -> tuple[np.ndarray, str, tuple[str, str], str]:
    """What ``plot_explanation`` draws of document ``doc`` (a row of ``zbar``): each topic's part of
    its decision (toward the prediction, or the score of class ``task``), the figure's title, the
    legend's two sides and the axis label."""
    classifier = hasattr(model, "classes_")
    if classifier:
        parts = model.contributions_from_topics(zbar, task)[doc]
        if task is None:
            omega = model.decision_from_topics(zbar)
            predicted = model.labels_from_decision(omega)[doc]
            rival = runner_up(model, omega[doc], predicted)
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
    return parts, title, sides, axis


def draw_explanation(a: Any, ids: np.ndarray, values: np.ndarray, words: list[list[str]], sides: tuple[str, str],
                     axis: str, title: str) -> None:
    """Bars of the contributions ``values`` of topics ``ids`` on Axes ``a``, green for the first
    side of the legend and red for the second, labeled with the topics' words."""
    colors = {True: "tab:green", False: "tab:red"}
    a.barh(np.arange(len(ids)), values, color=[colors[bool(v > 0)] for v in values])
    a.set_yticks(np.arange(len(ids)), [f"{k}: {' '.join(words[k]) or '(empty)'}" for k in ids], fontsize=8)
    a.invert_yaxis()
    a.axvline(0.0, color="black", linewidth=0.6)
    from matplotlib.patches import Patch

    a.legend(handles=[Patch(color=colors[True], label=sides[0]), Patch(color=colors[False], label=sides[1])],
             fontsize=8, loc="best", frameon=False)
    a.set_xlabel(axis, fontsize=8)
    a.set_title(title, loc="left", fontsize=10)


def scatter_by_label(fig: Any, a: Any, xy: np.ndarray, y: np.ndarray | None) -> None:
    """Points ``xy`` on Axes ``a``: one colour, a colour per label with a legend, or a colour bar for
    numeric responses (or too many classes to name)."""
    if y is None:
        a.scatter(xy[:, 0], xy[:, 1], s=6, alpha=0.7)
    elif y.dtype.kind in "fc" or np.unique(y).size > MAX_LABELED_CLASSES:
        points = a.scatter(xy[:, 0], xy[:, 1], c=y.astype(float), s=6, alpha=0.8, cmap="viridis")
        fig.colorbar(points, ax=a, label="response")
    else:
        colors = pyplot().get_cmap("tab20" if np.unique(y).size > 10 else "tab10")
        for i, label in enumerate(np.unique(y)):
            on = y == label
            a.scatter(xy[on, 0], xy[on, 1], s=6, alpha=0.8, color=colors(i), label=str(label))
        a.legend(markerscale=3, fontsize=7, loc="best", frameon=False)


def trace_curves(model: Any) -> tuple[dict, list[str]]:
    """The training traces of ``model`` by class (one-vs-rest), by chain (n_chains > 1), else one under None; the
    measures they hold, in ``TRACE_METRICS``'s order."""
    subs, chains = getattr(model, "estimators_", None), getattr(model, "chains_", None)
    traces = ({str(c): m.trace_ for c, m in zip(model.classes_, subs)} if subs
              else {f"chain {s}": m.trace_ for s, m in enumerate(chains)} if chains else {None: model.trace_})
    rows = [row for trace in traces.values() for row in trace]
    metrics = [m for m in TRACE_METRICS if any(m in row for row in rows)]
    if not metrics:
        raise ValueError("the trace holds no measured curve; fit with trace=True to record the log joint")
    return traces, metrics


def draw_traces(axes: list, traces: dict, metrics: list[str], x: str) -> None:
    """One panel per measure, one line per trace, against ``x`` ("iteration" or "seconds")."""
    for a, metric in zip(axes, metrics):
        for label, trace in traces.items():
            points = [row for row in trace if metric in row]
            a.plot([row[x] for row in points], [row[metric] for row in points], label=label,
                   marker="." if len(points) < 60 and len(traces) == 1 else None)
        a.set_xlabel("iteration" if x == "iteration" else "seconds of sampling")
        a.set_ylabel(TRACE_METRICS[metric])
        a.grid(alpha=0.3)
    if len(traces) > 1:
        axes[-1].legend(fontsize=6, ncols=2 if len(traces) > 10 else 1, frameon=False)


def figure_format(path: str | os.PathLike) -> str:
    """The figure format named by ``path``'s suffix, refused by name unless matplotlib writes it
    (callers check before drawing, not after)."""
    from matplotlib.backend_bases import FigureCanvasBase

    path = Path(path)
    fmt = path.suffix.lstrip(".").lower()
    supported = FigureCanvasBase.get_supported_filetypes()
    if fmt not in supported:
        raise ValueError(f"{path}: unknown figure format {fmt!r}; use one of {', '.join(sorted(supported))}")
    return fmt
