"""A fitted model scored on labeled documents: which task it solves, and its predictions with the
log loss of its probabilities from the same inference."""

from __future__ import annotations

import numpy as np
from sklearn.metrics import log_loss


def model_task(model) -> str:
    """The task a fitted estimator solves: one of ``medlda.data.tasks.TASKS``, or "unsupervised" for LDA."""
    if hasattr(model, "y_mean_"):
        return "regression"
    if not hasattr(model, "eta_samples_"):
        return "unsupervised"
    return "multilabel" if getattr(model, "multilabel_", False) else "classification"


def predict_with_log_loss(model, task: str, X, y) -> tuple[np.ndarray, dict]:
    """(predictions of X, {"log_loss": ...}) from one inference: a model with probabilities
    (logistic loss) on single-label data adds the log loss of predict_proba against y, else {}."""
    if not (task == "classification" and hasattr(model, "predict_proba")):
        return model.predict(X), {}
    omega = model.decision_function(X)
    proba = model.proba_from_decision(omega)
    return model.labels_from_decision(omega), {"log_loss": float(log_loss(y, proba, labels=model.classes_))}
