"""The EM fixed point of a document's topic weights given phi: the start of each Gibbs inference
chain (``medlda._kernels.inference``)."""

from numba import njit


@njit(cache=True, nogil=True)
def fixed_point_weights(word_ids, start, end, phi_wk, alpha, n_passes, theta, scratch):
    """``n_passes`` passes of theta_k <- alpha_k + sum_i r_ik, r_ik = phi_kw_i theta_k / sum_j
    phi_jw_i theta_j, from theta = alpha, for the document of tokens [start, end), into
    ``theta`` (``scratch``: K floats). The fixed point is the mode of the document's topic weights
    under a Dirichlet(alpha + 1) prior (EM with the topic assignments as missing data).
    O(n_passes N_d K)."""
    n_topics = alpha.size
    for k in range(n_topics):
        theta[k] = alpha[k]
    for _ in range(n_passes):
        for k in range(n_topics):
            scratch[k] = alpha[k]
        for i in range(start, end):
            v = word_ids[i]
            norm = 0.0
            for k in range(n_topics):
                norm += phi_wk[v, k] * theta[k]
            inv = 1.0 / norm
            for k in range(n_topics):
                scratch[k] += phi_wk[v, k] * theta[k] * inv
        for k in range(n_topics):
            theta[k] = scratch[k]
