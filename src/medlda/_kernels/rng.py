"""Inline xorshift64* generator for kernels: one uint64 state per stream, advanced in place.

Inlined into the token loops, it costs a few instructions a draw where numba's np.random calls
do not inline; a 64-bit draw is split into a uniform double (top 53 bits) or a multiply-shift
integer (top 32 bits).
"""

import numpy as np
from numba import njit

DOCS_PER_STREAM = 256

_SHIFT_12 = np.uint64(12)
_SHIFT_25 = np.uint64(25)
_SHIFT_27 = np.uint64(27)
_SHIFT_11 = np.uint64(11)
_SHIFT_32 = np.uint64(32)
_MULT = np.uint64(0x2545F4914F6CDD1D)
_INV_2_53 = 1.0 / 9007199254740992.0


@njit(cache=True, inline="always")
def next_u64(state):
    """Advance ``state`` (a uint64) and return (new_state, 64-bit output)."""
    x = state
    x ^= x >> _SHIFT_12
    x ^= x << _SHIFT_25
    x ^= x >> _SHIFT_27
    return x, x * _MULT


@njit(cache=True, inline="always")
def next_uniform(state):
    """(new_state, u) with u uniform on [0, 1)."""
    state, r = next_u64(state)
    return state, np.float64(r >> _SHIFT_11) * _INV_2_53


@njit(cache=True, inline="always")
def next_below(state, n):
    """(new_state, i) with i uniform on {0, ..., n - 1} for 0 < n < 2**32 (multiply-shift)."""
    state, r = next_u64(state)
    return state, np.int64(((r >> _SHIFT_32) * np.uint64(n)) >> _SHIFT_32)


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_SHIFT_30 = np.uint64(30)
_SHIFT_31 = np.uint64(31)


@njit(cache=True, inline="always")
def _mix64(x):
    """SplitMix64's finalizer: a bijection of uint64 whose every output bit depends on every input bit."""
    x = (x ^ (x >> _SHIFT_30)) * _MIX_1
    x = (x ^ (x >> _SHIFT_27)) * _MIX_2
    return x ^ (x >> _SHIFT_31)


@njit(cache=True)
def doc_state(base, word_ids, start, end):
    """A non-zero stream state for the document word_ids[start:end] from ``base``: a hash of its
    words in order, so a document draws the same whatever else is inferred with it, and where."""
    h = _mix64(base ^ (np.uint64(end - start) * _GOLDEN))
    for i in range(start, end):
        h = _mix64(h + _GOLDEN + np.uint64(word_ids[i]))
    return h if h != np.uint64(0) else _GOLDEN


def make_streams(rng: np.random.Generator, n_docs: int) -> np.ndarray:
    """Independent non-zero uint64 states, one per block of DOCS_PER_STREAM documents."""
    n_streams = max(1, -(-n_docs // DOCS_PER_STREAM))
    states = rng.integers(1, np.iinfo(np.int64).max, size=n_streams, dtype=np.int64)
    return states.astype(np.uint64)


def doc_streams(rng: np.random.Generator, n_docs: int) -> np.ndarray:
    """``make_streams``'s shape with every block at one state drawn from ``rng``: for kernels that
    seed each document from it and its words (``doc_state``), so no document depends on its block."""
    n_streams = max(1, -(-n_docs // DOCS_PER_STREAM))
    return np.full(n_streams, make_streams(rng, 1)[0], dtype=np.uint64)


@njit(cache=True)
def block_docs(block_lo, block_hi, doc_ptr):
    """Documents [first, last) of stream blocks [block_lo, block_hi), and their first token (where
    a block range's move log starts)."""
    n_docs = doc_ptr.size - 1
    first_doc = min(block_lo * DOCS_PER_STREAM, n_docs)
    return first_doc, min(block_hi * DOCS_PER_STREAM, n_docs), doc_ptr[first_doc]


def stream_chunks(doc_ptr: np.ndarray, n_jobs: int) -> np.ndarray:
    """Split the random-stream blocks (DOCS_PER_STREAM documents each) into at most ``n_jobs``
    contiguous ranges of about equal token counts: boundaries (C + 1,) in block units. Every block
    keeps its own stream, so a kernel whose documents are independent (inference, the partially
    collapsed sweep) draws the same on any split."""
    n_docs = doc_ptr.size - 1
    n_blocks = max(1, -(-n_docs // DOCS_PER_STREAM))
    n_jobs = max(1, min(int(n_jobs), n_blocks))
    if n_jobs == 1:
        return np.array([0, n_blocks], np.int64)
    ends = doc_ptr[np.minimum(np.arange(1, n_blocks + 1) * DOCS_PER_STREAM, n_docs)]
    cuts = np.searchsorted(ends, doc_ptr[-1] * np.arange(1, n_jobs) / n_jobs) + 1
    return np.unique(np.concatenate(([0], np.minimum(cuts, n_blocks), [n_blocks]))).astype(np.int64)


def on_stream_chunks(serial, parallel, doc_ptr: np.ndarray, n_jobs: int, *args):
    """``serial(*args)`` on one thread, or ``parallel(chunks, *args)`` with the stream blocks
    split into ``n_jobs`` ranges (``stream_chunks``) when there is more than one."""
    chunks = stream_chunks(doc_ptr, n_jobs)
    if chunks.size > 2:
        return parallel(chunks, *args)
    return serial(*args)
