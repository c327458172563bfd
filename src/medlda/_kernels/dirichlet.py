"""phi_k ~ Dirichlet(n_k. + beta) for every topic, with the word tables of the partially collapsed
light sampler built in the same pass (docs/mathematics.md §4a).

Gamma draws (Marsaglia-Tsang, shape < 1 boosted by U^(1/a)) are made in log space: gamma(0.01)
underflows to exactly 0 about once in a thousand draws in linear space, in log space only after
normalization, where the value is below any double anyway.
"""

import numpy as np
from numba import njit

from medlda._kernels.alias import build_alias
from medlda._kernels.rng import DOCS_PER_STREAM, next_uniform
from medlda._kernels.threads import on_threads


@njit(cache=True, inline="always")
def _normal(state):
    """(new_state, x) with x ~ N(0, 1) (Box-Muller, one of the pair)."""
    state, u1 = next_uniform(state)
    state, u2 = next_uniform(state)
    return state, np.sqrt(-2.0 * np.log(1.0 - u1)) * np.cos(2.0 * np.pi * u2)


_SMALL_SHAPE = 0.3  # below it, Liu-Martin-Syring's sampler accepts at least 77% of its proposals


@njit(cache=True, inline="always")
def small_shape_constants(shape):
    """(1 / shape, lam = 1 / shape - 1, p_right = 1 / (1 + w)) of ``_log_gamma_small``, computed
    once per shape rather than once per draw."""
    w = shape / (np.e * (1.0 - shape))
    return 1.0 / shape, 1.0 / shape - 1.0, 1.0 / (1.0 + w)


@njit(cache=True, inline="always")
def _log_gamma_small(state, inv_shape, lam, p_right):
    """(new_state, log g) with g ~ Gamma(shape, 1) for a small shape (Liu, Martin and Syring 2017;
    constants from ``small_shape_constants``): z = -shape log g has density proportional to
    h(z) = exp(-z - exp(-z / shape)), drawn by rejection from an exponential on z >= 0 (bound
    e^-z) and one on z < 0 (bound e^(lam z - 1)). It accepts with probability
    Gamma(1 + shape) / (1 + w), 0.99 at the usual beta = 0.01. On z >= 0 (all but 0.4% of tries
    at beta = 0.01) log g = log(u') / shape for a uniform u', and the try is accepted with
    probability exp(-g) >= 1 - g, so a uniform above g accepts without a log: a log, an exp and
    two uniforms a draw, where the boosted Marsaglia-Tsang draw needs a normal (log, sqrt, cos),
    three more logs and three uniforms. Nearly every phi entry has shape beta (count 0)."""
    while True:
        state, u = next_uniform(state)
        state, u2 = next_uniform(state)
        if u < p_right:
            log_g = np.log((u + 1e-300) / p_right) * inv_shape  # u / p_right is uniform on [0, 1)
            g = np.exp(log_g)
            if u2 >= g or np.log(1.0 - u2) < -g:  # accept with probability exp(-g)
                return state, log_g
        else:
            z = np.log(1.0 - u2) / lam  # z < 0 with density lam e^(lam z)
            state, u2 = next_uniform(state)
            if np.log(1.0 - u2) < 1.0 - z * inv_shape - np.exp(-z * inv_shape):
                return state, -z * inv_shape


@njit(cache=True)
def log_gamma_draw(state, shape):
    """(new_state, log g) with g ~ Gamma(shape, 1), shape > 0."""
    if shape < _SMALL_SHAPE:
        inv_shape, lam, p_right = small_shape_constants(shape)
        return _log_gamma_small(state, inv_shape, lam, p_right)
    boost = 0.0
    if shape < 1.0:
        state, u = next_uniform(state)
        boost = np.log(1.0 - u) / shape
        shape += 1.0
    d = shape - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * d)
    while True:
        state, x = _normal(state)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        state, u = next_uniform(state)
        if np.log(1.0 - u) < 0.5 * x * x + d - d * v + d * np.log(v):
            return state, np.log(d * v) + boost


