"""Draws of the classifier weights eta given Z and the augmentation (SPEC §5)."""

from __future__ import annotations

import numpy as np
from scipy.linalg import cho_solve, cholesky, solve_triangular


def exact_eta(state, kappa: np.ndarray, w: np.ndarray, nu: float,
              rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One exact draw of eta (T, K) given the chain's zbar, and omega = zbar @ eta.T (D, T) for it."""
    eta = draw_eta_exact(state.zbar(), kappa, w, nu, rng)
    return eta, state.omega(eta)


def draw_eta_exact(zbar: np.ndarray, kappa: np.ndarray, w: np.ndarray, nu: float,
                   rng: np.random.Generator) -> np.ndarray:
    """One exact draw of eta (T, K): per task, mean + L^{-T} eps with P = L L^T (O(D K^2 + K^3))."""
    return draw_eta_from_statistics(*eta_statistics(zbar, kappa, w), nu, rng)


def eta_statistics(zbar: np.ndarray, kappa: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The data part of (4) per task: sum_d w_dt zbar_d zbar_d^T (T, K, K) and sum_d kappa_dt zbar_d
    (T, K). Sums over documents, so shards' statistics add up (data-parallel training)."""
    n_tasks, n_topics = kappa.shape[1], zbar.shape[1]
    gram, linear = np.empty((n_tasks, n_topics, n_topics)), np.empty((n_tasks, n_topics))
    for t in range(n_tasks):
        gram[t] = (zbar * w[:, t, None]).T @ zbar
        linear[t] = zbar.T @ kappa[:, t]
    return gram, linear


def draw_eta_from_statistics(gram: np.ndarray, linear: np.ndarray, nu: float,
                             rng: np.random.Generator) -> np.ndarray:
    """One exact draw of eta (T, K) from the statistics of :func:`eta_statistics`: precision
    nu I + gram_t, mean precision^{-1} linear_t."""
    n_tasks, n_topics = linear.shape
    eta = np.empty((n_tasks, n_topics))
    for t in range(n_tasks):
        precision = gram[t].copy()
        precision[np.diag_indices(n_topics)] += nu
        chol = cholesky(precision, lower=True)
        mean = cho_solve((chol, True), linear[t])
        eps = rng.standard_normal(n_topics)
        eta[t] = mean + solve_triangular(chol.T, eps, lower=False)
    return eta
