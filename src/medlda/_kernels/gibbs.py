"""Exact collapsed Gibbs sweep over all tokens (docs/mathematics.md (2)-(3)); T = 0 tasks gives plain LDA.

O(K * (1 + T)) per token. This is the reference every faster sampler is tested against.
"""

import numpy as np
from numba import njit

from medlda._kernels.common import all_topic_g, doc_task_terms, draw_from_cdf, move_task_terms
from medlda._kernels.fastexp import fast_exp_lanes
from medlda._kernels.rng import DOCS_PER_STREAM


@njit(cache=True)
def gibbs_sweep(tokens, counts, alpha, beta, vbeta, supervision, streams):
    """Resample every z_di from (2): (n_dk + alpha_k)(n_kw + beta)/(n_k + Vbeta) exp(G_d(k)).

    ``tokens``, ``counts`` and ``supervision`` are the records of ``medlda._kernels.records``;
    T = 0 tasks is unsupervised LDA. z and the counts are updated in place; ``streams`` advance.
    """
    word_ids, doc_ptr, z = tokens
    n_dk, n_wk, n_k = counts
    eta, kappa, w = supervision
    n_tasks, n_topics = eta.shape
    eta_kt = np.ascontiguousarray(eta.T)  # one topic's weights side by side for G_d(k)
    cdf = np.empty(n_topics)
    g = np.zeros(n_topics)
    a = np.empty(n_tasks)
    b = np.empty(n_tasks)
    p = np.empty(n_tasks)
    for d in range(doc_ptr.size - 1):
        start, end = doc_ptr[d], doc_ptr[d + 1]
        if end == start:
            continue
        s = d // DOCS_PER_STREAM
        state = streams[s]
        length = end - start
        doc_task_terms(eta_kt, n_dk, d, kappa, w, length, a, b, p)
        for i in range(start, end):
            v = word_ids[i]
            old = z[i]
            n_dk[d, old] -= 1
            n_wk[v, old] -= 1
            n_k[old] -= 1
            if n_tasks > 0:
                move_task_terms(eta_kt, b, p, old, -1.0, n_tasks)
                gmax = all_topic_g(eta, b, p, g)
                for k in range(n_topics):
                    g[k] = fast_exp_lanes(g[k] - gmax)
            total = 0.0
            for k in range(n_topics):
                pk = (n_dk[d, k] + alpha[k]) * (n_wk[v, k] + beta) / (n_k[k] + vbeta)
                if n_tasks > 0:
                    pk *= g[k]
                total += pk
                cdf[k] = total
            state, new = draw_from_cdf(state, cdf, n_topics)
            z[i] = new
            n_dk[d, new] += 1
            n_wk[v, new] += 1
            n_k[new] += 1
            if n_tasks > 0:
                move_task_terms(eta_kt, b, p, new, 1.0, n_tasks)
        streams[s] = state
