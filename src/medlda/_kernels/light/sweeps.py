"""The light sweeps (SPEC §4, §4a) compiled for one proposal mode, task kind and n_mh.

``collapsed`` is the papers' sampler (``collapsed.collapsed_blocks``), ``exact`` the partially
collapsed one (``exact.exact_blocks``); each has a threaded form that splits the random-stream
blocks across threads. They take the records of ``medlda._kernels.records``.
"""

import functools
from typing import Callable, NamedTuple

import numpy as np
from numba import njit, prange

from medlda._kernels.light.collapsed import collapsed_blocks
from medlda._kernels.light.exact import exact_blocks
from medlda._kernels.light.moves import apply_dense_moves, apply_moves
from medlda._kernels.records import Counts, WordHash
from medlda._kernels.rng import block_docs


class Sweeps(NamedTuple):
    """The four light sweeps compiled for one proposal mode, task kind and n_mh (``sweeps_for``)."""
    collapsed: Callable
    collapsed_parallel: Callable
    exact: Callable
    exact_parallel: Callable


@functools.cache
def sweeps_for(mode: int, tasks: int, n_mh: int) -> Sweeps:
    """The light sweeps with proposal ``mode`` (``PROPOSAL_MODES``), ``tasks`` (``task_kind``) and
    ``n_mh`` as constants of their machine code: a binary task's or LDA's sweep carries no code for
    other modes or for task loops, and a token's MH steps are unrolled. Each triple compiles on
    its first call and is then loaded from numba's disk cache like every kernel (the closures'
    constants are part of the cache key)."""

    @njit(cache=True)
    def light_sweep_collapsed(tokens, counts, prior, words, supervision, streams, log):
        """One MH sweep of the collapsed light sampler (``Tokens``, ``Counts``, ``AlphaTable``,
        ``WordHash``, ``Supervision``, the random streams, ``MoveLog`` scratch); z, the hashed
        counts, n_k and the streams updated in place. ``counts.n_wk`` is neither read nor written
        (the hash holds n_kw), and ``counts.n_dk`` only with tasks. The word proposal is the
        table ``compact_and_build`` made at sweep start; its q is read back from the frozen
        counts: q_v(k) proportional to (frozen n_kv + beta) * inv_frozen[k]."""
        collapsed_blocks(0, streams.size, tokens, counts, prior, words, supervision, mode, tasks, n_mh, streams, log,
                         0)

    @njit(cache=True, parallel=True)
    def light_sweep_collapsed_parallel(chunks, tokens, counts, prior, words, supervision, streams, log, thread_slots):
        """``light_sweep_collapsed`` with the stream blocks split at ``chunks`` (C + 1,) across
        threads. Each thread samples against its own copy of the hashed counts and n_k taken at
        sweep start (the approximate distributed-LDA scheme: a thread does not see the others'
        moves until the sweep ends); the moves are merged afterwards. With one chunk it equals the
        serial sweep. ``thread_slots`` (>= C, >= slots.size): room for the threads' copies of the
        slots."""
        n_chunks = chunks.size - 1
        word_meta, slots, top = words.word_meta, words.slots, words.top
        n_logged = np.empty(n_chunks, np.int64)
        used = 3 * top[0]
        for c in prange(n_chunks):
            own_meta, own_slots, own_top = word_meta, slots, top
            if n_chunks > 1:  # the compact region copied; each thread spills into its own space
                own_meta = word_meta.copy()
                own_slots = thread_slots[c]
                own_slots[:used] = slots[:used]
                own_top = top.copy()
            own = WordHash(words.beta, words.vbeta, own_meta, own_slots, own_top, words.word_table, words.inv_frozen)
            own_counts = Counts(counts.n_dk, counts.n_wk, counts.n_k.copy())
            n_logged[c] = collapsed_blocks(chunks[c], chunks[c + 1], tokens, own_counts, prior, own, supervision, mode,
                                           tasks, n_mh, streams, log, c)
        merged = Counts(counts.n_dk, np.zeros((0, counts.n_k.size), np.int32), counts.n_k)  # n_k and the hash only
        for c in range(n_chunks):
            move_start = block_docs(chunks[c], chunks[c + 1], tokens.doc_ptr)[2]
            apply_moves(tokens, log, move_start, n_logged[c], merged, word_meta, slots if n_chunks > 1 else slots[:0],
                        top)

    @njit(cache=True)
    def light_sweep_exact(tokens, counts, prior, phi, supervision, streams, log):
        """One MH sweep of the partially collapsed light sampler (SPEC (2b)) given ``phi``
        (``PhiTables``); counts, z and streams updated in place."""
        n_logged = exact_blocks(0, streams.size, tokens, counts, prior, phi, supervision, mode, tasks, n_mh, streams,
                                log)
        apply_dense_moves(tokens, log, 0, n_logged, counts)

    @njit(cache=True, parallel=True)
    def light_sweep_exact_parallel(chunks, tokens, counts, prior, phi, supervision, streams, log):
        """``light_sweep_exact`` with the stream blocks split at ``chunks`` (C + 1,) across
        threads; the result does not depend on C (documents are independent given phi)."""
        n_chunks = chunks.size - 1
        n_logged = np.empty(n_chunks, np.int64)
        for c in prange(n_chunks):
            n_logged[c] = exact_blocks(chunks[c], chunks[c + 1], tokens, counts, prior, phi, supervision, mode, tasks,
                                       n_mh, streams, log)
        for c in range(n_chunks):
            move_start = block_docs(chunks[c], chunks[c + 1], tokens.doc_ptr)[2]
            apply_dense_moves(tokens, log, move_start, n_logged[c], counts)

    return Sweeps(light_sweep_collapsed, light_sweep_collapsed_parallel, light_sweep_exact,
                  light_sweep_exact_parallel)
