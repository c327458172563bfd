"""Draws of the classifier weights eta given Z and the augmentation (docs/mathematics.md §5)."""

from __future__ import annotations

import numpy as np
from scipy.linalg import cho_solve, cholesky, solve_triangular

from medlda._kernels.eta import fill_rows, gram_from_sums, gram_rows, row_sizes, rows_omega
from medlda._kernels.threads import on_threads


# an exact draw's cost in sweep steps (one token's MH steps, about 40 ns on one core), fitted to its
# measured parts on 20 Newsgroups at K = 100 / 400 / 1000 and T = 1 / 20 / 52, one thread: about
# 5 ns per doc-topic cell (finding a document's topics, omega), (T + 4) ns per pair of a
# document's topics, T K^3 / 25 ns for the Cholesky factors and 2 T K^2 ns to lay out the precisions
STEP_NS = 40.0


def exact_eta_cost(n_docs: int, n_topics: int, n_tasks: int, pairs: float) -> float:
    """The cost of one exact eta draw in sweep steps, for ``pairs`` = sum_d m_d (m_d + 1) / 2 over
    the documents' numbers m_d of topics in use."""
    ns = (5.0 * n_docs * n_topics + pairs * (n_tasks + 4.0) + n_tasks * n_topics ** 3 / 25.0
          + 2.0 * n_tasks * n_topics ** 2)
    return ns / STEP_NS


def topic_pairs(n_dk: np.ndarray, n_threads: int = 1) -> float:
    """sum_d m_d (m_d + 1) / 2, m_d the topics document d uses (nonzero counts of n_dk's row d)."""
    m = _row_sizes(n_dk, n_threads).astype(np.float64)
    return float((m * (m + 1.0)).sum() / 2.0)


