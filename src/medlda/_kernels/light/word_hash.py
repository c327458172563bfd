"""Per-word hashed topic counts: n_kw stored in memory that grows with non-zero counts, not V*K.

Each word v owns a block of ``cap_v`` slots (a power of two) in one flat integer array of triples
(topic, current count, frozen count; int16 where every count and topic fits, see ``slot_dtype``),
found by linear probing from ``topic & (cap_v - 1)``. Every compaction (sweep start) lays the
blocks out afresh, each sized by the word's non-zero topics with room for ``ROOM`` more
(``block_cap``: load at most 1/2, so a probe ends within a cache line or two). A word that gains
topics mid-sweep past half its block is moved to a block twice the size in the spill area after
the compact region (``insert_topic``). The spill area is sized for the worst case
(``spill_bound``) but only touched where used, so the part of the hash a sweep reads can stay in
cache where a dense V x K table would not.

The frozen count is the count at the last compaction: the word proposal's table is built from it,
and the MH ratio reads it back to get the stored q (docs/mathematics.md §4a).

``word_meta`` (V, 8) int64 keeps what a token of word v reads in one 64-byte row: its block
(BASE, MASK, USED slots), its sparse proposal entries (SP_LO, SP_N) and, as float64 bits read
through ``word_meta.view(np.float64)``, the probability of the sparse part and the two scales
that turn a uniform into a table entry (FRAC, SCALE_SPARSE, SCALE_DENSE; see ``draw_word``).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from medlda._kernels.rng import next_uniform

KEY, CUR, FROZEN = 0, 1, 2
EMPTY = -1
BASE, MASK, USED, SP_LO, SP_N, FRAC, SCALE_SPARSE, SCALE_DENSE = range(8)
META_COLUMNS = 8
TABLE_STRIDE = 2  # table words per proposal entry: its probability, then its topic and alias topic
NARROW_TOPICS = np.iinfo(np.int16).max  # the most topics whose entries take 8 bytes


def new_word_table(n_entries: int, n_topics: int) -> np.ndarray:
    """Room for ``n_entries`` proposal alias entries (``compaction.compact_and_build``): 8 bytes each (a
    float32 probability, two int16 topics; eight to a cache line) for up to ``NARROW_TOPICS``
    topics, else 16 (float64, two int32). The narrow entries halve the tables that a word's draws
    read at random. A float32 probability shifts what a draw returns by at most 2^-25 / n of an
    n-entry table, far below the collapsed sampler's bias from its frozen proposals (docs/mathematics.md §4a)."""
    dtype = np.float32 if n_topics <= NARROW_TOPICS else np.float64
    return np.empty(TABLE_STRIDE * n_entries, dtype)


def topic_view(word_table):
    """The topics of ``word_table``'s entries: its int16 view for 8-byte entries (float32 table),
    its int32 view for 16-byte ones; entry e's topic and alias topic are at 2 TABLE_STRIDE e + 2
    and + 3 either way. In compiled code only."""
    raise NotImplementedError("topic_view runs inside numba-compiled kernels")


@overload(topic_view, inline="always")
def _topic_view(word_table):
    narrow = word_table.dtype == types.float32
    return (lambda word_table: word_table.view(np.int16)) if narrow else (lambda word_table: word_table.view(np.int32))


def new_word_meta(n_words: int) -> np.ndarray:
    """(V, 8) int64 with each row on one 64-byte cache line."""
    raw = np.empty(n_words * META_COLUMNS + META_COLUMNS, np.int64)
    skip = (-raw.ctypes.data % 64) // 8
    return raw[skip:skip + n_words * META_COLUMNS].reshape(n_words, META_COLUMNS)


@njit(cache=True, inline="always")
def cap_for(n):
    """Block size for n topics: the smallest power of two >= 2 n + 2 (load <= 1/2, two free)."""
    cap = 2
    while cap < 2 * n + 2:
        cap *= 2
    return cap


ROOM = 6  # topics a word's compact block takes in before its load passes 1/2 (``block_cap``)


