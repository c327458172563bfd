"""The classifier weights' kernels (docs/mathematics.md (5)): the exact draw's statistics over zbar's nonzero
topics, and the coordinate Gibbs draw, O(nnz(zbar)) per sweep, no K^3."""

import math

import numpy as np
from numba import njit, prange


@njit(cache=True)
def dense_topic_columns(zbar_kd):
    """A dense zbar (K, D) as sparse topic columns: for topic k, the documents d with
    zbar_dk > 0 and the values, at ptr[k]:ptr[k + 1] of (doc, value)."""
    n_topics, n_docs = zbar_kd.shape
    ptr = np.zeros(n_topics + 1, np.int64)
    for k in range(n_topics):
        count = 0
        for d in range(n_docs):
            if zbar_kd[k, d] != 0.0:
                count += 1
        ptr[k + 1] = ptr[k] + count
    doc = np.empty(ptr[-1], np.int64)
    value = np.empty(ptr[-1])
    for k in range(n_topics):
        j = ptr[k]
        for d in range(n_docs):
            x = zbar_kd[k, d]
            if x != 0.0:
                doc[j] = d
                value[j] = x
                j += 1
    return ptr, doc, value


@njit(cache=True)
def topic_columns_from_counts(n_dk, doc_lengths):
    """zbar_dk = n_dk / N_d as sparse topic columns (ptr, doc, value), as ``dense_topic_columns``
    gives, read straight from the doc-topic counts (D, K) row by row: no dense (D, K) zbar and no
    transposed copy (at large K and D those would cost more than the eta draw)."""
    n_docs, n_topics = n_dk.shape
    ptr = np.zeros(n_topics + 1, np.int64)
    for d in range(n_docs):
        for k in range(n_topics):
            if n_dk[d, k] != 0:
                ptr[k + 1] += 1
    for k in range(n_topics):
        ptr[k + 1] += ptr[k]
    cursor = ptr[:-1].copy()
    doc = np.empty(ptr[-1], np.int64)
    value = np.empty(ptr[-1])
    for d in range(n_docs):
        length = max(doc_lengths[d], 1)
        for k in range(n_topics):
            c = n_dk[d, k]
            if c != 0:
                j = cursor[k]
                doc[j] = d
                value[j] = c / length  # as ChainState.zbar divides: the same bits
                cursor[k] = j + 1
    return ptr, doc, value


@njit(cache=True, nogil=True)
def row_sizes(counts, lo, hi, m):
    """m[d] = the nonzero entries of ``counts``' row d, for the documents d in [lo, hi)."""
    for d in range(lo, hi):
        c = 0
        for k in range(counts.shape[1]):
            if counts[d, k] != 0:
                c += 1
        m[d] = c


@njit(cache=True, nogil=True)
def fill_rows(counts, scale, ptr, topics, values, lo, hi):
    """zbar's sparse document rows for the documents d in [lo, hi): at ptr[d]:ptr[d + 1] the
    topics k (ascending) of d's nonzero counts and zbar_dk = counts[d, k] / scale[d] (the
    doc-topic counts and the documents' lengths, at least 1; or zbar itself and ones)."""
    for d in range(lo, hi):
        j = ptr[d]
        length = scale[d]
        for k in range(counts.shape[1]):
            c = counts[d, k]
            if c != 0:
                topics[j] = k
                values[j] = c / length  # as ChainState.zbar divides: the same bits
                j += 1


@njit(cache=True, nogil=True)
def gram_rows(ptr, topics, values, kappa, w, sums, chunk, n_chunks):
    """The exact draw's statistics, rows a = chunk, chunk + n_chunks, ... of them: sums[a, b, t]
    (b >= a) += sum_d w_dt zbar_da zbar_db and sums[a, K, t] += sum_d kappa_dt zbar_da over zbar's
    sparse rows, each summed in document order (so the chunks give the same bits on any number of
    them). O(m_d^2 T / n_chunks) per document of m_d topics, where a dense product costs
    O(K^2 T). ``sums`` (K, K + 1, T) is zero on entry: the tasks innermost, as they are in w and
    kappa, and a topic's sums in a block of their own (no cache line written by two chunks)."""
    n_docs, n_topics, n_tasks = ptr.size - 1, sums.shape[0], sums.shape[2]
    wa = np.empty(n_tasks)
    for d in range(n_docs):
        hi = ptr[d + 1]
        for i in range(ptr[d], hi):
            ka = topics[i]
            if ka % n_chunks != chunk:
                continue
            va = values[i]
            for t in range(n_tasks):
                sums[ka, n_topics, t] += kappa[d, t] * va
                wa[t] = w[d, t] * va
            for j in range(i, hi):
                kb, vb = topics[j], values[j]
                for t in range(n_tasks):
                    sums[ka, kb, t] += wa[t] * vb


@njit(cache=True, nogil=True)
def gram_from_sums(sums, gram, linear, t_lo, t_hi):
    """gram[t] (K, K, symmetric) and linear[t] (K,) of the tasks t in [t_lo, t_hi) from
    ``gram_rows``' sums."""
    n_topics = sums.shape[0]
    for t in range(t_lo, t_hi):
        for a in range(n_topics):
            linear[t, a] = sums[a, n_topics, t]
            for b in range(a, n_topics):
                gram[t, a, b] = sums[a, b, t]
                gram[t, b, a] = sums[a, b, t]


