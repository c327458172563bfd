"""The records the token kernels take: named tuples of flat arrays, which numba passes as one argument.

Shapes: N tokens, D documents, V words, K topics, T tasks.
"""

from typing import NamedTuple

import numpy as np


class Tokens(NamedTuple):
    """The corpus in the kernels' layout and the chain's topic of each token."""

    word_ids: np.ndarray  # (N,) int32: each token's word
    doc_ptr: np.ndarray  # (D + 1,) int64: document d's tokens are [doc_ptr[d], doc_ptr[d + 1])
    z: np.ndarray  # (N,) int32: each token's topic, written by the sweeps


class Counts(NamedTuple):
    """The count tables of z, kept in step by the sweeps."""

    n_dk: np.ndarray  # (D, K) int32: tokens of document d in topic k
    n_wk: np.ndarray  # (V, K) int32: tokens of word v in topic k; (0, K) where a sweep keeps none
    n_k: np.ndarray  # (K,) int64: tokens in topic k


class Blocks(NamedTuple):
    """The tokens grouped into blocks, one per word of a document, for the blocked sampler."""

    order: np.ndarray  # (N,) int64: token indices, each block's side by side
    block_ptr: np.ndarray  # (B + 1,) int64: block b is order[block_ptr[b]:block_ptr[b + 1]]
    doc_blocks: np.ndarray  # (D + 1,) int64: document d's blocks are [doc_blocks[d], doc_blocks[d + 1])


class Supervision(NamedTuple):
    """The supervised part of the target (docs/mathematics.md (1), (3)); T = 0 is unsupervised LDA."""

    eta: np.ndarray  # (T, K) float64: the tasks' topic weights
    kappa: np.ndarray  # (D, T) float64: the loss's augmentation terms
    w: np.ndarray  # (D, T) float64


class AlphaTable(NamedTuple):
    """The doc-topic prior alpha and an alias table that draws k proportional to alpha_k."""

    alpha: np.ndarray  # (K,) float64
    prob: np.ndarray  # (K,) float64
    alias: np.ndarray  # (K,) int64


class WordHash(NamedTuple):
    """The collapsed light sampler's topic-word side: the prior beta, the counts n_kw in per-word
    hashes and the word proposal built from them at sweep start (``light.word_hash``)."""

    beta: float
    vbeta: float  # V * beta
    word_meta: np.ndarray  # (V, 8) int64: each word's block and proposal entries
    slots: np.ndarray  # (3 S,) int16 or int32: (topic, current count, frozen count) per slot
    top: np.ndarray  # (1,) int64: the first slot past the compact region and the spills
    word_table: np.ndarray  # float32 or float64: the proposal tables' alias entries
    inv_frozen: np.ndarray  # (K,) float64: 1 / (frozen n_k + V beta)


class PhiTables(NamedTuple):
    """The partially collapsed light sampler's topic-word side: phi and its per-word alias tables."""

    phi_wk: np.ndarray  # (V, K) float64: phi_kw, word-major
    prob: np.ndarray  # (V, K) float64: alias tables drawing k proportional to phi_kw
    alias: np.ndarray  # (V, K) int32
    mass: np.ndarray  # (V,) float64: sum_k phi_kw, the tables' normalizer


class MoveLog(NamedTuple):
    """Scratch where a sweep logs the tokens that changed topic, to apply them to counts afterwards."""

    moved: np.ndarray  # (N,) int64: the token
    moved_from: np.ndarray  # (N,) int32: its topic before the sweep