@njit(cache=True, inline="always")
def block_cap(n):
    """Compact block size for a word with n non-zero topics: ``cap_for(n + ROOM)``. Without the
    room a word of few topics fills its block with its first new one or two and moves to the
    spill area, and at load near 1/2 a lookup of an absent topic is expected to take 2.5 probes
    (linear probing's (1 + 1 / (1 - load)^2) / 2), past the two ``find_slot`` settles by selects.
    The room is a fixed number of topics, not a factor: doubling every block would push frequent
    words' large blocks out of the cache."""
    return cap_for(n + ROOM)


@njit(cache=True)
def spill_bound(word_totals, n_topics):
    """Slots the spill area may need in one sweep: a word holds at most min(K, 2 N_v) topics
    (its non-zero ones at compaction plus one new one per token moved in, by this sweep or a
    merge), and the blocks it moves through, doubling, sum to less than twice the last."""
    total = 0
    for v in range(word_totals.size):
        total += 2 * cap_for(min(n_topics, 2 * word_totals[v]))
    return total


@njit(cache=True, inline="always")
def find_slot(slots, base, mask, k):
    """Slot index of topic k in a word's block, or -(free slot) - 1 where it would be inserted.
    The first two probes settle almost every lookup (blocks are at most half full), so they are
    read together and settled by selects: one branch where a probe loop would take two per probe,
    each as unpredictable as whether a proposed topic is in the word. (Unsigned indices spare
    numba's negative-index wraparound code on this hot path.)"""
    h0 = k & mask
    h1 = (h0 + 1) & mask
    j0 = base + h0
    j1 = base + h1
    key0 = slots[np.uint64(3 * j0)]
    key1 = slots[np.uint64(3 * j1)]
    stop0 = (key0 == k) | (key0 == EMPTY)
    if stop0 | (key1 == k) | (key1 == EMPTY):
        r0 = j0 if key0 == k else -j0 - 1
        r1 = j1 if key1 == k else -j1 - 1
        return r0 if stop0 else r1
    h = (h1 + 1) & mask
    while True:
        j = base + h
        key = slots[np.uint64(3 * j)]
        if key == k:
            return j
        if key == EMPTY:
            return -j - 1
        h = (h + 1) & mask


@njit(cache=True, inline="always")
def place_topic(slots, base, mask, k, cur, frozen):
    """Put topic k, absent from the block at ``base``, at its free slot with the given counts;
    returns the slot."""
    j = -find_slot(slots, base, mask, k) - 1
    slots[3 * j] = k
    slots[3 * j + CUR] = cur
    slots[3 * j + FROZEN] = frozen
    return j


@njit(cache=True, inline="always")
def _clear(slots, lo, hi):
    """Slots [lo, hi) empty, with zero counts: an MH step reads the counts of the slot its probe
    stops at without checking whether the topic was found (an absent topic's are 0)."""
    for j in range(lo, hi):
        slots[3 * j] = EMPTY
        slots[3 * j + CUR] = 0
        slots[3 * j + FROZEN] = 0


@njit(cache=True)
def _relocate(word_meta, slots, top, v, k):
    """Move word v's block to a block twice the size at the end of the spill area (top[0]);
    returns the free slot of topic k there."""
    old_base = word_meta[v, BASE]
    old_cap = word_meta[v, MASK] + 1
    cap = 2 * old_cap
    base = top[0]
    top[0] = base + cap
    if 3 * top[0] > slots.size:
        raise RuntimeError("word hash spill area exhausted (spill_bound is wrong)")
    mask = cap - 1
    _clear(slots, base, base + cap)
    for j in range(old_base, old_base + old_cap):
        key = slots[3 * j]
        if key != EMPTY:
            place_topic(slots, base, mask, key, slots[3 * j + CUR], slots[3 * j + FROZEN])
    word_meta[v, BASE] = base
    word_meta[v, MASK] = mask
    return -find_slot(slots, base, mask, k) - 1


