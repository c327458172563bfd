"""Per-word hashed topic counts: n_kw stored in memory that grows with tokens, not with V*K.

Each word v owns a block of ``cap_v`` slots (a power of two) in one flat int32 array of triples
(topic, current count, frozen count). Frequent words get ``cap_v >= K`` and then topic k lives at
slot k (direct addressing, one probe); a word with N_v tokens gets at least 2 N_v + 1 slots, more
than the topics it can hold between two compactions, so linear probing always ends at a free slot.
This keeps every lookup of the collapsed light sweep inside a few cache lines per word (the dense
V x K counts are 126 MB at K = 1000, far beyond the L3 cache).

The frozen count is the count at the last compaction (sweep start): the word proposal's table is
built from it, and the MH ratio reads it back to get the stored q (SPEC §4a).
"""

import numpy as np
from numba import njit

from .alias import build_alias

KEY, CUR, FROZEN = 0, 1, 2
EMPTY = -1


@njit(cache=True)
def hash_offsets(word_totals, n_topics):
    """Block offsets (V + 1,) of every word's slots from its total token count (sum_k n_kw, which
    no sweep changes; a data-parallel worker passes the global totals, not its shard's)."""
    n_words = word_totals.size
    counts = word_totals
    direct = 1
    while direct < n_topics:
        direct *= 2
    offsets = np.zeros(n_words + 1, np.int64)
    for v in range(n_words):
        cap = 1
        while cap < 2 * counts[v] + 1 and cap < direct:
            cap *= 2
        offsets[v + 1] = offsets[v] + cap
    return offsets


@njit(cache=True, inline="always")
def find_slot(slots, base, mask, k):
    """Slot index of topic k in a word's block, or -(free slot) - 1 where it would be inserted."""
    h = k & mask
    while True:
        j = base + h
        key = slots[3 * j]
        if key == k:
            return j
        if key == EMPTY:
            return -j - 1
        h = (h + 1) & mask


@njit(cache=True)
def fill_from_dense(n_wk, offsets, slots):
    """Load the hash from dense counts (V, K): current = frozen = n_kw, zero counts left out."""
    n_topics = n_wk.shape[1]
    slots[:] = EMPTY
    for v in range(n_wk.shape[0]):
        base = offsets[v]
        mask = offsets[v + 1] - base - 1
        for k in range(n_topics):
            c = n_wk[v, k]
            if c > 0:
                j = -find_slot(slots, base, mask, k) - 1
                slots[3 * j] = k
                slots[3 * j + CUR] = c
                slots[3 * j + FROZEN] = c


@njit(cache=True)
def to_dense(offsets, slots, n_wk):
    """Write the current counts into dense n_wk (V, K) (zeros elsewhere)."""
    n_wk[:] = 0
    for v in range(offsets.size - 1):
        for j in range(offsets[v], offsets[v + 1]):
            if slots[3 * j] != EMPTY:
                n_wk[v, slots[3 * j]] = slots[3 * j + CUR]


@njit(cache=True)
def compact_and_build(offsets, slots, n_k, beta, vbeta, sp_off, sp_table, sp_mass, dense_prob,
                      dense_alias, inv_frozen):
    """Freeze the counts and build the word proposal (SPEC §4, word part):
    q_v(k) = (n_kv + beta) / (n_k + V beta) split into a sparse per-word part n_kv / (n_k + V beta)
    over the word's non-zero topics and one dense part beta / (n_k + V beta) shared by all words.

    Drops zero-count slots, sets frozen = current, fills every word's sparse alias table and the
    shared dense table; returns the dense part's mass. ``sp_table`` holds (prob, topic, alias) per
    entry side by side, so one draw reads one cache line; a word's entries start at sp_off[v] (V + 1,),
    in all at most one per token; sp_mass (V,) is each word's sparse mass. O(slots + K): grows
    with tokens, not V*K.
    """
    n_topics = n_k.size
    for k in range(n_topics):
        inv_frozen[k] = 1.0 / (n_k[k] + vbeta)
    weights = np.empty(n_topics)
    q = np.empty(n_topics)
    prob = np.empty(n_topics)
    small = np.empty(n_topics, np.int64)
    large = np.empty(n_topics, np.int64)
    idx = np.empty(n_topics, np.int64)
    topics = np.empty(n_topics, np.int64)
    counts = np.empty(n_topics, np.int64)
    for k in range(n_topics):
        weights[k] = beta * inv_frozen[k]
    dense_mass = build_alias(weights, dense_prob, dense_alias, q, small, large)
    pos = 0
    for v in range(offsets.size - 1):
        base = offsets[v]
        end = offsets[v + 1]
        mask = end - base - 1
        nnz = 0
        for j in range(base, end):
            if slots[3 * j] != EMPTY and slots[3 * j + CUR] > 0:
                topics[nnz] = slots[3 * j]
                counts[nnz] = slots[3 * j + CUR]
                nnz += 1
            slots[3 * j] = EMPTY
        sp_off[v] = pos
        for e in range(nnz):
            k = topics[e]
            j = -find_slot(slots, base, mask, k) - 1
            slots[3 * j] = k
            slots[3 * j + CUR] = counts[e]
            slots[3 * j + FROZEN] = counts[e]
            weights[e] = counts[e] * inv_frozen[k]
        if nnz > 0:
            sp_mass[v] = build_alias(weights[:nnz], prob[:nnz], idx[:nnz], q[:nnz], small, large)
            for e in range(nnz):
                sp_table[3 * (pos + e)] = prob[e]
                sp_table[3 * (pos + e) + 1] = topics[e]
                sp_table[3 * (pos + e) + 2] = topics[idx[e]]
        else:
            sp_mass[v] = 0.0
        pos += nnz
    sp_off[offsets.size - 1] = pos
    return dense_mass
