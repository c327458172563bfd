"""The light sampler's parallel parts: the collapsed sweep's merges (moves ordered by word range,
each range merged on its own, the inserts that move a block made afterwards) give the counts of
the moved tokens; its compaction and the partial variant's phi draw give on several threads what
they give on one."""

import numpy as np

from medlda._kernels.dirichlet import draw_phi_tables
from medlda._kernels.light.compaction import compact_and_build
from medlda._kernels.light.moves import apply_deferred, bucket_moves, merge_range, word_ranges
from medlda._kernels.light.word_hash import (
    hash_from_dense,
    new_word_meta,
    new_word_table,
    spill_bound,
    to_dense,
)
from medlda._kernels.records import MoveLog, Tokens
from medlda._kernels.rng import DOCS_PER_STREAM, make_streams

N_TOPICS = 64


def _moves(rng, n_tokens, n_words):
    """Tokens of ``n_words`` words (word 0 the most frequent, starting in two topics) and a sweep's
    moves: (word_ids, z before, z after, moved token indices ascending)."""
    word_ids = np.minimum(rng.geometric(0.4, n_tokens) - 1, n_words - 1).astype(np.int32)
    z0 = rng.integers(0, N_TOPICS, n_tokens).astype(np.int32)
    z0[word_ids == 0] = rng.choice([5, 9], (word_ids == 0).sum())  # word 0 will gain many topics
    moved = np.flatnonzero(rng.random(n_tokens) < 0.6)
    z1 = z0.copy()
    z1[moved] = (z0[moved] + rng.integers(1, N_TOPICS, moved.size)) % N_TOPICS
    return word_ids, z0, z1, moved.astype(np.int64)


def _dense(word_ids, z, n_words):
    n_wk = np.zeros((n_words, N_TOPICS), np.int32)
    np.add.at(n_wk, (word_ids, z), 1)
    return n_wk


def _merge(word_ids, z0, z1, moved, n_words, chunk_starts, n_ranges, deferred=True):
    """Log the moves chunk by chunk (at each chunk's first token), order them by word range and
    merge them as a parallel sweep does; returns (dense counts of the hash, n_k changes, deferred
    inserts, the log)."""
    word_meta = new_word_meta(n_words)
    totals = np.bincount(word_ids, minlength=n_words)
    slots, top = hash_from_dense(_dense(word_ids, z0, n_words), int(spill_bound(totals, N_TOPICS)), word_meta)
    log = MoveLog(np.zeros(word_ids.size, np.int64), np.zeros(word_ids.size, np.int32))
    range_of_word = word_ranges(totals, n_ranges)
    bounds = np.append(chunk_starts, word_ids.size)
    offsets = np.zeros((chunk_starts.size, n_ranges + 1), np.int64)
    for c in range(chunk_starts.size):
        mine = moved[(moved >= bounds[c]) & (moved < bounds[c + 1])]
        log.moved[bounds[c]:bounds[c] + mine.size] = mine
        log.moved_from[bounds[c]:bounds[c] + mine.size] = z0[mine]
        bucket_moves(word_ids, log, bounds[c], mine.size, range_of_word, offsets[c])
        got = log.moved[bounds[c]:bounds[c] + mine.size]
        assert np.array_equal(got, mine[np.argsort(range_of_word[word_ids[mine]], kind="stable")])
    tokens = Tokens(word_ids, np.array([0, word_ids.size], np.int64), z1)
    dn_k = np.zeros((n_ranges, N_TOPICS), np.int64)
    n_deferred = np.zeros((chunk_starts.size, n_ranges), np.int64)
    for r in range(n_ranges):
        merge_range(r, chunk_starts, offsets, tokens, log, word_meta, slots, top, dn_k[r], n_deferred)
    if deferred:
        apply_deferred(chunk_starts, offsets, n_deferred, tokens, log, word_meta, slots, top)
    dense = np.zeros((n_words, N_TOPICS), np.int32)
    to_dense(word_meta, slots, dense)
    return dense, dn_k.sum(0), int(n_deferred.sum())


def test_word_range_merges_give_the_counts_of_the_moved_tokens():
    """Three chunks' moves merged in four word ranges give the hash the counts of the tokens'
    new topics and n_k its changes; word 0 gains about 60 topics, so some of its inserts wait
    for the spill area (deferred), and without that last pass the counts are wrong."""
    rng = np.random.default_rng(0)
    n_words = 12
    word_ids, z0, z1, moved = _moves(rng, 3000, n_words)
    starts = np.array([0, 1000, 2000], np.int64)
    dense, dn_k, n_deferred = _merge(word_ids, z0, z1, moved, n_words, starts, 4)
    assert n_deferred > 0
    assert np.array_equal(dense, _dense(word_ids, z1, n_words))
    assert np.array_equal(dn_k, np.bincount(z1, minlength=N_TOPICS) - np.bincount(z0, minlength=N_TOPICS))
    skipped, _, _ = _merge(word_ids, z0, z1, moved, n_words, starts, 4, deferred=False)
    assert not np.array_equal(skipped, dense)


