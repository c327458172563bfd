"""Gamma draws in log space and the Dirichlet draws of phi."""

import numpy as np
from scipy import stats

from exact import FALSE_ALARM
from medlda._kernels.dirichlet import draw_phi_tables, log_gamma_draws
from medlda._kernels.rng import make_streams


def test_log_space_gamma_and_dirichlet_draws():
    """The kernels' log Gamma draws match scipy's (KS) for small shapes (the rejection sampler of
    shapes below 0.3: beta, the shape of every zero count), shapes below 1 (boosted) and above,
    and each phi column drawn by draw_phi_tables has the Dirichlet(n + beta) mean."""
    for shape in (0.01, 0.1, 0.29, 0.3, 1.0, 4.5):
        x = log_gamma_draws(shape, 20000, np.uint64(17))
        assert stats.kstest(x, stats.loggamma(shape).cdf).pvalue > FALSE_ALARM
        assert stats.kstest(x, stats.loggamma(shape * 1.05).cdf).pvalue < FALSE_ALARM
    n_wk = np.array([[3, 0], [1, 0], [0, 6]], np.int32)
    rng = np.random.default_rng(2)
    for beta in (0.5, 0.05):  # zero counts boosted / drawn by the small-shape sampler
        phis = []
        for _ in range(4000):
            phi = np.empty((3, 2))
            draw_phi_tables(n_wk, beta, make_streams(rng, 3), phi, np.empty((3, 2)), np.empty((3, 2), np.int32),
                            np.empty(3))
            phis.append(phi)
        phis = np.array(phis)
        assert np.allclose(phis.sum(1), 1.0)
        shape = n_wk + beta
        assert np.abs(phis.mean(0) - shape / shape.sum(0)).max() < 0.01
        for v, k in np.ndindex(n_wk.shape):  # each entry's Beta marginal
            marginal = stats.beta(shape[v, k], shape[:, k].sum() - shape[v, k])
            assert stats.kstest(phis[:, v, k], marginal.cdf).pvalue > FALSE_ALARM / 6
