"""The measures of each task (docs/mathematics.md §9) and a model's errors per class, in one place.

- classification: accuracy;
- multi-label: F1 micro, and macro over the labels that occur; subset accuracy while training;
- regression: predictive R^2, plus mean absolute and root mean squared errors in ``evaluate``.

``evaluate`` (``medlda evaluate``) adds each class's precision, recall and F1: the accuracy alone
hides a queue, a category or a label that the model gets wrong.
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics import (
    confusion_matrix,
    f1_score,
    mean_absolute_error,
    precision_recall_fscore_support,
    r2_score,
    root_mean_squared_error,
)


def r2(y: np.ndarray, pred: np.ndarray) -> float:
    """Predictive R^2 = 1 - sum (y - pred)^2 / sum (y - mean y)^2; 0 when y is constant (undefined)."""
    y = np.asarray(y, dtype=float)
    if y.size < 2 or not np.any(y - y.mean()):
        return 0.0
    return float(r2_score(y, np.asarray(pred, dtype=float)))


def subset_accuracy(pred: np.ndarray, truth: np.ndarray) -> float:
    """Accuracy; for indicator matrices the subset accuracy (every label of a document right).
    Plain NumPy: the training loop measures it every iteration."""
    pred, truth = np.asarray(pred), np.asarray(truth)
    if pred.ndim == 2:
        return float(np.mean(np.all(pred == truth, axis=1)))
    return float(np.mean(pred == truth))


def measures(task: str, y, pred) -> dict:
    """accuracy (classification), f1_micro and f1_macro (multi-label) or r2 (regression)."""
    if task == "classification":
        return {"accuracy": subset_accuracy(np.asarray(pred), np.asarray(y))}
    if task == "multilabel":
        return {"f1_micro": float(f1_score(y, pred, average="micro", zero_division=0)),
                "f1_macro": _f1_macro_occurring(y, pred)}
    return {"r2": r2(y, pred)}


def _f1_macro_occurring(y, pred) -> float:
    """Multi-label macro F1 over the labels the truth or the predictions hold (as scikit-learn's
    multi-class default does): a label absent from both would count as an F1 of 0."""
    on = np.flatnonzero(np.asarray(y).any(axis=0) | np.asarray(pred).any(axis=0))
    if not on.size:
        return 0.0
    return float(f1_score(y, pred, labels=on, average="macro", zero_division=0))


def evaluate(task: str, y, pred, classes=None) -> dict:
    """The task's measures (``measures``) and, for classification and multi-label data,
    each class's precision, recall, F1 and support (documents that carry it), macro and
    support-weighted F1, over the classes in the truth or the predictions (as scikit-learn's
    multi-class default), and for classification the confusion matrix (rows: true class, columns:
    predicted, in ``classes`` order). A regression adds the mean absolute and root mean squared
    errors. JSON-ready."""
    out = {"task": task, "n_docs": int(len(y)), **measures(task, y, pred)}
    if task == "regression":
        y, pred = np.asarray(y, dtype=float), np.asarray(pred, dtype=float)
        out.update(mae=float(mean_absolute_error(y, pred)), rmse=float(root_mean_squared_error(y, pred)))
        return out
    names = [str(c) for c in classes]
    every = list(classes) if task == "classification" else list(range(len(names)))
    occurring = occurring_classes(task, y, pred, every)
    precision, recall, f1, support = precision_recall_fscore_support(y, pred, labels=occurring or every,
                                                                     zero_division=0)
    shown = [names[every.index(c)] for c in occurring]
    out["per_class"] = {name: {"precision": float(p), "recall": float(r), "f1": float(f), "support": int(s)}
                        for name, p, r, f, s in zip(shown, precision, recall, f1, support)}
    out["f1_macro"] = float(f1.mean()) if occurring else 0.0
    out["f1_weighted"] = float((f1 * support).sum() / max(support.sum(), 1)) if occurring else 0.0
    if task == "classification":
        out["classes"] = names
        out["confusion"] = confusion_matrix(y, pred, labels=every).tolist()
    return out


def occurring_classes(task: str, y, pred, classes: list) -> list:
    """The ``classes`` (column indices for multi-label data) that the truth or the predictions hold:
    macro F1 and the per-class table skip the others, whose F1 of 0 would only say they are absent."""
    if task == "multilabel":
        on = np.asarray(y).any(axis=0) | np.asarray(pred).any(axis=0)
        return [c for c in classes if on[c]]
    present = set(np.asarray(y).tolist()) | set(np.asarray(pred).tolist())
    return [c for c in classes if c in present]