def test_word_ranges_share_the_tokens_evenly():
    totals = np.array([50, 1, 1, 1, 20, 20, 5, 2, 0, 0])
    ranges = word_ranges(totals, 3)
    assert np.all(np.diff(ranges) >= 0) and ranges[0] == 0 and ranges[-1] == 2
    shares = np.bincount(ranges, weights=totals, minlength=3)
    assert shares.max() <= 55
    assert np.array_equal(word_ranges(totals, 1), np.zeros(10, np.int32))


def test_compaction_on_word_ranges_lays_out_what_one_thread_does():
    """After a merge (so some blocks sit in the spill area), compacting on three word ranges gives
    bitwise the slots, word rows and proposal tables of one range."""
    rng = np.random.default_rng(1)
    n_words = 12
    word_ids, z0, z1, moved = _moves(rng, 3000, n_words)
    runs = []
    for bounds in (None, np.array([0, 1, 5, n_words])):
        word_meta = new_word_meta(n_words)
        totals = np.bincount(word_ids, minlength=n_words)
        spill = int(spill_bound(totals, N_TOPICS))
        slots, top = hash_from_dense(_dense(word_ids, z0, n_words), spill, word_meta)
        tokens = Tokens(word_ids, np.array([0, word_ids.size], np.int64), z1)
        log = MoveLog(moved.copy(), z0[moved])
        offsets = np.array([[0, moved.size]], np.int64)
        n_deferred = np.zeros((1, 1), np.int64)
        merge_range(0, np.zeros(1, np.int64), offsets, tokens, log, word_meta, slots, top, np.zeros(N_TOPICS, np.int64),
                    n_deferred)
        apply_deferred(np.zeros(1, np.int64), offsets, n_deferred, tokens, log, word_meta, slots, top)
        assert n_deferred.sum() > 0  # word 0's block moved
        table = new_word_table(3000 + N_TOPICS, N_TOPICS)
        table[:] = 0
        inv_frozen = np.empty(N_TOPICS)
        n_k = np.bincount(z1, minlength=N_TOPICS).astype(np.int64)
        slots, top = compact_and_build(word_meta, slots, spill, n_k, 0.05, 0.05 * n_words, table, inv_frozen,
                                       bounds=bounds)
        runs.append((slots[:3 * int(top[0])].copy(), word_meta.copy(), table, inv_frozen))
    for one, three in zip(*runs):
        assert np.array_equal(one, three)


def test_phi_draw_is_the_same_on_any_number_of_threads():
    """phi and its word tables from three threads (each taking whole stream blocks) equal one
    thread's, bitwise."""
    n_words = 3 * DOCS_PER_STREAM + 17
    n_wk = np.random.default_rng(2).poisson(0.3, (n_words, 7)).astype(np.int32)
    runs = []
    for n_jobs in (1, 3):
        out = np.empty((n_words, 7)), np.empty((n_words, 7)), np.empty((n_words, 7), np.int64), np.empty(n_words)
        draw_phi_tables(n_wk, 0.05, make_streams(np.random.default_rng(3), n_words), *out, n_jobs)
        runs.append(out)
    for one, three in zip(*runs):
        assert np.array_equal(one, three)


def test_rounds_cover_each_chunk_once_with_equal_tokens():
    """The parallel collapsed sweep's rounds split each chunk of stream blocks into consecutive
    document ranges that cover it (empty documents at its ends too), each with about 1/ROUNDS of
    its tokens."""
    from medlda._kernels.light.sweeps import ROUNDS, round_docs

    lengths = np.random.default_rng(4).poisson(30, 3 * DOCS_PER_STREAM + 40)
    lengths[[0, DOCS_PER_STREAM - 1, DOCS_PER_STREAM, lengths.size - 1]] = 0
    doc_ptr = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    chunks = np.array([0, 1, 4], np.int64)
    rounds = round_docs(chunks, doc_ptr)
    assert rounds.shape == (2, ROUNDS + 1)
    assert np.array_equal(rounds[:, 0], [0, DOCS_PER_STREAM])
    assert np.array_equal(rounds[:, -1], [DOCS_PER_STREAM, lengths.size])
    assert np.all(np.diff(rounds, axis=1) >= 0)
    tokens = np.diff(doc_ptr[rounds], axis=1)
    share = tokens.sum(axis=1, keepdims=True) / ROUNDS
    assert np.all(np.abs(tokens - share) <= lengths.max())
