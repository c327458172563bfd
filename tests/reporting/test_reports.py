"""Text reports: an empty topic shows no words anywhere, background topics are marked and explain no
class, and the confusion matrix names every class in full."""

from __future__ import annotations

import copy

import numpy as np

from medlda import MedLDAClassifier
from medlda.reporting.html import report_html
from medlda.reporting.reports import (
    background_mask,
    class_topic_lines,
    class_topic_weights,
    confusion_lines,
    topic_lines,
    topic_words,
    topics_json,
)


def test_an_empty_topic_shows_no_filler_words(three_classes):
    model = copy.deepcopy(three_classes[0])  # the fixture is shared
    model.topic_word_counts_[2] = 0
    model._phi_cache = None
    words = topic_words(model, 5)
    assert words[2] == [] and all(len(w) == 5 for k, w in enumerate(words) if k != 2)
    assert topics_json(model, 5)["topics"] == words
    assert topic_lines(model, 5)[2].endswith("(empty)")
    assert not any(line.startswith("  topic 2 ") for line in class_topic_lines(model, n_topics=6))


def test_background_topics_are_marked_in_every_chain_and_explain_no_class(three_classes):
    _, train, _, _ = three_classes
    y = np.array(["a", "b", "c"])[np.arange(train.n_docs) % 3]
    model = MedLDAClassifier(5, background_topics=2, n_chains=2, max_iter=3, sampler="light",
                             random_state=0).fit(train, y)
    assert np.flatnonzero(background_mask(model)).tolist() == [3, 4, 8, 9]  # the last 2 of each chain's 5
    assert topics_json(model, 3)["background_topics"] == [3, 4, 8, 9]
    lines = topic_lines(model, 3)
    assert [", background)" in line or ", background," in line for line in lines] == [k % 5 >= 3 for k in range(10)]
    for weighted in class_topic_weights(model, n_topics=10).values():
        assert weighted and not {k for k, _ in weighted} & {3, 4, 8, 9}
    page = report_html(model)
    assert page.count("(background)</td>") == 4 and "<td>2 (background)</td>" not in page


def test_confusion_names_each_class_whole():
    names = ["alt.atheism", "comp.os.ms-windows.misc", "x"]
    lines = confusion_lines(names, [[310, 9, 0], [50, 2000, 1], [0, 0, 7]])
    assert lines[0] == "confusion (rows: true class; columns: predicted class, numbered as the rows)"
    header, *rows = lines[1:]
    assert header.split() == ["1", "2", "3"]
    assert [row.split()[:2] for row in rows] == [["1", "alt.atheism"], ["2", "comp.os.ms-windows.misc"], ["3", "x"]]
    assert [row.split()[2:] for row in rows] == [["310", "9", "0"], ["50", "2000", "1"], ["0", "0", "7"]]
    assert len({len(line) for line in lines[1:]}) == 1  # the columns line up
