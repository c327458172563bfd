"""The light sweeps (SPEC §4, §4a) compiled for one proposal mode, task kind and n_mh.

``collapsed`` is the papers' sampler (``collapsed.collapsed_blocks``), ``exact`` the partially
collapsed one (``exact.exact_blocks``); each has a threaded form that splits the random-stream
blocks across threads.
"""

import functools
from typing import Callable, NamedTuple

import numpy as np
from numba import njit, prange

from medlda._kernels.light.collapsed import collapsed_blocks
from medlda._kernels.light.exact import exact_blocks
from medlda._kernels.light.moves import apply_dense_moves, apply_moves
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
    def light_sweep_collapsed(word_ids, doc_ptr, z, n_dk, n_k, alpha, alpha_prob, alpha_alias, beta,
                              vbeta, word_meta, slots, top, word_table, inv_frozen, eta, kappa, w, streams,
                              moved, moved_from):
        """One MH sweep of the collapsed light sampler; z, counts and streams updated in place.

        The topic-word counts live in the per-word hash (``word_meta``, ``slots``, ``top``, see
        ``word_hash``) and no dense n_wk is kept; n_k is the records' count at the sweep's end, and
        ``n_dk`` is written only with tasks (from the log of changed tokens ``moved``,
        ``moved_from``, (N,) scratch). The word proposal is the table ``compact_and_build`` made
        at sweep start; its q is read back from the frozen counts: q_v(k) proportional to
        (frozen n_kv + beta) * inv_frozen[k].
        """
        collapsed_blocks(0, streams.size, word_ids, doc_ptr, z, n_dk, n_k, alpha, alpha_prob, alpha_alias, beta,
                         vbeta, word_meta, slots, top, word_table, inv_frozen, eta, kappa, w, mode, tasks, n_mh,
                         streams, moved, moved_from, 0)

    @njit(cache=True, parallel=True)
    def light_sweep_collapsed_parallel(chunks, word_ids, doc_ptr, z, n_dk, n_k, alpha, alpha_prob,
                                       alpha_alias, beta, vbeta, word_meta, slots, top, word_table, inv_frozen,
                                       eta, kappa, w, streams, moved, moved_from, thread_slots):
        """``light_sweep_collapsed`` with the stream blocks split at ``chunks`` (C + 1,) across
        threads. Each thread samples against its own copy of the hashed counts and n_k taken at
        sweep start (the approximate distributed-LDA scheme: a thread does not see the others'
        moves until the sweep ends); the moves are merged afterwards. With one chunk it equals the
        serial sweep. ``thread_slots`` (>= C, >= slots.size): room for the threads' copies of the
        slots."""
        n_chunks = chunks.size - 1
        no_dense = np.zeros((0, n_k.size), np.int32)  # the merge moves n_k and the hash only
        counts = np.empty(n_chunks, np.int64)
        used = 3 * top[0]
        for c in prange(n_chunks):
            own_meta, own_slots, own_top = word_meta, slots, top
            if n_chunks > 1:  # the compact region copied; each thread spills into its own space
                own_meta = word_meta.copy()
                own_slots = thread_slots[c]
                own_slots[:used] = slots[:used]
                own_top = top.copy()
            own_n_k = n_k.copy()
            counts[c] = collapsed_blocks(chunks[c], chunks[c + 1], word_ids, doc_ptr, z, n_dk, own_n_k, alpha,
                                         alpha_prob, alpha_alias, beta, vbeta, own_meta, own_slots, own_top,
                                         word_table, inv_frozen, eta, kappa, w, mode, tasks, n_mh, streams,
                                         moved, moved_from, c)
        for c in range(n_chunks):
            move_start = block_docs(chunks[c], chunks[c + 1], doc_ptr)[2]
            apply_moves(word_ids, z, moved, moved_from, move_start, counts[c], no_dense, n_k, word_meta,
                        slots if n_chunks > 1 else slots[:0], top)

    @njit(cache=True)
    def light_sweep_exact(word_ids, doc_ptr, z, n_dk, n_wk, n_k, alpha, alpha_prob, alpha_alias, phi_wk,
                          word_prob, word_alias, word_mass, eta, kappa, w, streams, moved, moved_from):
        """One MH sweep of the partially collapsed light sampler (SPEC (2b)); counts, z and
        streams updated in place. Word tables (prob, alias per word, (V, K)) draw k proportional
        to phi_kw; ``word_mass`` (V,) is their normalizer."""
        n_moved = exact_blocks(0, streams.size, word_ids, doc_ptr, z, n_dk, alpha, alpha_prob, alpha_alias,
                               phi_wk, word_prob, word_alias, word_mass, eta, kappa, w, mode, tasks, n_mh,
                               streams, moved, moved_from)
        apply_dense_moves(word_ids, z, moved, moved_from, 0, n_moved, n_wk, n_k)

    @njit(cache=True, parallel=True)
    def light_sweep_exact_parallel(chunks, word_ids, doc_ptr, z, n_dk, n_wk, n_k, alpha, alpha_prob, alpha_alias,
                                   phi_wk, word_prob, word_alias, word_mass, eta, kappa, w, streams, moved,
                                   moved_from):
        """``light_sweep_exact`` with the stream blocks split at ``chunks`` (C + 1,) across
        threads; the result does not depend on C (documents are independent given phi)."""
        n_chunks = chunks.size - 1
        counts = np.empty(n_chunks, np.int64)
        for c in prange(n_chunks):
            counts[c] = exact_blocks(chunks[c], chunks[c + 1], word_ids, doc_ptr, z, n_dk, alpha, alpha_prob,
                                     alpha_alias, phi_wk, word_prob, word_alias, word_mass, eta, kappa, w, mode,
                                     tasks, n_mh, streams, moved, moved_from)
        for c in range(n_chunks):
            move_start = block_docs(chunks[c], chunks[c + 1], doc_ptr)[2]
            apply_dense_moves(word_ids, z, moved, moved_from, move_start, counts[c], n_wk, n_k)

    return Sweeps(light_sweep_collapsed, light_sweep_collapsed_parallel, light_sweep_exact,
                  light_sweep_exact_parallel)
