"""LightMedLDA token sweep (SPEC §4, §4a): Metropolis-Hastings with doc, word and exp proposals.

O(n_mh) per token plus O(K * T) per document for its exp table. Two variants share the code:
``exact=False`` is the papers' collapsed sampler (word tables frozen from the counts at sweep
start, exp table from the m_dt at document entry: small, measured bias); ``exact=True`` is the
partially collapsed sampler (target (2b) with an explicit phi, static word tables from phi, exp
table from per-sweep constants only): exactly stationary for (2b).
"""

import numpy as np
from numba import njit

from .alias import build_alias, draw_alias
from .common import add_average, doc_task_terms, max_doc_length, topic_g
from .rng import DOCS_PER_STREAM, next_below, next_uniform

MIXTURE, CYCLE, DOC, WORD, EXP = 0, 1, 2, 3, 4
PROPOSAL_MODES = {"mixture": MIXTURE, "cycle": CYCLE, "doc": DOC, "word": WORD, "exp": EXP}


@njit(cache=True)
def light_sweep(word_ids, doc_ptr, z, n_dk, n_wk, n_k, alpha, alpha_prob, alpha_alias, beta, vbeta,
                phi_wk, word_prob, word_alias, word_q, eta, kappa, w, mode, n_mh, exact, streams):
    """One MH sweep over all tokens; counts, z and streams updated in place.

    Target per token: (n_dk^- + alpha_k) * f_k * exp(G_d(k)) with f_k = (n_kw^- + beta) /
    (n_k^- + Vbeta) (collapsed) or phi_kw (exact). Word tables (prob, alias, q per word, (V, K))
    are built by the caller: from frozen counts (collapsed) or from phi (exact).
    """
    n_tasks, n_topics = eta.shape
    alpha_sum = 0.0
    for k in range(n_topics):
        alpha_sum += alpha[k]
    m = np.zeros(n_tasks)
    m_zero = np.zeros(n_tasks)  # the exact variant's Z-free stand-in for m_dt
    a = np.zeros(n_tasks)
    b = np.zeros(n_tasks)
    exp_w = np.empty(n_topics)
    exp_prob = np.empty(n_topics)
    exp_alias = np.empty(n_topics, np.int64)
    exp_q = np.empty(n_topics)
    small = np.empty(n_topics, np.int64)
    large = np.empty(n_topics, np.int64)
    n_kinds = 3 if n_tasks > 0 else 2
    if n_tasks == 0:  # no supervision: the exp proposal is uniform (only reached in mode "exp")
        exp_w[:] = 1.0
        build_alias(exp_w, exp_prob, exp_alias, exp_q, small, large)
    for d in range(doc_ptr.size - 1):
        start, end = doc_ptr[d], doc_ptr[d + 1]
        length = end - start
        if length == 0:
            continue
        s_idx = d // DOCS_PER_STREAM
        state = streams[s_idx]
        doc_task_terms(eta, n_dk, d, kappa, w, length, m, a, b)
        if n_tasks > 0:
            # exp table: from the m_dt of this moment (collapsed, stale later) or from 0 (exact)
            gmax = -np.inf
            for k in range(n_topics):
                gk = topic_g(eta, a, b, m_zero if exact else m, k)
                exp_w[k] = gk
                gmax = max(gmax, gk)
            for k in range(n_topics):
                exp_w[k] = np.exp(exp_w[k] - gmax)
            build_alias(exp_w, exp_prob, exp_alias, exp_q, small, large)
        for i in range(start, end):
            v = word_ids[i]
            s = z[i]
            n_dk[d, s] -= 1
            n_wk[v, s] -= 1
            n_k[s] -= 1
            for t in range(n_tasks):
                m[t] -= eta[t, s]
            g_s = topic_g(eta, a, b, m, s) if n_tasks > 0 else 0.0
            f_s = phi_wk[v, s] if exact else (n_wk[v, s] + beta) / (n_k[s] + vbeta)
            for step in range(n_mh):
                if mode == MIXTURE:
                    state, kind = next_below(state, n_kinds)
                    kind += DOC
                elif mode == CYCLE:
                    kind = DOC + step % n_kinds
                else:
                    kind = mode
                if kind == DOC:
                    state, u = next_uniform(state)
                    if u * (length + alpha_sum) < length:
                        state, j = next_below(state, length)
                        t_new = z[start + j]
                    else:
                        state, t_new = draw_alias(state, alpha_prob, alpha_alias)
                elif kind == WORD:
                    state, t_new = draw_alias(state, word_prob[v], word_alias[v])
                else:
                    state, t_new = draw_alias(state, exp_prob, exp_alias)
                if t_new == s:
                    continue
                g_t = topic_g(eta, a, b, m, t_new) if n_tasks > 0 else 0.0
                f_t = phi_wk[v, t_new] if exact else (n_wk[v, t_new] + beta) / (n_k[t_new] + vbeta)
                # target ratio without the doc factor, which the doc proposal cancels exactly
                num = f_t
                den = f_s
                log_ratio = g_t - g_s
                if kind != DOC:
                    num *= n_dk[d, t_new] + alpha[t_new]
                    den *= n_dk[d, s] + alpha[s]
                    if kind == WORD:
                        num *= word_q[v, s]
                        den *= word_q[v, t_new]
                    else:
                        num *= exp_q[s]
                        den *= exp_q[t_new]
                state, u = next_uniform(state)
                if u * den < num * np.exp(log_ratio):
                    s = t_new
                    z[i] = s
                    g_s = g_t
                    f_s = f_t
            n_dk[d, s] += 1
            n_wk[v, s] += 1
            n_k[s] += 1
            for t in range(n_tasks):
                m[t] += eta[t, s]
        streams[s_idx] = state


@njit(cache=True)
def light_infer_doc_topic(word_ids, doc_ptr, phi_wk, alpha, alpha_prob, alpha_alias, word_prob,
                          word_alias, word_q, n_burn, n_avg, n_mh, streams, out):
    """Light inference for new documents against a fixed phi (SPEC §7): MH cycling doc and word
    proposals; the word tables from phi are static, so this is exact. ``out`` as in
    ``infer_doc_topic``: doc-topic counts averaged over the last ``n_avg`` sweeps."""
    n_topics = phi_wk.shape[1]
    alpha_sum = 0.0
    for k in range(n_topics):
        alpha_sum += alpha[k]
    z = np.empty(max_doc_length(doc_ptr), dtype=np.int64)
    counts = np.zeros(n_topics, dtype=np.int64)
    for d in range(doc_ptr.size - 1):
        start, end = doc_ptr[d], doc_ptr[d + 1]
        length = end - start
        out[d, :] = 0.0
        if length == 0:
            continue
        s_idx = d // DOCS_PER_STREAM
        state = streams[s_idx]
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
        for k in range(n_topics):
            out[d, k] /= n_avg
        streams[s_idx] = state
