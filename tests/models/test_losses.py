"""Every loss against exact answers.

- each augmentation draw against its known conditional (Polya-Gamma and inverse-Gaussian moments);
- each loss's (kappa, w) through a Gibbs chain on one discriminant omega: aux | omega by the loss,
  omega | aux Gaussian; its stationary omega must follow prior(omega) * psi(y | omega), the loss
  before augmentation (KS test against the numerically integrated CDF).

The whole chain (aux, topics, eta) of every sampler for every loss against the enumerated p(Z)
is in tests/samplers/test_exact_posterior.py.

Each test runs at the false-alarm rate ``exact.FALSE_ALARM`` and also checks that a wrong target
is rejected, so a test that cannot fail would show up.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from exact import FALSE_ALARM, log_psi
from medlda.losses import LOSSES, EpsilonLoss, HingeLoss, LogisticLoss, SquaredLoss, make_loss


def _z_pvalue(sample: np.ndarray, mean: float, var: float) -> float:
    """Two-sided p-value of the sample mean against a known mean and variance (CLT)."""
    z = (sample.mean() - mean) / np.sqrt(var / sample.size)
    return float(2 * stats.norm.sf(abs(z)))


def _pg_moments(h: float, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean h tanh(z/2) / (2z) and variance h (sinh z - z) / (4 z^3 cosh^2(z/2)) of PG(h, z)."""
    z = np.abs(z)
    mean = h * np.tanh(z / 2) / (2 * z)
    var = h * (np.sinh(z) - z) / (4 * z ** 3 * np.cosh(z / 2) ** 2)
    return mean, var


def test_logistic_aux_is_polya_gamma_with_shape_c_and_tilt_omega():
    rng = np.random.default_rng(0)
    c = 3.0
    loss = LogisticLoss(c=c)
    for omega_value in (0.7, -2.5):
        omega = np.full((20000, 1), omega_value)
        kappa, w = loss.draw_aux(omega, np.ones_like(omega), rng)
        assert np.all(kappa == c * 0.5) and w.shape == omega.shape
        mean, var = _pg_moments(c, np.array(omega_value))
        assert _z_pvalue(w, mean, var) > FALSE_ALARM
        assert _z_pvalue((w - mean) ** 2, var, 2 * var ** 2 * 3) > FALSE_ALARM  # variance, loosely
        wrong_mean, wrong_var = _pg_moments(c * 1.1, np.array(omega_value))  # power: a 10% wrong shape
        assert _z_pvalue(w, wrong_mean, wrong_var) < FALSE_ALARM
    _, w0 = loss.draw_aux(np.zeros((3, 2)), np.zeros((3, 2)), rng)
    assert w0.shape == (3, 2) and np.all(w0 > 0)


def _ig(mean: float):
    """IG(mean, shape 1) as scipy names it: invgauss(mu=mean, scale=1)."""
    return stats.invgauss(mean).cdf


def test_hinge_and_epsilon_aux_are_inverse_gaussian():
    """xi ~ IG(mean 1/(c|zeta|), shape 1), KS-tested; a 10% wrong mean is rejected."""
    rng = np.random.default_rng(1)
    c, margin, y, omega = 0.8, 2.0, -1.0, 0.5
    n = 20000
    kappa, w = HingeLoss(c, margin).draw_aux(np.full((n, 1), omega), np.full((n, 1), y), rng)
    xi = w[:, 0] / c ** 2
    assert np.allclose(kappa[:, 0], c * y * (1 + c * margin * xi))
    zeta = abs(margin - y * omega) * c
    assert stats.kstest(xi, _ig(1 / zeta)).pvalue > FALSE_ALARM
    assert stats.kstest(xi, _ig(1 / (1.1 * zeta))).pvalue < FALSE_ALARM
    y, eps = 1.2, 0.3
    kappa, w = EpsilonLoss(c=c, epsilon=eps).draw_aux(np.full((n, 1), omega), np.full((n, 1), y), rng)
    # kappa and w determine xi1 and xi2: w/c^2 = xi1 + xi2, kappa/c^2 = (y - eps) xi1 + (y + eps) xi2
    total, weighted = w[:, 0] / c ** 2, kappa[:, 0] / c ** 2
    xi2 = (weighted - (y - eps) * total) / (2 * eps)
    xi1 = total - xi2
    z1, z2 = c * abs(y - eps - omega), c * abs(y + eps - omega)
    assert stats.kstest(xi1, _ig(1 / z1)).pvalue > FALSE_ALARM
    assert stats.kstest(xi2, _ig(1 / z2)).pvalue > FALSE_ALARM
    assert stats.kstest(xi2, _ig(1 / z1)).pvalue < FALSE_ALARM  # the pieces cannot be swapped


def test_squared_loss_is_the_gaussian_factor():
    kappa, w = SquaredLoss(c=2.5).draw_aux(np.zeros((4, 1)), np.array([[0.5], [-1], [2], [0]]), None)
    assert np.allclose(kappa[:, 0], [1.25, -2.5, 5, 0]) and np.all(w == 2.5)


OMEGA_CASES = {  # loss: (parameters, target y)
    "hinge": (dict(c=1.0, margin=1.0), 1.0),
    "logistic": (dict(c=2.0), 1.0),
    "squared": (dict(c=2.0), 0.7),
    "epsilon": (dict(c=1.5, epsilon=0.3), 0.5),
}


