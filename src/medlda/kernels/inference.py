"""Topic inference for new documents against a fixed phi (SPEC §7)."""

import numpy as np
from numba import njit

from .common import add_average, draw_from_cdf, finish_average, max_doc_length
from .rng import DOCS_PER_STREAM


@njit(cache=True)
def infer_doc_topic(word_ids, doc_ptr, phi_wk, alpha, n_burn, n_avg, streams, out):
    """Gibbs-sample each document's z from phi_kw * (n_dk^{-i} + alpha_k), starting from
    z_i ~ phi_kw (as the light inference does): a start nearer the posterior than uniform.

    After ``n_burn`` sweeps, ``out[d]`` gets the doc-topic counts n_dk averaged over ``n_avg``
    further sweeps (float; divide by N_d for zbar). ``phi_wk`` is (V, K).
    """
    n_topics = phi_wk.shape[1]
    cdf = np.empty(n_topics)
    z = np.empty(max_doc_length(doc_ptr), dtype=np.int32)
    counts = np.zeros(n_topics, dtype=np.int64)
    for d in range(doc_ptr.size - 1):
        start, end = doc_ptr[d], doc_ptr[d + 1]
        out[d, :] = 0.0
        if end == start:
            continue
        s = d // DOCS_PER_STREAM
        state = streams[s]
        counts[:] = 0
        for i in range(end - start):  # start from each word's own topics, z_i ~ phi_kw, not uniform
            v = word_ids[start + i]
            total = 0.0
            for k in range(n_topics):
                total += phi_wk[v, k]
                cdf[k] = total
            state, k = draw_from_cdf(state, cdf, n_topics)
            z[i] = k
            counts[k] += 1
        for sweep in range(n_burn + n_avg):
            for i in range(end - start):
                v = word_ids[start + i]
                counts[z[i]] -= 1
                total = 0.0
                for k in range(n_topics):
                    total += phi_wk[v, k] * (counts[k] + alpha[k])
                    cdf[k] = total
                state, new = draw_from_cdf(state, cdf, n_topics)
                z[i] = new
                counts[new] += 1
            if sweep >= n_burn:
                add_average(out, d, counts, n_topics)
        finish_average(out, d, n_avg, n_topics)
        streams[s] = state
