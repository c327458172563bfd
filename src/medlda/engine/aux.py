"""The aux draw of an iteration on threads (docs/mathematics.md §2).

The documents are cut into blocks of about ``AUX_BLOCK_CELLS`` (document, task) cells, a cut that
depends on the data only; each block is drawn from its own generator, seeded from the chain's
generator. So the draws are the same on any number of threads, and NumPy's and polyagamma's
samplers, which release the GIL, fill the blocks side by side. A problem of one block draws from
the chain's generator itself.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

AUX_BLOCK_CELLS = 16384  # a block's (document, task) cells: large enough that a draw's overhead is small
MAX_AUX_BLOCKS = 256


def aux_blocks(n_docs: int, n_tasks: int) -> np.ndarray:
    """The blocks' document edges (n_blocks + 1,), from the problem's size alone."""
    n_blocks = int(min(MAX_AUX_BLOCKS, max(1, n_docs * n_tasks // AUX_BLOCK_CELLS), max(n_docs, 1)))
    return np.linspace(0, n_docs, n_blocks + 1).round().astype(np.int64)


def draw_aux(loss, omega: np.ndarray, targets: np.ndarray, rng: np.random.Generator,
             n_jobs: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``loss``'s (kappa, w), each (D, T) and C-contiguous, given omega and the targets (D, T),
    drawn block by block on up to ``n_jobs`` threads."""
    edges = aux_blocks(*omega.shape)
    if edges.size == 2:
        kappa, w = loss.draw_aux(omega, targets, rng)
        return np.ascontiguousarray(kappa), np.ascontiguousarray(w)
    seeds = np.random.SeedSequence(int(rng.integers(2**63))).spawn(edges.size - 1)
    kappa, w = np.empty(omega.shape), np.empty(omega.shape)

    def block(b: int) -> None:
        lo, hi = edges[b], edges[b + 1]
        kappa[lo:hi], w[lo:hi] = loss.for_docs(lo, hi).draw_aux(omega[lo:hi], targets[lo:hi],
                                                                np.random.default_rng(seeds[b]))

    n_threads = max(1, min(int(n_jobs), edges.size - 1))
    if n_threads == 1:
        for b in range(edges.size - 1):
            block(b)
    else:
        with ThreadPoolExecutor(n_threads) as pool:
            list(pool.map(block, range(edges.size - 1)))
    return kappa, w
