"""Class probabilities from discriminants omega, with the scale s of p = sigmoid(s omega) fitted.

The logistic loss's factor exp(c y omega) / (1 + e^omega)^c is a pseudo-likelihood: c weighs the
labels against the words, it is no temperature, and sigmoid(c omega) is far overconfident (nearly
every test document above 0.999, whatever the accuracy). So the classifier fits one scale s by
maximum likelihood on training documents inferred as new ones (as ``predict`` sees documents;
their own training assignments would be far more confident).
Training documents are still better predicted than new ones, so s stays somewhat too large
(probabilities a little overconfident); ``sklearn.calibration.CalibratedClassifierCV`` calibrates
on held-out folds when that matters.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize_scalar

# documents inferred to fit s, counted once per model that infers them (one-vs-rest: C models), at
# least CALIBRATION_MIN_DOCS: plenty for one parameter, and the inference they cost stays a small
# part of a fit
CALIBRATION_DOCS = 2000
CALIBRATION_MIN_DOCS = 500
_LOG_SCALE_BOUNDS = (np.log(1e-3), np.log(1e4))


def calibration_size(n_docs: int, n_models: int) -> int:
    """How many of ``n_docs`` training documents fit s when ``n_models`` models infer each."""
    return min(n_docs, max(CALIBRATION_MIN_DOCS, CALIBRATION_DOCS // max(n_models, 1)))


def _as_columns(omega: np.ndarray) -> np.ndarray:
    """Discriminants as a float (D, T) array (a binary model's (D,) becomes (D, 1))."""
    return np.asarray(omega, dtype=np.float64).reshape(len(omega), -1)


def _class_log_proba(omega: np.ndarray, scale: float) -> np.ndarray:
    """log sigmoid(scale omega) normalized over the classes (D, C), in log space."""
    log_p = -np.logaddexp(0.0, -scale * omega)
    return log_p - np.logaddexp.reduce(log_p, axis=1, keepdims=True)


def proba_from_omega(omega: np.ndarray, scale: float, multilabel: bool) -> np.ndarray:
    """Probabilities sigmoid(scale omega): (D, 2) for one task (binary), per label (D, C) for
    multi-label, normalized over the classes (D, C) otherwise (in log space: no ties at 1.0)."""
    omega = _as_columns(omega)
    if multilabel or omega.shape[1] == 1:
        p = 0.5 * (1.0 + np.tanh(0.5 * scale * omega))
        return p if multilabel else np.column_stack([1.0 - p[:, 0], p[:, 0]])
    return np.exp(_class_log_proba(omega, scale))


def log_proba_from_omega(omega: np.ndarray, scale: float, multilabel: bool) -> np.ndarray:
    """The logarithms of ``proba_from_omega``, computed in log space: finite where the
    probabilities round to 0 or 1."""
    omega = _as_columns(omega)
    if multilabel or omega.shape[1] == 1:
        log_p = -np.logaddexp(0.0, -scale * omega)
        return log_p if multilabel else np.column_stack([-np.logaddexp(0.0, scale * omega[:, 0]), log_p[:, 0]])
    return _class_log_proba(omega, scale)


def log_loss(omega: np.ndarray, truth: np.ndarray, scale: float, multilabel: bool) -> float:
    """Mean negative log likelihood of ``truth`` (class codes (D,), or a 0/1 indicator (D, C) for
    multi-label) under ``proba_from_omega``; computed in log space, so finite for any scale."""
    omega = _as_columns(omega)
    if multilabel or omega.shape[1] == 1:
        sign = 2.0 * np.asarray(truth, dtype=np.float64).reshape(omega.shape) - 1.0
        return float(np.logaddexp(0.0, -sign * scale * omega).sum(axis=1).mean())
    return float(-np.mean(_class_log_proba(omega, scale)[np.arange(len(truth)), truth]))


def fit_proba_scale(omega: np.ndarray, truth: np.ndarray, multilabel: bool) -> float:
    """The s minimizing ``log_loss`` (a one-dimensional search over log s in [1e-3, 1e4])."""
    result = minimize_scalar(lambda log_s: log_loss(omega, truth, float(np.exp(log_s)), multilabel),
                             bounds=_LOG_SCALE_BOUNDS, method="bounded", options={"xatol": 1e-4})
    return float(np.exp(result.x))
