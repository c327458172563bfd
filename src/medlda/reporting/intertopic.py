"""The inter-topic map: topics placed in the plane so that topics with similar words lie close,
as LDAvis draws them (Sievert and Shirley 2014): the distances between the topics' word
distributions (Hellinger's, one matrix product for any number of words, where LDAvis takes the
Jensen-Shannon divergence) embedded in 2-d by classical multidimensional scaling (principal
coordinates), each topic a circle whose area is its share of the training tokens.

Needs matplotlib for the figure (``pip install 'medlda[plots]'``); the coordinates do not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from medlda.reporting.reports import topic_shares

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def squared_hellinger(distributions: np.ndarray) -> np.ndarray:
    """(K, K) squared Hellinger distances 1 - sum_w sqrt(p_kw p_jw), in [0, 1], between the rows of
    ``distributions`` (K, V), each a probability distribution (normalised here)."""
    p = np.asarray(distributions, dtype=float)
    root = np.sqrt(p / p.sum(axis=1, keepdims=True))
    return np.clip(1.0 - root @ root.T, 0.0, 1.0)


def topic_coordinates(topic_word: np.ndarray) -> np.ndarray:
    """(K, 2) positions of the topics (rows of ``topic_word``, K >= 1): classical scaling of their
    Hellinger distances, so that distances in the plane follow distances between the topics'
    words. Deterministic: each axis's sign is chosen so that its coordinate of largest size is
    positive."""
    k = np.asarray(topic_word).shape[0]
    if k < 3:  # one or two topics: a point, or two points on a line
        return np.column_stack([np.linspace(-1.0, 1.0, k) if k > 1 else np.zeros(1), np.zeros(k)])
    d2 = squared_hellinger(topic_word)
    centre = np.eye(k) - 1.0 / k
    b = -0.5 * centre @ d2 @ centre
    values, vectors = np.linalg.eigh(b)
    top = np.argsort(values)[::-1][:2]
    xy = vectors[:, top] * np.sqrt(np.clip(values[top], 0.0, None))
    flip = np.sign(xy[np.argmax(np.abs(xy), axis=0), [0, 1]])
    return xy * np.where(flip == 0, 1.0, flip)


def favoured_classes(model) -> tuple[list[str], np.ndarray] | None:
    """For a supervised model, the class names (``classes_`` order; a regressor: "raises the
    response", "lowers the response") and, for each topic, the index of the one its weight eta
    favours most; None for an LDA."""
    eta = getattr(model, "eta_", None)
    if eta is None or not hasattr(model, "eta_samples_"):
        return None
    if not hasattr(model, "classes_"):
        return ["raises the response", "lowers the response"], (eta[0] < 0).astype(int)
    names = [str(c) for c in model.classes_]
    if eta.shape[0] == 1 and len(names) == 2:  # binary: a positive weight favours classes_[1]
        return names, (eta[0] >= 0).astype(int)
    return names, np.argmax(eta, axis=0)


def plain_text(text: str) -> str:
    """``text`` as matplotlib draws it literally: dollar signs escaped (a pair would start
    mathematical notation, and a malformed one fails to draw)."""
    return str(text).replace("$", r"\$")


def plot_intertopic_map(model, ax=None, max_labels: int = 60) -> Figure:
    """The inter-topic map of ``model`` (see the module docstring): circles of area proportional to
    each topic's share of the training tokens (the smallest drawn at a visible size), labelled with
    the topic id (the ``max_labels`` largest topics), coloured by the class each topic's weight
    favours (supervised models, with a legend). Empty topics are left out."""
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("medlda's plots need matplotlib: pip install 'medlda[plots]'") from None
    shares = topic_shares(model)
    xy = topic_coordinates(model.topic_word_)
    classes = favoured_classes(model)
    if ax is None:
        fig, ax = plt.subplots(figsize=(9.0 if classes is not None else 7.0, 6.0), layout="constrained")
    else:
        fig = ax.figure
    shown = np.flatnonzero(shares > 0)
    sizes = np.maximum(3000.0 * shares / max(shares.max(), 1e-12), 40.0)  # the smallest still visible
    if classes is None:
        ax.scatter(xy[shown, 0], xy[shown, 1], s=sizes[shown], alpha=0.45, color="tab:blue", edgecolors="black",
                   linewidths=0.5)
    else:  # the colours of the document map (plot_topic_map) where every class occurs there
        names, favoured = classes
        colours = plt.get_cmap("tab20" if len(names) > 10 else "tab10")
        present = [t for t in range(len(names)) if np.any(favoured[shown] == t)]
        for t in present:
            on = shown[favoured[shown] == t]
            ax.scatter(xy[on, 0], xy[on, 1], s=sizes[on], alpha=0.45, color=colours(t % colours.N),
                       edgecolors="black", linewidths=0.5)
        if len(present) <= 20:  # beside the map, not over its circles; markers of one size
            handles = [plt.Line2D([], [], marker="o", linestyle="", alpha=0.6, color=colours(t % colours.N),
                                  label=plain_text(names[t])) for t in present]
            ax.legend(handles=handles, title="topic favours", fontsize=7, title_fontsize=8, frameon=False,
                      loc="upper left", bbox_to_anchor=(1.01, 1.0))
    for k in shown[np.argsort(-shares[shown], kind="stable")][:max_labels]:
        ax.annotate(str(k), xy[k], ha="center", va="center", fontsize=8)
    pad = 0.1 * max(float(np.ptp(xy)) if xy.size else 1.0, 1e-6)
    ax.set_xlim(xy[:, 0].min() - pad, xy[:, 0].max() + pad)
    ax.set_ylim(xy[:, 1].min() - pad, xy[:, 1].max() + pad)
    ax.set_xlabel("first principal coordinate")
    ax.set_ylabel("second principal coordinate")
    ax.set_title(f"topics by the distance between their words (K = {len(shares)}; area: share of tokens)",
                 loc="left", fontsize=10)
    return fig
