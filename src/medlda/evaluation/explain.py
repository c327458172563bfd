"""Why a document got its prediction: each topic's part zbar_dk * eta_tk of the decision.

A supervised topic model's decision is linear in the document's topic proportions,
omega_dt = sum_k zbar_dk eta_tk, so it splits exactly into one term per topic. For a multi-class
prediction the useful split is of the margin by which the predicted class beat the runner-up,
omega_d,pred - omega_d,second = sum_k zbar_dk (eta_pred,k - eta_second,k): the topics that made
this class win over the next best.
"""

from __future__ import annotations

import numpy as np


def toward_prediction(zbar: np.ndarray, eta: np.ndarray, omega: np.ndarray) -> np.ndarray:
    """(D, K) topic contributions toward each document's predicted class, given its topic
    proportions zbar (D, K), the weights eta (T, K) and the decisions omega (D, T) = zbar eta^T.
    One task (binary): sign(omega) zbar_dk eta_k, rows summing to |omega_d|. Several (multi-class):
    zbar_dk (eta_pred,k - eta_second,k), rows summing to the margin over the runner-up (>= 0)."""
    if eta.shape[0] == 1:
        sign = np.where(omega[:, 0] > 0, 1.0, -1.0)
        return zbar * eta[0] * sign[:, None]
    order = np.argsort(-omega, axis=1, kind="stable")
    return zbar * (eta[order[:, 0]] - eta[order[:, 1]])


def top_topics(contributions: np.ndarray, n: int, absolute: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The ``n`` topics with the largest contributions in each row, largest first.

    Parameters
    ----------
    contributions : ndarray of shape (D, K)
        Each topic's part of each document's decision (``decision_contributions``).
    n : int
        Topics per row (at most K are given).
    absolute : bool, default=False
        Rank by size, either sign (as for a regression's prediction).

    Returns
    -------
    topics : ndarray of shape (D, n)
        Topic numbers.
    values : ndarray of shape (D, n)
        Their contributions.

    Examples
    --------
    >>> import numpy as np
    >>> from medlda.evaluation.explain import top_topics
    >>> topics, values = top_topics(np.array([[0.5, -2.0, 1.0]]), 2, absolute=True)
    >>> topics, values
    (array([[1, 2]]), array([[-2.,  1.]]))
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    n = min(n, contributions.shape[1])
    key = np.abs(contributions) if absolute else contributions
    ids = np.argsort(-key, axis=1, kind="stable")[:, :n]
    return ids, np.take_along_axis(contributions, ids, axis=1)
