"""A small seeded problem for the light sweep kernels, and sweeps of it run as the Light sampler runs them.

Shared by the kernel tests and the fresh processes some of them start (``python -c``, with this
folder on the path).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from medlda._kernels.alias import build_alias_rows
from medlda._kernels.dirichlet import draw_phi_tables
from medlda._kernels.light.compaction import compact_and_build
from medlda._kernels.light.proposals import proposal_scratch
from medlda._kernels.light.word_hash import (
    dense_rows,
    hash_from_dense,
    new_word_meta,
    new_word_table,
    spill_bound,
    to_dense,
)
from medlda._kernels.records import AlphaTable, Counts, MoveLog, PhiTables, Supervision, Tokens, WordHash
from medlda._kernels.rng import make_streams

N_DOCS, N_WORDS, N_TOPICS, BETA = 600, 40, 8, 0.05  # 600 documents: three random-stream blocks


@dataclass
class Problem:
    """A chain's arrays: tokens, counts, priors, supervision of ``n_tasks`` tasks and streams."""

    tokens: Tokens
    n_dk: np.ndarray
    n_wk: np.ndarray
    n_k: np.ndarray
    prior: AlphaTable
    supervision: Supervision
    streams: np.ndarray

    def copy(self) -> Problem:
        return copy.deepcopy(self)

    def state(self) -> dict[str, np.ndarray]:
        """What the sweeps write: z, the counts and the streams."""
        return {"z": self.tokens.z, "n_dk": self.n_dk, "n_wk": self.n_wk, "n_k": self.n_k, "streams": self.streams}


def problem(n_tasks: int, seed: int = 0, symmetric: bool = False) -> Problem:
    """Random tokens and topics (lengths 3-30), an alpha symmetric or not, and random supervision."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(3, 30, N_DOCS)
    doc_ptr = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    word_ids = rng.integers(0, N_WORDS, doc_ptr[-1]).astype(np.int32)
    z = rng.integers(0, N_TOPICS, doc_ptr[-1]).astype(np.int32)
    docs = np.repeat(np.arange(N_DOCS), lengths)
    n_dk = np.zeros((N_DOCS, N_TOPICS), np.int32)
    n_wk = np.zeros((N_WORDS, N_TOPICS), np.int32)
    np.add.at(n_dk, (docs, z), 1)
    np.add.at(n_wk, (word_ids, z), 1)
    alpha = np.full(N_TOPICS, 0.3) if symmetric else rng.uniform(0.1, 0.6, N_TOPICS)
    prob, alias, q = (np.empty((1, N_TOPICS)), np.empty((1, N_TOPICS), np.int64), np.empty((1, N_TOPICS)))
    build_alias_rows(alpha[None, :], prob, alias, q)
    supervision = Supervision(rng.normal(0.0, 1.5, (n_tasks, N_TOPICS)), rng.normal(0.0, 1.0, (N_DOCS, n_tasks)),
                              rng.uniform(0.5, 2.0, (N_DOCS, n_tasks)))
    return Problem(Tokens(word_ids, doc_ptr, z), n_dk, n_wk, n_k=n_wk.sum(axis=0).astype(np.int64),
                   prior=AlphaTable(alpha, prob[0], alias[0]), supervision=supervision,
                   streams=make_streams(rng, N_DOCS))


def collapsed_sweeps(sweep, p: Problem, n_sweeps: int) -> dict[str, np.ndarray]:
    """``n_sweeps`` of ``sweep(tokens, counts, prior, words, supervision, streams, log)``, a
    serial collapsed sweep, on ``p`` in place, each after a compaction as ``Light`` does; returns
    the state with the hash's counts as dense n_wk."""
    rows = dense_rows(p.n_wk)
    spill = int(spill_bound(rows[1], N_TOPICS))
    word_meta = new_word_meta(N_WORDS)
    slots, top = hash_from_dense(p.n_wk, spill, word_meta, rows)
    entries = int(np.minimum(rows[1], N_TOPICS).sum()) + N_TOPICS
    max_length = int(np.diff(p.tokens.doc_ptr).max())
    word_table = new_word_table(entries + proposal_scratch(N_TOPICS, max_length), N_TOPICS)
    inv_frozen = np.empty(N_TOPICS)
    vbeta = N_WORDS * BETA
    log = MoveLog(np.empty(p.tokens.z.size, np.int64), np.empty(p.tokens.z.size, np.int32))
    no_dense = np.zeros((0, N_TOPICS), np.int32)
    for _ in range(n_sweeps):
        slots, top = compact_and_build(word_meta, slots, spill, p.n_k, BETA, vbeta, word_table, inv_frozen)
        words = WordHash(BETA, vbeta, word_meta, slots, top, word_table, inv_frozen)
        sweep(p.tokens, Counts(p.n_dk, no_dense, p.n_k), p.prior, words, p.supervision, p.streams, log)
    to_dense(word_meta, slots, p.n_wk)
    return p.state()


def exact_sweeps(sweep, p: Problem, n_sweeps: int, seed: int = 1) -> dict[str, np.ndarray]:
    """``n_sweeps`` of ``sweep(tokens, counts, prior, phi, supervision, streams, log)``, a serial
    partially collapsed sweep, on ``p`` in place, each after a draw of phi; returns the state."""
    phi, prob = np.empty((N_WORDS, N_TOPICS)), np.empty((N_WORDS, N_TOPICS))
    alias, mass = np.empty((N_WORDS, N_TOPICS), np.int32), np.empty(N_WORDS)
    phi_streams = make_streams(np.random.default_rng(seed), N_WORDS)
    log = MoveLog(np.empty(p.tokens.z.size, np.int64), np.empty(p.tokens.z.size, np.int32))
    for _ in range(n_sweeps):
        draw_phi_tables(p.n_wk, BETA, phi_streams, phi, prob, alias, mass)
        sweep(p.tokens, Counts(p.n_dk, p.n_wk, p.n_k), p.prior, PhiTables(phi, prob, alias, mass), p.supervision,
              p.streams, log)
    return p.state()
