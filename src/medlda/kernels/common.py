"""Small inline pieces shared by the token kernels."""

from numba import njit

from .rng import next_uniform


@njit(cache=True, inline="always")
def draw_from_cdf(state, cdf, n):
    """(new_state, k) with P(k) proportional to cdf[k] - cdf[k-1] (unnormalized cumulative sums)."""
    state, u = next_uniform(state)
    u *= cdf[n - 1]
    k = 0
    while k < n - 1 and cdf[k] <= u:
        k += 1
    return state, k


@njit(cache=True, inline="always")
def doc_task_terms(eta, n_dk, d, kappa, w, length, m, a, b):
    """Per-document pieces of G_d (SPEC (3)): m_t = eta_t . n_d, a_t = kappa_dt / N_d,
    b_t = w_dt / (2 N_d^2), written into m, a, b."""
    n_tasks, n_topics = eta.shape
    for t in range(n_tasks):
        acc = 0.0
        for k in range(n_topics):
            acc += eta[t, k] * n_dk[d, k]
        m[t] = acc
        a[t] = kappa[d, t] / length
        b[t] = w[d, t] / (2.0 * length * length)


@njit(cache=True, inline="always")
def topic_g(eta_kt, a, b, m, k):
    """G_d(k) of SPEC (3) given m = m_d^{-di}: sum_t eta_tk (a_t - b_t (eta_tk + 2 m_t)).
    ``eta_kt`` is eta transposed (K, T), so one topic's weights are contiguous."""
    total = 0.0
    for t in range(eta_kt.shape[1]):
        e = eta_kt[k, t]
        total += e * (a[t] - b[t] * (e + 2.0 * m[t]))
    return total


@njit(cache=True)
def max_doc_length(doc_ptr):
    """The largest N_d, to size per-document scratch buffers once."""
    longest = 0
    for d in range(doc_ptr.size - 1):
        longest = max(longest, doc_ptr[d + 1] - doc_ptr[d])
    return longest


@njit(cache=True, inline="always")
def add_average(out, d, counts, n_topics):
    """out[d] += counts (the sweeps averaged by inference)."""
    for k in range(n_topics):
        out[d, k] += counts[k]


@njit(cache=True, inline="always")
def finish_average(out, d, n_avg, n_topics):
    """out[d] /= n_avg: the sum of ``add_average`` made a mean."""
    for k in range(n_topics):
        out[d, k] /= n_avg
