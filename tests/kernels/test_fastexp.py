"""The inlinable exp used in the samplers' K-loops agrees with libm's to the last bits."""

import numpy as np
import pytest
from numba import njit

from medlda._kernels.fastexp import exp_above, fast_exp, fast_exp_lanes


@njit
def _exp_all(exp, x):
    out = np.empty_like(x)
    for i in range(x.size):
        out[i] = exp(x[i])
    return out


EXPS = [fast_exp, fast_exp_lanes]


def _ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in units in the last place between positive finite doubles."""
    return np.abs(a.view(np.int64) - b.view(np.int64))


@pytest.mark.parametrize("exp", EXPS)
def test_fast_exp_within_two_ulps_of_numpy_over_the_whole_range(exp):
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-708.0, 709.0, 200_000), rng.uniform(-1.0, 1.0, 100_000),
                        np.arange(-1000, 1001) * np.log(2.0) / 2,
                        np.arange(-64 * 500, 64 * 500) * np.log(2.0) / 128, [-708.0, 0.0, 709.0, 1e-300, -1e-300]])
    x = x[(x >= -708.0) & (x <= 709.0)]
    assert _ulps(_exp_all(exp, x), np.exp(x)).max() <= 2


@pytest.mark.parametrize("exp", EXPS)
def test_fast_exp_limits_and_nan(exp):
    x = np.array([-709.0, -1e4, -np.inf, 709.5, 1e4, np.inf, np.nan])
    got = _exp_all(exp, x)
    np.testing.assert_array_equal(got[:3], 0.0)
    np.testing.assert_array_equal(got[3:6], np.inf)
    assert np.isnan(got[6])


def test_fast_exp_is_within_one_ulp_for_almost_every_value():
    """Not merely within two ulps somewhere: 99% of values are within one (a low part of
    ln 2 / 64 rounded in the wrong place puts them tens of ulps off at large |x|)."""
    x = np.random.default_rng(1).uniform(-708.0, 709.0, 100_000)
    assert np.mean(_ulps(_exp_all(fast_exp, x), np.exp(x)) <= 1) > 0.99


def test_exp_above_bounds_fast_exp_from_above_and_closely():
    """The MH steps reject on exp_above without computing the exp: it must never fall below
    fast_exp (a move would be rejected that the exact comparison accepts), and it stays within
    the chord bound 1.0615 of it so that it rejects nearly every step the exp would."""
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.uniform(-760.0, 760.0, 200_000), rng.uniform(-2.0, 2.0, 100_000),
                        np.arange(-1100, 1100) * np.log(2.0),  # exact powers of two: f = 0
                        np.nextafter(np.arange(-1100, 1100) * np.log(2.0), -np.inf),  # f just below 1
                        [-np.inf, 0.0, 706.9, 707.0, 709.5, np.inf]])
    above, exact = _exp_all(exp_above, x), _exp_all(fast_exp, x)
    assert np.all(above >= exact)
    normal = (x > -690.0) & (x < 700.0)
    ratio = above[normal] / exact[normal]
    assert ratio.max() < 1.0616 and ratio.min() >= 1.0
    assert ratio.max() > 1.06  # the bound is the chord's, not a looser one
    assert np.isinf(_exp_all(exp_above, np.array([np.nan, 708.0]))).all()
