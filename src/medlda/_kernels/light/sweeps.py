"""The light sweeps (docs/mathematics.md §4, §4a) compiled for one proposal mode, task kind and n_mh.

``collapsed`` is the papers' sampler (``collapsed.collapsed_docs``), ``exact`` the partially
collapsed one (``exact.exact_blocks``); each has a threaded form that splits the random-stream
blocks across threads. They take the records of ``medlda._kernels.records``.

Each sampler compiles one kernel, over a range of documents or of stream blocks
(``Sweeps.collapsed_docs``, ``Sweeps.exact_blocks``), that the serial sweep runs over all and the
threaded one on each thread's range (Python threads: the kernels release the GIL); so the large
sweep body is compiled once for both, and no parallel (parfor) compilation is needed.
"""

import functools
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

import numpy as np
from numba import njit

from medlda._kernels.light.collapsed import collapsed_docs
from medlda._kernels.light.exact import exact_blocks
from medlda._kernels.light.moves import (
    apply_deferred,
    apply_dense_moves,
    bucket_moves,
    merge_dense_range,
    merge_range,
)
from medlda._kernels.records import Counts
from medlda._kernels.rng import DOCS_PER_STREAM, block_docs
from medlda._kernels.threads import on_threads

ROUNDS = 32  # merges per parallel collapsed sweep: a thread's word counts lag by at most 1/32 of its share


class Sweeps:
    """The light sweeps for one proposal mode, task kind and n_mh (``sweeps_for``): the compiled
    range kernels and the four sweeps built on them."""

    def __init__(self, collapsed_range: Callable, exact_range: Callable):
        self.collapsed_docs = collapsed_range
        self.exact_blocks = exact_range

    def collapsed(self, tokens, counts, prior, words, supervision, streams, log) -> None:
        """One MH sweep of the collapsed light sampler (``Tokens``, ``Counts``, ``AlphaTable``,
        ``WordHash``, ``Supervision``, the random streams, ``MoveLog`` scratch); z, the hashed
        counts, n_k and the streams updated in place. ``counts.n_wk`` is neither read nor written
        (the hash holds n_kw), and ``counts.n_dk`` only with tasks. The word proposal is the
        table ``compaction.compact_and_build`` made at sweep start; its q is read back from the
        frozen counts: q_v(k) proportional to (frozen n_kv + beta) * inv_frozen[k]."""
        self.collapsed_docs(0, tokens.doc_ptr.size - 1, tokens, counts, prior, words, supervision, streams, log, 0,
                            False, _longest(tokens.doc_ptr))

    def collapsed_parallel(self, chunks, range_of_word, tokens, counts, prior, words, supervision, streams,
                           log) -> None:
        """``collapsed`` with the stream blocks split at ``chunks`` (C + 1,) across threads, in
        ``ROUNDS`` rounds: in each, every thread samples the next share of its documents (an
        equal share of its tokens, so the threads reach each round's end together) reading the
        hashed counts as the last merge left them (each token without itself) and writing none of
        them, so the threads share one hash and each holds only its n_k and its moves; the rounds'
        moves are then merged by the same threads, each taking the words of one range
        (``range_of_word`` (V,): 0, ..., C - 1, ``moves.word_ranges``), so the result does not
        depend on the threads' timing. Within a round a thread sees no word count change, its own
        included (the distributed-LDA approximation, over a short window); the document counts
        stay current."""
        n_chunks = chunks.size - 1
        longest = _longest(tokens.doc_ptr)
        offsets = np.zeros((n_chunks, n_chunks + 1), np.int64)
        n_deferred = np.zeros((n_chunks, n_chunks), np.int64)
        dn_k = np.zeros((n_chunks, counts.n_k.size), np.int64)

        def sample(start, end, c):
            n_k = counts.n_k.copy()
            n = self.collapsed_docs(start, end, tokens, Counts(counts.n_dk, counts.n_wk, n_k), prior, words,
                                    supervision, streams, log, c, True, longest)
            move_start = tokens.doc_ptr[start]
            bucket_moves(tokens.word_ids, log, move_start, n, range_of_word, offsets[c])
            return move_start

        rounds = round_docs(chunks, tokens.doc_ptr)
        with ThreadPoolExecutor(n_chunks) as pool:
            for r in range(ROUNDS):
                starts, ends = rounds[:, r], rounds[:, r + 1]
                move_starts = np.array(list(pool.map(sample, starts.tolist(), ends.tolist(), range(n_chunks))),
                                       np.int64)
                dn_k[:] = 0
                list(pool.map(lambda p: merge_range(p, move_starts, offsets, tokens, log, words.word_meta,
                                                    words.slots, words.top, dn_k[p], n_deferred), range(n_chunks)))
                apply_deferred(move_starts, offsets, n_deferred, tokens, log, words.word_meta, words.slots, words.top)
                counts.n_k[:] += dn_k.sum(axis=0).astype(counts.n_k.dtype)

    def exact(self, tokens, counts, prior, phi, supervision, streams, log) -> None:
        """One MH sweep of the partially collapsed light sampler (docs/mathematics.md (2b)) given ``phi``
        (``PhiTables``); counts, z and streams updated in place."""
        n_logged = self.exact_blocks(0, streams.size, tokens, counts, prior, phi, supervision, streams, log)
        apply_dense_moves(tokens, log, 0, n_logged, counts)

    def exact_parallel(self, chunks, range_of_word, tokens, counts, prior, phi, supervision, streams, log) -> None:
        """``exact`` with the stream blocks split at ``chunks`` (C + 1,) across threads, and the
        moves merged into the dense counts by the same threads, each taking the words of one range
        (``range_of_word``, as ``collapsed_parallel``); the result does not depend on C (documents
        are independent given phi, and integer counts end the same in any order)."""
        n_chunks = chunks.size - 1
        offsets = np.zeros((n_chunks, n_chunks + 1), np.int64)

        def sample(c):
            lo, hi = int(chunks[c]), int(chunks[c + 1])
            n = self.exact_blocks(lo, hi, tokens, counts, prior, phi, supervision, streams, log)
            move_start = block_docs(lo, hi, tokens.doc_ptr)[2]
            bucket_moves(tokens.word_ids, log, move_start, n, range_of_word, offsets[c])
            return move_start

        move_starts = np.array(on_threads(sample, [(c,) for c in range(n_chunks)]), np.int64)
        dn_k = np.zeros((n_chunks, counts.n_k.size), np.int64)
        on_threads(merge_dense_range, [(p, move_starts, offsets, tokens, log, counts.n_wk, dn_k[p])
                                       for p in range(n_chunks)])
        counts.n_k[:] += dn_k.sum(axis=0).astype(counts.n_k.dtype)


