"""The log of tokens that changed topic in a sweep, and its application to the counts.

The sweeps log each move (token, old topic) and apply the log afterwards in one pass of
independent scattered writes, whose cache misses overlap where the token loop's would not. A
parallel collapsed sweep applies its threads' logs to the hashed counts in parallel as well:
each thread orders its moves by word range (``bucket_moves``), then each range is merged on its
own thread (``merge_range``), and the few inserts that would move a word's block into the shared
spill area are made afterwards, in order (``apply_deferred``).
"""

import numpy as np
from numba import njit

from medlda._kernels.light.word_hash import BASE, CUR, MASK, META_COLUMNS, block_full, find_slot, insert_topic
from medlda._kernels.prefetch import prefetch

AHEAD = 8  # moves between the prefetch of a word's row and its use; its hash line is fetched at half that


@njit(cache=True, nogil=True)
def _dense_moves(tokens, log, lo, hi, n_wk, n_k):
    """Apply the moves logged at lo, ..., hi - 1 to the dense counts ``n_wk`` (V, K) and ``n_k``."""
    word_ids, _, z = tokens
    moved, moved_from = log
    for e in range(lo, hi):
        i = moved[e]
        v = word_ids[i]
        old = moved_from[e]
        new = z[i]
        n_wk[v, old] -= 1
        n_wk[v, new] += 1
        n_k[old] -= 1
        n_k[new] += 1


@njit(cache=True)
def apply_dense_moves(tokens, log, lo, n, counts):
    """Apply the moves logged at lo, ..., lo + n - 1 to ``counts.n_wk`` and ``counts.n_k``."""
    _dense_moves(tokens, log, lo, lo + n, counts.n_wk, counts.n_k)


def word_ranges(word_totals: np.ndarray, n_ranges: int) -> np.ndarray:
    """(V,) int32: the range 0, ..., n_ranges - 1 of each word, contiguous ranges holding about
    equal shares of the tokens (``word_totals``), so the parallel merges share the moves evenly."""
    share = np.cumsum(word_totals, dtype=np.float64) - 0.5 * word_totals
    total = max(float(share[-1] + 0.5 * word_totals[-1]), 1.0) if word_totals.size else 1.0
    return np.minimum((share * n_ranges / total).astype(np.int32), n_ranges - 1)


@njit(cache=True, nogil=True)
def bucket_moves(word_ids, log, lo, n, range_of_word, offsets):
    """Order the n moves logged at lo by the range of their word (``range_of_word``), keeping
    their order within a range; ``offsets`` (P + 1,) gets where each range's moves start, from lo."""
    moved, moved_from = log
    n_ranges = offsets.size - 1
    offsets[:] = 0
    ranges = np.empty(n, np.int32)
    for e in range(n):
        r = range_of_word[word_ids[moved[lo + e]]]
        ranges[e] = r
        offsets[r + 1] += 1
    for r in range(n_ranges):
        offsets[r + 1] += offsets[r]
    if offsets[1] == n:  # all in the first range (one range, or none moved): already in order
        return
    put = offsets[:n_ranges].copy()
    tokens_by_range = np.empty(n, moved.dtype)
    from_by_range = np.empty(n, moved_from.dtype)
    for e in range(n):
        r = ranges[e]
        tokens_by_range[put[r]] = moved[lo + e]
        from_by_range[put[r]] = moved_from[lo + e]
        put[r] += 1
    moved[lo:lo + n] = tokens_by_range
    moved_from[lo:lo + n] = from_by_range


@njit(cache=True, nogil=True)
def merge_range(r, move_starts, offsets, tokens, log, word_meta, slots, top, dn_k, n_deferred):
    """Apply the moves of word range r (each chunk c's ``offsets[c, r]`` to ``offsets[c, r + 1]``
    from ``move_starts[c]``, in chunk order) to the hash, and their topic-count changes to
    ``dn_k`` (K,). Only this range's words are touched, so the ranges merge in parallel. An insert
    that would move its word's block (``insert_topic`` past half full) is deferred, with every
    later insert of the same word: its move is kept at the front of its chunk's range, counted in
    ``n_deferred[c, r]``, for ``apply_deferred``. A decrement always finds its topic (a token's old
    topic was counted at the sweep's compaction), so it never waits."""
    word_ids, _, z = tokens
    moved, moved_from = log
    meta_flat = word_meta.reshape(word_meta.size)
    for c in range(move_starts.size):
        lo = move_starts[c] + offsets[c, r]
        hi = move_starts[c] + offsets[c, r + 1]
        kept = lo
        for e in range(lo, hi):
            if e + AHEAD < hi:
                prefetch(meta_flat, META_COLUMNS * word_ids[moved[e + AHEAD]])
            if e + AHEAD // 2 < hi:
                i4 = moved[e + AHEAD // 2]
                v4 = word_ids[i4]
                prefetch(slots, 3 * (word_meta[v4, BASE] + (moved_from[e + AHEAD // 2] & word_meta[v4, MASK])))
                prefetch(slots, 3 * (word_meta[v4, BASE] + (z[i4] & word_meta[v4, MASK])))
            i = moved[e]
            v = word_ids[i]
            old = moved_from[e]
            new = z[i]
            dn_k[old] -= 1
            dn_k[new] += 1
            base = word_meta[v, BASE]
            mask = word_meta[v, MASK]
            slots[3 * find_slot(slots, base, mask, old) + CUR] -= 1
            j = find_slot(slots, base, mask, new)
            if j < 0:
                if block_full(word_meta, v):  # this insert would move the block
                    moved[kept] = i
                    kept += 1
                    continue
                j = insert_topic(word_meta, slots, top, v, new, -j - 1)  # in place: ``top`` untouched
            slots[3 * j + CUR] += 1
        n_deferred[c, r] = kept - lo


@njit(cache=True, nogil=True)
def merge_dense_range(r, move_starts, offsets, tokens, log, n_wk, dn_k):
    """Apply the moves of word range r (as ``merge_range`` finds them) to the dense counts
    ``n_wk`` (V, K), and their topic-count changes to ``dn_k`` (K,): only this range's rows of
    n_wk are touched, so the ranges merge in parallel, and integer counts end the same in any order."""
    for c in range(move_starts.size):
        _dense_moves(tokens, log, move_starts[c] + offsets[c, r], move_starts[c] + offsets[c, r + 1], n_wk, dn_k)


@njit(cache=True)
def apply_deferred(move_starts, offsets, n_deferred, tokens, log, word_meta, slots, top):
    """The increments ``merge_range`` deferred (``n_deferred`` (C, P)), range by range and chunk
    by chunk in order, moving blocks into the spill area (``top``) as ``insert_topic`` does."""
    word_ids, _, z = tokens
    moved = log[0]
    for r in range(n_deferred.shape[1]):
        for c in range(move_starts.size):
            lo = move_starts[c] + offsets[c, r]
            for e in range(lo, lo + n_deferred[c, r]):
                i = moved[e]
                v = word_ids[i]
                new = z[i]
                j = find_slot(slots, word_meta[v, BASE], word_meta[v, MASK], new)
                if j < 0:
                    j = insert_topic(word_meta, slots, top, v, new, -j - 1)
                slots[3 * j + CUR] += 1
