"""The collapsed light sweep's compaction (``compact_and_build``): the hashed counts frozen, laid
out afresh, and the word proposal's alias tables built from them, on one thread or on word
ranges of several with the same layout."""

from __future__ import annotations

import numpy as np
from numba import njit

from medlda._kernels.alias import build_alias, build_alias_head
from medlda._kernels.light.word_hash import (
    BASE,
    CUR,
    FRAC,
    MASK,
    SCALE_DENSE,
    SCALE_SPARSE,
    SP_LO,
    SP_N,
    USED,
    block_cap,
    blocks_size,
    new_block,
    new_slots,
    place_topic,
    put_entries,
    topic_view,
)
from medlda._kernels.threads import on_threads


def compact_and_build(word_meta: np.ndarray, slots: np.ndarray, spill: int, n_k: np.ndarray, beta: float,
                      vbeta: float, word_table: np.ndarray, inv_frozen: np.ndarray,
                      spare: np.ndarray | None = None,
                      bounds: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Freeze the counts, lay the hash out afresh and build the word proposal (docs/mathematics.md §4, word
    part): q_v(k) = (n_kv + beta) / (n_k + V beta) split into a sparse per-word part
    n_kv / (n_k + V beta) over the word's non-zero topics and one dense part beta / (n_k + V beta)
    shared by all words. Returns the new (slots, top).

    Zero-count slots are dropped and frozen = current. The new layout goes into ``spare`` (the
    slots of the compaction before, reused so its huge pages stay mapped) when it has room for it
    and ``spill`` slots more, else into a new array of the same dtype. ``word_table`` (``new_word_table``) holds
    alias entries of 8 or 16 bytes (prob, topic, alias) side by side, so one draw reads one cache
    line: word v's sparse entries from SP_LO on (SP_N of them; in all at most one per token),
    then the K entries of the dense part. O(slots + K): grows with non-zero counts, not V*K.
    ``bounds`` (P + 1,): word ranges laid out on P threads, each from where the ranges before
    it end (counted first, in parallel); the layout is the same as on one thread.
    """
    n_slots = compact_bound(word_meta, spill)
    if spare is None or spare.dtype != slots.dtype or spare.size < 3 * n_slots:
        spare = new_slots(n_slots + n_slots // 4, slots.dtype)  # room to grow before the next allocation
    dense_mass, prob, idx = _dense_part(n_k, beta, vbeta, inv_frozen)
    if bounds is None or bounds.size <= 2:
        top, pos = _compact_words(word_meta, slots, spare, 0, word_meta.shape[0], 0, 0, inv_frozen, word_table,
                                  dense_mass)
    else:
        sizes = np.array(on_threads(_count_words, [(word_meta, slots, int(bounds[r]), int(bounds[r + 1]))
                                                   for r in range(bounds.size - 1)]), np.int64).reshape(-1, 2)
        firsts = np.vstack([np.zeros((1, 2), np.int64), np.cumsum(sizes, axis=0)])
        on_threads(_compact_words, [(word_meta, slots, spare, int(bounds[r]), int(bounds[r + 1]), int(firsts[r, 0]),
                                     int(firsts[r, 1]), inv_frozen, word_table, dense_mass)
                                    for r in range(bounds.size - 1)])
        top, pos = firsts[-1]
    _put_dense(word_table, int(pos), prob, idx)
    return spare, np.full(1, top, np.int64)


def compact_bound(word_meta: np.ndarray, spill: int) -> int:
    """Slots a compaction may lay out, spill room included: blocks sized by the words' used
    slots (USED: their non-zero topics and those whose count fell to zero since the last one)."""
    return int(blocks_size(word_meta[:, USED])) + spill


@njit(cache=True)
def _dense_part(n_k, beta, vbeta, inv_frozen):
    """inv_frozen = 1 / (n_k + V beta) and the alias table of the word proposal's dense part
    beta * inv_frozen: (its mass, prob, alias index)."""
    n_topics = n_k.size
    for k in range(n_topics):
        inv_frozen[k] = 1.0 / (n_k[k] + vbeta)
    weights = np.empty(n_topics)
    for k in range(n_topics):
        weights[k] = beta * inv_frozen[k]
    prob, idx, q = np.empty(n_topics), np.empty(n_topics, np.int64), np.empty(n_topics)
    dense_mass = build_alias(weights, prob, idx, q, np.empty(n_topics, np.int64), np.empty(n_topics, np.int64))
    return dense_mass, prob, idx


@njit(cache=True)
def _put_dense(word_table, pos, prob, idx):
    """The dense part's entries from entry ``pos`` on, after every word's sparse ones."""
    topics = np.arange(prob.size)
    put_entries(word_table, topic_view(word_table), pos, prob.size, prob, topics, idx)


@njit(cache=True, nogil=True)
def _count_words(word_meta, slots, lo, hi):
    """(slots, proposal entries) that words [lo, hi) take in a compaction: their compact blocks
    and one entry per non-zero topic."""
    n_slots = 0
    n_entries = 0
    for v in range(lo, hi):
        base = word_meta[v, BASE]
        n = 0
        for j in range(base, base + word_meta[v, MASK] + 1):
            n += slots[3 * j + CUR] > 0  # (empty slots hold zero counts)
        n_slots += block_cap(n)
        n_entries += n
    return n_slots, n_entries


@njit(cache=True, nogil=True)
def _compact_words(word_meta, slots, fresh, lo, hi, top, pos, inv_frozen, word_table, dense_mass):
    """``compact_and_build``'s work for words [lo, hi), laid out from slot ``top`` and table entry
    ``pos`` on, in one pass: each word's non-zero topics gathered from its old block, its new block
    laid out, cleared and filled, its table and its row's proposal fields set; returns (top, pos)
    after them."""
    n_topics = inv_frozen.size
    meta_f = word_meta.view(np.float64)
    table_topics = topic_view(word_table)
    weights = np.empty(n_topics)
    q = np.empty(n_topics)
    prob = np.empty(n_topics)
    small = np.empty(n_topics, np.int64)
    large = np.empty(n_topics, np.int64)
    idx = np.empty(n_topics, np.int64)
    topics = np.empty(n_topics + 1, np.int64)  # + 1: the gather below writes one past the last kept
    counts = np.empty(n_topics + 1, np.int64)
    for v in range(lo, hi):
        old_base = word_meta[v, BASE]
        n = 0
        for j in range(old_base, old_base + word_meta[v, MASK] + 1):  # gathered without a branch
            c = slots[3 * j + CUR]  # (empty slots hold zero counts)
            topics[n] = slots[3 * j]
            counts[n] = c
            n += c > 0
        base, mask, top = new_block(word_meta, fresh, v, n, top)
        for e in range(n):
            k = topics[e]
            place_topic(fresh, base, mask, k, counts[e], counts[e])
            weights[e] = counts[e] * inv_frozen[k]
        word_meta[v, SP_LO] = pos
        word_meta[v, SP_N] = n
        sparse_mass = 0.0
        if n > 0:
            sparse_mass = build_alias_head(weights, prob, idx, q, small, large, n)
            put_entries(word_table, table_topics, pos, n, prob, topics, idx)
        pos += n
        frac = sparse_mass / (sparse_mass + dense_mass)
        meta_f[v, FRAC] = frac
        meta_f[v, SCALE_SPARSE] = n / frac if frac > 0.0 else 0.0
        # where beta is so small that frac rounds to 1, the dense part is never drawn, but its
        # scale still gives the word's normaliser (sparse + dense mass) to the mixture's ratio
        meta_f[v, SCALE_DENSE] = (n_topics / (1.0 - frac) if frac < 1.0
                                  else n_topics * (sparse_mass + dense_mass) / dense_mass)
    return top, pos
