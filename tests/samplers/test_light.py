"""LightMedLDA against exact answers: inference, the word hash and its proposal tables, counts kept
exact on any number of threads. Its chains against the enumerated posterior (every proposal mode,
phi drawn every few sweeps, an asymmetric prior, the measured bias of the collapsed variant) are in
test_exact_posterior.py; the alias, eta, proposal and Dirichlet kernels' own tests in tests/kernels."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from exact import FALSE_ALARM, all_states, chi_square_pvalue
from scipy import stats
from scipy.special import gammaln

import medlda
from medlda.engine.state import ChainState
from medlda.samplers import ExactGibbs, Light

INFER_PHI = np.array([[0.6, 0.1], [0.3, 0.2], [0.1, 0.7]])
INFER_ALPHA = np.array([0.4, 0.9])
INFER_DOC = [0, 2, 1, 2]


def _inference_posterior(phi):
    """Exact posterior of n_0 (the document's topic-0 count) for INFER_DOC given phi."""
    probs = np.zeros(len(INFER_DOC) + 1)
    for z in all_states(len(INFER_DOC), 2):
        n = np.bincount(z, minlength=2)
        lp = (sum(np.log(phi[v, k]) for v, k in zip(INFER_DOC, z))
              + np.sum(gammaln(n + INFER_ALPHA) - gammaln(INFER_ALPHA)))
        probs[n[0]] += np.exp(lp)
    return probs / probs.sum()


def _inference_copies(n_copies=20000):
    word_ids = np.array(INFER_DOC * n_copies, np.int32)
    return word_ids, np.arange(0, len(INFER_DOC) * n_copies + 1, len(INFER_DOC), dtype=np.int64)


def test_exact_inference_matches_enumerated_posterior():
    """The inference chains' states (n_avg = 1: one state per document copy) against the
    enumerated posterior of n_0; 20,000 copies see a count off by one half (checked by mutation)."""
    from medlda._kernels.inference import prior_tables, sparse_infer_doc_topic
    from medlda._kernels.rng import make_streams

    word_ids, doc_ptr = _inference_copies()
    rng = np.random.default_rng(4)
    out = np.zeros((doc_ptr.size - 1, 2))  # the chain itself: drawn counts, not the Rao-Blackwellized estimate
    sparse_infer_doc_topic(word_ids, doc_ptr, INFER_PHI, INFER_ALPHA, *prior_tables(INFER_PHI, INFER_ALPHA), 10,
                           1, make_streams(rng, doc_ptr.size - 1), out, False)
    hist = np.bincount(out[:, 0].astype(int), minlength=len(INFER_DOC) + 1)
    assert chi_square_pvalue(hist, _inference_posterior(INFER_PHI)) > FALSE_ALARM
    assert chi_square_pvalue(hist, _inference_posterior(INFER_PHI[:, ::-1])) < FALSE_ALARM


def test_rao_blackwellized_inference_has_the_posterior_mean_and_less_noise():
    """What prediction reads (each token's conditional averaged, not its drawn topic): its mean
    over copies is the posterior mean of n_0 (z-test at the false-alarm rate; phi reversed is
    rejected), each estimate sums to N_d, and its spread is smaller than the drawn counts'."""
    from medlda._kernels.inference import prior_tables, sparse_infer_doc_topic
    from medlda._kernels.rng import make_streams

    word_ids, doc_ptr = _inference_copies()
    rb = ExactGibbs().infer(word_ids, doc_ptr, INFER_PHI, INFER_ALPHA, 10, 1, np.random.default_rng(8))
    np.testing.assert_allclose(rb.sum(axis=1), len(INFER_DOC))
    drawn = np.zeros_like(rb)
    sparse_infer_doc_topic(word_ids, doc_ptr, INFER_PHI, INFER_ALPHA, *prior_tables(INFER_PHI, INFER_ALPHA), 10, 1,
                           make_streams(np.random.default_rng(9), doc_ptr.size - 1), drawn, False)
    bound = stats.norm.isf(FALSE_ALARM / 2) * rb[:, 0].std() / np.sqrt(len(rb))
    counts = np.arange(len(INFER_DOC) + 1)
    assert abs(rb[:, 0].mean() - counts @ _inference_posterior(INFER_PHI)) < bound
    assert abs(rb[:, 0].mean() - counts @ _inference_posterior(INFER_PHI[:, ::-1])) > bound
    assert rb[:, 0].std() < 0.8 * drawn[:, 0].std()


def _counts_of(state, n_words: int, n_topics: int) -> tuple[np.ndarray, np.ndarray]:
    """(n_dk, n_wk) recomputed from the state's assignments."""
    doc_of = np.repeat(np.arange(state.doc_ptr.size - 1), np.diff(state.doc_ptr))
    n_dk = np.zeros((state.doc_ptr.size - 1, n_topics), int)
    np.add.at(n_dk, (doc_of, state.z), 1)
    n_wk = np.zeros((n_words, n_topics), int)
    np.add.at(n_wk, (state.word_ids, state.z), 1)
    return n_dk, n_wk


@pytest.mark.parametrize("n_tasks", [3, 0], ids=["tasks", "lda"])
@pytest.mark.parametrize("sampler", [ExactGibbs(), Light("partial"), Light("collapsed")],
                         ids=["gibbs", "light-partial", "light-collapsed"])
def test_counts_stay_consistent_after_sweeps(sampler, n_tasks):
    rng = np.random.default_rng(5)
    word_ids = rng.integers(0, 30, size=2000).astype(np.int32)
    doc_ptr = np.arange(0, 2001, 50, dtype=np.int64)
    state = ChainState.initialize(word_ids, doc_ptr, 30, 7, np.full(7, 0.1), 0.01, rng)
    eta = rng.normal(size=(n_tasks, 7))
    kappa, w = rng.normal(size=(40, n_tasks)), rng.gamma(1.0, size=(40, n_tasks))
    before = state.z.copy()
    for _ in range(3):
        sampler.sweep(state, eta, kappa, w, rng)
    sampler.sync(state)
    assert np.mean(before != state.z) > 0.3  # tokens do move
    n_dk, n_wk = _counts_of(state, 30, 7)
    assert np.array_equal(n_dk, state.n_dk) and np.array_equal(n_wk, state.n_wk)
    assert np.array_equal(n_wk.sum(0), state.n_k)


@pytest.mark.slow
def test_collapsed_light_with_more_topics_than_narrow_entries_hold():
    """Above NARROW_TOPICS topics the proposal entries are 16 bytes (int16 cannot name the
    topics): the collapsed sweep runs on them and keeps its counts exact, tokens reaching topics
    past the int16 range."""
    from medlda._kernels.light.word_hash import NARROW_TOPICS

    n_topics = 2 * NARROW_TOPICS  # half the topics past int16
    rng = np.random.default_rng(8)
    word_ids = rng.integers(0, 6, size=400).astype(np.int32)
    doc_ptr = np.arange(0, 401, 40, dtype=np.int64)
    state = ChainState.initialize(word_ids, doc_ptr, 6, n_topics, np.full(n_topics, 0.1), 0.01, rng)
    sampler = Light("collapsed")
    before = state.z.copy()
    for _ in range(3):
        sampler.sweep(state, np.zeros((1, n_topics)), np.ones((10, 1)), np.ones((10, 1)), rng)
    assert state.cache.hashed.word_table.dtype == np.float64
    assert np.mean(before != state.z) > 0.3 and state.z.max() > NARROW_TOPICS
    sampler.sync(state)
    n_dk, n_wk = _counts_of(state, 6, n_topics)
    assert np.array_equal(n_dk, state.n_dk) and np.array_equal(n_wk, state.n_wk)


def test_collapsed_light_leaves_dense_counts_behind_until_synced():
    """An LDA sweep of collapsed light writes neither dense n_dk nor n_wk (its records and hash
    hold the counts); ``sync`` brings them up to date, another sampler's sweep then moves
    tokens under the hash (which the next light sweep notices), and counts set from outside
    drop the chain's cache."""
    rng = np.random.default_rng(6)
    word_ids = rng.integers(0, 40, size=3000).astype(np.int32)
    doc_ptr = np.arange(0, 3001, 60, dtype=np.int64)
    state = ChainState.initialize(word_ids, doc_ptr, 40, 9, np.full(9, 0.1), 0.01, rng)
    lda = np.zeros((0, 9)), np.zeros((50, 0)), np.zeros((50, 0))
    light = Light("collapsed")
    light.sweep(state, *lda, rng)
    n_dk, n_wk = _counts_of(state, 40, 9)
    assert state.cache.n_dk_behind and state.cache.n_wk_behind
    assert not np.array_equal(state.n_dk, n_dk) and not np.array_equal(state.n_wk, n_wk)
    light.sync(state)
    assert np.array_equal(n_dk, state.n_dk) and np.array_equal(n_wk, state.n_wk)
    ExactGibbs().sweep(state, *lda, rng)
    n_dk, n_wk = _counts_of(state, 40, 9)
    assert np.array_equal(n_dk, state.n_dk) and np.array_equal(n_wk, state.n_wk)
    assert np.array_equal(n_wk.sum(0), state.n_k)
    light.sweep(state, *lda, rng)  # counts changed under it: it reloads its hash
    light.sync(state)
    n_dk, n_wk = _counts_of(state, 40, 9)
    assert np.array_equal(n_dk, state.n_dk) and np.array_equal(n_wk, state.n_wk)
    light.sweep(state, *lda, rng)
    elsewhere = n_wk + 1
    state.set_counts(elsewhere, elsewhere.sum(0))
    assert state.cache is None and np.array_equal(state.n_wk, elsewhere)


def test_hashed_word_counts_survive_many_sweeps_with_probing():
    """Many topics and few tokens per word force linear probing, insertions of new topics and
    compaction every sweep; the hash, dense n_wk and the assignments must always agree."""
    from medlda._kernels.light.word_hash import CUR, EMPTY, to_dense

    rng = np.random.default_rng(8)
    n_words, n_topics = 200, 50
    word_ids = rng.integers(0, n_words, size=3000).astype(np.int32)
    doc_ptr = np.arange(0, 3001, 30, dtype=np.int64)
    state = ChainState.initialize(word_ids, doc_ptr, n_words, n_topics, np.full(n_topics, 0.5), 0.01, rng)
    sampler = Light("collapsed")
    eta = rng.normal(size=(2, n_topics))
    kappa, w = rng.normal(size=(100, 2)), rng.gamma(1.0, size=(100, 2))
    for sweep in range(8):
        sampler.sweep(state, eta, kappa, w, rng)
        sampler.sync(state)
        word_meta, slots, top = state.cache.hashed.word_meta, state.cache.hashed.slots, state.cache.hashed.top
        dense = np.zeros_like(state.n_wk)
        to_dense(word_meta, slots, dense)
        assert np.array_equal(dense, state.n_wk), sweep
        n_wk = np.zeros((n_words, n_topics), int)
        np.add.at(n_wk, (word_ids, state.z), 1)
        assert np.array_equal(n_wk, state.n_wk)
        used = slots[:3 * top[0]]
        assert np.all((used[0::3] == EMPTY) | (used[CUR::3] >= 0))
    # the counts were set outside the sampler: the chain's cache is dropped, the hash reloaded
    state.z[:] = 0
    state.refresh_counts()
    sampler.sweep(state, eta, kappa, w, rng)
    sampler.sync(state)
    n_wk = np.zeros((n_words, n_topics), int)
    np.add.at(n_wk, (word_ids, state.z), 1)
    assert np.array_equal(n_wk, state.n_wk)


def _assert_empty_slots_hold_zero(word_meta, slots):
    """Every empty slot of every word's block has zero counts: an MH step reads the counts of the
    slot its lookup stops at, found or not."""
    from medlda._kernels.light.word_hash import BASE, CUR, EMPTY, FROZEN, MASK

    for v in range(word_meta.shape[0]):
        block = slots.reshape(-1, 3)[word_meta[v, BASE]:word_meta[v, BASE] + word_meta[v, MASK] + 1]
        empty = block[:, 0] == EMPTY
        assert empty.any(), "a block with no empty slot would make a lookup of an absent topic loop"
        assert not block[empty][:, [CUR, FROZEN]].any()


def test_find_slot_settles_every_topic_along_long_probe_chains():
    """Lookups in a half-full block whose topics collide into one run: a present topic gives its
    own slot, an absent one the first empty slot of its probe sequence (where it would go)."""
    from medlda._kernels.light.word_hash import CUR, EMPTY, FROZEN, find_slot

    cap = 16
    slots = np.zeros(3 * (cap + 4), np.int32)
    base = 4
    block = slots.reshape(-1, 3)[base:base + cap]
    block[:, 0] = EMPTY
    topics = [3, 19, 35, 51, 4, 67, 14, 15]  # 3 and its +16 multiples collide, then run on past 4
    for k in topics:
        h = k % cap
        while block[h, 0] != EMPTY:
            h = (h + 1) % cap
        block[h] = (k, k + 100, k + 200)
    for k in range(80):
        j = find_slot(slots, base, cap - 1, k)
        h = k % cap
        while block[h, 0] not in (k, EMPTY):
            h = (h + 1) % cap
        if k in topics:
            assert j == base + h and slots[3 * j + CUR] == k + 100 and slots[3 * j + FROZEN] == k + 200
        else:
            assert j == -(base + h) - 1 and block[h, 0] == EMPTY


def test_word_hash_blocks_grow_by_relocation_and_stay_exact():
    """A word whose block was sized for 2 topics gains 40 new ones (as in a sweep): each
    insertion past half full moves the block to the spill area, twice the size. Every topic stays
    findable with its count, the spill stays within spill_bound, and a compaction lays the word
    out afresh in a block sized for its 42 topics, with room for ROOM more in every word's block."""
    from medlda._kernels.light.compaction import compact_and_build
    from medlda._kernels.light.word_hash import (
        BASE,
        CUR,
        MASK,
        ROOM,
        USED,
        block_cap,
        cap_for,
        find_slot,
        hash_from_dense,
        insert_topic,
        new_word_meta,
        spill_bound,
        to_dense,
    )

    n_topics = 64
    n_wk = np.zeros((3, n_topics), np.int32)
    n_wk[0, [5, 9]] = [45, 12]  # word 0: 57 tokens in 2 topics
    n_wk[1, 3] = 1
    n_wk[2, [0, 63]] = [2, 2]
    spill = int(spill_bound(n_wk.sum(1).astype(np.int64), n_topics))
    word_meta = new_word_meta(3)
    slots, top = hash_from_dense(n_wk, spill, word_meta)
    assert word_meta[0, MASK] + 1 == block_cap(2) == cap_for(2 + ROOM)
    compact_slots = block_cap(2) + block_cap(1) + block_cap(2)
    _assert_empty_slots_hold_zero(word_meta, slots)
    expected = n_wk.copy()
    rng = np.random.default_rng(3)
    for k in rng.permutation([k for k in range(n_topics) if k not in (5, 9)])[:40]:
        j = find_slot(slots, word_meta[0, BASE], word_meta[0, MASK], k)
        assert j < 0
        j = insert_topic(word_meta, slots, top, 0, k, -j - 1)
        slots[3 * j + CUR] += 1  # one token moved in from topic 5
        j5 = find_slot(slots, word_meta[0, BASE], word_meta[0, MASK], 5)
        slots[3 * j5 + CUR] -= 1
        expected[0, k] += 1
        expected[0, 5] -= 1
    assert word_meta[0, USED] == 42 and word_meta[0, MASK] + 1 == cap_for(42) == 128
    assert top[0] <= slots.size // 3 and word_meta[0, BASE] >= compact_slots  # moved out of the compact region
    _assert_empty_slots_hold_zero(word_meta, slots)
    dense = np.zeros_like(n_wk)
    to_dense(word_meta, slots, dense)
    assert np.array_equal(dense, expected)
    for k in np.flatnonzero(expected[0]):
        j = find_slot(slots, word_meta[0, BASE], word_meta[0, MASK], k)
        assert j >= 0 and slots[3 * j + CUR] == expected[0, k]
    n_k = expected.sum(0).astype(np.int64)
    slots, top = compact_and_build(word_meta, slots, spill, n_k, 0.1, 0.3, np.empty(3 * (60 + n_topics)),
                                   np.empty(n_topics))
    assert word_meta[0, BASE] == 0 and word_meta[0, MASK] + 1 == block_cap(42)
    assert np.all(2 * (word_meta[:, USED] + ROOM) + 2 <= word_meta[:, MASK] + 1)  # room before load 1/2
    _assert_empty_slots_hold_zero(word_meta, slots)
    to_dense(word_meta, slots, dense)
    assert np.array_equal(dense, expected)


def test_word_hash_slots_are_int16_only_where_every_count_and_topic_fits():
    """hash_from_dense picks int16 slots while the largest word total is <= 32767 and K <= 32768,
    else int32; either way the counts round-trip exactly, through a compaction as well (an int16
    slot would wrap a count of 40,000 to a negative one)."""
    from medlda._kernels.light.compaction import compact_and_build
    from medlda._kernels.light.word_hash import (
        hash_from_dense,
        new_word_meta,
        new_word_table,
        to_dense,
    )

    for n_topics, count, dtype in ((8, 32767, np.int16), (8, 40000, np.int32), (32768, 5, np.int16),
                                   (32769, 5, np.int32)):
        n_wk = np.zeros((2, n_topics), np.int32)
        n_wk[0, 3] = count
        n_wk[1, n_topics - 1] = 2
        word_meta = new_word_meta(2)
        slots, _ = hash_from_dense(n_wk, 4, word_meta)
        assert slots.dtype == dtype
        dense = np.zeros_like(n_wk)
        to_dense(word_meta, slots, dense)
        assert np.array_equal(dense, n_wk)
        slots, _ = compact_and_build(word_meta, slots, 4, n_wk.sum(0).astype(np.int64), 0.1, 0.2,
                                     new_word_table(3 + n_topics, n_topics), np.empty(n_topics))
        assert slots.dtype == dtype
        to_dense(word_meta, slots, dense)
        assert np.array_equal(dense, n_wk)


def test_compaction_lays_out_into_the_spare_slots_when_they_fit():
    """compact_and_build writes the new layout into the spare slots array it is given (the
    sampler passes the one from the compaction before, so its huge pages stay mapped) when that
    has room and the slots' dtype, else into a new NumPy array; either way the layout and tables are the same, and the
    empty slots hold zero counts whatever the spare held."""
    from medlda._kernels.light.compaction import compact_and_build
    from medlda._kernels.light.word_hash import (
        SP_LO,
        SP_N,
        TABLE_STRIDE,
        hash_from_dense,
        new_word_meta,
        new_word_table,
        to_dense,
    )

    n_wk = np.random.default_rng(5).poisson(0.4, size=(30, 16)).astype(np.int32)
    n_k = n_wk.sum(0).astype(np.int64)
    spill = 40
    results = []
    for spare in (None, np.full(3, 7, np.int16), np.full(30000, 7, np.int32), np.full(30000, 7, np.int16)):
        word_meta = new_word_meta(30)
        slots, _ = hash_from_dense(n_wk, spill, word_meta)
        assert slots.dtype == np.int16
        word_table = new_word_table(int(np.minimum(n_wk.sum(1), 16).sum()) + 16, 16)
        new, top = compact_and_build(word_meta, slots, spill, n_k, 0.1, 1.6, word_table, np.empty(16), spare)
        fits = spare is not None and spare.size == 30000 and spare.dtype == slots.dtype
        assert new is not slots and (new is spare) == fits and new.dtype == slots.dtype
        assert new.size >= 3 * (top[0] + spill)
        dense = np.zeros_like(n_wk)
        to_dense(word_meta, new, dense)
        assert np.array_equal(dense, n_wk)
        _assert_empty_slots_hold_zero(word_meta, new)  # even where the spare held other values
        used = new[:3 * top[0]].reshape(-1, 3).copy()
        n_entries = word_meta[-1, SP_LO] + word_meta[-1, SP_N] + 16  # the sparse entries, then the dense part
        results.append((word_meta.copy(), used, word_table[:TABLE_STRIDE * n_entries].copy()))
    for meta, used, table in results[1:]:
        assert np.array_equal(meta, results[0][0]) and np.array_equal(used, results[0][1])
        assert np.array_equal(table.view(np.int64), results[0][2].view(np.int64))


@pytest.mark.parametrize("wide", [False, True], ids=["8-byte", "16-byte"])
def test_word_proposal_tables_draw_their_frozen_q(wide):
    """compact_and_build's sparse + dense tables draw k with probability proportional to
    (n_kv + beta) / (n_k + V beta): the q the collapsed MH ratio reads back, in 8-byte entries
    (float32 probabilities, up to NARROW_TOPICS topics) and in the 16-byte ones of more topics."""
    from numba import njit

    from medlda._kernels.light.compaction import compact_and_build
    from medlda._kernels.light.word_hash import (
        FRAC,
        NARROW_TOPICS,
        SCALE_DENSE,
        SCALE_SPARSE,
        SP_LO,
        SP_N,
        draw_word,
        hash_from_dense,
        new_word_meta,
        new_word_table,
        topic_view,
    )

    @njit
    def draws(n, state, word_meta, meta_f, word_table, v):
        out = np.empty(n, np.int64)
        dense_lo = word_meta[-1, SP_LO] + word_meta[-1, SP_N]
        for i in range(n):
            state, out[i] = draw_word(state, word_table, topic_view(word_table), word_meta[v, SP_LO],
                                      word_meta[v, SP_N], meta_f[v, FRAC], meta_f[v, SCALE_SPARSE], dense_lo, 6,
                                      meta_f[v, SCALE_DENSE])
        return out

    n_wk = np.array([[0, 5, 0, 1, 0, 0], [3, 0, 0, 0, 0, 9], [0, 0, 0, 0, 0, 0]], np.int32)
    n_k = n_wk.sum(0).astype(np.int64) + np.array([2, 0, 4, 0, 1, 3])
    beta, vbeta = 0.5, 1.5
    word_meta = new_word_meta(3)
    slots, _ = hash_from_dense(n_wk, 0, word_meta)
    word_table = new_word_table(18 + 6, NARROW_TOPICS + 1 if wide else 6)
    assert word_table.dtype == (np.float64 if wide else np.float32)
    compact_and_build(word_meta, slots, 0, n_k, beta, vbeta, word_table, np.empty(6))
    meta_f = word_meta.view(np.float64)
    assert meta_f[2, FRAC] == 0.0  # a word with no tokens draws from the dense part only
    for v in range(3):
        q = (n_wk[v] + beta) / (n_k + vbeta)
        hist = np.bincount(draws(60000, np.uint64(11 + v), word_meta, meta_f, word_table, v), minlength=6)
        assert chi_square_pvalue(hist, q / q.sum()) > FALSE_ALARM
        wrong = (n_wk[v] + beta) / (n_k + 0.2)  # the frozen n_k with the wrong V beta
        assert chi_square_pvalue(hist, wrong / wrong.sum()) < FALSE_ALARM





def _block_corpus(seed: int):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 40, size=700)
    word_ids = rng.integers(0, 120, size=lengths.sum()).astype(np.int32)
    return word_ids, np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)


