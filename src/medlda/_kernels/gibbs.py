"""Exact collapsed Gibbs sweeps over all tokens (docs/mathematics.md (2)-(3)).

``gibbs_sweep``: O(K * (1 + T)) per token, any T, its K products and exponentials in SIMD
lanes; the reference every faster sampler is tested against. With T = 0 (plain LDA) it runs
``dense_lda_sweep``, the same loop with no task terms, which LDA's sweep also takes at small K.
"""

import numpy as np
from numba import njit

from medlda._kernels.common import all_topic_g, doc_task_terms, move_task_terms
from medlda._kernels.fastexp import fast_exp_lanes
from medlda._kernels.prefetch import prefetch
from medlda._kernels.rng import DOCS_PER_STREAM, next_uniform


@njit(cache=True, fastmath={"reassoc", "contract"})
def gibbs_sweep(tokens, counts, alpha, beta, vbeta, supervision, streams):
    """Resample every z_di from (2): (n_dk + alpha_k)(n_kw + beta)/(n_k + Vbeta) exp(G_d(k)).

    ``tokens``, ``counts`` and ``supervision`` are the records of ``medlda._kernels.records``;
    T = 0 tasks is unsupervised LDA (``dense_lda_sweep``). z and the counts are updated in place; ``streams`` advance.
    1 / (n_k + Vbeta) and the document's n_dk + alpha_k are kept as K-vectors (a division only
    for the two topics a token leaves and joins), so a token's K weights are a loop of
    multiply-adds and exponentials in SIMD lanes, then a scan up to the drawn topic; the word row
    of the token after next is fetched ahead of use. Their total may be reassociated: a draw past
    the scan's last partial sum, which rounding alone can cause, takes the last topic.
    """
    eta, kappa, w = supervision
    n_tasks, n_topics = eta.shape
    if n_tasks == 0:
        dense_lda_sweep(tokens, counts, alpha, beta, vbeta, streams)
        return
    word_ids, doc_ptr, z = tokens
    n_dk, n_wk, n_k = counts
    eta_kt = np.ascontiguousarray(eta.T)  # one topic's weights side by side for G_d(k)
    g = np.zeros(n_topics)
    a = np.empty(n_tasks)
    b = np.empty(n_tasks)
    p = np.empty(n_tasks)
    inv = np.empty(n_topics)
    for k in range(n_topics):
        inv[k] = 1.0 / (n_k[k] + vbeta)
    dk = np.empty(n_topics)
    weights = np.empty(n_topics)
    n_tokens = word_ids.size
    for d in range(doc_ptr.size - 1):
        start, end = doc_ptr[d], doc_ptr[d + 1]
        if end == start:
            continue
        s = d // DOCS_PER_STREAM
        state = streams[s]
        length = end - start
        doc_task_terms(eta_kt, n_dk, d, kappa, w, length, a, b, p)
        for k in range(n_topics):
            dk[k] = n_dk[d, k] + alpha[k]
        for i in range(start, end):
            if i + 2 < n_tokens:
                prefetch(n_wk, word_ids[i + 2] * n_topics)
            v = word_ids[i]
            old = z[i]
            n_dk[d, old] -= 1
            dk[old] = n_dk[d, old] + alpha[old]
            n_wk[v, old] -= 1
            n_k[old] -= 1
            inv[old] = 1.0 / (n_k[old] + vbeta)
            row = n_wk[v]
            move_task_terms(eta_kt, b, p, old, -1.0, n_tasks)
            gmax = all_topic_g(eta, b, p, g)
            total = 0.0
            for k in range(n_topics):
                x = dk[k] * (row[k] + beta) * inv[k] * fast_exp_lanes(g[k] - gmax)
                weights[k] = x
                total += x
            state, u = next_uniform(state)
            u *= total
            new = 0
            acc = weights[0]
            while acc <= u and new < n_topics - 1:
                new += 1
                acc += weights[new]
            z[i] = new
            n_dk[d, new] += 1
            dk[new] = n_dk[d, new] + alpha[new]
            n_wk[v, new] += 1
            n_k[new] += 1
            inv[new] = 1.0 / (n_k[new] + vbeta)
            move_task_terms(eta_kt, b, p, new, 1.0, n_tasks)
        streams[s] = state


@njit(cache=True, fastmath={"reassoc", "contract"})
def dense_lda_sweep(tokens, counts, alpha, beta, vbeta, streams):
    """LDA's exact sweep, dense in topics: each z_di from (n_dk + alpha_k)(n_kw + beta)/(n_k + Vbeta).

    Keeps 1 / (n_k + Vbeta) and the document's n_dk + alpha_k as K-vectors, so a token costs K
    multiply-adds in SIMD lanes and a scan up to the drawn topic, and fetches the word row of
    the token after next ahead of use. Sums may be reassociated (``total`` in lanes); a draw past
    the scan's last partial sum, which rounding alone can cause, takes the last topic.
    """
    word_ids, doc_ptr, z = tokens
    n_dk, n_wk, n_k = counts
    n_topics = n_k.size
    inv = np.empty(n_topics)
    for k in range(n_topics):
        inv[k] = 1.0 / (n_k[k] + vbeta)
    dk = np.empty(n_topics)
    p = np.empty(n_topics)
    n_tokens = word_ids.size
    for d in range(doc_ptr.size - 1):
        start, end = doc_ptr[d], doc_ptr[d + 1]
        if end == start:
            continue
        s = d // DOCS_PER_STREAM
        state = streams[s]
        for k in range(n_topics):
            dk[k] = n_dk[d, k] + alpha[k]
        for i in range(start, end):
            if i + 2 < n_tokens:
                prefetch(n_wk, word_ids[i + 2] * n_topics)
            v = word_ids[i]
            old = z[i]
            n_dk[d, old] -= 1
            dk[old] = n_dk[d, old] + alpha[old]
            n_wk[v, old] -= 1
            n_k[old] -= 1
            inv[old] = 1.0 / (n_k[old] + vbeta)
            row = n_wk[v]
            total = 0.0
            for k in range(n_topics):
                x = dk[k] * (row[k] + beta) * inv[k]
                p[k] = x
                total += x
            state, u = next_uniform(state)
            u *= total
            new = 0
            acc = p[0]
            while acc <= u and new < n_topics - 1:
                new += 1
                acc += p[new]
            z[i] = new
            n_dk[d, new] += 1
            dk[new] = n_dk[d, new] + alpha[new]
            n_wk[v, new] += 1
            n_k[new] += 1
            inv[new] = 1.0 / (n_k[new] + vbeta)
        streams[s] = state
