"""Figures: each plot draws what the model holds (bar lengths, points, matrix cells checked
against the numbers they show) and refuses what it cannot draw (``medlda plot``: tests/cli)."""

from __future__ import annotations

import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from sklearn.metrics import confusion_matrix  # noqa: E402

from medlda import LDA, MedLDAClassifier, MedLDARegressor
from medlda.data.synthetic import make_regression_corpus  # noqa: E402
from medlda.reporting import figures, plots  # noqa: E402
from medlda.reporting.reports import class_topic_weights  # noqa: E402

FAST = dict(alpha_sum=1.0, sampler="light", n_infer_burn=10, n_infer_avg=5, random_state=0)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def _visible(fig):
    return [a for a in fig.axes if a.get_visible() and a.get_label() != "<colorbar>"]


def test_trace_panels_hold_the_recorded_curves(three_classes):
    model, *_ = three_classes
    fig = plots.plot_trace(model)
    accuracy, log_joint = _visible(fig)
    x, acc = accuracy.lines[0].get_data()
    assert list(x) == [row["iteration"] for row in model.trace_]
    assert list(acc) == [row["train_accuracy"] for row in model.trace_]
    assert list(log_joint.lines[0].get_ydata()) == [row["log_joint"] for row in model.trace_]
    seconds = plots.plot_trace(model, x="seconds").axes[0].lines[0].get_xdata()
    assert list(seconds) == [row["seconds"] for row in model.trace_]
    with pytest.raises(ValueError, match="x must be"):
        plots.plot_trace(model, x="time")


def test_class_topics_bars_are_the_eta_weights_with_top_words(three_classes):
    model, *_ = three_classes
    fig = plots.plot_class_topics(model, n_topics=2, n_words=3)
    panels = _visible(fig)
    weights = class_topic_weights(model, 2)
    assert [a.get_title(loc="left") for a in panels] == [f"class {c}" for c in weights]
    words = model.words_of(model.top_word_ids(3))
    for a, weighted in zip(panels, weights.values()):
        assert [bar.get_width() for bar in a.patches] == pytest.approx([w for _, w in weighted])
        labels = [t.get_text() for t in a.get_yticklabels()]
        assert labels == [f"{k}: {' '.join(words[k])}" for k, _ in weighted]


def test_topics_bars_are_the_top_word_probabilities(three_classes):
    model, *_ = three_classes
    fig = plots.plot_topics(model, [4, 1], n_words=5)
    panels = _visible(fig)
    assert [a.get_title(loc="left") for a in panels] == ["topic 4", "topic 1"]
    phi = model.topic_word_
    for a, k in zip(panels, (4, 1)):
        assert [bar.get_width() for bar in a.patches] == pytest.approx(np.sort(phi[k])[::-1][:5])
        assert [t.get_text() for t in a.get_yticklabels()] == model.words_of(model.top_word_ids(5))[k]
    with pytest.raises(ValueError, match=r"topics \[6\] out of range"):
        plots.plot_topics(model, [6])
    fig = plots.plot_topics(model, [4], n_words=5, relevance=0.0)  # the words by relevance, bars their phi
    (a,) = _visible(fig)
    ids = model.top_word_ids(5, relevance=0.0)[4]
    shown = [t.get_text() for t in a.get_yticklabels()]
    assert shown == model.words_of(ids[None])[0] != model.words_of(model.top_word_ids(5))[4]
    assert [bar.get_width() for bar in a.patches] == pytest.approx(phi[4, ids])


def test_topic_map_places_every_document_once_per_class(three_classes):
    model, _, test, y_test = three_classes
    fig = plots.plot_topic_map(model, test, y_test, method="pca")
    (a,) = _visible(fig)
    sizes = {c.get_label(): len(c.get_offsets()) for c in a.collections}
    assert sizes == {c: int(np.sum(y_test == c)) for c in np.unique(y_test)}
    # PCA of the same topic proportions: the points are the embedding itself
    from sklearn.decomposition import PCA
    xy = PCA(n_components=2, random_state=0).fit_transform(model.transform(test))
    first = np.unique(y_test)[0]
    assert np.allclose(a.collections[0].get_offsets(), xy[y_test == first])
    fig = plots.plot_topic_map(model, test, method="tsne", n_jobs=1)  # one thread: fast on a busy machine
    assert len(_visible(fig)[0].collections[0].get_offsets()) == test.n_docs
    with pytest.raises(ValueError, match="one label per document"):
        plots.plot_topic_map(model, test, y_test[:-1], method="pca")
    with pytest.raises(ValueError, match="method must be"):
        plots.plot_topic_map(model, test, y_test, method="umap")