def test_light_draws_eta_exactly_only_where_cheap():
    """'auto' makes gibbs's exact draw (the same numbers from the same random state) while
    an exact draw costs at most EXACT_ETA_SHARE of a sweep (``exact_eta_cost`` over the topic pairs
    the documents use) or eta is all zero; otherwise it draws a uniform u and draws exactly when
    u j < 1 (j = exact_eta_every), else by coordinate sweeps; the other settings force one."""
    from medlda.samplers import EXACT_ETA_SHARE, ExactGibbs
    from medlda.samplers.eta import exact_eta_cost

    word_ids, doc_ptr = _block_corpus(11)
    n_docs, n_tokens = doc_ptr.size - 1, word_ids.size
    kappa, w = np.ones((n_docs, 2)), np.full((n_docs, 2), 0.5)
    for n_topics in (4, 120):
        state = ChainState.initialize(word_ids, doc_ptr, 120, n_topics, np.full(n_topics, 0.2), 0.05,
                                        np.random.default_rng(1))
        eta = np.zeros((2, n_topics))
        m = np.count_nonzero(state.n_dk, axis=1)
        cost = exact_eta_cost(n_docs, n_topics, 2, float((m * (m + 1) / 2).sum()))
        every = int(np.ceil(cost / (EXACT_ETA_SHARE * n_tokens * 6)))
        assert Light().exact_eta_every(state, 2) == max(every, 1) and (every <= 1) == (n_topics == 4)
        assert Light().exact_eta_is_cheap(state, 2) == (n_topics == 4)
        draws = {name: smp.draw_eta(state, eta, kappa, w, 1.0, np.random.default_rng(7))[0]
                 for name, smp in (("auto", Light()), ("exact", Light(eta_draw="exact")),
                                   ("coordinate", Light(eta_draw="coordinate")), ("gibbs", ExactGibbs()))}
        assert np.array_equal(draws["exact"], draws["gibbs"])
        assert not np.array_equal(draws["exact"], draws["coordinate"])
        assert np.array_equal(draws["auto"], draws["exact"])  # cheap, or eta all zero (a chain's start)
        if every <= 1:
            continue
        eta = np.full((2, n_topics), 0.1)
        chosen = set()
        for seed in range(3 * every):
            rng = np.random.default_rng(seed)
            exact = rng.random() * every < 1.0
            chosen.add(exact)
            want = Light(eta_draw="exact" if exact else "coordinate").draw_eta(state, eta, kappa, w, 1.0, rng)[0]
            assert np.array_equal(Light().draw_eta(state, eta, kappa, w, 1.0, np.random.default_rng(seed))[0], want)
        assert chosen == {True, False}
    with pytest.raises(ValueError, match="eta_draw"):
        Light(eta_draw="cholesky")