@njit(cache=True, nogil=True)
def rows_omega(ptr, topics, values, eta, omega, lo, hi):
    """omega[d] = zbar_d @ eta.T for the documents d in [lo, hi), from zbar's sparse rows, each
    summed over its topics in ascending order: the bits of ``columns_omega``."""
    n_tasks = eta.shape[0]
    for d in range(lo, hi):
        for t in range(n_tasks):
            omega[d, t] = 0.0
        for j in range(ptr[d], ptr[d + 1]):
            k = topics[j]
            x = values[j]
            for t in range(n_tasks):
                omega[d, t] += x * eta[t, k]


@njit(cache=True)
def columns_omega(ptr, doc, value, eta, n_docs):
    """omega = zbar @ eta.T (D, T) from zbar's sparse topic columns: O(nnz * T)."""
    n_tasks = eta.shape[0]
    omega = np.zeros((n_docs, n_tasks))
    for k in range(ptr.size - 1):
        for j in range(ptr[k], ptr[k + 1]):
            d = doc[j]
            x = value[j]
            for t in range(n_tasks):
                omega[d, t] += x * eta[t, k]
    return omega


@njit(cache=True)
def _task_sweeps(t, ptr, doc, value, kappa_t, w_t, omega_t, eta, nu, normals):
    """All sweeps over eta_t. (one task): each eta_tk from its Gaussian conditional, omega_t kept
    equal to zbar @ eta_t."""
    n_topics = ptr.size - 1
    for sweep in range(normals.shape[0]):
        for k in range(n_topics):
            tau = nu
            mu = 0.0
            e_old = eta[t, k]
            for j in range(ptr[k], ptr[k + 1]):
                d = doc[j]
                x = value[j]
                tau += w_t[d] * x * x
                mu += x * (kappa_t[d] - w_t[d] * (omega_t[d] - x * e_old))
            e_new = mu / tau + normals[sweep, t, k] / math.sqrt(tau)
            delta = e_new - e_old
            for j in range(ptr[k], ptr[k + 1]):
                omega_t[doc[j]] += delta * value[j]
            eta[t, k] = e_new


@njit(cache=True)
def _task_major(kappa, w, omega):
    """Task-major copies of kappa, w and omega (T, D)."""
    return np.ascontiguousarray(kappa.T), np.ascontiguousarray(w.T), np.ascontiguousarray(omega.T)


@njit(cache=True)
def _copy_transposed(src, dst):
    """dst (D, T) = src.T, element by element (a slice assignment would compile numba's shape
    checks and their error messages)."""
    for d in range(dst.shape[0]):
        for t in range(dst.shape[1]):
            dst[d, t] = src[t, d]


@njit(cache=True)
def _sweeps_serial(ptr, doc, value, kappa, w, omega, eta, nu, normals):
    """``coordinate_eta_sweeps`` on the calling thread, one task after the other."""
    kappa_td, w_td, omega_td = _task_major(kappa, w, omega)
    for t in range(eta.shape[0]):
        _task_sweeps(t, ptr, doc, value, kappa_td[t], w_td[t], omega_td[t], eta, nu, normals)
    _copy_transposed(omega_td, omega)


@njit(cache=True, parallel=True)
def _sweeps_parallel(ptr, doc, value, kappa, w, omega, eta, nu, normals, n_chunks):
    """``coordinate_eta_sweeps`` with the tasks dealt round-robin to ``n_chunks`` threads."""
    kappa_td, w_td, omega_td = _task_major(kappa, w, omega)
    n_tasks = eta.shape[0]
    for c in prange(n_chunks):
        for t in range(c, n_tasks, n_chunks):
            _task_sweeps(t, ptr, doc, value, kappa_td[t], w_td[t], omega_td[t], eta, nu, normals)
    _copy_transposed(omega_td, omega)


def coordinate_eta_sweeps(columns, kappa, w, omega, eta, nu, normals, n_threads: int = 1) -> None:
    """``normals.shape[0]`` sweeps over every eta_tk, each drawn from its Gaussian conditional.

    ``columns`` is zbar as sparse topic columns (ptr, doc, value), from
    ``topic_columns_from_counts`` or ``dense_topic_columns``; ``omega`` (D, T) must equal
    zbar @ eta.T on entry and is kept equal; ``normals`` (S, T, K) are standard normal draws.
    Leaves (4) invariant. Tasks are independent given zbar, so they are split across
    ``n_threads`` threads with the same result; one thread runs no parallel region at all (waking
    numba's thread pool costs milliseconds per call when the other cores are busy).
    """
    ptr, doc, value = columns
    n_chunks = max(1, min(int(n_threads), eta.shape[0]))
    if n_chunks == 1:
        _sweeps_serial(ptr, doc, value, kappa, w, omega, eta, nu, normals)
    else:
        _sweeps_parallel(ptr, doc, value, kappa, w, omega, eta, nu, normals, n_chunks)