def test_confusion_cells_are_the_normalized_confusion_matrix(three_classes):
    model, _, test, y_test = three_classes
    fig = plots.plot_confusion(model, test, y_test)
    image = _visible(fig)[0].images[0].get_array()
    expected = confusion_matrix(y_test, model.predict(test), labels=model.classes_, normalize="true")
    assert np.allclose(image, expected)
    assert _visible(fig)[0].get_title(loc="left") == f"accuracy {model.score(test, y_test):.4f}"


def test_predictions_of_a_regressor():
    corpus, truth = make_regression_corpus(260, 4, words_per_topic=10, random_state=5)
    model = MedLDARegressor(4, loss="squared", c=10.0, max_iter=15, **FAST).fit(corpus, truth.y)
    fig = plots.plot_predictions(model, corpus, truth.y)
    (a,) = _visible(fig)
    assert np.allclose(a.collections[0].get_offsets(), np.column_stack([truth.y, model.predict(corpus)]))
    assert a.get_title(loc="left") == f"predictive R^2 = {model.score(corpus, truth.y):.3f}"
    bars = _visible(plots.plot_class_topics(model, n_topics=2))
    assert [a.get_title(loc="left") for a in bars] == ["high response", "low response"]
    fig = plots.plot_topic_map(model, corpus, truth.y, method="pca")  # a response: a colour bar
    assert len(fig.axes) == 2
    parts = model.decision_contributions(corpus)[0]
    (a,) = _visible(plots.plot_explanation(model, corpus, doc=0, n_topics=4))
    widths = sorted((bar.get_width() for bar in a.patches), key=abs, reverse=True)
    assert np.allclose(widths, parts[np.argsort(-np.abs(parts))])
    assert a.get_title(loc="left").startswith(f"document 0: predicted {model.predict(corpus)[0]:.4g}")
    assert _legend(a) == [("raises the prediction", "tab:green"), ("lowers the prediction", "tab:red")]


def _legend(a) -> list[tuple[str, str]]:
    """An Axes' legend as (text, colour name) pairs."""
    names = {matplotlib.colors.to_rgba(c): c for c in ("tab:green", "tab:red")}
    legend = a.get_legend()
    return [(t.get_text(), names.get(tuple(h.get_facecolor())))
            for t, h in zip(legend.get_texts(), legend.legend_handles)]


def test_a_binary_explanation_names_the_other_class_and_empty_topics_show_no_words(binary_corpus):
    corpus, _ = binary_corpus
    y = corpus.single_labels()
    model = MedLDAClassifier(6, max_iter=10, **FAST).fit(corpus, y)
    model.topic_word_counts_[5] = 0  # an empty topic: no training token
    predicted = model.predict(corpus)[0]
    other = next(str(c) for c in model.classes_ if str(c) != str(predicted))
    (a,) = _visible(plots.plot_explanation(model, corpus, doc=0, n_topics=6))
    assert a.get_title(loc="left").startswith(f"document 0: predicted {predicted}, ahead of {other} by ")
    assert [text for text, _ in _legend(a)] == [f"favours {predicted}", f"favours {other}"]
    assert "5: (empty)" in [t.get_text() for t in a.get_yticklabels()]
    panels = _visible(plots.plot_topics(model, [4, 5]))
    assert [p.get_title(loc="left") for p in panels] == ["topic 4", "topic 5 (empty)"]
    assert len(panels[1].patches) == 0 < len(panels[0].patches)