def test_partial_light_gives_identical_chains_on_any_number_of_threads():
    """Documents are independent given phi and each stream block has its own random stream, so
    n_jobs = 1 and n_jobs = 3 must give bitwise the same assignments and counts."""
    word_ids, doc_ptr = _block_corpus(9)
    n_docs = doc_ptr.size - 1
    eta = np.random.default_rng(0).normal(size=(1, 8))
    kappa, w = np.ones((n_docs, 1)), np.full((n_docs, 1), 0.5)
    runs = []
    for n_jobs in (1, 3):
        rng = np.random.default_rng(4)
        state = ChainState.initialize(word_ids, doc_ptr, 120, 8, np.full(8, 0.2), 0.05, rng)
        sampler = Light("partial", n_jobs=n_jobs)
        for _ in range(3):
            sampler.sweep(state, eta, kappa, w, rng)
        runs.append(state)
    assert np.array_equal(runs[0].z, runs[1].z) and np.array_equal(runs[0].n_wk, runs[1].n_wk)
    assert np.array_equal(runs[0].n_k, runs[1].n_k)


def test_inference_gives_the_same_topics_on_any_number_of_threads():
    """New documents are independent given phi and each stream block keeps its random stream,
    so inference on 1, 2 or 3 threads must give bitwise the same averaged counts; another seed
    must not (so the comparison can fail)."""
    sampler = ExactGibbs()
    word_ids, doc_ptr = _block_corpus(9)
    phi = np.random.default_rng(1).dirichlet(np.full(120, 0.1), size=8).T.copy()
    alpha = np.full(8, 0.2)
    runs = [sampler.infer(word_ids, doc_ptr, phi, alpha, 5, 5, np.random.default_rng(3), n_jobs)
            for n_jobs in (1, 2, 3)]
    assert np.array_equal(runs[0], runs[1]) and np.array_equal(runs[0], runs[2])
    assert not np.array_equal(runs[0], sampler.infer(word_ids, doc_ptr, phi, alpha, 5, 5,
                                                     np.random.default_rng(4), 2))


