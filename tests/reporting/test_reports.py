"""Text reports: an empty topic shows no words anywhere, and the confusion matrix names every
class in full."""

from __future__ import annotations

import copy

from medlda.reporting.reports import class_topic_lines, confusion_lines, topic_lines, topic_words, topics_json


def test_an_empty_topic_shows_no_filler_words(three_classes):
    model = copy.deepcopy(three_classes[0])  # the fixture is shared
    model.topic_word_counts_[2] = 0
    model._phi_cache = None
    words = topic_words(model, 5)
    assert words[2] == [] and all(len(w) == 5 for k, w in enumerate(words) if k != 2)
    assert topics_json(model, 5)["topics"] == words
    assert topic_lines(model, 5)[2].endswith("(empty)")
    assert not any(line.startswith("  topic 2 ") for line in class_topic_lines(model, n_topics=6))


def test_confusion_names_each_class_whole():
    names = ["alt.atheism", "comp.os.ms-windows.misc", "x"]
    lines = confusion_lines(names, [[310, 9, 0], [50, 2000, 1], [0, 0, 7]])
    assert lines[0] == "confusion (rows: true class; columns: predicted class, numbered as the rows)"
    header, *rows = lines[1:]
    assert header.split() == ["1", "2", "3"]
    assert [row.split()[:2] for row in rows] == [["1", "alt.atheism"], ["2", "comp.os.ms-windows.misc"], ["3", "x"]]
    assert [row.split()[2:] for row in rows] == [["310", "9", "0"], ["50", "2000", "1"], ["0", "0", "7"]]
    assert len({len(line) for line in lines[1:]}) == 1  # the columns line up
