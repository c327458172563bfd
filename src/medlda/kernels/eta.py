"""Coordinate Gibbs draw of the classifier weights (SPEC (5)): O(nnz(zbar)) per sweep, no K^3."""

import math

from numba import njit


@njit(cache=True)
def coordinate_eta_sweeps(zbar_kd, kappa, w, omega, eta, nu, normals):
    """``normals.shape[0]`` sweeps over every eta_tk, each drawn from its Gaussian conditional.

    ``zbar_kd`` is zbar transposed (K, D); ``omega`` (D, T) must equal zbar @ eta.T on entry and
    is kept equal; ``normals`` (S, T, K) are standard normal draws. Leaves (4) invariant.
    """
    n_topics, n_docs = zbar_kd.shape
    n_tasks = eta.shape[0]
    for sweep in range(normals.shape[0]):
        for t in range(n_tasks):
            for k in range(n_topics):
                tau = nu
                mu = 0.0
                e_old = eta[t, k]
                for d in range(n_docs):
                    x = zbar_kd[k, d]
                    if x != 0.0:
                        tau += w[d, t] * x * x
                        mu += x * (kappa[d, t] - w[d, t] * (omega[d, t] - x * e_old))
                e_new = mu / tau + normals[sweep, t, k] / math.sqrt(tau)
                delta = e_new - e_old
                for d in range(n_docs):
                    x = zbar_kd[k, d]
                    if x != 0.0:
                        omega[d, t] += delta * x
                eta[t, k] = e_new
