"""LightMedLDA token sweeps (SPEC §4, §4a): Metropolis-Hastings with doc, word and exp proposals.

O(n_mh) per token plus O(K * T) per document for its exp table. Two variants:
``light_sweep_collapsed`` is the papers' sampler: target (2) with the current counts, the word
proposal frozen at sweep start (sparse per-word part + one dense shared part, ``word_hash``), the
exp table from the m_dt at document entry, and both stored values used in the ratio (small,
measured bias: the proposals depend on stale counts). ``light_sweep_exact`` is the partially
collapsed sampler: target (2b) with an explicit phi, word tables from phi and the exp table from
per-sweep constants only, so every proposal is a fixed function of (phi, eta, aux): exact.
``sweeps_for(mode, tasks, n_mh)`` gives both, compiled for one proposal mode, task kind and n_mh.
"""

import functools
from typing import Callable, NamedTuple

import numpy as np
from numba import njit, prange

from medlda._kernels.alias import build_alias, draw_alias
from medlda._kernels.common import (add_average, all_topic_g, doc_task_terms, finish_average, fixed, max_doc_length, move_task_terms,
                     topic_g)
from medlda._kernels.fastexp import exp_above, fast_exp, fast_exp_lanes
from medlda._kernels.prefetch import prefetch
from medlda._kernels.rng import DOCS_PER_STREAM, block_docs, doc_state, next_below, next_uniform
from medlda._kernels.light.word_hash import (BASE, CUR, FRAC, FROZEN, MASK, META_COLUMNS, SCALE_DENSE, SCALE_SPARSE, SP_LO, SP_N,
                        TABLE_STRIDE, draw_split, find_slot, insert_topic, put_entry, topic_view)

MIXTURE, CYCLE, DOC, WORD, EXP, SCAN = 0, 1, 2, 3, 4, 5
PROPOSAL_MODES = {"mixture": MIXTURE, "scan": SCAN, "cycle": CYCLE, "doc": DOC, "word": WORD, "exp": EXP}
# "mixture" and "scan" draw the same proposal: each step picks doc, word or exp uniformly at random.
# "scan" accepts with the chosen proposal's own ratio (a random scan over three MH kernels, the
# papers' code); "mixture" with the ratio of the mixture q = (q_doc + q_word + q_exp) / 3 itself.
# Both leave the target invariant; the mixture's acceptance is never smaller (Peskun order:
# sum_j min(a_j, b_j) <= min(sum a_j, sum b_j)), and much larger for a topic the labels favour
# but the word and document do not yet hold: its exp factor no longer cancels in the ratio.

# The light kernels allow reassociation and fused multiply-adds (no other fast-math assumption:
# NaN and inf keep their meaning), so sums over tasks and topics are vectorized: 25% fewer
# instructions per token on the 20-class task at K = 100.
FAST = {"reassoc", "contract"}

SEVERAL = -1  # ``tasks`` of a kernel: T when it is 0 or 1, else this


def task_kind(n_tasks: int) -> int:
    """``sweeps_for``'s ``tasks`` for T tasks: T itself for 0 (LDA) or 1 (binary), else
    ``SEVERAL``."""
    return n_tasks if n_tasks <= 1 else SEVERAL


_KINDS_PER_DRAW = 16  # mixture steps served by one uniform (each uses log2(3) of its 53 bits)


@njit(cache=True, inline="always")
def _proposal_kind(state, digits, mode, step, n_kinds):
    """Which proposal MH step ``step`` uses: a random one (mixture, scan), in turn (cycle), or
    fixed. For a random one, ``digits`` is a uniform on [0, 1) whose base-n_kinds digits pick the
    kinds of ``_KINDS_PER_DRAW`` steps, so a step costs no RNG call (even a slightly uneven pick
    would keep the target: every kind is a valid MH kernel on its own). Returns (state, digits,
    kind)."""
    if mode == MIXTURE or mode == SCAN:
        if step % _KINDS_PER_DRAW == 0:
            state, digits = next_uniform(state)
        digits *= n_kinds
        kind = np.int64(digits)
        digits -= kind
        return state, digits, min(kind, n_kinds - 1) + DOC
    if mode == CYCLE:
        return state, digits, DOC + step % n_kinds
    return state, digits, mode


OWN = -1  # a doc proposal of the token being sampled: its current topic
FROM_ALPHA = -2  # a doc proposal drawn from alpha, not from a token


