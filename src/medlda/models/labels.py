"""Labels of a classifier: label indicators, multi-label input, predictions from discriminants."""

import os
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import column_or_1d


def _missing(y: np.ndarray) -> np.ndarray:
    """Which entries of 1-d labels are missing: NaN, or None in an object array."""
    if y.dtype.kind == "f":
        return np.isnan(y)
    if y.dtype.kind == "O":
        return np.array([v is None or v != v for v in y], dtype=bool)  # v != v: a NaN
    return np.zeros(y.size, dtype=bool)


def _check_discrete(y: np.ndarray) -> None:
    """Refuse 1-d labels a classifier cannot take, with scikit-learn's words: strings mixed with
    numbers (they have no order, so no classes_), and continuous values (floats that are not all
    integers: each value would become a class of its own, a regression target given to a classifier)."""
    values = y
    if y.dtype.kind == "O":
        kinds = {isinstance(v, (str, bytes)) for v in y.tolist()}
        if len(kinds) > 1:
            raise ValueError("Mix of label input types (string and number) in y: give every label as a string, "
                             "or every label as a number")
        if kinds == {False}:  # numbers in an object array (e.g. from pandas): judged as numbers
            values = np.asarray(y.tolist())
    if values.dtype.kind == "f" and type_of_target(values) == "continuous":
        check_classification_targets(values)  # raises "Unknown label type: continuous ..."


def label_indicator(y) -> tuple[np.ndarray, np.ndarray, bool]:
    """(classes, (D, T) bool task indicator, multilabel) of labels y.

    A 1-D y holds one label per document: two classes give one task (the second class), more give
    one task per class. A 2-D y is a label-indicator matrix (scikit-learn's multi-label convention):
    one task per column, ``classes`` = ``arange(n_columns)``. As in scikit-learn, a dense column
    vector (D, 1) is one label per document, raveled with a DataConversionWarning; a sparse y is
    always an indicator matrix, so a multi-label y of a single label column is passed sparse.
    """
    if sp.issparse(y):
        y = y.toarray()
    else:
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = column_or_1d(y, warn=True)
    if y.ndim == 2:
        if y.shape[1] < 1:
            raise ValueError("multi-label y has no columns")
        values = np.unique(y)
        if not np.all(np.isin(values, [0, 1])):
            raise ValueError(f"a 2-d y must be a 0/1 label-indicator matrix; found values {values[:5].tolist()}")
        return np.arange(y.shape[1]), y.astype(bool), True
    if y.ndim != 1:
        raise ValueError(f"y must be 1-d labels or a 2-d label-indicator matrix, got shape {y.shape}")
    missing = _missing(y)
    if missing.any():
        raise ValueError(f"y has missing labels (NaN or None), the first at document {int(np.argmax(missing))}")
    _check_discrete(y)
    classes, codes = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise ValueError(f"MedLDAClassifier needs at least two classes in y, got {classes.size} class"
                         + ("es" if classes.size == 0 else f" ({classes[0]})"))
    if classes.size == 2:
        return classes, (codes == 1)[:, None], False
    return classes, codes[:, None] == np.arange(classes.size)[None, :], False


def warn_uncarried_labels(classes: np.ndarray, indicator: np.ndarray) -> None:
    """Warn about the label columns of a multi-label y that no training document carries: the
    model can only learn never to predict them, which is seldom what the data was meant to say."""
    never = np.flatnonzero(~indicator.any(axis=0))
    if never.size:
        names = ", ".join(str(c) for c in np.asarray(classes)[never])
        noun = "column" if never.size == 1 else "columns"
        warnings.warn(f"no (non-empty) training document carries label {noun} {names} of y: the model can only "
                      f"learn never to predict {'it' if never.size == 1 else 'them'}", UserWarning, stacklevel=3)


def labels_of(classes: np.ndarray, indicator: np.ndarray, multilabel: bool):
    """Labels y that ``label_indicator`` turns back into ``classes`` and ``indicator``: a sparse
    indicator matrix for multi-label data, else one label per document."""
    if multilabel:
        return sp.csr_matrix(indicator.astype(np.int8))
    return classes[indicator[:, 0].astype(np.int64)] if indicator.shape[1] == 1 else classes[indicator.argmax(1)]


def codes_from_omega(omega: np.ndarray, multilabel: bool) -> np.ndarray:
    """Predictions from discriminants (D, T): 0/1 per task (multi-label, or one task), else argmax."""
    if multilabel:
        return (omega > 0).astype(np.int64)
    if omega.shape[1] == 1:
        return (omega[:, 0] > 0).astype(np.int64)
    return np.argmax(omega, axis=1)


def effective_jobs(n_jobs: int | None, n_tasks: int) -> int:
    """Worker processes to use: n_jobs (None = 1, -1 = all cores), at most one per task."""
    cores = os.cpu_count() or 1
    if n_jobs is None:
        n_jobs = 1
    elif n_jobs < 0:
        n_jobs = max(cores + 1 + n_jobs, 1)
    return max(1, min(n_jobs, n_tasks))
