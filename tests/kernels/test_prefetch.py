"""The prefetch hint: compiles for the kernels' arrays, changes nothing, refuses strided arrays."""

import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from medlda._kernels.prefetch import prefetch


@njit
def _sum_with_hints(values, order):
    total = 0.0
    for j in range(order.size):
        if j + 4 < order.size:
            prefetch(values, order[j + 4])
        total += values.ravel()[order[j]]
    return total


def test_prefetch_is_only_a_hint():
    rng = np.random.default_rng(0)
    for values in (rng.random(5000), rng.random((50, 100)), rng.integers(0, 9, (50, 100)).astype(np.int32)):
        order = rng.integers(0, values.size, 2000).astype(np.int64)
        assert _sum_with_hints(values, order) == pytest.approx(float(values.ravel()[order].sum()), rel=1e-12)


def test_prefetch_refuses_strided_arrays():
    with pytest.raises(TypingError, match="C-contiguous"):
        _sum_with_hints(np.zeros((10, 10))[:, ::2], np.zeros(3, np.int64))
