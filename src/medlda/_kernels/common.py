"""Small inline pieces shared by the token kernels."""

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from medlda._kernels.rng import next_uniform


@intrinsic
def fixed(typingctx, value):
    """An integer argument as a constant of the compiled code when it was passed as a literal
    (numba gives a literal argument its own machine code but still passes it at run time), so the
    branches and loops that read it fold away; any other integer as it is."""
    sig = types.int64(value)
    if isinstance(value, types.IntegerLiteral):
        constant = value.literal_value

        def codegen(context, builder, signature, args):
            return context.get_constant(types.int64, constant)
    elif isinstance(value, types.Integer):
        def codegen(context, builder, signature, args):
            return context.cast(builder, args[0], signature.args[0], types.int64)
    else:
        return None
    return sig, codegen


@njit(cache=True, inline="always")
def cdf_index(cdf, n, u):
    """The first k < n with cdf[k] > u (n - 1 if none): where u in [0, cdf[n - 1]) falls."""
    k = 0
    while k < n - 1 and cdf[k] <= u:
        k += 1
    return k


@njit(cache=True, inline="always")
def draw_from_cdf(state, cdf, n):
    """(new_state, k) with P(k) proportional to cdf[k] - cdf[k-1] (unnormalized cumulative sums)."""
    state, u = next_uniform(state)
    return state, cdf_index(cdf, n, u * cdf[n - 1])


@njit(cache=True, inline="always")
def doc_task_terms(eta_kt, n_dk, d, kappa, w, length, a, b, p):
    """Per-document pieces of G_d (docs/mathematics.md (3)), written into a, b, p: a_t = kappa_dt / N_d,
    b_t = w_dt / (2 N_d^2) and p_t = a_t - 2 b_t m_t with m_t = eta_t . n_d, so that
    G_d(k) = sum_t eta_tk (p_t - b_t eta_tk) reads no m. O(T) per topic present in d."""
    n_topics, n_tasks = eta_kt.shape
    for t in range(n_tasks):
        a[t] = kappa[d, t] / length
        b[t] = w[d, t] / (2.0 * length * length)
        p[t] = a[t]
    for k in range(n_topics):
        c = n_dk[d, k]
        if c != 0:
            for t in range(n_tasks):
                p[t] -= 2.0 * b[t] * c * eta_kt[k, t]


@njit(cache=True, inline="always")
def move_task_terms(eta_kt, b, p, k, sign, n_tasks):
    """p after a token of topic k joins (sign = +1) or leaves (sign = -1) the document: m_t moves
    by sign * eta_tk. O(T); T = ``n_tasks`` >= 1 (callers check; a compile-time 1 drops the loop)."""
    uk = np.uint64(k)
    p[0] -= sign * 2.0 * b[0] * eta_kt[uk, 0]  # the first task apart: no loop set-up when T = 1
    for t in range(1, n_tasks):
        p[t] -= sign * 2.0 * b[t] * eta_kt[uk, t]


@njit(cache=True, inline="always")
def topic_g(eta_kt, b, p, k, n_tasks):
    """G_d(k) of docs/mathematics.md (3) given p from ``doc_task_terms`` (with m = m_d^{-di}):
    sum_t eta_tk (p_t - b_t eta_tk). ``eta_kt`` is eta transposed (K, T), so one topic's weights
    are contiguous; the light kernels compile with reassociation, so the sum is vectorized.
    T = ``n_tasks`` >= 1 (callers check)."""
    uk = np.uint64(k)
    e = eta_kt[uk, 0]  # the first task apart: no loop set-up when T = 1
    s = e * (p[0] - b[0] * e)
    for t in range(1, n_tasks):
        e = eta_kt[uk, t]
        s += e * (p[t] - b[t] * e)
    return s


@njit(cache=True, inline="always")
def all_topic_g(eta, b, p, g):
    """g[k] = G_d(k) for every topic (``topic_g`` for all k at once), reading eta (T, K) row by
    row so the inner loop over topics is contiguous and vectorizes: O(K * T). Returns max_k g."""
    n_tasks, n_topics = eta.shape
    g[:] = 0.0
    for t in range(n_tasks):
        pt = p[t]
        bt = b[t]
        for k in range(n_topics):
            e = eta[t, k]
            g[k] += e * (pt - bt * e)
    gmax = -np.inf
    for k in range(n_topics):
        gmax = max(gmax, g[k])
    return gmax


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
