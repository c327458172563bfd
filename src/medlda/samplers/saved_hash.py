"""Checks of a collapsed light chain's word hashes read back from a checkpoint, before any kernel
probes them (``Light.restore_chain_arrays``).

The hashes (``_kernels.light.word_hash``) are kept in checkpoints because their slot order
depends on the run's history; a tampered or damaged one could send a kernel's probe outside the
slots or around a full block forever. So, in plain NumPy: the layout is the one the sampler
would build for these counts (slot dtype, spill room), every word's block is a power of two
inside the compact region and overlaps no other, holds as many topics as it says with room to
insert, each topic once, within [0, K) and reachable by linear probing from its home slot, empty
slots hold zero counts, and the current counts are exactly the chain's n_wk (from its z).
"""

from __future__ import annotations

import numpy as np

from medlda._kernels.light.word_hash import (
    BASE,
    CUR,
    EMPTY,
    FROZEN,
    KEY,
    MASK,
    META_COLUMNS,
    USED,
    blocks_size,
    slot_dtype,
    spill_bound,
)


def check_saved_hash(arrays: dict[str, np.ndarray], n_wk: np.ndarray) -> tuple[np.ndarray, np.ndarray, int, int, int]:
    """(word_meta, slots, n_slots, top, spill) of the saved ``arrays`` (``word_meta``, ``slots``,
    ``layout``), or ValueError naming what does not fit the counts ``n_wk`` (V, K)."""
    n_words, n_topics = n_wk.shape
    word_meta, slots, layout = arrays["word_meta"], arrays["slots"], arrays["layout"]
    if layout.dtype.kind not in "iu" or layout.shape != (3,):
        raise ValueError(f"layout should be 3 integers, not {layout.dtype} {layout.shape}")
    n_slots, top, spill = (int(v) for v in layout)
    totals = n_wk.sum(axis=1, dtype=np.int64)
    if word_meta.dtype != np.int64 or word_meta.shape != (n_words, META_COLUMNS):
        raise ValueError(f"hash of {word_meta.shape[0] if word_meta.ndim else 0} words ({word_meta.dtype} "
                         f"{word_meta.shape}), for {n_words} words")
    if slots.dtype != slot_dtype(int(totals.max(initial=0)), n_topics) or slots.shape != (3 * max(top, 0),):
        raise ValueError(f"slots {slots.dtype} {slots.shape} do not fit {top} slots of these counts")
    if spill != int(spill_bound(totals, n_topics)):
        raise ValueError(f"spill room {spill}, these counts need {int(spill_bound(totals, n_topics))}")
    most = 2 * (int(blocks_size(np.minimum(n_topics, 2 * totals))) + spill)
    if not 0 <= top <= n_slots <= most:
        raise ValueError(f"layout of {n_slots} slots and {top} in use, beyond the {most} these counts need")
    _check_blocks(word_meta, slots, top, n_wk)
    return word_meta, slots, n_slots, top, spill


def _check_blocks(word_meta: np.ndarray, slots: np.ndarray, top: int, n_wk: np.ndarray) -> None:
    n_words, n_topics = n_wk.shape
    if n_words == 0:
        return
    base, mask, used = word_meta[:, BASE], word_meta[:, MASK], word_meta[:, USED]
    cap = mask + 1
    if ((cap < 2) | ((cap & mask) != 0) | (base < 0) | (cap > top) | (base > top - cap)).any():
        raise ValueError("a word's block is not a power of two within the compact region")
    order = np.argsort(base, kind="stable")
    if (base[order][1:] < (base + cap)[order][:-1]).any():
        raise ValueError("word blocks overlap")
    starts = np.cumsum(cap) - cap  # each block's first position in the blocks laid end to end
    total = int(cap.sum())
    word = np.repeat(np.arange(n_words), cap)
    offset = np.arange(total) - np.repeat(starts, cap)
    where = np.repeat(base, cap) + offset
    key, cur, frozen = (slots[c::3][where].astype(np.int64) for c in (KEY, CUR, FROZEN))
    full = key != EMPTY
    if ((key < EMPTY) | (key >= n_topics) | (full & (cur < 0)) | (~full & ((cur != 0) | (frozen != 0)))).any():
        raise ValueError("a slot holds a topic outside [0, K), a negative count or an empty slot with counts")
    held = np.add.reduceat(full.astype(np.int64), starts)
    if (held != used).any() or (2 * used + 2 > cap).any():
        raise ValueError("a word's block holds another number of topics than it says, or too many to insert")
    cells = word[full] * n_topics + key[full]
    if np.unique(cells).size != cells.size:
        raise ValueError("a word's block holds a topic twice")
    _check_probes(key, full, offset, mask, cap, starts)
    counts = np.zeros(n_wk.size, np.int64)
    counts[cells] = cur[full]
    if not np.array_equal(counts.reshape(n_wk.shape), n_wk):
        raise ValueError("the hashed counts differ from the counts of the checkpoint's topic assignments")


def _check_probes(key, full, offset, mask, cap, starts) -> None:
    """Every topic sits where linear probing from its home slot (key & mask) reaches it: all
    slots from home to its own, cyclically within the block, are full. ``key``, ``full`` and
    ``offset`` (within the block) are per slot of the blocks laid end to end from ``starts``."""
    index = np.arange(key.size)
    block_start = np.repeat(starts, cap)
    empty_at = np.where(full, -1, index)
    last = np.maximum.accumulate(empty_at)  # the last empty slot at or before each one
    block_last = np.maximum.reduceat(empty_at, starts)  # each block has one: 2 used + 2 <= cap
    last = np.where(last < block_start, np.repeat(block_last, cap), last)  # none before it: wrap around
    run = (index - last) % np.repeat(cap, cap)  # full slots after the last empty one, up to this one
    home_distance = (offset - (key & np.repeat(mask, cap))) & np.repeat(mask, cap)
    if (full & (home_distance >= run)).any():
        raise ValueError("a topic sits where probing from its home slot does not reach it")
