"""exp(x) in plain arithmetic, so numba can inline and vectorize it (a call to libm's exp cannot).

Both forms are within two units in the last place of ``np.exp`` on [-708, 709] (tested), so the
samplers' targets are unchanged; below -708 they return 0 and above 709 inf (a probability under
1e-307 is already below the resolution of the 53-bit uniforms it is compared with).

``fast_exp`` is for one value (the exp of an MH step's ratio): early returns settle out-of-range
inputs, and a 64-entry table of 2^(j/64) leaves a degree-5 polynomial (13 fewer multiply-adds
than the table-free form, each of which numba loads its constant for). ``fast_exp_lanes`` is for
loops over all K topics (the exp proposal's table, the exact sampler's G_d(k)): Cody-Waite
reduction x = n ln2 + r with |r| <= ln2 / 2 and a degree-13 Taylor polynomial, no table (a
gather per lane) and no branch, selects settle the rest, so the loop vectorizes. The two may
differ in the last two bits; nothing compares them.
"""

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # ln 2 to 32 bits: n * _LN2_HI is exact for |n| < 2^11
_LN2_LO = 1.90821492927058770002e-10  # ln 2 - _LN2_HI
_LOW = -708.0
_HIGH = 709.0


@intrinsic
def _float_from_bits(typingctx, bits):
    """The float64 whose IEEE-754 bit pattern is the int64 ``bits`` (one register move)."""
    sig = types.float64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.float64))

    return sig, codegen


@njit(cache=True, inline="always")
def _exp_in_range(x):
    """exp(x) for x in [-708, 709]: the reduction and the polynomial, no checks."""
    n = np.floor(x * _LOG2E + 0.5)
    r = (x - n * _LN2_HI) - n * _LN2_LO
    p = 1.0 / 6227020800.0
    p = p * r + 1.0 / 479001600.0
    p = p * r + 1.0 / 39916800.0
    p = p * r + 1.0 / 3628800.0
    p = p * r + 1.0 / 362880.0
    p = p * r + 1.0 / 40320.0
    p = p * r + 1.0 / 5040.0
    p = p * r + 1.0 / 720.0
    p = p * r + 1.0 / 120.0
    p = p * r + 1.0 / 24.0
    p = p * r + 1.0 / 6.0
    p = p * r + 0.5
    p = p * r + 1.0
    p = p * r + 1.0
    return p * _float_from_bits((np.int64(n) + 1023) << 52)


_TABLE_BITS = 6
_N_TABLE = 1 << _TABLE_BITS
_EXP2_TABLE = np.exp2(np.arange(_N_TABLE) / _N_TABLE)  # 2^(j/64), correctly rounded
_INV_STEP = _N_TABLE / np.log(2.0)
_STEP_HI = _LN2_HI / _N_TABLE  # ln 2 / 64 to 32 bits: n * _STEP_HI is exact for |n| < 2^21
_STEP_LO = _LN2_LO / _N_TABLE


@njit(cache=True, inline="always")
def _exp_by_table(x):
    """exp(x) for x in [-708, 709]: x = (64 m + j) ln2 / 64 + r with |r| <= ln2 / 128, so
    exp(x) = 2^m 2^(j/64) e^r with 2^(j/64) from a 64-entry table and e^r a degree-5 polynomial
    (truncation below 4e-17 relative): a third of the arithmetic of ``_exp_in_range``."""
    n = np.floor(x * _INV_STEP + 0.5)
    r = (x - n * _STEP_HI) - n * _STEP_LO
    p = 1.0 / 120.0
    p = p * r + 1.0 / 24.0
    p = p * r + 1.0 / 6.0
    p = p * r + 0.5
    p = p * r + 1.0
    p = p * r + 1.0
    i = np.int64(n)
    return p * _EXP2_TABLE[np.uint64(i & (_N_TABLE - 1))] * _float_from_bits(((i >> _TABLE_BITS) + 1023) << 52)


@njit(cache=True, inline="always")
def fast_exp(x):
    """exp(x) for one float64 x, branch-light and inlinable (see the module docstring)."""
    if not x >= _LOW:
        return 0.0 if x == x else x  # NaN passes through
    if x > _HIGH:
        return np.inf
    return _exp_by_table(x)


@njit(cache=True, inline="always")
def fast_exp_lanes(x):
    """exp(x) for loops, within two ulps as ``fast_exp`` is: the polynomial runs on x clamped to
    range and selects settle the rest, so there is no branch and the loop vectorizes."""
    y = _exp_in_range(min(max(x, _LOW), _HIGH))
    y = y if x >= _LOW else 0.0
    y = y if x <= _HIGH else np.inf
    return y if x == x else x  # NaN passes through


_EXP_ABOVE_MAX = 1020.0  # log2 of the largest power of two ``exp_above`` builds from bits
_EXP_ABOVE_MIN = -1000.0
_ABOVE_MARGIN = 1.0 + 1e-9  # covers x * log2(e)'s rounding (< 1e-13 absolute) and fast_exp's two ulps


@njit(cache=True, inline="always")
def exp_above(x):
    """An upper bound of ``fast_exp(x)`` within 6.2% of it, in a few instructions: with
    y = x log2(e) = i + f, the float whose bits are (y + 1023) 2^52 is 2^i (1 + f) >= 2^y (the chord
    of a convex 2^f). inf from x >= 707 and for NaN. An MH step rejects with it, without the exp,
    whenever its uniform already lies above the bounded ratio."""
    y = x * _LOG2E
    e = _float_from_bits(np.int64((min(max(y, _EXP_ABOVE_MIN), _EXP_ABOVE_MAX) + 1023.0) * 4503599627370496.0))
    return e * _ABOVE_MARGIN if y < _EXP_ABOVE_MAX else np.inf