def exact_eta(state, kappa: np.ndarray, w: np.ndarray, nu: float, rng: np.random.Generator,
              n_threads: int = 1, n_supervised: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """One exact draw of eta (T, K) given the chain's zbar, and omega = zbar @ eta.T (D, T) for it,
    both read from zbar's sparse rows built from the doc-topic counts (no dense zbar); on
    ``n_threads`` threads, the same bits on any number of them. Only the first ``n_supervised``
    topics carry weights (``draw_eta_from_statistics``)."""
    rows = zbar_rows(state.n_dk, np.maximum(state.doc_lengths, 1).astype(np.float64), n_threads)
    eta = draw_eta_from_statistics(*row_statistics(rows, state.n_dk.shape[1], kappa, w, n_threads), nu, rng,
                                   n_supervised)
    return eta, rows_to_omega(rows, eta, n_threads)


def draw_eta_exact(zbar: np.ndarray, kappa: np.ndarray, w: np.ndarray, nu: float,
                   rng: np.random.Generator, n_supervised: int | None = None) -> np.ndarray:
    """One exact draw of eta (T, K) given a dense zbar (D, K): per task, mean + L^{-T} eps with
    P = L L^T (O(D K + T sum_d m_d^2 + T K^3) for documents of m_d topics)."""
    return draw_eta_from_statistics(*eta_statistics(zbar, kappa, w), nu, rng, n_supervised)


def eta_statistics(zbar: np.ndarray, kappa: np.ndarray, w: np.ndarray,
                   n_threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The data part of (4) per task given a dense zbar (D, K): sum_d w_dt zbar_d zbar_d^T (T, K, K)
    and sum_d kappa_dt zbar_d (T, K), over each document's nonzero topics (``gram_rows``: a
    document uses few of K topics, so this is about ten times faster than dense products at
    K = 100). Sums over documents, so shards' statistics add up (data-parallel training)."""
    zbar = np.ascontiguousarray(zbar, dtype=np.float64)
    rows = zbar_rows(zbar, np.ones(zbar.shape[0]), n_threads)
    return row_statistics(rows, zbar.shape[1], kappa, w, n_threads)


def count_statistics(n_dk: np.ndarray, doc_lengths: np.ndarray, kappa: np.ndarray, w: np.ndarray,
                     n_threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``eta_statistics`` of zbar = n_dk / N_d, read from the counts (D, K) and the lengths (D,)."""
    rows = zbar_rows(np.ascontiguousarray(n_dk), np.maximum(doc_lengths, 1).astype(np.float64), n_threads)
    return row_statistics(rows, n_dk.shape[1], kappa, w, n_threads)


def _ranges(n: int, n_threads: int) -> list[tuple[int, int]]:
    """[0, n) cut into at most ``n_threads`` ranges of nearly equal sizes (one when n is 0)."""
    cuts = np.linspace(0, n, max(1, min(int(n_threads), n)) + 1).astype(np.int64)
    return [(int(lo), int(hi)) for lo, hi in zip(cuts[:-1], cuts[1:])]


def _row_sizes(counts: np.ndarray, n_threads: int) -> np.ndarray:
    m = np.empty(counts.shape[0], np.int64)
    on_threads(row_sizes, [(counts, lo, hi, m) for lo, hi in _ranges(counts.shape[0], n_threads)])
    return m


def zbar_rows(counts: np.ndarray, scale: np.ndarray, n_threads: int = 1) -> tuple:
    """zbar = counts / scale[:, None] as sparse document rows (ptr, topics, values), each row's
    topics ascending: what the exact draw and omega read, O(D K) to build on ``n_threads``
    threads (by ranges of documents) and O(nonzeros) to use."""
    ptr = np.zeros(counts.shape[0] + 1, np.int64)
    np.cumsum(_row_sizes(counts, n_threads), out=ptr[1:])
    topics, values = np.empty(ptr[-1], np.int64), np.empty(ptr[-1])
    on_threads(fill_rows, [(counts, scale, ptr, topics, values, lo, hi)
                           for lo, hi in _ranges(counts.shape[0], n_threads)])
    return ptr, topics, values


def row_statistics(rows: tuple, n_topics: int, kappa: np.ndarray, w: np.ndarray,
                   n_threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``eta_statistics`` from zbar's sparse rows (``zbar_rows``) of K = ``n_topics``: gram
    (T, K, K) and linear (T, K), the topics dealt to ``n_threads`` threads (each sums its rows of
    gram over every document in order: the same bits on any number of threads)."""
    kappa, w = np.ascontiguousarray(kappa, dtype=np.float64), np.ascontiguousarray(w, dtype=np.float64)
    n_tasks = kappa.shape[1]
    sums = np.zeros((n_topics, n_topics + 1, n_tasks))
    gram, linear = np.empty((n_tasks, n_topics, n_topics)), np.empty((n_tasks, n_topics))
    n_chunks = max(1, min(int(n_threads), n_topics))
    on_threads(gram_rows, [(*rows, kappa, w, sums, c, n_chunks) for c in range(n_chunks)])
    on_threads(gram_from_sums, [(sums, gram, linear, lo, hi) for lo, hi in _ranges(n_tasks, n_threads)])
    return gram, linear


def rows_to_omega(rows: tuple, eta: np.ndarray, n_threads: int = 1) -> np.ndarray:
    """omega = zbar @ eta.T (D, T) from zbar's sparse rows, by ranges of documents on ``n_threads``
    threads, each row summed over its topics in ascending order (``ChainState.omega``'s bits)."""
    n_docs = rows[0].size - 1
    omega = np.empty((n_docs, eta.shape[0]))
    eta = np.ascontiguousarray(eta, dtype=np.float64)
    on_threads(rows_omega, [(*rows, eta, omega, lo, hi) for lo, hi in _ranges(n_docs, n_threads)])
    return omega


def draw_eta_from_statistics(gram: np.ndarray, linear: np.ndarray, nu: float,
                             rng: np.random.Generator, n_supervised: int | None = None) -> np.ndarray:
    """One exact draw of eta (T, K) from the statistics of :func:`eta_statistics`: precision
    nu I + gram_t, mean precision^{-1} linear_t. With ``n_supervised`` = S < K the last K - S
    topics are background topics, their weights held at 0: the first S are drawn from their
    conditional given those zeros (precision and linear term restricted to the first S)."""
    n_tasks, n_topics = linear.shape
    free = n_topics if n_supervised is None else int(n_supervised)
    eta = np.zeros((n_tasks, n_topics))
    for t in range(n_tasks):
        precision = gram[t, :free, :free].copy()
        precision[np.diag_indices(free)] += nu
        chol = cholesky(precision, lower=True)
        mean = cho_solve((chol, True), linear[t, :free])
        eps = rng.standard_normal(free)
        eta[t, :free] = mean + solve_triangular(chol.T, eps, lower=False)
    return eta


def shift_eta(eta: np.ndarray, omega: np.ndarray, kappa: np.ndarray, w: np.ndarray, row_sums: np.ndarray,
              nu: float, rng: np.random.Generator) -> None:
    """One Gibbs step of eta (T, K) along each task's all-ones direction, in place: eta_t + s_t 1
    with s_t drawn from its Gaussian conditional given the rest. Adding s to every topic's weight
    adds s r_d to omega_dt, with r_d = sum_k zbar_dk (``row_sums``: 1, or 0 for an empty document),
    so s_t has precision nu K + sum_d w_dt r_d^2 and that times its mean is
    sum_d r_d (kappa_dt - w_dt omega_dt) - nu sum_k eta_tk, an O(D T) draw. ``omega`` (D, T) must
    equal zbar @ eta.T on entry and is kept so. Coordinate sweeps move this direction (a task's
    bias: the topic weights all rise or fall together) only by small steps, since zbar's rows sum
    to 1; this step moves it at once. Leaves (4) invariant."""
    n_topics = eta.shape[1]
    r = row_sums[:, None]
    precision = nu * n_topics + (w * r * r).sum(axis=0)
    linear = (r * (kappa - w * omega)).sum(axis=0) - nu * eta.sum(axis=1)
    s = linear / precision + rng.standard_normal(eta.shape[0]) / np.sqrt(precision)
    eta += s[:, None]
    omega += r * s[None, :]
