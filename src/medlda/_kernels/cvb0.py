"""CVB0 inference of new documents given phi (Asuncion et al. 2009, "On smoothing and inference
for topic models"): each token keeps its topic responsibilities r_ik, and a pass updates them in
turn, r_ik proportional to phi_kw_i (n_dk^-i + alpha_k) with n_dk^-i = sum_{j != i} r_jk, the
zero-order collapsed variational estimate of the Gibbs chain's expected counts. Deterministic:
no random numbers."""

import numpy as np
from numba import njit


@njit(cache=True)
def longest_document(doc_ptr, first_doc, last_doc):
    """The most tokens of a document in [first_doc, last_doc)."""
    longest = 0
    for d in range(first_doc, last_doc):
        longest = max(longest, doc_ptr[d + 1] - doc_ptr[d])
    return longest


@njit(cache=True, inline="always")
def _respond(r, phi, weights, n_dk):
    """One token's responsibilities r_k proportional to phi_k weights_k, added into n_dk."""
    norm = 0.0
    for k in range(r.size):
        r[k] = phi[k] * weights[k]
        norm += r[k]
    inv = 1.0 / norm
    for k in range(r.size):
        r[k] *= inv
        n_dk[k] += r[k]


@njit(cache=True, nogil=True)
def cvb0_doc_topic(word_ids, doc_ptr, phi_wk, alpha, n_passes, first_doc, last_doc, out, resp):
    """For documents [first_doc, last_doc): ``out[d]`` the expected topic counts sum_i r_ik after a
    start (r_ik proportional to phi_kw_i alpha_k) and ``n_passes`` CVB0 passes. ``resp``: scratch
    of at least the longest document's tokens x K floats. O((n_passes + 1) N_d K) per document."""
    n_topics = alpha.size
    n_dk = np.empty(n_topics)  # sum_i r_ik, plus alpha_k
    for d in range(first_doc, last_doc):
        start, end = doc_ptr[d], doc_ptr[d + 1]
        n_dk[:] = alpha
        for i in range(start, end):
            _respond(resp[i - start], phi_wk[word_ids[i]], alpha, n_dk)
        for _ in range(n_passes):
            for i in range(start, end):
                r = resp[i - start]
                for k in range(n_topics):
                    n_dk[k] -= r[k]
                _respond(r, phi_wk[word_ids[i]], n_dk, n_dk)
        for k in range(n_topics):
            out[d, k] = n_dk[k] - alpha[k]
