"""The collapsed light sweep (docs/mathematics.md §4, §4a): the papers' sampler, over the per-word hashed counts.

Target per token: (n_dk^- + alpha_k) (n_kw^- + beta) / (n_k^- + Vbeta) exp(G_d(k)), with the
current counts. The word proposal is frozen at sweep start (``compaction.compact_and_build``), the
exp table comes from the m_dt at document entry, and both stored values enter the ratio: a small
bias, since the proposals depend on stale counts. O(n_mh) per token plus O(K * T) per document.
"""

import numpy as np
from numba import njit

from medlda._kernels.common import fixed, move_task_terms, topic_g
from medlda._kernels.light.exp_table import enter_doc, sweep_scratch
from medlda._kernels.light.proposals import (
    DOC,
    EXP,
    FAST,
    MIXTURE,
    ROW,
    SEVERAL,
    WORD,
    draw_kind,
    exp_draws_per_token,
    mh_accept,
    proposal_kind,
    proposal_scratch,
    put_alias,
    put_doc_topic,
    set_row,
)
from medlda._kernels.light.word_hash import (
    BASE,
    CUR,
    FRAC,
    FROZEN,
    MASK,
    META_COLUMNS,
    SCALE_DENSE,
    SCALE_SPARSE,
    SP_LO,
    SP_N,
    TABLE_STRIDE,
    find_slot,
    insert_topic,
    topic_view,
)
from medlda._kernels.prefetch import prefetch
from medlda._kernels.rng import DOCS_PER_STREAM

R = 4  # a topic record's float64 fields, unsigned offsets (uint64 + int64 would give float64 in numba):
R_N_K, R_INV_FROZEN, R_N_D, R_EXP_Q = np.uint64(0), np.uint64(1), np.uint64(2), np.uint64(3)


@njit(cache=True)
def _records(n_k, inv_frozen, exp_q):
    """(K * R,) float64: per topic n_k, 1 / (frozen n_k + V beta), the document's n_dk and its exp
    q, in one 32-byte record, so an MH step reads one cache line of a proposed topic where four
    K-vectors would cost up to four cache misses at large K. Counts as float64 are exact and give
    the same ratios as the integer arrays. exp q is ``exp_q`` (the uniform table of LDA) until a
    document with tasks copies its own in."""
    rec = np.zeros(R * n_k.size)
    rows = rec.reshape(n_k.size, R)
    for k in range(n_k.size):
        rows[k, R_N_K] = n_k[k]
        rows[k, R_INV_FROZEN] = inv_frozen[k]
        rows[k, R_EXP_Q] = exp_q[k]
    return rec


