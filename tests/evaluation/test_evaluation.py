"""medlda evaluate: the measures overall and per class equal their definitions counted by hand."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import f1_score

from medlda.evaluation.metrics import evaluate, measures, r2, subset_accuracy
from medlda.reporting.reports import evaluation_lines


def test_classification_per_class_and_confusion_by_hand():
    y = np.array(["a", "a", "a", "b", "b", "c"])
    pred = np.array(["a", "b", "a", "b", "a", "a"])
    report = evaluate("classification", y, pred, np.array(["a", "b", "c"]))
    assert report["accuracy"] == pytest.approx(3 / 6)
    a, b, c = (report["per_class"][k] for k in "abc")
    assert (a["precision"], a["recall"], a["support"]) == (pytest.approx(2 / 4), pytest.approx(2 / 3), 3)
    assert a["f1"] == pytest.approx(2 * (1 / 2) * (2 / 3) / (1 / 2 + 2 / 3))
    assert (b["precision"], b["recall"], b["f1"], b["support"]) == (0.5, 0.5, 0.5, 2)
    assert (c["precision"], c["recall"], c["f1"], c["support"]) == (0.0, 0.0, 0.0, 1)  # never predicted
    assert report["f1_macro"] == pytest.approx((a["f1"] + 0.5 + 0) / 3)
    assert report["f1_weighted"] == pytest.approx((3 * a["f1"] + 2 * 0.5) / 6)
    assert report["confusion"] == [[2, 1, 0], [1, 1, 0], [1, 0, 0]] and report["classes"] == ["a", "b", "c"]
    lines = evaluation_lines(report, confusion=True)
    assert lines[0] == "6 documents: accuracy 0.5000, f1 macro 0.3571, f1 weighted 0.4524"
    assert [line.split()[0] for line in lines[2:5]] == ["c", "b", "a"]  # worst F1 first
    assert [line.split() for line in lines[-4:]] == [["1", "2", "3"], ["1", "a", "2", "1", "0"],
                                                      ["2", "b", "1", "1", "0"], ["3", "c", "1", "0", "0"]]


def test_multilabel_and_regression():
    y = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    pred = np.array([[1, 0], [0, 1], [0, 1], [1, 0]])
    report = evaluate("multilabel", y, pred, np.array(["x", "y"]))
    x, yy = report["per_class"]["x"], report["per_class"]["y"]
    assert (x["precision"], x["recall"], x["support"]) == (0.5, 0.5, 2)
    assert (yy["precision"], yy["recall"], yy["support"]) == (1.0, 1.0, 2)
    assert report["f1_micro"] == pytest.approx(2 * 3 / (2 * 3 + 1 + 1)) and "confusion" not in report
    report = evaluate("regression", np.array([1.0, 2.0, 4.0]), np.array([1.5, 2.0, 3.0]))
    assert report["mae"] == pytest.approx(0.5) and report["rmse"] == pytest.approx(np.sqrt(1.25 / 3))
    assert "per_class" not in report and "r2" in report


def test_r2_and_subset_accuracy_by_hand():
    y, pred = np.array([1.0, 2.0, 4.0]), np.array([1.5, 2.0, 3.0])
    assert r2(y, pred) == pytest.approx(1 - 1.25 / np.sum((y - y.mean()) ** 2))
    assert r2(np.full(3, 2.0), np.full(3, 2.0)) == 0.0  # undefined for a constant response: 0
    assert measures("regression", y, pred) == {"r2": r2(y, pred)}
    assert subset_accuracy(np.array([[1, 0], [1, 1]]), np.array([[1, 0], [1, 0]])) == 0.5  # every label right
    assert measures("classification", np.array(["a", "b"]), np.array(["a", "a"])) == {"accuracy": 0.5}


def test_macro_f1_covers_only_classes_in_the_truth_or_the_predictions():
    y = np.array(["a", "a", "b", "b"])
    pred = np.array(["a", "b", "b", "c"])
    report = evaluate("classification", y, pred, np.array(["a", "b", "c", "d"]))  # 'd' occurs nowhere
    assert sorted(report["per_class"]) == ["a", "b", "c"] and report["per_class"]["c"]["f1"] == 0.0
    assert report["f1_macro"] == pytest.approx(f1_score(y, pred, average="macro")) == pytest.approx((2 / 3 + 1 / 2) / 3)
    assert report["classes"] == ["a", "b", "c", "d"] and report["confusion"][3] == [0, 0, 0, 0]
    Y = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 0]])  # label 'z' (column 2) is neither true nor predicted
    P = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0]])
    report = evaluate("multilabel", Y, P, np.array(["x", "y", "z"]))
    assert sorted(report["per_class"]) == ["x", "y"]
    by_hand = (report["per_class"]["x"]["f1"] + report["per_class"]["y"]["f1"]) / 2
    assert report["f1_macro"] == pytest.approx(by_hand) == pytest.approx(measures("multilabel", Y, P)["f1_macro"])
    assert measures("multilabel", np.zeros((2, 2), int), np.zeros((2, 2), int))["f1_macro"] == 0.0