def _omega_chain(loss, y: float, s2: float, n_chains: int, n_steps: int, rng) -> np.ndarray:
    """Independent Gibbs chains on omega ~ N(0, s2) * psi: aux | omega by the loss, then omega | aux."""
    omega = rng.normal(size=(n_chains, 1))
    target = np.full((n_chains, 1), y)
    for _ in range(n_steps):
        kappa, w = loss.draw_aux(omega, target, rng)
        precision = 1 / s2 + w
        omega = kappa / precision + rng.standard_normal(omega.shape) / np.sqrt(precision)
    return omega[:, 0]


def _omega_cdf(name: str, params: dict, y: float, s2: float):
    grid = np.linspace(-12, 12, 24001)
    logp = -grid ** 2 / (2 * s2) + log_psi(name, params, y, grid)
    p = np.exp(logp - logp.max())
    cdf = np.cumsum(p)
    cdf /= cdf[-1]
    return lambda x: np.interp(x, grid, cdf)


@pytest.mark.parametrize("name", sorted(OMEGA_CASES))
def test_augmented_chain_leaves_the_loss_times_prior_invariant(name):
    params, y = OMEGA_CASES[name]
    rng = np.random.default_rng(sorted(OMEGA_CASES).index(name))
    omega = _omega_chain(make_loss(name, **params), y, 1.0, 5000, 100, rng)
    assert stats.kstest(omega, _omega_cdf(name, params, y, 1.0)).pvalue > FALSE_ALARM
    wrong = dict(params, c=params["c"] * 2)  # the same draws against a loss twice as strong
    assert stats.kstest(omega, _omega_cdf(name, wrong, y, 1.0)).pvalue < FALSE_ALARM


@pytest.mark.parametrize("name", ["hinge", "logistic"])
def test_positive_cost_scales_c_on_positive_examples_only(name):
    """positive_cost r: the chain on a positive example's omega follows psi with c r, a negative
    example's psi with c; each also rejects the other's c."""
    params, _ = OMEGA_CASES[name]
    r = 2.0
    loss = make_loss(name, positive_cost=r, **params)
    negative = 0.0 if name == "logistic" else -1.0
    rng = np.random.default_rng(11 + sorted(OMEGA_CASES).index(name))
    for y, c_true, c_wrong in ((1.0, params["c"] * r, params["c"]), (negative, params["c"], params["c"] * r)):
        omega = _omega_chain(loss, y, 1.0, 5000, 100, rng)
        assert stats.kstest(omega, _omega_cdf(name, dict(params, c=c_true), y, 1.0)).pvalue > FALSE_ALARM
        assert stats.kstest(omega, _omega_cdf(name, dict(params, c=c_wrong), y, 1.0)).pvalue < FALSE_ALARM


@pytest.mark.parametrize("name", sorted(OMEGA_CASES))
def test_document_weights_scale_each_documents_c(name):
    """doc_weight s_d (sample weights): document d's chain on omega follows psi with c s_d, and
    rejects psi with the other documents' c; for_docs keeps a shard's weights."""
    params, y = OMEGA_CASES[name]
    loss = make_loss(name, **params)
    weights = np.repeat([2.0, 0.5], 5000)
    loss.doc_weight = weights
    assert np.array_equal(loss.for_docs(4990, 5010).doc_weight, weights[4990:5010])
    rng = np.random.default_rng(21 + sorted(OMEGA_CASES).index(name))
    omega = _omega_chain(loss, y, 1.0, 10000, 100, rng)
    for half, s, other in ((slice(0, 5000), 2.0, 0.5), (slice(5000, None), 0.5, 2.0)):
        cdf = _omega_cdf(name, dict(params, c=params["c"] * s), y, 1.0)
        assert stats.kstest(omega[half], cdf).pvalue > FALSE_ALARM
        wrong = _omega_cdf(name, dict(params, c=params["c"] * other), y, 1.0)
        assert stats.kstest(omega[half], wrong).pvalue < FALSE_ALARM
    assert make_loss(name, **params).for_docs(0, 3).doc_weight is None


@pytest.mark.parametrize("name", sorted(OMEGA_CASES))
def test_a_document_of_weight_zero_pulls_eta_nowhere(name):
    """sample_weight 0 makes a document's factor 1: kappa = w = 0 for it (PG(0, omega) is the point
    mass at 0; the polyagamma package refuses h = 0), the others drawn as before."""
    params, y = OMEGA_CASES[name]
    loss = make_loss(name, **params)
    omega, targets = np.full((4, 1), 0.3), np.full((4, 1), float(y))
    loss.doc_weight = np.array([0.0, 1.0, 0.0, 2.0])
    kappa, w = loss.draw_aux(omega, targets, np.random.default_rng(0))
    assert np.all(kappa[[0, 2]] == 0) and np.all(w[[0, 2]] == 0)
    assert np.all(w[[1, 3]] > 0) and np.all(np.isfinite(kappa))


def test_every_registered_loss_is_covered():
    assert set(LOSSES) == set(OMEGA_CASES)  # and the whole chain: test_exact_posterior.py
    assert LogisticLoss.probabilistic and not HingeLoss.probabilistic
    with pytest.raises(ValueError, match="loss must be one of"):
        make_loss("ramp", 1.0)
