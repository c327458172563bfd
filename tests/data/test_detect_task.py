"""The task read from the labels (classification, multi-label, regression) and the warning when
the labels make it doubtful."""

from __future__ import annotations

import numpy as np

from medlda.data.corpus import Corpus
from medlda.data.readers import read_corpus
from medlda.data.tasks import auto_task_warning, detect_task


def _bow_with_labels(tmp_path, labels):
    """A bow file with one document a line (line N+1 carries labels[N]) and its task and warning."""
    path = tmp_path / "labels.bow"
    path.write_text("# a comment first\n" + "".join(f"{lab} w{d % 3}:2 x:1\n" for d, lab in enumerate(labels)))
    corpus = read_corpus(path)
    task = detect_task(corpus)
    return path, task, auto_task_warning(corpus, task)


def test_auto_task_warns_of_one_fractional_label_among_integers(tmp_path):
    path, task, message = _bow_with_labels(tmp_path, ["1", "2", "3", "3.5", "2", "1", "2.5"])
    assert task == "regression"
    assert message.startswith(f"{path}, line 5: label '3.5' (and 1 more) is not an integer, unlike 5 of the 7 ")
    assert "read as regression" in message and "--task classification" in message
    _, task, message = _bow_with_labels(tmp_path, ["1.5", "2.25", "3", "0.5"])  # real responses: no warning
    assert (task, message) == ("regression", None)


def test_auto_task_warns_of_numbers_mixed_with_words(tmp_path):
    path, task, message = _bow_with_labels(tmp_path, ["sports", "tech", "2", "sports", "tech"])
    assert task == "classification"
    assert message.startswith(f"{path}, line 4: label '2' is a number, yet 4 of the 5 labels are words: read as "
                              "classification over 3 classes") and "--task regression" in message
    path, _, message = _bow_with_labels(tmp_path, ["1.5", "x", "2.5", "y"])  # a tie: the words are doubtful
    assert message.startswith(f"{path}, line 3: label 'x' (and 1 more) is a word, yet 2 of the 4 labels are numbers")
    for labels in (["a", "b", "a"], ["1", "2", "1"], ["+1", "-1"]):
        assert _bow_with_labels(tmp_path, labels)[2] is None


def test_auto_task_warns_of_blank_labels_read_as_multilabel():
    corpus = Corpus.from_sparse(np.ones((3, 2), dtype=int), labels=[("a",), (), ("b",)], source="t.csv")
    corpus.doc_names = ["line 2", "line 3", "line 4"]
    assert detect_task(corpus) == "multilabel"
    assert auto_task_warning(corpus, "multilabel") == (
        "1 document carries no label (first: t.csv, line 3) and the others one each: read as multi-label data; "
        "for classification give them labels or drop them")
    corpus.labels = [("a", "b"), (), ("b",)]  # truly multi-label
    assert auto_task_warning(corpus, "multilabel") is None