@njit(cache=True, inline="always")
def _doc_token(state, start, length, i, alpha_sum):
    """Doc proposal (n_dk + alpha_k) / (N_d + alpha_sum) for token i, its own topic included: the
    topic of a uniformly chosen token of the document, or a draw from alpha. One uniform x on
    [0, N_d + alpha_sum) does both: below N_d its integer part is the token. Returns (state, j):
    the token's index, ``OWN`` for token i itself (drawn before its MH steps, so its topic of the
    moment: no move), or ``FROM_ALPHA``. It takes no arrays: numba wraps an inlined helper that
    reads an array on some paths only in reference-count calls, which cost about a quarter of an
    LDA sweep at K = 100."""
    state, u = next_uniform(state)
    x = u * (length + alpha_sum)
    if x < length:
        j = start + min(np.int64(x), length - 1)
        return state, j if j != i else OWN
    return state, FROM_ALPHA


@njit(cache=True, inline="always")
def _mh_accept(state, num, den, x, tilted):
    """Whether an MH step accepts the ratio num / den, times e^x when ``tilted`` (a supervised
    model's exp(G_d(t) - G_d(s))). Uphill moves are accepted without a draw. A downhill move draws
    its uniform u and rejects if u den is above num times the cheap ``exp_above(x)``; only the
    rest pay for the exp. Same uniforms and decisions as comparing with num e^x itself; an MH
    step takes 4-5% less of a binary sweep (about 92% of its steps reject). Returns (state, accept)."""
    if tilted:
        num_above = num * exp_above(x)
        if num_above < den:  # downhill for sure
            state, u = next_uniform(state)
            ud = u * den
            return state, ud < num_above and ud < num * fast_exp(x)
        num *= fast_exp(x)
    if num < den:
        state, u = next_uniform(state)
        return state, u * den < num
    return state, True


@njit(cache=True)
def _exp_scratch(n_tasks, n_topics):
    """Buffers of the per-document exp table (weights, prob, alias, q, small, large); with no
    tasks the table is uniform, built once (only reached in proposal mode "exp")."""
    exp_w = np.ones(n_topics)
    exp_prob = np.empty(n_topics)
    exp_alias = np.empty(n_topics, np.int64)
    exp_q = np.empty(n_topics)
    small = np.empty(n_topics, np.int64)
    large = np.empty(n_topics, np.int64)
    if n_tasks == 0:
        build_alias(exp_w, exp_prob, exp_alias, exp_q, small, large)
    return exp_w, exp_prob, exp_alias, exp_q, small, large


@njit(cache=True)
def _sweep_scratch(eta, alpha, n_mh):
    """What every light sweep sets up once: eta transposed (K, T) so that G_d(k) reads one topic's
    weights side by side, alpha_sum, ``alpha_flat`` (the common alpha_k of a symmetric prior, else
    -1: the MH steps then read no K-vector for it, one array fewer competing for L1 at large K;
    2.6 of 17.5 L1 misses per LDA token at K = 1000), the per-document task terms a, b, p
    (``doc_task_terms``), the exp-table buffers, and the kinds and topics of a token's n_mh
    proposals (drawn before its steps)."""
    n_tasks, n_topics = eta.shape
    alpha_sum = 0.0
    alpha_flat = alpha[0]
    for k in range(n_topics):
        alpha_sum += alpha[k]
        if alpha[k] != alpha[0]:
            alpha_flat = -1.0
    exp_w, exp_prob, exp_alias, exp_q, small, large = _exp_scratch(n_tasks, n_topics)
    return (np.ascontiguousarray(eta.T), alpha_sum, alpha_flat, np.zeros(n_tasks), np.zeros(n_tasks),
            np.zeros(n_tasks), exp_w, exp_prob, exp_alias, exp_q, small, large, np.empty(n_mh, np.int64),
            np.empty(n_mh, np.int64))


@njit(cache=True, inline="always")
def _enter_doc(eta, eta_kt, n_dk, d, kappa, w, length, a, b, p, exact, exp_w, exp_prob, exp_alias, exp_q,
               small, large, n_draws):
    """On entering document d of a model with tasks: its task terms a, b, p, and the exp table
    for about ``n_draws`` draws, built from its m_dt of this moment for the collapsed sampler and
    from m_dt = 0 (p = a, a per-sweep constant) for the exact one. Callers skip it for LDA, whose
    sweeps then read no row of n_dk (K counts a document: 45 MB a sweep at K = 1000)."""
    doc_task_terms(eta_kt, n_dk, d, kappa, w, length, a, b, p)
    exp_table(eta, b, a if exact else p, exp_w, exp_prob, exp_alias, exp_q, small, large, n_draws)


REJECT = -1  # the alias of a rejection table's entry: the try is rejected and the draw made again
REJECTION_BUDGET = 0.5  # retries a document's draws may cost, per topic, before Vose's build is cheaper


