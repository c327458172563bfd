"""The log of tokens that changed topic in a sweep, and its application to the counts.

The sweeps log each move (token, old topic) and apply the log afterwards in one pass of
independent scattered writes, whose cache misses overlap where the token loop's would not.
"""

import numpy as np
from numba import njit

from medlda._kernels.light.word_hash import BASE, CUR, MASK, find_slot, insert_topic


@njit(cache=True)
def apply_moves(tokens, log, lo, n, counts, word_meta, slots, top):
    """Apply the moves logged at lo, ..., lo + n - 1 to ``counts.n_k``, to ``counts.n_wk`` unless
    it has no rows and, when ``slots`` is non-empty, to the hashed counts (``word_meta``,
    ``slots``, ``top``: a ``WordHash``'s)."""
    word_ids, _, z = tokens
    moved, moved_from = log
    n_wk, n_k = counts.n_wk, counts.n_k
    dense = n_wk.shape[0] > 0
    for e in range(lo, lo + n):
        i = moved[e]
        v = word_ids[i]
        old = moved_from[e]
        new = z[i]
        if dense:
            n_wk[v, old] -= 1
            n_wk[v, new] += 1
        n_k[old] -= 1
        n_k[new] += 1
        if slots.size > 0:
            base = word_meta[v, BASE]
            mask = word_meta[v, MASK]
            slots[3 * find_slot(slots, base, mask, old) + CUR] -= 1
            j = find_slot(slots, base, mask, new)
            if j < 0:
                j = insert_topic(word_meta, slots, top, v, new, -j - 1)
            slots[3 * j + CUR] += 1


@njit(cache=True)
def apply_dense_moves(tokens, log, lo, n, counts):
    """The logged moves into dense counts only (the exact variant keeps no hash)."""
    apply_moves(tokens, log, lo, n, counts, np.empty((0, 8), np.int64), np.empty(0, np.int32), np.empty(1, np.int64))
