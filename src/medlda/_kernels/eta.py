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
def gram_statistics(counts, scale, kappa, w, gram, linear):
    """Sets gram[t] = sum_d w_dt zbar_d zbar_d^T (K, K) and linear[t] = sum_d kappa_dt zbar_d (K,)
    for every task t, with zbar_dk = counts[d, k] / scale[d] (the doc-topic counts and the
    documents' lengths, at least 1: no dense D x K zbar is formed; or zbar itself and ones), over
    each document's nonzero topics only: O(D K) to find them, then O(m_d^2) per document and task
    for a document of m_d topics, where a dense product costs O(K^2). The tasks are the innermost
    loop (contiguous in w, kappa and the scratch), each summed in document order."""
    n_docs, n_topics = counts.shape
    n_tasks = w.shape[1]
    upper = np.zeros((n_topics, n_topics, n_tasks))
    lin = np.zeros((n_topics, n_tasks))
    topics = np.empty(n_topics, np.int64)
    values = np.empty(n_topics)
    wa = np.empty(n_tasks)
    for d in range(n_docs):
        m = 0
        length = scale[d]
        for k in range(n_topics):
            c = counts[d, k]
            if c != 0:
                topics[m] = k
                values[m] = c / length  # as ChainState.zbar divides: the same bits
                m += 1
        for a in range(m):
            ka, va = topics[a], values[a]
            for t in range(n_tasks):
                lin[ka, t] += kappa[d, t] * va
                wa[t] = w[d, t] * va
            for b in range(a, m):
                kb, vb = topics[b], values[b]
                for t in range(n_tasks):
                    upper[ka, kb, t] += wa[t] * vb
    for t in range(n_tasks):
        for a in range(n_topics):
            linear[t, a] = lin[a, t]
            for b in range(a, n_topics):
                gram[t, a, b] = upper[a, b, t]
                gram[t, b, a] = upper[a, b, t]


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
