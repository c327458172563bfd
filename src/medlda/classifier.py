"""Draws of the classifier weights eta given Z and the augmentation (SPEC §5)."""

from __future__ import annotations

import numpy as np
from scipy.linalg import cho_solve, cholesky, solve_triangular


def gaussian_posterior(zbar: np.ndarray, kappa: np.ndarray, w: np.ndarray, nu: float):
    """Precision P = nu I + sum_d w_d zbar_d zbar_d^T and mean P^{-1} sum_d kappa_d zbar_d (SPEC (4))."""
    n_topics = zbar.shape[1]
    precision = (zbar * w[:, None]).T @ zbar
    precision[np.diag_indices(n_topics)] += nu
    chol = cholesky(precision, lower=True)
    mean = cho_solve((chol, True), zbar.T @ kappa)
    return mean, chol


def draw_eta_exact(zbar: np.ndarray, kappa: np.ndarray, w: np.ndarray, nu: float,
                   rng: np.random.Generator) -> np.ndarray:
    """One exact draw of eta (T, K): per task, mean + L^{-T} eps with P = L L^T (O(D K^2 + K^3))."""
    n_tasks = kappa.shape[1]
    eta = np.empty((n_tasks, zbar.shape[1]))
    for t in range(n_tasks):
        mean, chol = gaussian_posterior(zbar, kappa[:, t], w[:, t], nu)
        eps = rng.standard_normal(zbar.shape[1])
        eta[t] = mean + solve_triangular(chol.T, eps, lower=False)
    return eta
