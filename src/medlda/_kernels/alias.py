"""Walker/Vose alias tables: O(K) to build, O(1) to draw, and each entry's normalized proposal
value kept beside the table so a Metropolis-Hastings ratio can read q(k) in O(1)."""

import numpy as np
from numba import njit

from medlda._kernels.rng import next_u64

_LOW_32 = np.uint64(0xFFFFFFFF)
_SHIFT_32 = np.uint64(32)
_INV_2_32 = 1.0 / 4294967296.0


@njit(cache=True, inline="always")
def _push(k, is_small, small, large, n_small, n_large):
    """Put k on the small or the large list without a branch on data (whose outcome, prob < 1,
    a branch predictor guesses wrong about half the time): k is written at the end of both and
    only its own list grows. Returns (n_small, n_large)."""
    small[n_small] = k
    large[n_large] = k
    return n_small + is_small, n_large + 1 - is_small


@njit(cache=True, fastmath=False)  # set, so not taken from a fastmath caller (numba's default)
def build_alias(weights, prob, alias, q, small, large):
    """Fill one table from non-negative ``weights`` (K,): ``q`` = weights / sum, and Vose's
    ``prob`` / ``alias`` so that a draw returns k with probability q[k]. ``small`` and ``large``
    are int scratch arrays of size K. All-zero weights give the uniform table. Returns the sum."""
    return build_alias_head(weights, prob, alias, q, small, large, weights.size)


@njit(cache=True, inline="always")
def build_alias_head(weights, prob, alias, q, small, large, n):
    """``build_alias`` on the first ``n`` entries of each array, without slicing them (the
    collapsed sampler builds V small word tables a sweep, where a slice each is not free).

    The small and large topics are listed once, in index order; the large topic being filled
    stays in a register until its residual drops below 1, and is then itself paired with the next
    large one, so the pairing loop carries one float, not a round trip through a stack per topic."""
    total = 0.0
    for k in range(n):
        total += weights[k]
    n_small = 0
    n_large = 0
    scale = 1.0 / total if total > 0 else 0.0
    for k in range(n):
        q[k] = weights[k] * scale if total > 0 else 1.0 / n
        prob[k] = q[k] * n
        alias[k] = k
        n_small, n_large = _push(k, prob[k] < 1.0, small, large, n_small, n_large)
    if n_small > 0 and n_large > 0:
        next_small = 1
        next_large = 1
        s = small[0]
        p_s = prob[s]
        g = large[0]
        p_g = prob[g]
        while True:
            alias[s] = g
            p_g += p_s - 1.0
            if p_g < 1.0:  # g is now small: it is paired next, with the next large topic
                prob[g] = p_g
                if next_large == n_large:
                    break
                s = g
                p_s = p_g
                g = large[next_large]
                next_large += 1
                p_g = prob[g]
            else:
                if next_small == n_small:
                    break
                s = small[next_small]
                next_small += 1
                p_s = prob[s]
    for k in range(n):  # never paired: a large topic's last residual, or rounding error
        prob[k] = 1.0 if alias[k] == k else prob[k]
    return total


@njit(cache=True, inline="always")
def draw_alias(state, prob, alias):
    """(new_state, k) from one 64-bit draw: the high 32 bits pick the slot, the low 32 decide
    between the slot and its alias."""
    state, r = next_u64(state)
    n = prob.size
    slot = ((r >> _SHIFT_32) * np.uint64(n)) >> _SHIFT_32  # unsigned: no wraparound code
    u = np.float64(r & _LOW_32) * _INV_2_32
    other = np.int64(alias[slot])  # read either way, so the choice is a select, not a branch
    return state, np.int64(slot) if u < prob[slot] else other


@njit(cache=True)
def build_alias_rows(weights, prob, alias, q):
    """One table per row of ``weights`` (R, K) into prob, alias, q of the same shape."""
    n = weights.shape[1]
    small = np.empty(n, np.int64)
    large = np.empty(n, np.int64)
    for r in range(weights.shape[0]):
        build_alias(weights[r], prob[r], alias[r], q[r], small, large)


@njit(cache=True)
def alias_draws(prob, alias, n, state):
    """``n`` draws from one table (test helper: compared with q by a chi-square test)."""
    out = np.empty(n, np.int64)
    for i in range(n):
        state, out[i] = draw_alias(state, prob, alias)
    return out