def round_docs(chunks: np.ndarray, doc_ptr: np.ndarray) -> np.ndarray:
    """(C, ROUNDS + 1): the first document of each round of each chunk of stream blocks
    (``chunks`` (C + 1,)), rounds cut where the chunk's tokens pass r / ROUNDS of its total, so
    every round of every thread samples about as many tokens."""
    n_docs = doc_ptr.size - 1
    first = np.minimum(chunks * DOCS_PER_STREAM, n_docs)
    lo, hi = doc_ptr[first[:-1]], doc_ptr[first[1:]]
    marks = lo[:, None] + (hi - lo)[:, None] * np.arange(ROUNDS + 1) / ROUNDS
    docs = np.clip(np.searchsorted(doc_ptr, marks, side="left"), first[:-1, None], first[1:, None])
    docs[:, 0], docs[:, -1] = first[:-1], first[1:]  # every document, empty ones at the ends too
    return docs.astype(np.int64)


def _longest(doc_ptr: np.ndarray) -> int:
    """The most tokens of a document."""
    return int(np.diff(doc_ptr).max(initial=0))


@functools.cache
def sweeps_for(mode: int, tasks: int, n_mh: int) -> Sweeps:
    """The light sweeps with proposal ``mode`` (``PROPOSAL_MODES``), ``tasks`` (``task_kind``) and
    ``n_mh`` as constants of their machine code: a binary task's or LDA's sweep carries no code for
    other modes or for task loops, and a token's MH steps are unrolled. Each triple compiles on
    its first call and is then loaded from numba's disk cache like every kernel (the closures'
    constants are part of the cache key)."""

    @njit(cache=True, nogil=True)
    def light_collapsed_docs(doc_lo, doc_hi, tokens, counts, prior, words, supervision, streams, log, region,
                               stale, max_length):
        """``collapsed.collapsed_docs`` over documents [doc_lo, doc_hi) with this
        mode, task kind and n_mh; returns the moves it logged."""
        return collapsed_docs(doc_lo, doc_hi, tokens, counts, prior, words, supervision, mode, tasks, n_mh,
                                streams, log, region, stale, max_length)

    @njit(cache=True, nogil=True)
    def light_exact_blocks(block_lo, block_hi, tokens, counts, prior, phi, supervision, streams, log):
        """``exact.exact_blocks`` over stream blocks [block_lo, block_hi) with this mode, task
        kind and n_mh; returns the moves it logged."""
        return exact_blocks(block_lo, block_hi, tokens, counts, prior, phi, supervision, mode, tasks, n_mh, streams,
                            log)

    return Sweeps(light_collapsed_docs, light_exact_blocks)