@njit(cache=True, fastmath=FAST)
def exp_table(eta, b, p, exp_w, exp_prob, exp_alias, exp_q, small, large, n_draws):
    """The exp proposal q(k) = exp(G_d(k)) / Z given p (SPEC §4): O(K * T). ``exp_q`` gets q and
    (exp_prob, exp_alias) a table that draws from it, in one of two forms, whichever costs less
    for about ``n_draws`` draws. Weights scaled to a maximum of 1 are already a rejection table
    (a uniform entry k, kept with probability w_k, else ``REJECT``: draw again), which takes
    K / Z tries a draw and no build; Vose's table takes one try but a build of about 7 ns a topic.
    Half the binary task's documents at K = 400 have Z / K above 0.89, while a tenth are peaked
    below 0.11 (warm state), so each gets the form that suits it. Draws from both follow q
    exactly (a draw accepted on its try j is k with probability w_k / Z for every j)."""
    gmax = all_topic_g(eta, b, p, exp_w)
    n_topics = exp_w.size
    total = 0.0
    for k in range(n_topics):
        x = min(fast_exp_lanes(exp_w[k] - gmax), 1.0)  # at most 1: a probability of keeping k
        exp_w[k] = x
        total += x
    if n_draws * (n_topics / total - 1.0) <= REJECTION_BUDGET * n_topics:
        inv = 1.0 / total
        for k in range(n_topics):
            exp_prob[k] = exp_w[k]
            exp_alias[k] = REJECT
            exp_q[k] = exp_w[k] * inv
    else:
        build_alias(exp_w, exp_prob, exp_alias, exp_q, small, large)