@njit(cache=True, fastmath=FAST)
def collapsed_docs(doc_lo, doc_hi, tokens, counts, prior, words, supervision, mode, tasks, n_mh, streams, log,
                     region, stale, max_length):
    """The collapsed sweep over documents [doc_lo, doc_hi) with
    the hashed counts ``words`` (``WordHash``) and ``counts.n_k``; ``counts.n_wk`` is not read.
    Each token that changes topic is logged in ``log`` at e = the range's first token on;
    returns how many were logged. It writes its doc and exp proposal tables into word_table's
    scratch ``region`` (0, 1, ... for each thread; ``proposal_scratch`` entries each, after the
    word tables; ``max_length``: the corpus' longest document, which sizes each region). ``stale``
    (a thread of a parallel sweep): the hash is only read, as the last merge left it, each token
    seeing it without itself, and ``counts.n_k`` (the thread's copy) is left as it was; the logged
    moves update both afterwards."""
    mode, tasks, n_mh = fixed(mode), fixed(tasks), fixed(n_mh)  # constants of the code ``sweeps_for`` compiles
    word_ids, doc_ptr, z = tokens
    n_dk, _, n_k = counts
    alpha, alpha_prob, alpha_alias = prior
    beta, vbeta, word_meta, slots, top, word_table, inv_frozen = words
    eta, kappa, w = supervision
    moved, moved_from = log
    n_tasks = eta.shape[0] if tasks == SEVERAL else tasks
    (eta_kt, alpha_sum, alpha_flat, a, b, p, exp_w, exp_prob, exp_alias, exp_q, small, large, prop_kind,
     prop_topic) = sweep_scratch(eta, alpha, n_mh)
    n_kinds = 3 if n_tasks > 0 else 2
    exp_per_token = exp_draws_per_token(mode, n_mh)
    n_topics = n_k.size
    own = n_topics  # the doc-table topic of the token being sampled (no topic has this index)
    last = word_meta.shape[0] - 1
    dense_lo = word_meta[last, SP_LO] + word_meta[last, SP_N]
    meta_f = word_meta.view(np.float64)
    table_topics = topic_view(word_table)
    first_doc, last_doc, move_start = doc_lo, doc_hi, doc_ptr[doc_lo]
    n_moved = move_start
    own_count = 1 if stale else 0  # a token's own count, in the hash's counts while it is sampled
    dense_per_topic = 0.0  # the word proposal's dense mass / K: its normalizer is scale_dense times this
    for k in range(n_topics):
        dense_per_topic += beta * inv_frozen[k]
    dense_per_topic /= n_topics
    # every proposal kind draws through its row from entries of word_table (``draw_kind``): the
    # word's own row is set per token, the doc's per document, the exp's once
    alpha_lo = dense_lo + n_topics + region * proposal_scratch(n_topics, max_length)
    exp_lo = alpha_lo + n_topics
    doc_lo = exp_lo + n_topics
    if TABLE_STRIDE * (doc_lo + max_length) > word_table.size:
        raise ValueError("word_table has no room for this thread's proposal tables")
    put_alias(word_table, table_topics, alpha_lo, alpha_prob, alpha_alias)
    if n_tasks == 0:  # the uniform exp table of LDA (proposal mode "exp" only)
        put_alias(word_table, table_topics, exp_lo, exp_prob, exp_alias)
    rows_f, rows_i = np.zeros(3 * ROW), np.zeros(3 * ROW, np.int64)
    set_row(rows_f, rows_i, EXP, 2.0, n_topics, exp_lo, n_topics, n_topics, exp_lo, n_topics)
    # what an MH step reads of a proposed topic, side by side in one 32-byte record (``_records``)
    rec = _records(n_k, inv_frozen, exp_q)
    rec_exp_q = rec[3::R]  # the exp table writes its q into the records (R_EXP_Q)
    meta_flat = word_meta.reshape(word_meta.size)
    end_all = doc_ptr[last_doc]
    for d in range(first_doc, last_doc):
        start, end = doc_ptr[d], doc_ptr[d + 1]
        length = end - start
        if length == 0:
            continue
        s_idx = d // DOCS_PER_STREAM
        state = streams[s_idx]
        if n_tasks > 0:
            enter_doc(eta, eta_kt, n_dk, d, kappa, w, length, a, b, p, False, exp_w, exp_prob, exp_alias,
                       rec_exp_q, small, large, length * exp_per_token)
            put_alias(word_table, table_topics, exp_lo, exp_prob, exp_alias)
        for i in range(start, end):
            put_doc_topic(word_table, table_topics, doc_lo + i - start, z[i])
        # doc proposal (n_dk + alpha_k) / (N_d + alpha_sum): a token's topic with probability
        # N_d / (N_d + alpha_sum), else a draw from alpha
        set_row(rows_f, rows_i, DOC, length / (length + alpha_sum), length + alpha_sum, doc_lo, length,
                 n_topics * (length + alpha_sum) / alpha_sum, alpha_lo, n_topics)
        doc_moved = n_moved
        inv_doc = 1.0 / (length + alpha_sum)
        for i in range(start, end):
            rec[np.uint64(R * z[i]) + R_N_D] += 1.0
        for i in range(start, end):
            if i + 2 < end_all:  # the next tokens' word rows, hash slots and sparse proposal entries
                prefetch(meta_flat, META_COLUMNS * word_ids[i + 2])
                v1 = word_ids[i + 1]
                prefetch(slots, 3 * (word_meta[v1, BASE] + (z[i + 1] & word_meta[v1, MASK])))
                prefetch(word_table, TABLE_STRIDE * word_meta[v1, SP_LO])
            v = word_ids[i]
            s0 = z[i]
            s = np.int64(s0)
            base = word_meta[v, BASE]  # one cache line: the word's block and proposal entries
            mask = word_meta[v, MASK]
            lo = word_meta[v, SP_LO]
            n_sparse = word_meta[v, SP_N]
            frac = meta_f[v, FRAC]
            scale_sparse = meta_f[v, SCALE_SPARSE]
            scale_dense = meta_f[v, SCALE_DENSE]
            # indices below are cast to unsigned: they are never negative, and numba then skips
            # its negative-index wraparound code
            js = find_slot(slots, base, mask, s)
            us = np.uint64(s)
            if not stale:
                slots[np.uint64(3 * js + CUR)] -= 1
            rs = np.uint64(R * s)
            rec[rs + R_N_D] -= 1.0
            rec[rs + R_N_K] -= 1.0
            g_s = 0.0
            if n_tasks > 0:
                move_task_terms(eta_kt, b, p, s, -1.0, n_tasks)
                g_s = topic_g(eta_kt, b, p, s, n_tasks)
            # f_k = (n_kw + beta) / (n_k + Vbeta) kept as numerator and denominator: the ratio is
            # cross-multiplied, no division per step
            fn_s = slots[np.uint64(3 * js + CUR)] - own_count + beta
            fd_s = rec[rs + R_N_K] + vbeta
            qw_s = (slots[np.uint64(3 * js + FROZEN)] + beta) * rec[rs + R_INV_FROZEN]
            # the doc factor at s (n_d does not change during the steps)
            a_s = rec[rs + R_N_D] + (alpha_flat if alpha_flat > 0.0 else alpha[us])
            c_doc = c_exp = mix_s = 0.0
            if mode == MIXTURE:  # the mixture's density at s, times 3 z_w (the word normalizer)
                z_w = scale_dense * dense_per_topic
                c_doc = z_w * inv_doc
                c_exp = z_w if n_tasks > 0 else 0.0
                mix_s = c_doc * a_s + qw_s + c_exp * rec[rs + R_EXP_Q]
            # all n_mh proposals first: none depends on the chain's moves, so their table reads and
            # the hash lines of the topics they propose are fetched side by side, not one by one.
            # The token's own doc entry proposes its current topic, whichever step draws it: marked
            # ``own`` (= K), it is a step that stays put
            put_doc_topic(word_table, table_topics, doc_lo + i - start, own)
            set_row(rows_f, rows_i, WORD, frac, scale_sparse, lo, n_sparse, scale_dense, dense_lo, n_topics)
            digits = 0.0
            for step in range(n_mh):
                state, digits, kind = proposal_kind(state, digits, mode, step, n_kinds)
                state, t_new = draw_kind(state, rows_f, rows_i, kind, word_table, table_topics)
                prop_kind[step] = kind
                prop_topic[step] = t_new
                prefetch(slots, 3 * (base + (t_new & mask)))
                prefetch(rec, R * t_new)
            for step in range(n_mh):
                kind = prop_kind[step]
                t_new = prop_topic[step]
                if n_tasks > 0:  # an exp draw rejected on its try (``exp_table``) is made again here,
                    while t_new < 0:  # where the check is cheaper than among the draws above
                        state, t_new = draw_kind(state, rows_f, rows_i, kind, word_table, table_topics)
                if t_new == s or t_new == own:
                    continue
                ut = np.uint64(t_new)
                rt = np.uint64(R * t_new)
                jt = find_slot(slots, base, mask, t_new)
                # the slot the probe stopped at: the topic's, or an empty one with zero counts
                j_read = np.uint64(jt if jt >= 0 else -jt - 1)
                cur_t = slots[3 * j_read + CUR] - (own_count if t_new == s0 else 0)
                frozen_t = slots[3 * j_read + FROZEN]
                g_t = topic_g(eta_kt, b, p, t_new, n_tasks) if n_tasks > 0 else 0.0
                fn_t = cur_t + beta
                fd_t = rec[rt + R_N_K] + vbeta
                qw_t = (frozen_t + beta) * rec[rt + R_INV_FROZEN]
                # target ratio without the doc factor, which the doc proposal cancels exactly
                num = fn_t * fd_s
                den = fn_s * fd_t
                a_t = rec[rt + R_N_D] + (alpha_flat if alpha_flat > 0.0 else alpha[ut])
                mix_t = 0.0
                if mode == MIXTURE:  # the mixture's own density at t and s (times 3 z_w, a common factor)
                    mix_t = c_doc * a_t + qw_t
                    if n_tasks > 0:
                        mix_t += c_exp * rec[rt + R_EXP_Q]
                    num *= a_t * mix_s
                    den *= a_s * mix_t
                elif kind != DOC:
                    num *= a_t
                    den *= a_s
                    if kind == WORD:
                        num *= qw_s
                        den *= qw_t
                    else:
                        num *= rec[np.uint64(R * s) + R_EXP_Q]
                        den *= rec[rt + R_EXP_Q]
                state, accept = mh_accept(state, num, den, g_t - g_s, n_tasks > 0)
                if accept:
                    s = t_new
                    js = jt
                    g_s = g_t
                    fn_s = fn_t
                    fd_s = fd_t
                    qw_s = qw_t
                    a_s = a_t
                    mix_s = mix_t
            z[i] = s
            rs = np.uint64(R * s)
            rec[rs + R_N_D] += 1.0
            if stale:
                rec[np.uint64(R * s0) + R_N_K] += 1.0
            else:
                if js < 0:  # a topic new to this word since the last compaction
                    js = insert_topic(word_meta, slots, top, v, s, -js - 1)
                slots[np.uint64(3 * js + CUR)] += 1
                rec[rs + R_N_K] += 1.0
            if n_tasks > 0:
                move_task_terms(eta_kt, b, p, s, 1.0, n_tasks)
            put_doc_topic(word_table, table_topics, doc_lo + i - start, s)
            if s != s0:
                moved[n_moved] = i
                moved_from[n_moved] = s0
                n_moved += 1
        _leave_doc(n_dk, d, rec, z, start, end, moved, moved_from, doc_moved, n_moved, n_tasks > 0)
        streams[s_idx] = state
    for k in range(n_topics):
        n_k[k] = np.int64(rec[np.uint64(R * k) + R_N_K])
    return n_moved - move_start


@njit(cache=True, inline="always")
def _leave_doc(n_dk, d, rec, z, start, end, moved, moved_from, first_move, end_move, write_back):
    """Clear the records' n_d for the next document and, when ``write_back``, first write
    document d's counts from them into its row of n_dk (only the topics a logged move changed):
    O(N_d). LDA does not (its sweep never reads n_dk, which is refilled from z when read), so its
    sweep makes no scattered writes into D x K rows that would evict the hash's cache lines."""
    if write_back:
        for e in range(first_move, end_move):
            old = moved_from[e]
            new = z[moved[e]]
            n_dk[d, old] = np.int64(rec[np.uint64(R * old) + R_N_D])
            n_dk[d, new] = np.int64(rec[np.uint64(R * new) + R_N_D])
    for i in range(start, end):
        rec[np.uint64(R * z[i]) + R_N_D] = 0.0
