"""shift_eta: the Gibbs step along each task's all-ones direction leaves eta's Gaussian
conditional invariant and moves a task's bias to it in one step."""

import numpy as np
from scipy import stats

from exact import FALSE_ALARM
from medlda.samplers.eta import draw_eta_exact, shift_eta


def _problem(rng):
    n_docs, n_topics = 40, 4
    zbar = rng.dirichlet(np.ones(n_topics), size=n_docs)
    zbar[5] = 0.0  # an empty document: its row sums to 0
    kappa = rng.normal(size=(n_docs, 2))
    w = rng.gamma(2.0, size=(n_docs, 2))
    return zbar, kappa, w, zbar.sum(axis=1), 0.5


def _bias_white(zbar, kappa, w, nu, samples):
    """Each task's sum_k eta_tk, standardized by its exact marginal mean and variance."""
    ones = np.ones(zbar.shape[1])
    out = []
    for t in range(2):
        cov = np.linalg.inv(nu * np.eye(zbar.shape[1]) + (zbar * w[:, [t]]).T @ zbar)
        mean = cov @ (zbar.T @ kappa[:, t])
        out.append((samples[:, t] @ ones - ones @ mean) / np.sqrt(ones @ cov @ ones))
    return out


def test_shift_leaves_the_conditional_invariant():
    rng = np.random.default_rng(5)
    zbar, kappa, w, r, nu = _problem(rng)
    before, after = [], []
    for _ in range(1500):
        eta = draw_eta_exact(zbar, kappa, w, nu, rng)
        before.append(eta.copy())
        omega = zbar @ eta.T
        shift_eta(eta, omega, kappa, w, r, nu, rng)
        assert np.allclose(omega, zbar @ eta.T)
        after.append(eta)
    before, after = np.array(before), np.array(after)
    for white in _bias_white(zbar, kappa, w, nu, after):
        assert stats.kstest(white, "norm").pvalue > FALSE_ALARM
    # the step moves: the bias after it is not the bias before it
    moved = after.sum(axis=2) - before.sum(axis=2)
    assert np.all(np.abs(moved).mean(axis=0) > 0.03)


def test_shift_moves_a_far_bias_to_its_conditional():
    """From an exact draw plus 30 in every topic (a bias far off), one step gives an exact draw
    again: the step redraws the whole line eta + s 1, on which both points lie."""
    rng = np.random.default_rng(6)
    zbar, kappa, w, r, nu = _problem(rng)
    shifted, stuck = [], []
    for _ in range(1000):
        eta = draw_eta_exact(zbar, kappa, w, nu, rng) + 30.0
        stuck.append(eta.copy())
        shift_eta(eta, zbar @ eta.T, kappa, w, r, nu, rng)
        shifted.append(eta)
    far = _bias_white(zbar, kappa, w, nu, np.array(stuck))
    near = _bias_white(zbar, kappa, w, nu, np.array(shifted))
    for a, b in zip(far, near):
        assert abs(np.mean(a)) > 10 and stats.kstest(b, "norm").pvalue > FALSE_ALARM
