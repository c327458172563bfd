"""A fitted model's errors on labeled documents, overall and per class (``medlda evaluate``): the
accuracy alone hides a queue, a category or a label that the model gets wrong."""

from __future__ import annotations

import numpy as np

from medlda.data.tasks import measures


def evaluate(task: str, y, pred, classes=None) -> dict:
    """The task's measures (``tasks.measures``) and, for classification and multi-label data,
    each class's precision, recall, F1 and support (documents that carry it), macro and
    support-weighted F1, over the classes in the truth or the predictions (as scikit-learn's
    multi-class default), and for classification the confusion matrix (rows: true class, columns:
    predicted, in ``classes`` order). A regression adds the mean absolute and root mean squared
    errors. JSON-ready."""
    from sklearn.metrics import confusion_matrix, precision_recall_fscore_support

    out = {"task": task, "n_docs": int(len(y)), **measures(task, y, pred)}
    if task == "regression":
        err = np.asarray(pred, dtype=float) - np.asarray(y, dtype=float)
        out.update(mae=float(np.abs(err).mean()), rmse=float(np.sqrt((err ** 2).mean())))
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


def evaluation_lines(report: dict, confusion: bool = False) -> list[str]:
    """``evaluate``'s report as text: the overall measures, a table of the classes (worst F1
    first), and with ``confusion`` the confusion matrix."""
    overall = [k for k in ("accuracy", "log_loss", "f1_micro", "f1_macro", "f1_weighted", "r2", "mae", "rmse")
               if k in report]
    lines = [f"{report['n_docs']} documents: " + ", ".join(f"{k.replace('_', ' ')} {report[k]:.4f}" for k in overall)]
    if "per_class" in report:
        rows = sorted(report["per_class"].items(), key=lambda item: (item[1]["f1"], item[0]))
        width = max(len("class"), *(len(name) for name, _ in rows))
        lines.append(f"{'class':<{width}}  precision  recall      f1  support")
        lines.extend(f"{name:<{width}}  {m['precision']:9.3f}  {m['recall']:6.3f}  {m['f1']:6.3f}  {m['support']:7d}"
                     for name, m in rows)
    if confusion and "confusion" in report:
        names, matrix = report["classes"], report["confusion"]
        cell = max(4, *(len(str(v)) for row in matrix for v in row))
        short = [name[: cell] for name in names]
        width = max(len(name) for name in names)
        lines.append(f"confusion (rows: true class, columns: predicted, the first {cell} letters)")
        lines.append(" " * (width + 2) + " ".join(f"{s:>{cell}}" for s in short))
        lines.extend(f"{name:<{width}}  " + " ".join(f"{v:>{cell}}" for v in row) for name, row in zip(names, matrix))
    return lines


def subset_accuracy(pred: np.ndarray, truth: np.ndarray) -> float:
    """Accuracy; for indicator matrices the subset accuracy (every label of a document right)."""
    if pred.ndim == 2:
        return float(np.mean(np.all(pred == truth, axis=1)))
    return float(np.mean(pred == truth))