@njit(cache=True, inline="always")
def exp_draws_per_token(mode, n_mh):
    """How many of a token's n_mh MH steps draw the exp proposal, on average, in ``mode``."""
    if mode == MIXTURE or mode == SCAN:
        return n_mh / 3.0
    if mode == CYCLE:
        return float((n_mh + 1) // 3)  # steps 2, 5, 8, ...
    return float(n_mh) if mode == EXP else 0.0


ROW = 4  # a proposal row's fields: p_a, scale_a, scale_b as float64; lo_a, n_a, lo_b, n_b as int64
DOC_ENTRY = 2.0  # a doc-proposal entry's probability: above any fraction, so the entry's own topic is drawn


@njit(cache=True)
def proposal_scratch(n_topics: int, max_length: int) -> int:
    """word_table entries one collapsed sweep (one thread of it) writes after the word tables: the
    doc proposal's alpha part (K), the document's exp table (K) and its tokens' topics (the
    longest document's length)."""
    return 2 * n_topics + max_length


@njit(cache=True, inline="always")
def _set_row(rows_f, rows_i, kind, p_a, scale_a, lo_a, n_a, scale_b, lo_b, n_b):
    """Proposal row of ``kind`` (DOC, WORD, EXP): the ``draw_split`` parameters of its draw."""
    r = ROW * (kind - DOC)
    rows_f[r] = p_a
    rows_f[r + 1] = scale_a
    rows_f[r + 2] = scale_b
    rows_i[r] = lo_a
    rows_i[r + 1] = n_a
    rows_i[r + 2] = lo_b
    rows_i[r + 3] = n_b


@njit(cache=True, inline="always")
def _draw_kind(state, rows_f, rows_i, kind, word_table, table_topics):
    """A draw from the proposal of ``kind`` through its row: every kind is two alias tables in
    word_table's entries, so one code path serves all three and a step's random kind costs no
    branch (three-way on random data, it was mispredicted about four times a token: a sweep takes
    0.82-0.93x the time without it, docs/performance.md)."""
    r = np.uint64(ROW * (kind - DOC))
    one, two, three = np.uint64(1), np.uint64(2), np.uint64(3)
    return draw_split(state, word_table, table_topics, rows_f[r], rows_f[r + one], rows_i[r], rows_i[r + one],
                      rows_f[r + two], rows_i[r + two], rows_i[r + three])


@njit(cache=True, inline="always")
def _put_alias(word_table, table_topics, lo, prob, alias):
    """An alias table (prob, alias) of K topics as word_table entries lo, ..., lo + K - 1."""
    for k in range(prob.size):
        put_entry(word_table, table_topics, lo + k, prob[k], k, alias[k])


@njit(cache=True, inline="always")
def _put_doc_topic(word_table, table_topics, e, k):
    """Entry e of the doc proposal: token topic k, always drawn."""
    put_entry(word_table, table_topics, e, DOC_ENTRY, k, k)


R = 4  # a topic record's float64 fields, unsigned offsets (uint64 + int64 would give float64 in numba):
R_N_K, R_INV_FROZEN, R_N_D, R_EXP_Q = np.uint64(0), np.uint64(1), np.uint64(2), np.uint64(3)


@njit(cache=True)
def _records(n_k, inv_frozen, exp_q):
    """(K * R,) float64: per topic n_k, 1 / (frozen n_k + V beta), the document's n_dk and its exp
    q, in one 32-byte record, so an MH step reads one cache line of a proposed topic where four
    K-vectors cost up to four L1 misses (they pass L1 at K = 1000). Counts as float64 are exact
    and give the same ratios as the integer arrays. exp q is ``exp_q`` (the uniform table of LDA)
    until a document with tasks copies its own in."""
    rec = np.zeros(R * n_k.size)
    rows = rec.reshape(n_k.size, R)
    for k in range(n_k.size):
        rows[k, R_N_K] = n_k[k]
        rows[k, R_INV_FROZEN] = inv_frozen[k]
        rows[k, R_EXP_Q] = exp_q[k]
    return rec


@njit(cache=True, fastmath=FAST)
def _collapsed_blocks(block_lo, block_hi, word_ids, doc_ptr, z, n_dk, n_k, alpha, alpha_prob, alpha_alias,
                      beta, vbeta, word_meta, slots, top, word_table, inv_frozen, eta, kappa, w, mode, tasks,
                      n_mh, streams, moved, moved_from, region):
    """The collapsed sweep over the documents of random-stream blocks [block_lo, block_hi), with
    its own hash (``word_meta``, ``slots``, ``top``) and ``n_k`` (the shared ones, or a thread's
    copies). Each token that changes
    topic is logged at moved[e], moved_from[e] from e = the block range's first token on; returns
    how many were logged. It writes its doc and exp proposal tables into word_table's scratch
    ``region`` (0, 1, ... for each thread; ``proposal_scratch`` entries each, after the word tables)."""
    mode, tasks, n_mh = fixed(mode), fixed(tasks), fixed(n_mh)  # constants of the code ``sweeps_for`` compiles
    n_tasks = eta.shape[0] if tasks == SEVERAL else tasks
    (eta_kt, alpha_sum, alpha_flat, a, b, p, exp_w, exp_prob, exp_alias, exp_q, small, large, prop_kind,
     prop_topic) = _sweep_scratch(eta, alpha, n_mh)
    n_kinds = 3 if n_tasks > 0 else 2
    exp_per_token = exp_draws_per_token(mode, n_mh)
    n_topics = n_k.size
    last = word_meta.shape[0] - 1
    dense_lo = word_meta[last, SP_LO] + word_meta[last, SP_N]
    meta_f = word_meta.view(np.float64)
    table_topics = topic_view(word_table)
    first_doc, last_doc, move_start = block_docs(block_lo, block_hi, doc_ptr)
    n_moved = move_start
    dense_per_topic = 0.0  # the word proposal's dense mass / K: its normalizer is scale_dense times this
    for k in range(n_topics):
        dense_per_topic += beta * inv_frozen[k]
    dense_per_topic /= n_topics
    # every proposal kind draws through its row from entries of word_table (``_draw_kind``): the
    # word's own row is set per token, the doc's per document, the exp's once
    max_length = max_doc_length(doc_ptr)
    alpha_lo = dense_lo + n_topics + region * proposal_scratch(n_topics, max_length)
    exp_lo = alpha_lo + n_topics
    doc_lo = exp_lo + n_topics
    if TABLE_STRIDE * (doc_lo + max_length) > word_table.size:
        raise ValueError("word_table has no room for this thread's proposal tables")
    _put_alias(word_table, table_topics, alpha_lo, alpha_prob, alpha_alias)
    if n_tasks == 0:  # the uniform exp table of LDA (proposal mode "exp" only)
        _put_alias(word_table, table_topics, exp_lo, exp_prob, exp_alias)
    rows_f, rows_i = np.zeros(3 * ROW), np.zeros(3 * ROW, np.int64)
    _set_row(rows_f, rows_i, EXP, 2.0, n_topics, exp_lo, n_topics, n_topics, exp_lo, n_topics)
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
            _enter_doc(eta, eta_kt, n_dk, d, kappa, w, length, a, b, p, False, exp_w, exp_prob, exp_alias,
                       rec_exp_q, small, large, length * exp_per_token)
            _put_alias(word_table, table_topics, exp_lo, exp_prob, exp_alias)
        for i in range(start, end):
            _put_doc_topic(word_table, table_topics, doc_lo + i - start, z[i])
        # doc proposal (n_dk + alpha_k) / (N_d + alpha_sum): a token's topic with probability
        # N_d / (N_d + alpha_sum), else a draw from alpha
        _set_row(rows_f, rows_i, DOC, length / (length + alpha_sum), length + alpha_sum, doc_lo, length,
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
            # its negative-index wraparound code (a third of the instructions of an MH step)
            js = find_slot(slots, base, mask, s)
            us = np.uint64(s)
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
            fn_s = slots[np.uint64(3 * js + CUR)] + beta
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
            # all n_mh proposals first: none depends on the chain's moves (a doc proposal of token i
            # itself reads its entry's topic s, a rejected step), so their table reads and the hash
            # lines of the topics they propose are fetched side by side, not one by one
            _set_row(rows_f, rows_i, WORD, frac, scale_sparse, lo, n_sparse, scale_dense, dense_lo, n_topics)
            digits = 0.0
            for step in range(n_mh):
                state, digits, kind = _proposal_kind(state, digits, mode, step, n_kinds)
                state, t_new = _draw_kind(state, rows_f, rows_i, kind, word_table, table_topics)
                prop_kind[step] = kind
                prop_topic[step] = t_new
                prefetch(slots, 3 * (base + (t_new & mask)))
                prefetch(rec, R * t_new)
            for step in range(n_mh):
                kind = prop_kind[step]
                t_new = prop_topic[step]
                if n_tasks > 0:  # an exp draw rejected on its try (``exp_table``) is made again here: the
                    while t_new < 0:  # check costs 0.7% of a binary sweep, against 3% among the draws above
                        state, t_new = _draw_kind(state, rows_f, rows_i, kind, word_table, table_topics)
                if t_new == s:
                    continue
                ut = np.uint64(t_new)
                rt = np.uint64(R * t_new)
                jt = find_slot(slots, base, mask, t_new)
                # the slot the probe stopped at: the topic's, or an empty one with zero counts
                j_read = np.uint64(jt if jt >= 0 else -jt - 1)
                cur_t = slots[3 * j_read + CUR]
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
                state, accept = _mh_accept(state, num, den, g_t - g_s, n_tasks > 0)
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
            if js < 0:  # a topic new to this word since the last compaction
                js = insert_topic(word_meta, slots, top, v, s, -js - 1)
            rs = np.uint64(R * s)
            slots[np.uint64(3 * js + CUR)] += 1
            rec[rs + R_N_D] += 1.0
            rec[rs + R_N_K] += 1.0
            if n_tasks > 0:
                move_task_terms(eta_kt, b, p, s, 1.0, n_tasks)
            if s != s0:
                moved[n_moved] = i
                moved_from[n_moved] = s0
                n_moved += 1
                _put_doc_topic(word_table, table_topics, doc_lo + i - start, s)
        _leave_doc(n_dk, d, rec, z, start, end, moved, moved_from, doc_moved, n_moved, n_tasks > 0)
        streams[s_idx] = state
    for k in range(n_topics):
        n_k[k] = np.int64(rec[np.uint64(R * k) + R_N_K])
    return n_moved - move_start


@njit(cache=True, inline="always")
def _leave_doc(n_dk, d, rec, z, start, end, moved, moved_from, first_move, end_move, write_back):
    """Clear the records' n_d for the next document and, when ``write_back``, first write
    document d's counts from them into its row of n_dk (only the topics a logged move changed):
    O(N_d). LDA does not (its sweep never reads n_dk; ``SamplerState.n_dk`` refills it from z
    when read): at K = 1000 the scattered writes into the D x K rows evict the hash's lines."""
    if write_back:
        for e in range(first_move, end_move):
            old = moved_from[e]
            new = z[moved[e]]
            n_dk[d, old] = np.int64(rec[np.uint64(R * old) + R_N_D])
            n_dk[d, new] = np.int64(rec[np.uint64(R * new) + R_N_D])
    for i in range(start, end):
        rec[np.uint64(R * z[i]) + R_N_D] = 0.0


@njit(cache=True, fastmath=FAST)
def _exact_blocks(block_lo, block_hi, word_ids, doc_ptr, z, n_dk, alpha, alpha_prob, alpha_alias, phi_wk,
                  word_prob, word_alias, word_mass, eta, kappa, w, mode, tasks, n_mh, streams, moved, moved_from):
    """The partially collapsed sweep over the documents of random-stream blocks [block_lo,
    block_hi). Reads nothing another block writes (phi is fixed, n_kw and n_k do not enter
    (2b)), so blocks can run in any order or in parallel with identical results; changed tokens
    are logged as in ``_collapsed_blocks``. ``word_mass`` (V,): sum_k phi_wk[v, k], the word
    proposal's normalizer (for the mixture's ratio)."""
    mode, tasks, n_mh = fixed(mode), fixed(tasks), fixed(n_mh)  # constants of the code ``sweeps_for`` compiles
    n_tasks = eta.shape[0] if tasks == SEVERAL else tasks
    (eta_kt, alpha_sum, alpha_flat, a, b, p, exp_w, exp_prob, exp_alias, exp_q, small, large, prop_kind,
     prop_topic) = _sweep_scratch(eta, alpha, n_mh)
    n_kinds = 3 if n_tasks > 0 else 2
    exp_per_token = exp_draws_per_token(mode, n_mh)
    first_doc, last_doc, move_start = block_docs(block_lo, block_hi, doc_ptr)
    n_moved = move_start
    n_topics = n_dk.shape[1]
    end_all = doc_ptr[last_doc]
    for d in range(first_doc, last_doc):
        start, end = doc_ptr[d], doc_ptr[d + 1]
        length = end - start
        if length == 0:
            continue
        s_idx = d // DOCS_PER_STREAM
        state = streams[s_idx]
        if n_tasks > 0:
            _enter_doc(eta, eta_kt, n_dk, d, kappa, w, length, a, b, p, True, exp_w, exp_prob, exp_alias, exp_q,
                       small, large, length * exp_per_token)
        inv_doc = 1.0 / (length + alpha_sum)
        for i in range(start, end):
            if i + 1 < end_all:  # the next token's phi entry
                prefetch(phi_wk, word_ids[i + 1] * n_topics + z[i + 1])
            v = word_ids[i]
            s0 = z[i]
            s = np.int64(s0)
            n_dk[d, s] -= 1
            g_s = 0.0
            if n_tasks > 0:
                move_task_terms(eta_kt, b, p, s, -1.0, n_tasks)
                g_s = topic_g(eta_kt, b, p, s, n_tasks)
            f_s = phi_wk[v, s]
            # the doc factor at s (the row does not change during the steps)
            a_s = n_dk[d, s] + (alpha_flat if alpha_flat > 0.0 else alpha[s])
            c_doc = c_exp = mix_s = 0.0
            if mode == MIXTURE:  # the mixture's density (doc + word + exp) / 3 at s, times 3 word_mass[v]
                c_doc = word_mass[v] * inv_doc
                c_exp = word_mass[v] if n_tasks > 0 else 0.0
                mix_s = c_doc * a_s + f_s + c_exp * exp_q[s]
            digits = 0.0  # all proposals first, as in ``_collapsed_blocks``
            for step in range(n_mh):
                state, digits, kind = _proposal_kind(state, digits, mode, step, n_kinds)
                if kind == DOC:
                    state, t_new = _doc_token(state, start, length, i, alpha_sum)
                    if t_new >= 0:
                        t_new = np.int64(z[np.uint64(t_new)])
                    elif t_new == FROM_ALPHA:
                        state, t_new = draw_alias(state, alpha_prob, alpha_alias)
                elif kind == WORD:
                    state, t_new = draw_alias(state, word_prob[v], word_alias[v])
                else:
                    state, t_new = draw_alias(state, exp_prob, exp_alias)
                    while t_new < 0:  # rejected on its try (``exp_table``)
                        state, t_new = draw_alias(state, exp_prob, exp_alias)
                prop_kind[step] = kind
                prop_topic[step] = t_new
                prefetch(phi_wk, v * n_topics + t_new)
                prefetch(n_dk, d * n_topics + t_new)
            for step in range(n_mh):
                kind = prop_kind[step]
                t_new = prop_topic[step]
                if t_new == s or t_new == OWN:
                    continue
                g_t = topic_g(eta_kt, b, p, t_new, n_tasks) if n_tasks > 0 else 0.0
                f_t = phi_wk[v, t_new]
                a_t = n_dk[d, t_new] + (alpha_flat if alpha_flat > 0.0 else alpha[t_new])
                mix_t = 0.0
                if mode == MIXTURE:
                    mix_t = c_doc * a_t + f_t + c_exp * exp_q[t_new]
                    num = a_t * f_t * mix_s
                    den = a_s * f_s * mix_t
                elif kind == DOC:  # the doc factor cancels
                    num = f_t
                    den = f_s
                elif kind == WORD:  # phi cancels
                    num = a_t
                    den = a_s
                else:
                    num = f_t * a_t * exp_q[s]
                    den = f_s * a_s * exp_q[t_new]
                state, accept = _mh_accept(state, num, den, g_t - g_s, n_tasks > 0)
                if accept:
                    s = t_new
                    g_s = g_t
                    f_s = f_t
                    a_s = a_t
                    mix_s = mix_t
            z[i] = s
            n_dk[d, s] += 1
            if n_tasks > 0:
                move_task_terms(eta_kt, b, p, s, 1.0, n_tasks)
            if s != s0:
                moved[n_moved] = i
                moved_from[n_moved] = s0
                n_moved += 1
        streams[s_idx] = state
    return n_moved - move_start


@njit(cache=True)
def apply_moves(word_ids, z, moved, moved_from, lo, n, n_wk, n_k, word_meta, slots, top):
    """Apply logged topic changes moved[lo:lo + n] to n_k, to dense n_wk unless it has no rows
    (the collapsed sweeps keep none: ``SamplerState.n_wk`` writes it from the hash when read)
    and, when ``slots`` is non-empty, to the hashed counts. One pass of independent scattered
    writes: their cache misses overlap, which the token loop's would not (V x K is 126 MB at
    K = 1000)."""
    dense = n_wk.shape[0] > 0
    for e in range(lo, lo + n):
        i = moved[e]
        v = word_ids[i]
        old = moved_from[e]
        new = z[i]
        if dense:
            n_wk[v, old] -= 1
            n_wk[v, new] += 1
        n_k[old] -= 1
        n_k[new] += 1
        if slots.size > 0:
            base = word_meta[v, BASE]
            mask = word_meta[v, MASK]
            slots[3 * find_slot(slots, base, mask, old) + CUR] -= 1
            j = find_slot(slots, base, mask, new)
            if j < 0:
                j = insert_topic(word_meta, slots, top, v, new, -j - 1)
            slots[3 * j + CUR] += 1


class Sweeps(NamedTuple):
    """The four light sweeps compiled for one proposal mode, task kind and n_mh (``sweeps_for``)."""
    collapsed: Callable
    collapsed_parallel: Callable
    exact: Callable
    exact_parallel: Callable


@functools.cache
def sweeps_for(mode: int, tasks: int, n_mh: int) -> Sweeps:
    """The light sweeps with proposal ``mode`` (``PROPOSAL_MODES``), ``tasks`` (``task_kind``) and
    ``n_mh`` fixed when they compile: each triple gets its own machine code (compiled on first
    call, a few seconds, then cached on disk like every kernel), in which a binary task's or LDA's
    sweep carries no code for other modes or for task loops, and a token's MH steps are unrolled.
    A binary sweep takes 0.93-0.94x the time at K = 100-400, an LDA sweep 0.88x at K = 100, against
    passing the three at run time (numba's ``literally`` would give the same code, but
    re-dispatches from Python in about 3 ms a call)."""

    @njit(cache=True)
    def light_sweep_collapsed(word_ids, doc_ptr, z, n_dk, n_k, alpha, alpha_prob, alpha_alias, beta,
                              vbeta, word_meta, slots, top, word_table, inv_frozen, eta, kappa, w, streams,
                              moved, moved_from):
        """One MH sweep of the collapsed light sampler; z, counts and streams updated in place.

        Target per token: (n_dk^- + alpha_k) (n_kw^- + beta) / (n_k^- + Vbeta) exp(G_d(k)). The
        topic-word counts live in the per-word hash (``word_meta``, ``slots``, ``top``, see
        ``word_hash``) and no dense n_wk is kept (``SamplerState.n_wk`` writes it from the hash when
        read); n_k is the records' count at the sweep's end, and ``n_dk`` is written only with tasks
        (``_leave_doc``, from the log of changed tokens ``moved``, ``moved_from``, (N,) scratch).
        The word proposal is the table ``compact_and_build`` made at sweep start; its q is read back
        from the frozen counts: q_v(k) proportional to (frozen n_kv + beta) * inv_frozen[k].
        """
        _collapsed_blocks(0, streams.size, word_ids, doc_ptr, z, n_dk, n_k, alpha, alpha_prob, alpha_alias, beta,
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
            counts[c] = _collapsed_blocks(chunks[c], chunks[c + 1], word_ids, doc_ptr, z, n_dk, own_n_k, alpha,
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
        streams updated in place. Target per token: (n_dk^- + alpha_k) phi_kw exp(G_d(k)). Word
        tables (prob, alias per word, (V, K)) draw k proportional to phi_kw, which cancels in the
        word ratio; the exp table comes from G_d with m_dt = 0 (a per-sweep constant), so no
        proposal depends on the current Z."""
        n_moved = _exact_blocks(0, streams.size, word_ids, doc_ptr, z, n_dk, alpha, alpha_prob, alpha_alias,
                                phi_wk, word_prob, word_alias, word_mass, eta, kappa, w, mode, tasks, n_mh,
                                streams, moved, moved_from)
        _apply_exact_moves(word_ids, z, moved, moved_from, 0, n_moved, n_wk, n_k)

    @njit(cache=True, parallel=True)
    def light_sweep_exact_parallel(chunks, word_ids, doc_ptr, z, n_dk, n_wk, n_k, alpha, alpha_prob, alpha_alias,
                                   phi_wk, word_prob, word_alias, word_mass, eta, kappa, w, streams, moved,
                                   moved_from):
        """``light_sweep_exact`` with the stream blocks split at ``chunks`` (C + 1,) across
        threads; the result does not depend on C (documents are independent given phi)."""
        n_chunks = chunks.size - 1
        counts = np.empty(n_chunks, np.int64)
        for c in prange(n_chunks):
            counts[c] = _exact_blocks(chunks[c], chunks[c + 1], word_ids, doc_ptr, z, n_dk, alpha, alpha_prob,
                                      alpha_alias, phi_wk, word_prob, word_alias, word_mass, eta, kappa, w, mode,
                                      tasks, n_mh, streams, moved, moved_from)
        for c in range(n_chunks):
            move_start = block_docs(chunks[c], chunks[c + 1], doc_ptr)[2]
            _apply_exact_moves(word_ids, z, moved, moved_from, move_start, counts[c], n_wk, n_k)

    return Sweeps(light_sweep_collapsed, light_sweep_collapsed_parallel, light_sweep_exact,
                  light_sweep_exact_parallel)


@njit(cache=True)
def _apply_exact_moves(word_ids, z, moved, moved_from, start, count, n_wk, n_k):
    """The logged moves into the dense counts (the exact variant keeps no hash)."""
    apply_moves(word_ids, z, moved, moved_from, start, count, n_wk, n_k,
                np.empty((0, 8), np.int64), np.empty(0, np.int32), np.empty(1, np.int64))


@njit(cache=True)
def light_infer_doc_topic(word_ids, doc_ptr, phi_wk, alpha, alpha_prob, alpha_alias, word_prob,
                          word_alias, n_burn, n_avg, n_mh, streams, out, doc_seeded=False):
    """Light inference for new documents against a fixed phi (SPEC §7): MH cycling doc and word
    proposals; the word tables from phi are static, so this is exact. ``out`` as in
    ``sparse_infer_doc_topic``: doc-topic counts averaged over the last ``n_avg`` sweeps; ``doc_seeded``
    as there."""
    _light_infer_blocks(0, streams.size, word_ids, doc_ptr, phi_wk, alpha, alpha_prob, alpha_alias, word_prob,
                        word_alias, n_burn, n_avg, n_mh, streams, out, doc_seeded)


@njit(cache=True, parallel=True)
def light_infer_doc_topic_parallel(chunks, word_ids, doc_ptr, phi_wk, alpha, alpha_prob, alpha_alias, word_prob,
                                   word_alias, n_burn, n_avg, n_mh, streams, out, doc_seeded=False):
    """``light_infer_doc_topic`` with the stream blocks split at ``chunks`` (C + 1,) across
    threads; the result does not depend on C."""
    for c in prange(chunks.size - 1):
        _light_infer_blocks(chunks[c], chunks[c + 1], word_ids, doc_ptr, phi_wk, alpha, alpha_prob, alpha_alias,
                            word_prob, word_alias, n_burn, n_avg, n_mh, streams, out, doc_seeded)


@njit(cache=True)
def _light_infer_blocks(block_lo, block_hi, word_ids, doc_ptr, phi_wk, alpha, alpha_prob, alpha_alias, word_prob,
                        word_alias, n_burn, n_avg, n_mh, streams, out, doc_seeded):
    """``light_infer_doc_topic`` over the documents of stream blocks [block_lo, block_hi)."""
    first_doc, last_doc = block_docs(block_lo, block_hi, doc_ptr)[:2]
    n_topics = phi_wk.shape[1]
    alpha_sum = 0.0
    for k in range(n_topics):
        alpha_sum += alpha[k]
    z = np.empty(max_doc_length(doc_ptr), dtype=np.int64)
    counts = np.zeros(n_topics, dtype=np.int64)
    for d in range(first_doc, last_doc):
        start, end = doc_ptr[d], doc_ptr[d + 1]
        length = end - start
        out[d, :] = 0.0
        if length == 0:
            continue
        s_idx = d // DOCS_PER_STREAM
        state = doc_state(streams[s_idx], word_ids, start, end) if doc_seeded else streams[s_idx]
        counts[:] = 0
        for i in range(length):
            state, k = draw_alias(state, word_prob[word_ids[start + i]], word_alias[word_ids[start + i]])
            z[i] = k
            counts[k] += 1
        for sweep in range(n_burn + n_avg):
            for i in range(length):
                v = word_ids[start + i]
                s = z[i]
                counts[s] -= 1
                for step in range(n_mh):
                    if step % 2 == 0:
                        state, u = next_uniform(state)
                        if u * (length + alpha_sum) < length:
                            state, j = next_below(state, length)
                            t_new = z[j]
                        else:
                            state, t_new = draw_alias(state, alpha_prob, alpha_alias)
                        num = phi_wk[v, t_new]
                        den = phi_wk[v, s]
                    else:
                        state, t_new = draw_alias(state, word_prob[v], word_alias[v])
                        num = counts[t_new] + alpha[t_new]
                        den = counts[s] + alpha[s]
                    if t_new == s:
                        continue
                    state, u = next_uniform(state)
                    if u * den < num:
                        s = t_new
                        z[i] = s
                counts[s] += 1
            if sweep >= n_burn:
                add_average(out, d, counts, n_topics)
        finish_average(out, d, n_avg, n_topics)
        if not doc_seeded:
            streams[s_idx] = state