@njit(cache=True, inline="always")
def block_full(word_meta, v):
    """Whether one more topic would take word v's block past half full (``insert_topic`` then
    moves the block)."""
    return 2 * word_meta[v, USED] + 4 > word_meta[v, MASK] + 1


@njit(cache=True, inline="always")
def insert_topic(word_meta, slots, top, v, k, j):
    """Put topic k, absent from word v's block, at its free slot j (from ``find_slot``) with zero
    current and frozen counts; first move the block to the spill area if it would pass half
    full (``block_full``). Returns the topic's slot."""
    if block_full(word_meta, v):
        j = _relocate(word_meta, slots, top, v, np.int64(k))  # one specialisation for int32 and int64 topics
    word_meta[v, USED] += 1
    slots[np.uint64(3 * j)] = k
    slots[np.uint64(3 * j + CUR)] = 0
    slots[np.uint64(3 * j + FROZEN)] = 0
    return j


def slot_dtype(max_word_total: int, n_topics: int) -> type:
    """int16 slots when no count can pass 32767 (a word's count in one topic is at most its
    total, fixed by the corpus) and topics fit, else int32: six-byte slots put more of the hash
    in cache."""
    small = np.iinfo(np.int16).max
    return np.int16 if max_word_total <= small and n_topics <= small + 1 else np.int32


def new_slots(n_slots: int, dtype: type = np.int32) -> np.ndarray:
    """Room for ``n_slots`` hash slots (triples of ``dtype``), allocated by NumPy: it asks Linux
    for transparent huge pages (2 MB) for arrays of 4 MB and more, and numba's allocator does not.
    On 4 KB pages a probe into a large hash misses the TLB as well as the cache."""
    return np.empty(3 * n_slots, dtype)


@njit(cache=True)
def blocks_size(nnz):
    """Slots of the compact region for words with ``nnz`` non-zero topics each."""
    total = 0
    for v in range(nnz.size):
        total += block_cap(nnz[v])
    return total


@njit(cache=True, inline="always")
def new_block(word_meta, slots, v, n, top):
    """Word v's compact block for its n topics laid out at slot ``top`` (``block_cap``), emptied
    (``_clear``), with BASE, MASK and USED set; the words are laid out in order, so the compact
    region is the prefix sums of their blocks. Returns (base, mask, top after the block)."""
    cap = block_cap(n)
    _clear(slots, top, top + cap)
    word_meta[v, BASE] = top
    word_meta[v, MASK] = cap - 1
    word_meta[v, USED] = n
    return top, cap - 1, top + cap


@njit(cache=True)
def dense_rows(n_wk):
    """(non-zero topics, total count) of each word of dense counts (V, K), in one pass without a
    branch (most counts are zero, so a branch on each would be mispredicted often)."""
    n_words, n_topics = n_wk.shape
    nnz = np.zeros(n_words, np.int64)
    totals = np.zeros(n_words, np.int64)
    for v in range(n_words):
        c = 0
        t = 0
        for k in range(n_topics):
            x = n_wk[v, k]
            c += x > 0
            t += x
        nnz[v] = c
        totals[v] = t
    return nnz, totals


@njit(cache=True)
def _load_dense(n_wk, nnz, word_meta, slots):
    """Lay the hash out in ``slots`` (``blocks_size(nnz)`` slots or more) and fill it from dense
    counts; returns top. A word's non-zero topics are gathered without a branch (as in
    the compaction), then placed."""
    n_words, n_topics = n_wk.shape
    top = 0
    topics = np.empty(n_topics + 1, np.int64)  # + 1: the gather writes one past the last kept
    for v in range(n_words):
        n = 0
        for k in range(n_topics):
            topics[n] = k
            n += n_wk[v, k] > 0
        base, mask, top = new_block(word_meta, slots, v, n, top)
        for e in range(n):
            k = topics[e]
            place_topic(slots, base, mask, k, n_wk[v, k], n_wk[v, k])
    return np.full(1, top, np.int64)