def draw_phi_tables(n_wk: np.ndarray, beta: float, streams: np.ndarray, phi_wk: np.ndarray, word_prob: np.ndarray,
                    word_alias: np.ndarray, word_mass: np.ndarray, n_jobs: int = 1) -> None:
    """phi_wk (V, K) with each column ~ Dirichlet(n_.k + beta), and each word's alias table over
    k proportional to phi_wk[v] (the exact variant's word proposal) with its normalizer
    word_mass[v] = sum_k phi_wk[v, k]. One random stream per block of DOCS_PER_STREAM words, so
    a seed gives the same phi on any machine; on ``n_jobs`` threads, each taking whole blocks,
    and the same phi on any number of them (the column sums are added in word order)."""
    n_words = n_wk.shape[0]
    n_blocks = -(-n_words // DOCS_PER_STREAM)
    cuts = [min(n_words, DOCS_PER_STREAM * (n_blocks * r // max(n_jobs, 1))) for r in range(max(n_jobs, 1) + 1)]
    ranges = [(lo, hi) for lo, hi in zip(cuts[:-1], cuts[1:]) if hi > lo] or [(0, 0)]
    col_max = np.max(on_threads(_log_gamma_rows, [(n_wk, beta, streams, phi_wk, lo, hi) for lo, hi in ranges]),
                     axis=0)
    on_threads(_exp_rows, [(phi_wk, col_max, lo, hi) for lo, hi in ranges])
    inv_sum = _inverse_column_sums(phi_wk)
    on_threads(_normalize_rows, [(phi_wk, inv_sum, word_prob, word_alias, word_mass, lo, hi) for lo, hi in ranges])


@njit(cache=True, nogil=True)
def _log_gamma_rows(n_wk, beta, streams, phi_wk, lo, hi):
    """Rows [lo, hi) of phi_wk set to log g, g ~ Gamma(n_wk + beta, 1) (whole stream blocks);
    returns each column's largest."""
    n_topics = n_wk.shape[1]
    col_max = np.full(n_topics, -np.inf)
    small_beta = beta < _SMALL_SHAPE
    inv_beta, lam, p_right = small_shape_constants(min(beta, 0.5))  # unused unless small_beta
    for v in range(lo, hi):
        s_idx = v // DOCS_PER_STREAM
        state = streams[s_idx]
        for k in range(n_topics):
            if small_beta and n_wk[v, k] == 0:  # shape beta: nearly every entry
                state, lg = _log_gamma_small(state, inv_beta, lam, p_right)
            else:
                state, lg = log_gamma_draw(state, n_wk[v, k] + beta)
            phi_wk[v, k] = lg
            if lg > col_max[k]:
                col_max[k] = lg
        streams[s_idx] = state
    return col_max


@njit(cache=True, nogil=True)
def _exp_rows(phi_wk, col_max, lo, hi):
    """Rows [lo, hi) of phi_wk from log g to g / (the column's largest g)."""
    for v in range(lo, hi):
        for k in range(phi_wk.shape[1]):
            phi_wk[v, k] = np.exp(phi_wk[v, k] - col_max[k])


@njit(cache=True)
def _inverse_column_sums(phi_wk):
    """1 / sum_v phi_wk[v, k] for each column, summed in word order."""
    col_sum = np.zeros(phi_wk.shape[1])
    for v in range(phi_wk.shape[0]):
        for k in range(phi_wk.shape[1]):
            col_sum[k] += phi_wk[v, k]
    return 1.0 / col_sum


@njit(cache=True, nogil=True)
def _normalize_rows(phi_wk, inv_sum, word_prob, word_alias, word_mass, lo, hi):
    """Rows [lo, hi) of phi_wk scaled by ``inv_sum``, with each word's alias table and mass."""
    n_topics = phi_wk.shape[1]
    q = np.empty(n_topics)
    small = np.empty(n_topics, np.int64)
    large = np.empty(n_topics, np.int64)
    for v in range(lo, hi):
        for k in range(n_topics):
            phi_wk[v, k] *= inv_sum[k]
        word_mass[v] = build_alias(phi_wk[v], word_prob[v], word_alias[v], q, small, large)


@njit(cache=True)
def log_gamma_draws(shape, n, state):
    """``n`` draws of log g, g ~ Gamma(shape, 1) (test helper: compared with scipy's loggamma by a
    KS test)."""
    out = np.empty(n)
    for i in range(n):
        state, out[i] = log_gamma_draw(state, shape)
    return out
