"""Which supervised task a labeled corpus poses, its targets, and the measures of each (SPEC §9).

- classification: one label per document; accuracy;
- multi-label: any document with zero or several labels; F1 micro and macro over the labels;
- regression: one label per document, all numbers, not all integers; predictive R^2.
"""

from __future__ import annotations

import numpy as np

from .corpus import Corpus

TASKS = ("classification", "multilabel", "regression")


def detect_task(corpus: Corpus) -> str:
    """The task of a labeled corpus (see the module docstring)."""
    labels = corpus._require_labels()
    if any(len(lab) != 1 for lab in labels):
        return "multilabel"
    values = [lab[0] for lab in labels]
    try:
        numbers = [float(v) for v in values]
    except ValueError:
        return "classification"
    if all(np.isfinite(numbers)) and any(not _is_integer_text(v) for v in values):
        return "regression"
    return "classification"


def _is_integer_text(value: str) -> bool:
    v = value.strip().lstrip("+-")
    return v.isdigit()


def model_task(model) -> str:
    """The task a fitted estimator solves: one of ``TASKS``, or "unsupervised" for LDA."""
    if hasattr(model, "y_mean_"):
        return "regression"
    if not hasattr(model, "eta_samples_"):
        return "unsupervised"
    return "multilabel" if getattr(model, "multilabel_", False) else "classification"


def label_matrix(corpus: Corpus, names: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """(D, C) 0/1 indicator of a multi-label corpus over ``names`` (default: every label seen,
    sorted), the names, and how many label occurrences outside ``names`` were dropped."""
    labels = corpus._require_labels()
    if names is None:
        names = np.array(sorted({lab for labs in labels for lab in labs}), dtype=str)
    index = {str(n): i for i, n in enumerate(names)}
    Y = np.zeros((len(labels), len(names)), dtype=np.int64)
    dropped = 0
    for d, labs in enumerate(labels):
        for lab in labs:
            if lab in index:
                Y[d, index[lab]] = 1
            else:
                dropped += 1
    return Y, np.asarray(names), dropped


def targets(corpus: Corpus, task: str, names: np.ndarray | None = None):
    """The ``y`` an estimator fits for ``task``: labels (classification), an indicator matrix
    (multi-label, over ``names`` when given), or real responses (regression)."""
    if task == "classification":
        return corpus.single_labels()
    if task == "multilabel":
        return label_matrix(corpus, names)[0]
    if task == "regression":
        return corpus.real_labels()
    raise ValueError(f"task must be one of {list(TASKS)}, got {task!r}")


def measures(task: str, y, pred) -> dict:
    """accuracy (classification), f1_micro and f1_macro (multi-label) or r2 (regression)."""
    if task == "classification":
        return {"accuracy": float(np.mean(np.asarray(pred) == np.asarray(y)))}
    if task == "multilabel":
        from sklearn.metrics import f1_score
        return {"f1_micro": float(f1_score(y, pred, average="micro", zero_division=0)),
                "f1_macro": float(f1_score(y, pred, average="macro", zero_division=0))}
    from .regression import r2
    return {"r2": r2(np.asarray(y, dtype=float), np.asarray(pred, dtype=float))}