def test_inference_reports_progress_in_groups_with_the_same_topics(monkeypatch):
    """With a progress callback, documents are inferred a group of stream blocks at a time: the
    same averaged counts, and the reports add up to every document."""
    import medlda.samplers.inference as inference

    monkeypatch.setattr(inference, "PROGRESS_STREAMS", 1)  # a group per 256 documents and thread
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 12, size=700)
    doc_ptr = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    word_ids = rng.integers(0, 120, size=doc_ptr[-1]).astype(np.int32)
    phi = np.random.default_rng(1).dirichlet(np.full(120, 0.1), size=8).T.copy()
    alpha = np.full(8, 0.2)
    whole = ExactGibbs().infer(word_ids, doc_ptr, phi, alpha, 5, 5, np.random.default_rng(3), 2)
    reports = []
    grouped = ExactGibbs().infer(word_ids, doc_ptr, phi, alpha, 5, 5, np.random.default_rng(3), 2,
                                 progress=reports.append)
    assert np.array_equal(whole, grouped) and reports == [512, 188]
    one = ExactGibbs().infer(word_ids, doc_ptr, phi, alpha, 5, 5, np.random.default_rng(3), 1, progress=reports.append)
    assert np.array_equal(whole, one) and reports[2:] == [256, 256, 188]
    assert not np.array_equal(whole, ExactGibbs().infer(word_ids, doc_ptr, phi, alpha, 5, 5,
                                                        np.random.default_rng(4), 2))


