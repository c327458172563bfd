"""Blocked collapsed Gibbs for unsupervised LDA (SPEC §8): the sampler object over the kernel.

Tokens are grouped once per corpus into blocks (same document, same word) by a stable sort of
each document's tokens by word; ``z`` keeps the corpus token order and the kernel reaches a
block's tokens through the permutation ``order``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from medlda._kernels.blocked.levels import level_table_size
from medlda._kernels.blocked.sweep import BACKWARD, NESTED, balanced_tree_arrays, blocked_sweep
from medlda.samplers.inference import gibbs_infer

BLOCK_SIMULATIONS = {"backward": BACKWARD, "nested": NESTED}


@dataclass(frozen=True)
class TokenBlocks:
    """Tokens grouped by (document, word): block b is tokens order[block_ptr[b]:block_ptr[b+1]],
    document d owns blocks doc_blocks[d]:doc_blocks[d+1]."""

    order: np.ndarray
    block_ptr: np.ndarray
    doc_blocks: np.ndarray

    @property
    def sizes(self) -> np.ndarray:
        """C_dv of every block."""
        return np.diff(self.block_ptr)


def group_tokens(word_ids: np.ndarray, doc_ptr: np.ndarray) -> TokenBlocks:
    """Group tokens by (document, word) with one stable sort (vectorized, no loop per token)."""
    n_docs = doc_ptr.size - 1
    doc_of = np.repeat(np.arange(n_docs, dtype=np.int64), np.diff(doc_ptr))
    order = np.lexsort((word_ids, doc_of)).astype(np.int64)
    words, docs = word_ids[order], doc_of[order]
    first = np.ones(order.size, dtype=bool)
    first[1:] = (words[1:] != words[:-1]) | (docs[1:] != docs[:-1])
    starts = np.flatnonzero(first)
    block_ptr = np.append(starts, order.size).astype(np.int64)
    doc_blocks = np.searchsorted(starts, doc_ptr).astype(np.int64)
    return TokenBlocks(order, block_ptr, doc_blocks)


class BlockedGibbs:
    """Blocked collapsed Gibbs for LDA: all tokens of one word in one document are redrawn
    jointly, by ``simulation="backward"`` (O(K) sequential steps) or ``"nested"`` (a binary
    tree over topics, O(C log K) draws). Unsupervised only (no tasks)."""

    name = "blocked"
    supports_supervision = False

    def __init__(self, simulation: str = "nested"):
        if simulation not in BLOCK_SIMULATIONS:
            raise ValueError(f"block_simulation must be one of {list(BLOCK_SIMULATIONS)}, got {simulation!r}")
        self.simulation = simulation
        self._corpus = None  # (word_ids, doc_ptr) the grouping below was built for
        self._blocks = None
        self._tree = None
        self._scratch = None

    def blocks(self, word_ids: np.ndarray, doc_ptr: np.ndarray) -> TokenBlocks:
        """The grouping of this corpus, built the first time these arrays are seen."""
        if self._corpus is None or self._corpus[0] is not word_ids or self._corpus[1] is not doc_ptr:
            self._blocks = group_tokens(word_ids, doc_ptr)
            self._corpus = (word_ids, doc_ptr)
            self._scratch = None
        return self._blocks

    def _work(self, n_topics: int, max_block: int):
        """The tree and the kernel's scratch (see kernels/blocked.py), allocated once."""
        if self._tree is None or self._tree.shape[1] != max(n_topics - 1, 0):
            self._tree = balanced_tree_arrays(n_topics)
        width = max_block + 1
        shape = (max(2 * n_topics * width, level_table_size(n_topics, max_block)), max(n_topics, width) + 2 * width,
                 7 * n_topics + 4 + max_block)
        if self._scratch is None or tuple(a.size for a in self._scratch) != shape:
            self._scratch = (np.empty(shape[0]), np.empty(shape[1]), np.empty(shape[2], np.int64))
        return self._tree, self._scratch

    def sweep(self, state, eta, kappa, w, rng) -> None:
        """One blocked sweep over every block of ``state`` (``eta`` must have no tasks)."""
        if eta.shape[0] > 0:
            raise ValueError("the blocked sampler is for unsupervised LDA only (SPEC §8); "
                             f"got {eta.shape[0]} supervised task(s): use sampler='gibbs' or 'light'")
        blocks = self.blocks(state.word_ids, state.doc_ptr)
        max_block = int(blocks.sizes.max()) if blocks.sizes.size else 1
        tree, (table, work, iwork) = self._work(state.n_wk.shape[1], max_block)
        blocked_sweep(state.word_ids, state.doc_ptr, blocks.order, blocks.block_ptr, blocks.doc_blocks,
                      state.z, state.n_dk, state.n_wk, state.n_k, state.alpha, state.beta, state.vbeta,
                      BLOCK_SIMULATIONS[self.simulation], tree, state.streams, table, work, iwork)

    def draw_eta(self, state, eta, kappa, w, nu, rng) -> tuple[np.ndarray, np.ndarray]:
        raise ValueError("the blocked sampler is for unsupervised LDA only: it has no classifier")

    def infer(self, word_ids, doc_ptr, phi_wk, alpha, n_burn, n_avg, rng, n_jobs: int = 1,
              progress=None, doc_seeded: bool = False) -> np.ndarray:
        """Averaged doc-topic counts (D, K) of new documents given phi (SPEC §7), by the same
        single-site inference as the exact sampler (so perplexities of the two compare)."""
        return gibbs_infer(word_ids, doc_ptr, phi_wk, alpha, n_burn, n_avg, rng, n_jobs, progress, doc_seeded)
