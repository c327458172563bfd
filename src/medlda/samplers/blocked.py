"""Blocked collapsed Gibbs for unsupervised LDA (docs/mathematics.md §8): the sampler object over the kernel.

Tokens are grouped once per corpus into blocks (same document, same word) by a stable sort of
each document's tokens by word; ``z`` keeps the corpus token order and the kernel reaches a
block's tokens through the permutation ``order``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from medlda._kernels.blocked.levels import level_table_size
from medlda._kernels.blocked.sweep import BACKWARD, NESTED, balanced_tree_arrays, blocked_sweep
from medlda._kernels.records import Blocks, Counts, Tokens
from medlda.samplers.base import Sampler, WarmUp, register
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


@dataclass
class BlockedCache:
    """What the blocked sampler keeps of one chain, in the chain's ``cache`` slot: its tokens
    grouped into blocks (built at its first sweep), the topic tree and the kernel's scratch."""

    blocks: TokenBlocks | None = None
    tree: np.ndarray | None = None
    scratch: tuple | None = None


@register
class BlockedGibbs(Sampler):
    """Blocked collapsed Gibbs for LDA: all tokens of one word in one document are redrawn
    jointly, by ``simulation="backward"`` (O(K) sequential steps) or ``"nested"`` (a binary
    tree over topics, O(C log K) draws). Unsupervised only (no tasks)."""

    name = "blocked"
    supports_supervision = False

    def __init__(self, simulation: str = "nested"):
        if simulation not in BLOCK_SIMULATIONS:
            raise ValueError(f"block_simulation must be one of {list(BLOCK_SIMULATIONS)}, got {simulation!r}")
        self.simulation = simulation

    @classmethod
    def from_options(cls, block_simulation: str = "nested", **_) -> "BlockedGibbs":
        return cls(block_simulation)

    def new_cache(self) -> BlockedCache:
        return BlockedCache()

    @staticmethod
    def _work(cache: BlockedCache, n_topics: int, max_block: int):
        """The tree and the kernel's scratch (see ``_kernels.blocked.sweep``), allocated once."""
        if cache.tree is None or cache.tree.shape[1] != max(n_topics - 1, 0):
            cache.tree = balanced_tree_arrays(n_topics)
        width = max_block + 1
        shape = (max(2 * n_topics * width, level_table_size(n_topics, max_block)), max(n_topics, width) + 2 * width,
                 7 * n_topics + 4 + max_block)
        if cache.scratch is None or tuple(a.size for a in cache.scratch) != shape:
            cache.scratch = (np.empty(shape[0]), np.empty(shape[1]), np.empty(shape[2], np.int64))
        return cache.tree, cache.scratch

    def sweep(self, state, eta, kappa, w, rng, phi_wk=None) -> None:
        """One blocked sweep over every block of ``state`` (``eta`` must have no tasks)."""
        if eta.shape[0] > 0:
            raise ValueError("the blocked sampler is for unsupervised LDA only (docs/mathematics.md §8); "
                             f"got {eta.shape[0]} supervised task(s): use sampler='gibbs' or 'light'")
        if not isinstance(state.cache, BlockedCache):
            state.cache = BlockedCache()
        cache = state.cache
        if cache.blocks is None:
            cache.blocks = group_tokens(state.word_ids, state.doc_ptr)
        blocks = cache.blocks
        max_block = int(blocks.sizes.max()) if blocks.sizes.size else 1
        tree, scratch = self._work(cache, state.n_wk.shape[1], max_block)
        blocked_sweep(Tokens(state.word_ids, state.doc_ptr, state.z), Blocks(blocks.order, blocks.block_ptr,
                      blocks.doc_blocks), Counts(state.n_dk, state.n_wk, state.n_k), state.alpha, state.beta,
                      state.vbeta, BLOCK_SIMULATIONS[self.simulation], tree, state.streams, scratch)

    def infer(self, word_ids, doc_ptr, phi_wk, alpha, n_burn, n_avg, rng, n_jobs: int = 1,
              progress=None, doc_seeded: bool = False) -> np.ndarray:
        """Averaged doc-topic counts (D, K) of new documents given phi (docs/mathematics.md §7), by the same
        single-site inference as the exact sampler (so perplexities of the two compare)."""
        return gibbs_infer(word_ids, doc_ptr, phi_wk, alpha, n_burn, n_avg, rng, n_jobs, progress, doc_seeded)

    def warm_up_groups(self, n_tasks: int | None, sizes: tuple[int, int, int] | None = None) -> list[tuple]:
        return [(self.name, self.simulation)]

    @classmethod
    def every_warm_up_group(cls) -> list[tuple]:
        return [(cls.name, simulation) for simulation in BLOCK_SIMULATIONS]

    @classmethod
    def warm_up_plan(cls, group: tuple) -> WarmUp:
        return WarmUp(cls(group[1]), (0,))