def test_collapsed_light_on_threads_keeps_counts_exact():
    """With n_jobs > 1 each thread samples against its own snapshot of the counts; after the
    merge the hash, dense n_wk and n_k must equal the counts of z, and chains must differ from
    the one-thread chain only through that snapshot (so they do differ)."""
    from medlda._kernels.light.word_hash import to_dense

    word_ids, doc_ptr = _block_corpus(10)
    states = []
    for n_jobs in (1, 2):
        rng = np.random.default_rng(5)
        state = ChainState.initialize(word_ids, doc_ptr, 120, 8, np.full(8, 0.2), 0.05, rng)
        sampler = Light("collapsed", n_jobs=n_jobs)
        e = (np.zeros((0, 8)), np.zeros((doc_ptr.size - 1, 0)), np.zeros((doc_ptr.size - 1, 0)))
        for _ in range(3):
            sampler.sweep(state, *e, rng)
            sampler.sync(state)
            n_wk = np.zeros((120, 8), int)
            np.add.at(n_wk, (word_ids, state.z), 1)
            assert np.array_equal(n_wk, state.n_wk) and np.array_equal(n_wk.sum(0), state.n_k)
            dense = np.zeros_like(state.n_wk)
            to_dense(state.cache.hashed.word_meta, state.cache.hashed.slots, dense)
            assert np.array_equal(dense, state.n_wk)
        states.append(state)
    assert not np.array_equal(states[0].z, states[1].z)


def test_collapsed_light_with_a_beta_too_small_for_the_dense_part():
    """beta at its lower bound: every word's sparse mass rounds its share to 1, so the dense part
    is never drawn, yet its scale still gives the mixture the word's normaliser."""
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.poisson(1.0, size=(40, 20)))
    model = medlda.MedLDAClassifier(n_components=3, max_iter=3, sampler="light", beta=1e-50, random_state=0)
    model.fit(X, rng.integers(0, 2, 40))
    assert np.isfinite(model.eta_).all() and model.topic_word_counts_.sum() == X.sum()
