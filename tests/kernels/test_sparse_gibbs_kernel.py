"""LDA's sparse Gibbs sweep (``medlda._kernels.sparse_gibbs``): its word lists, counts kept in step
with z, draws that depend on the chain's state alone, and the sampler's choice of sweep."""

from __future__ import annotations

import numpy as np
import pytest

from medlda._kernels.counts import fill_counts
from medlda._kernels.gibbs import gibbs_sweep
from medlda._kernels.records import Counts, Supervision, Tokens
from medlda._kernels.sparse_gibbs import lists_to_dense, sparse_gibbs_sweep, word_lists
from medlda.engine.state import ChainState
from medlda.samplers.gibbs import SPARSE_FROM, ExactGibbs


def _chain(n_topics: int, seed: int = 0, alpha=None) -> ChainState:
    """60 documents of 0-40 tokens (one empty) over 50 words of Zipf-like frequencies (word 49 rare)."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 41, size=60)
    lengths[7] = 0
    p = 1.0 / np.arange(1, 51)
    word_ids = rng.choice(50, size=int(lengths.sum()), p=p / p.sum()).astype(np.int32)
    doc_ptr = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    alpha = np.full(n_topics, 0.3) if alpha is None else alpha
    return ChainState.initialize(word_ids, doc_ptr, 50, n_topics, alpha, 0.05, rng)


def _sweep(state: ChainState) -> None:
    sparse_gibbs_sweep(Tokens(state.word_ids, state.doc_ptr, state.z), Counts(state.n_dk, state.n_wk, state.n_k),
                       state.alpha, state.beta, state.vbeta, state.streams)


def test_word_lists_hold_each_words_topics_in_use_sorted_and_go_back_to_dense():
    state = _chain(12)
    ptr, length, pairs = word_lists(state.n_wk)
    totals = state.n_wk.sum(axis=1)
    np.testing.assert_array_equal(np.diff(ptr), np.minimum(totals, 12))
    for v in range(50):
        entries = pairs[2 * ptr[v]: 2 * (ptr[v] + length[v])].reshape(-1, 2)
        np.testing.assert_array_equal(entries[:, 0], np.flatnonzero(state.n_wk[v]))
        np.testing.assert_array_equal(entries[:, 1], state.n_wk[v][state.n_wk[v] > 0])
    dense = np.full_like(state.n_wk, 7)
    lists_to_dense(ptr, length, pairs, dense)
    np.testing.assert_array_equal(dense, state.n_wk)

def test_word_lists_write_inside_their_array():
    """The branch-free build writes a zero count's pair after a full list: for the last word that
    must still land inside ``pairs`` (run as Python, where NumPy checks every index)."""
    n_wk = np.array([[2, 0, 1], [0, 0, 0], [1, 0, 0]], np.int32)  # the last word: one topic of three
    ptr, length, pairs = word_lists.py_func(n_wk)
    assert length.tolist() == [2, 0, 1] and pairs[2 * ptr[2]:2 * ptr[2] + 2].tolist() == [0, 1]
    back = np.zeros_like(n_wk)
    lists_to_dense.py_func(ptr, length, pairs, back)
    assert np.array_equal(back, n_wk)



@pytest.mark.parametrize("n_topics", [1, 3, 12, 40])
def test_counts_stay_those_of_z_and_tokens_move(n_topics):
    """An asymmetric prior, an empty document, a rare word; with 40 topics words hold fewer
    topics than K, so their lists grow and shrink."""
    state = _chain(n_topics, seed=n_topics, alpha=np.linspace(0.05, 1.0, n_topics))
    start = state.z.copy()
    for _ in range(4):
        _sweep(state)
        n_dk, n_wk, n_k = np.zeros_like(state.n_dk), np.zeros_like(state.n_wk), np.zeros_like(state.n_k)
        fill_counts(state.word_ids, state.doc_ptr, state.z, n_dk, n_wk, n_k)
        np.testing.assert_array_equal(state.n_dk, n_dk)
        np.testing.assert_array_equal(state.n_wk, n_wk)
        np.testing.assert_array_equal(state.n_k, n_k)
    assert state.z.min() >= 0 and state.z.max() < n_topics
    assert (n_topics == 1) == np.array_equal(state.z, start)


def test_a_sweep_depends_on_z_and_the_streams_alone():
    """Two sweeps in a row draw what one sweep, counts rebuilt from z (a resumed chain), then
    another draw: the word lists leave no trace between sweeps."""
    a, b = _chain(40), _chain(40)
    _sweep(a)
    _sweep(b)
    resumed = ChainState(b.word_ids, b.doc_ptr, b.z.copy(), np.zeros_like(b.n_dk), np.zeros_like(b.n_wk),
                         np.zeros_like(b.n_k), b.alpha, b.beta, b.streams.copy())
    resumed.refresh_counts()
    _sweep(a)
    _sweep(resumed)
    np.testing.assert_array_equal(a.z, resumed.z)
    np.testing.assert_array_equal(a.streams, resumed.streams)


def test_the_sampler_takes_the_sparse_sweep_for_lda_from_sparse_from_topics():
    def draws(n_topics: int, n_tasks: int, kernel: str | None, sparse_from: int = SPARSE_FROM) -> np.ndarray:
        state = _chain(n_topics, seed=3)
        eta = np.full((n_tasks, n_topics), 0.1)
        kappa, w = np.zeros((60, n_tasks)), np.ones((60, n_tasks))
        if kernel is None:
            ExactGibbs(sparse_from).sweep(state, eta, kappa, w, np.random.default_rng(0))
        elif kernel == "sparse":
            _sweep(state)
        else:
            gibbs_sweep(Tokens(state.word_ids, state.doc_ptr, state.z), Counts(state.n_dk, state.n_wk, state.n_k),
                        state.alpha, state.beta, state.vbeta, Supervision(eta, kappa, w), state.streams)
        return state.z

    np.testing.assert_array_equal(draws(SPARSE_FROM, 0, None), draws(SPARSE_FROM, 0, "sparse"))
    np.testing.assert_array_equal(draws(SPARSE_FROM, 1, None), draws(SPARSE_FROM, 1, "dense"))
    np.testing.assert_array_equal(draws(SPARSE_FROM - 1, 0, None), draws(SPARSE_FROM - 1, 0, "dense"))
    np.testing.assert_array_equal(draws(3, 0, None, sparse_from=1), draws(3, 0, "sparse"))
    assert not np.array_equal(draws(SPARSE_FROM, 0, "sparse"), draws(SPARSE_FROM, 0, "dense"))
