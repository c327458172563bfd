"""Deterministic topic inference for new documents against a fixed phi: the EM fixed point of
a document's topic weights (SPEC §7's estimate without sampling)."""

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def em_doc_topic(word_ids, doc_ptr, phi_wk, alpha, n_passes, first_doc, last_doc, out):
    """For documents [first_doc, last_doc): ``n_passes`` passes of theta_k <- alpha_k + sum_i
    r_ik, r_ik = phi_kw_i theta_k / sum_j phi_jw_i theta_j, from theta = alpha; ``out[d]`` gets the
    last pass's expected topic counts sum_i r_ik (divide by N_d for zbar). The fixed point is the
    mode of the document's topic weights under a Dirichlet(alpha + 1) prior (EM with the topic
    assignments as missing data). O(n_passes N_d K) per document, no random numbers."""
    n_topics = alpha.size
    theta = np.empty(n_topics)
    expected = np.empty(n_topics)
    for d in range(first_doc, last_doc):
        start, end = doc_ptr[d], doc_ptr[d + 1]
        for k in range(n_topics):
            theta[k] = alpha[k]
            expected[k] = 0.0
        for _ in range(n_passes):
            for k in range(n_topics):
                expected[k] = 0.0
            for i in range(start, end):
                v = word_ids[i]
                norm = 0.0
                for k in range(n_topics):
                    norm += phi_wk[v, k] * theta[k]
                inv = 1.0 / norm
                for k in range(n_topics):
                    expected[k] += phi_wk[v, k] * theta[k] * inv
            for k in range(n_topics):
                theta[k] = alpha[k] + expected[k]
        for k in range(n_topics):
            out[d, k] = expected[k]
