"""The partially collapsed light sweep (docs/mathematics.md (2b)): exact MH given an explicit phi.

Target per token: (n_dk^- + alpha_k) phi_kw exp(G_d(k)). The word tables come from phi and the
exp table from per-sweep constants only, so every proposal is a fixed function of (phi, eta,
aux) and the sampler is exact. Documents are independent given phi: any split across threads
draws the same.
"""

import numpy as np
from numba import njit

from medlda._kernels.alias import draw_alias
from medlda._kernels.common import fixed, move_task_terms, topic_g
from medlda._kernels.light.exp_table import enter_doc, sweep_scratch
from medlda._kernels.light.proposals import (
    DOC,
    FAST,
    FROM_ALPHA,
    MIXTURE,
    OWN,
    SEVERAL,
    WORD,
    doc_token,
    exp_draws_per_token,
    mh_accept,
    proposal_kind,
)
from medlda._kernels.prefetch import prefetch
from medlda._kernels.rng import DOCS_PER_STREAM, block_docs


@njit(cache=True, fastmath=FAST)
def exact_blocks(block_lo, block_hi, tokens, counts, prior, phi, supervision, mode, tasks, n_mh, streams, log):
    """The partially collapsed sweep over the documents of random-stream blocks [block_lo,
    block_hi), given ``phi`` (``PhiTables``). Reads nothing another block writes (phi is fixed,
    n_kw and n_k do not enter (2b)), so blocks can run in any order or in parallel with identical
    results. It updates ``counts.n_dk`` and logs the tokens that changed topic in ``log`` as
    ``collapsed.collapsed_docs`` does (``moves.apply_dense_moves`` applies them to n_wk, n_k)."""
    mode, tasks, n_mh = fixed(mode), fixed(tasks), fixed(n_mh)  # constants of the code ``sweeps_for`` compiles
    word_ids, doc_ptr, z = tokens
    n_dk = counts.n_dk
    alpha, alpha_prob, alpha_alias = prior
    phi_wk, word_prob, word_alias, word_mass = phi
    eta, kappa, w = supervision
    moved, moved_from = log
    n_tasks = eta.shape[0] if tasks == SEVERAL else tasks
    (eta_kt, alpha_sum, alpha_flat, a, b, p, exp_w, exp_prob, exp_alias, exp_q, small, large, prop_kind,
     prop_topic) = sweep_scratch(eta, alpha, n_mh)
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
            enter_doc(eta, eta_kt, n_dk, d, kappa, w, length, a, b, p, True, exp_w, exp_prob, exp_alias, exp_q,
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
            digits = 0.0  # all proposals first, as in ``collapsed.collapsed_docs``
            for step in range(n_mh):
                state, digits, kind = proposal_kind(state, digits, mode, step, n_kinds)
                if kind == DOC:
                    state, t_new = doc_token(state, start, length, i, alpha_sum)
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
                state, accept = mh_accept(state, num, den, g_t - g_s, n_tasks > 0)
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