def test_explanation_bars_are_the_documents_topic_parts(three_classes):
    model, _, test, _ = three_classes
    parts = model.decision_contributions(test)[7]
    fig = plots.plot_explanation(model, test, doc=7, n_topics=4, n_words=3)
    (a,) = _visible(fig)
    order = np.argsort(-np.abs(parts), kind="stable")[:4]
    assert np.allclose([bar.get_width() for bar in a.patches], parts[order])
    words = model.words_of(model.top_word_ids(3))
    assert [t.get_text() for t in a.get_yticklabels()] == [f"{k}: {' '.join(words[k])}" for k in order]
    greens = [bar.get_facecolor() == matplotlib.colors.to_rgba("tab:green") for bar in a.patches]
    assert greens == [v > 0 for v in parts[order]]
    predicted = model.predict(test)[7]
    omega = model.decision_function(test)[7]
    rival = model.classes_[np.argsort(-omega, kind="stable")[1]]
    assert a.get_title(loc="left") == f"document 7: predicted {predicted}, ahead of {rival} by {parts.sum():.3g}"
    assert _legend(a) == [(f"favours {predicted}", "tab:green"), (f"favours {rival}", "tab:red")]
    assert not any(symbol in a.get_xlabel() + a.get_title(loc="left") for symbol in ("zbar", "eta", "omega", "|"))
    label_parts = model.decision_contributions(test, label="neg")[7]
    (b,) = _visible(plots.plot_explanation(model, test, doc=7, label="neg", name="line 9"))
    assert b.get_title(loc="left") == f"line 9: score of neg = {label_parts.sum():+.3g}"
    assert _legend(b) == [("for neg", "tab:green"), ("against neg", "tab:red")]
    with pytest.raises(ValueError, match="doc 120 is out of range: X has 120 documents"):
        plots.plot_explanation(model, test, doc=120)
    with pytest.raises(ValueError, match="'maybe' is not one of the model's classes"):
        plots.plot_explanation(model, test, label="maybe")


def test_what_cannot_be_drawn_is_refused(three_classes):
    model, train, test, y_test = three_classes
    lda = LDA(3, max_iter=3, **FAST).fit(train)
    with pytest.raises(ValueError, match="no classifier weights"):
        plots.plot_class_topics(lda)
    with pytest.raises(ValueError, match="no measured curve"):
        plots.plot_trace(lda)  # unsupervised, fit without trace=True: nothing measured
    with pytest.raises(ValueError, match="single-label classifier"):
        plots.plot_confusion(lda, test, y_test)
    with pytest.raises(ValueError, match="MedLDARegressor"):
        plots.plot_predictions(model, test, y_test)
    with pytest.raises(ValueError, match="no prediction to explain"):
        plots.plot_explanation(lda, test)
    _, axes = plt.subplots(1, 2)
    with pytest.raises(ValueError, match="3 panels; ax gives 2"):
        plots.plot_class_topics(model, ax=axes)


def test_draws_on_the_callers_axes(three_classes):
    model, _, test, y_test = three_classes
    fig, (left, right) = plt.subplots(1, 2)
    assert plots.plot_confusion(model, test, y_test, ax=left) is fig
    assert plots.plot_topic_map(model, test, y_test, method="pca", ax=right) is fig
    assert left.images and right.collections


def test_one_vs_rest_trace_has_a_line_per_class(three_classes):
    _, train, _, _ = three_classes
    y = np.array(["a", "b", "c"] * 100)
    ovr = MedLDAClassifier(3, strategy="ovr", n_jobs=1, max_iter=2, **FAST).fit(train, y)
    (accuracy,) = _visible(plots.plot_trace(ovr))  # training accuracy only: fit without trace=True
    assert [line.get_label() for line in accuracy.lines] == ["a", "b", "c"]
    for line, sub in zip(accuracy.lines, ovr.estimators_):
        assert list(line.get_ydata()) == [row["train_accuracy"] for row in sub.trace_]


def test_save_figure_writes_by_suffix_and_refuses_unknown_formats(tmp_path, three_classes):
    model, *_ = three_classes
    fig = plots.plot_trace(model)
    assert plots.save_figure(fig, tmp_path / "t.png").read_bytes()[:8] == PNG_MAGIC
    small = plots.save_figure(fig, tmp_path / "small.png", dpi=30).stat().st_size
    assert small < (tmp_path / "t.png").stat().st_size
    (tmp_path / "small.png").unlink()
    assert plots.save_figure(fig, tmp_path / "t.svg").read_text().lstrip().startswith("<?xml")
    with pytest.raises(ValueError, match="unknown figure format 'docx'"):
        plots.save_figure(fig, tmp_path / "t.docx")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.png", "t.svg"]


def test_missing_matplotlib_is_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"pip install 'medlda\[plots\]'"):
        figures.pyplot()