def hash_from_dense(n_wk: np.ndarray, spill: int, word_meta: np.ndarray,
                    rows: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Load the hash from dense counts (V, K): current = frozen = n_kw, zero counts left out,
    ``spill`` slots of room after the compact region, slots of ``slot_dtype`` for the largest
    word total; returns (slots, top). ``rows``: ``dense_rows(n_wk)`` if the caller has it."""
    nnz, totals = dense_rows(n_wk) if rows is None else rows
    max_total = int(totals.max(initial=0))
    slots = new_slots(blocks_size(nnz) + spill, slot_dtype(max_total, n_wk.shape[1]))
    return slots, _load_dense(n_wk, nnz, word_meta, slots)


@njit(cache=True)
def to_dense(word_meta, slots, n_wk):
    """Write the current counts into dense n_wk (V, K) (zeros elsewhere)."""
    n_wk[:] = 0
    for v in range(word_meta.shape[0]):
        base = word_meta[v, BASE]
        for j in range(base, base + word_meta[v, MASK] + 1):
            if slots[3 * j] != EMPTY:
                n_wk[v, slots[3 * j]] = slots[3 * j + CUR]


@njit(cache=True, inline="always")
def put_entry(word_table, table_topics, e, prob, topic, alias_topic):
    """Entry e of ``word_table``: drawn, it gives ``topic`` when the fraction of the uniform is
    below ``prob``, else ``alias_topic`` (``draw_split``). prob fills the entry's first table word,
    the two topics its second (``table_topics``: ``topic_view`` of the same buffer). Every
    proposal table is written through this one layout."""
    word_table[TABLE_STRIDE * e] = prob
    table_topics[2 * TABLE_STRIDE * e + 2] = topic
    table_topics[2 * TABLE_STRIDE * e + 3] = alias_topic


@njit(cache=True, inline="always")
def put_entries(word_table, table_topics, pos, n, prob, topics, idx):
    """Alias entries of one table over ``topics`` into word_table from entry pos on."""
    for e in range(n):
        put_entry(word_table, table_topics, pos + e, prob[e], topics[e], topics[idx[e]])


@njit(cache=True, inline="always")
def draw_word(state, word_table, table_topics, lo, n_sparse, frac, scale_sparse, dense_lo, n_topics, scale_dense):
    """Word proposal: ``draw_split`` with the word's sparse table as part A (probability
    ``frac``, ``scale_sparse`` = n_sparse / frac) and the shared dense one as part B (``dense_lo``:
    its first entry, ``scale_dense`` = K / (1 - frac))."""
    return draw_split(state, word_table, table_topics, frac, scale_sparse, lo, n_sparse, scale_dense, dense_lo,
                      n_topics)


@njit(cache=True, inline="always")
def draw_split(state, word_table, table_topics, p_a, scale_a, lo_a, n_a, scale_b, lo_b, n_b):
    """A draw from a proposal made of two alias tables in ``word_table``'s entries: part A
    (n_a entries from lo_a) with probability p_a, else part B. One 53-bit uniform u does it all:
    u rescaled to the part chosen (scale_a = n_a / p_a, scale_b = n_b / (1 - p_a)) picks the
    entry (integer part) and entry vs alias (fraction). The part is chosen by selects, one entry
    is read (``put_entry``) and there is no division, so a draw takes no branch on data."""
    state, u = next_uniform(state)
    in_a = u < p_a
    y = u * scale_a if in_a else (u - p_a) * scale_b
    seg = lo_a if in_a else lo_b
    slot = min(np.int64(y), (n_a if in_a else n_b) - 1)
    e = np.uint64(seg + slot)
    first = np.int64(table_topics[np.uint64(2 * TABLE_STRIDE) * e + np.uint64(2)])
    other = np.int64(table_topics[np.uint64(2 * TABLE_STRIDE) * e + np.uint64(3)])  # read either way: a select
    return state, first if y - slot < word_table[np.uint64(TABLE_STRIDE) * e] else other
