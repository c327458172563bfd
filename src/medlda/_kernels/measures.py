"""Log joint and held-out likelihood (docs/mathematics.md §9) over flat count arrays."""

import math

import numpy as np
from numba import njit


@njit(cache=True)
def log_joint(n_dk, n_wk, n_k, doc_lengths, alpha, beta):
    """log p(W, Z) of LDA with theta and phi integrated out (Dirichlet-multinomial, all constants).

    Equals sum_d [lgG(A) - sum_k lgG(a_k) + sum_k lgG(n_dk + a_k) - lgG(N_d + A)]
    + sum_k [lgG(V b) - V lgG(b) + sum_v lgG(n_kv + b) - lgG(n_k + V b)].
    """
    n_docs, n_topics = n_dk.shape
    n_words = n_wk.shape[0]
    alpha_sum = 0.0
    for k in range(n_topics):
        alpha_sum += alpha[k]
    lg_alpha_k = np.empty(n_topics)
    for k in range(n_topics):
        lg_alpha_k[k] = math.lgamma(alpha[k])
    total = 0.0
    for d in range(n_docs):
        total += math.lgamma(alpha_sum) - math.lgamma(doc_lengths[d] + alpha_sum)
        for k in range(n_topics):
            c = n_dk[d, k]
            if c > 0:
                total += math.lgamma(c + alpha[k]) - lg_alpha_k[k]
    vbeta = n_words * beta
    lg_beta = math.lgamma(beta)
    for k in range(n_topics):
        total += math.lgamma(vbeta) - math.lgamma(n_k[k] + vbeta)
    for v in range(n_words):
        for k in range(n_topics):
            c = n_wk[v, k]
            if c > 0:
                total += math.lgamma(c + beta) - lg_beta
    return total


@njit(cache=True)
def completion_log_likelihood(word_ids, doc_ptr, theta, phi_wk):
    """sum over tokens of log sum_k theta_dk phi_kw (document completion's scored half)."""
    n_topics = phi_wk.shape[1]
    total = 0.0
    for d in range(doc_ptr.size - 1):
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            v = word_ids[i]
            p = 0.0
            for k in range(n_topics):
                p += theta[d, k] * phi_wk[v, k]
            total += math.log(p)
    return total
