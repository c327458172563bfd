"""Blocked collapsed Gibbs (docs/mathematics.md §8) against exact answers, and the mixing measures (docs/mathematics.md §9).

Statistical tests use chi-square at the false-alarm rate ``exact.FALSE_ALARM`` and each also
checks the same samples against a slightly wrong answer, to show it has the power to fail. The
whole chain against the enumerated posterior is in test_exact_posterior.py.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats
from scipy.special import gammaln, logsumexp

from exact import FALSE_ALARM, chi_square_pvalue, normalize_log, token_arrays
from medlda import LDA, MedLDAClassifier
from medlda._kernels.blocked.sweep import balanced_tree_arrays, draw_block_many
from medlda._kernels.gibbs import gibbs_sweep
from medlda._kernels.records import Counts, Supervision, Tokens
from medlda.data.synthetic import make_supervised_corpus
from medlda.engine.perplexity import CompletionSplit, HeldoutPerplexity, completion_perplexity
from medlda.engine.state import ChainState
from medlda.samplers import ExactGibbs
from medlda.samplers.blocked import BlockedGibbs, group_tokens

SIMULATIONS = ("backward", "nested")


# -- the block draw: (6) by enumeration -----------------------------------------------------------
def _log_q(a, b, c, n):
    """log q(n) = log a^(n) b^(n) / (n! c^(n)), docs/mathematics.md (6), by log-gamma."""
    return gammaln(a + n) - gammaln(a) + gammaln(b + n) - gammaln(b) - gammaln(n + 1) - gammaln(c + n) + gammaln(c)


def _block_problem(n_topics: int, seed: int):
    """Random integer counts (block removed) and priors: the sweep's own argument types."""
    rng = np.random.default_rng(seed)
    n_d = rng.integers(0, 4, n_topics).astype(np.int32)
    n_v = rng.integers(0, 3, n_topics).astype(np.int32)
    n_k = (n_v + rng.integers(0, 8, n_topics)).astype(np.int64)
    return n_d, n_v, n_k, rng.uniform(0.05, 1.0, n_topics), 0.3, 1.7


def _enumerated(n_d, n_v, n_k, alpha, beta, vbeta, size, a_scale=1.0):
    """All count vectors of total ``size`` and their probabilities under (6) (a_k scaled by
    ``a_scale`` for a slightly wrong target)."""
    a, b, c = (n_d + alpha) * a_scale, n_v + beta, n_k + vbeta
    configs = [x for x in itertools.product(range(size + 1), repeat=n_k.size) if sum(x) == size]
    logp = np.array([sum(_log_q(a[k], b[k], c[k], x[k]) for k in range(n_k.size)) for x in configs])
    return configs, normalize_log(logp)


def _histogram(draws: np.ndarray, configs) -> np.ndarray:
    index = {x: i for i, x in enumerate(configs)}
    hist = np.zeros(len(configs))
    for row in draws:
        hist[index[tuple(int(v) for v in row)]] += 1
    return hist


@pytest.mark.parametrize("n_topics,size", [(2, 2), (3, 2), (3, 3), (5, 4), (4, 5), (3, 7), (5, 6)])
@pytest.mark.parametrize("simulation", SIMULATIONS)
@pytest.mark.parametrize("rescaled", [False, True])
def test_block_draw_matches_enumerated_conditional(n_topics, size, simulation, rescaled):
    """Sizes 2-5 take the unrolled paths, 6-7 the general one with the tail cut; ``rescaled``
    forces the log-space, tilted, per-node-normalized path on the same problem."""
    problem = _block_problem(n_topics, seed=10 * n_topics + size)
    draws, path, _ = draw_block_many(*problem, size, SIMULATIONS.index(simulation), rescaled, 20000,
                                  np.uint64(1 + size))
    assert (path > 0) == rescaled
    assert np.all(draws.sum(axis=1) == size)
    configs, probs = _enumerated(*problem, size)
    hist = _histogram(draws, configs)
    assert chi_square_pvalue(hist, probs) > FALSE_ALARM
    _, wrong = _enumerated(*problem, size, a_scale=1.5)  # a_k 50% too large
    assert chi_square_pvalue(hist, wrong) < FALSE_ALARM  # the test has power


@pytest.mark.parametrize("n_topics", [2, 3, 5, 6, 7, 8, 9])
@pytest.mark.parametrize("size", [2, 3, 4, 5])
def test_level_tree_block_draw_matches_enumerated_conditional(n_topics, size):
    """The nested plain path (level tree: C = 2, 3 leaves computed inside level 1, C >= 4 leaf
    rows and general convolutions; K not a power of two copies lone left children up) against
    (6) enumerated, on counts where topics differ a lot."""
    rng = np.random.default_rng(100 * n_topics + size)
    n_d = rng.integers(0, 4, n_topics).astype(np.int32)
    n_v = rng.integers(0, 4, n_topics).astype(np.int32)
    n_k = (n_v + rng.integers(0, 10, n_topics)).astype(np.int64)
    problem = (n_d, n_v, n_k, rng.uniform(0.05, 1.0, n_topics), 0.2, 2.1)
    draws, path, _ = draw_block_many(*problem, size, 1, False, 20000, np.uint64(3 + size))
    assert path == 0 and np.all(draws.sum(axis=1) == size)
    configs, probs = _enumerated(*problem, size)
    hist = _histogram(draws, configs)
    assert chi_square_pvalue(hist, probs) > FALSE_ALARM
    _, wrong = _enumerated(*problem, size, a_scale=2.0)
    assert chi_square_pvalue(hist, wrong) < FALSE_ALARM


@pytest.mark.parametrize("size", [2, 3, 4, 6, 9])
def test_level_tree_with_many_topics_matches_exact_marginals(size):
    """K = 70 (not a power of two): the wide levels take the vectorized convolutions; the
    marginals of the four most spread topics match log-space convolutions, and one token off
    does not."""
    rng = np.random.default_rng(7 + size)
    n_d = (rng.integers(0, 2, 70) * rng.integers(0, 9, 70)).astype(np.int32)
    n_v = (rng.integers(0, 2, 70) * rng.integers(0, 5, 70)).astype(np.int32)
    n_k = (n_v + rng.integers(0, 30, 70)).astype(np.int64)
    problem = (n_d, n_v, n_k, np.full(70, 0.1), 0.05, 3.0)
    draws, path, _ = draw_block_many(*problem, size, 1, False, 20000, np.uint64(size))
    assert path == 0 and np.all(draws.sum(axis=1) == size)
    for topic in np.argsort(draws.var(axis=0))[-4:]:
        probs = _exact_marginal(*problem, size, topic)
        hist = np.bincount(draws[:, topic], minlength=size + 1).astype(float)
        assert chi_square_pvalue(hist, probs) > FALSE_ALARM
    assert chi_square_pvalue(hist, np.roll(probs, 1)) < FALSE_ALARM

@pytest.mark.parametrize("size", [2, 3, 4, 5, 6, 7, 9, 12])
@pytest.mark.parametrize("level", [1, 2, 3])
def test_level_tree_cross_terms_of_wide_levels(size, level):
    """K = 128 (a power of two): each level takes the unrolled combinations (C <= 7) or the
    general one. Two strong topics split by a node of ``level`` (0 and 128 / 2^level) share
    most of the block, a third topic outside that node takes the rest, so P(the whole block in
    the node) hangs on every cross term l(j) r(C - j) of the node's h(C). The three marginals
    match log-space convolutions, and one token off does not."""
    n_topics = 128
    rng = np.random.default_rng(40 + size)
    n_d = rng.integers(0, 2, n_topics).astype(np.int32)
    n_v = rng.integers(0, 2, n_topics).astype(np.int32)
    n_k = (n_v + rng.integers(5, 40, n_topics)).astype(np.int64)
    pair = n_topics >> level
    topics = [0, pair, pair // 2]  # the third sits outside the pair's node
    n_d[topics] = [2 * size, 2 * size, size // 2]
    n_v[topics] = [4, 4, 3]
    n_k[topics] = [20, 20, 15]
    problem = (n_d, n_v, n_k, np.full(n_topics, 0.1), 0.05, 3.0)
    draws, path, _ = draw_block_many(*problem, size, 1, False, 20000, np.uint64(20 + size))
    assert path == 0 and np.all(draws.sum(axis=1) == size)
    for topic in topics:
        probs = _exact_marginal(*problem, size, topic)
        hist = np.bincount(draws[:, topic], minlength=size + 1).astype(float)
        assert chi_square_pvalue(hist, probs) > FALSE_ALARM
    assert 0.1 < probs[0] < 0.9  # the block is often, not always, inside the pair's node
    assert chi_square_pvalue(hist, np.roll(probs, 1)) < FALSE_ALARM


@pytest.mark.parametrize("n_topics,size", [(5, 24), (3, 30), (9, 25)])
def test_level_tree_with_a_block_tilt_matches_exact_marginals(n_topics, size):
    """Blocks the corpus-wide bound sends off the plain path (huge n_k) but whose own ratios fit
    once every leaf is tilted by r^n (``level_tilt``): path 1, and each topic's marginal matches
    log-space convolutions."""
    rng = np.random.default_rng(size)
    n_d = rng.integers(0, 8, n_topics).astype(np.int32)
    n_v = rng.integers(0, 4, n_topics).astype(np.int32)
    n_k = rng.integers(10**8, 10**10, n_topics).astype(np.int64)
    problem = (n_d, n_v, n_k, np.full(n_topics, 0.2), 0.01, 500.0)
    draws, path, _ = draw_block_many(*problem, size, 1, False, 20000, np.uint64(size))
    assert path == 1
    for topic in range(n_topics):
        probs = _exact_marginal(*problem, size, topic)
        hist = np.bincount(draws[:, topic], minlength=size + 1).astype(float)
        assert chi_square_pvalue(hist, probs) > FALSE_ALARM
    topic = int(np.argmax(draws.var(axis=0)))  # the most spread marginal, one token off
    hist = np.bincount(draws[:, topic], minlength=size + 1).astype(float)
    assert chi_square_pvalue(hist, np.roll(_exact_marginal(*problem, size, topic), 1)) < FALSE_ALARM


def test_backward_and_nested_agree_with_each_other():
    problem = _block_problem(6, seed=3)
    a = draw_block_many(*problem, 4, 0, False, 20000, np.uint64(7))[0]
    b = draw_block_many(*problem, 4, 1, False, 20000, np.uint64(8))[0]
    configs = sorted({tuple(r) for r in np.vstack([a, b]).tolist()})
    table = np.array([_histogram(a, configs), _histogram(b, configs)])
    keep = table.sum(axis=0) >= 10
    table = np.column_stack([table[:, keep], table[:, ~keep].sum(axis=1)])
    assert stats.chi2_contingency(table).pvalue > FALSE_ALARM


def _exact_marginal(n_d, n_v, n_k, alpha, beta, vbeta, size, topic):
    """P(n_topic = n), n = 0..size, by log-space convolution of the other topics' q (NumPy)."""
    a, b, c = n_d + alpha, n_v + beta, n_k + vbeta
    ns = np.arange(size + 1)
    rest = np.full(size + 1, -np.inf)
    rest[0] = 0.0
    for k in range(n_k.size):
        if k == topic:
            continue
        lq = _log_q(a[k], b[k], c[k], ns)
        rest = np.array([logsumexp(lq[:m + 1] + rest[m::-1]) for m in ns])
    logp = _log_q(a[topic], b[topic], c[topic], ns) + rest[::-1]
    return normalize_log(logp)


@pytest.mark.parametrize("simulation,rescaled", [("backward", False), ("nested", False), ("nested", True)])
def test_long_block_in_a_huge_corpus_takes_the_rescaled_path_and_stays_exact(simulation, rescaled):
    """C = 80 with n_k ~ 1e9: plain products would underflow (q ~ 1e-700), so the block goes
    through log-space leaves, the tilt and normalized nodes (backward, and nested when forced),
    or through the level tree with leaves tilted by the block's own bound (nested); marginals
    match log-space sums."""
    n_d = np.array([30, 2, 0, 0, 5], np.int32)
    n_v = np.array([4, 0, 0, 1, 2], np.int32)
    n_k = np.array([10**9, 3 * 10**8, 10**9, 5 * 10**8, 10**8], np.int64)
    problem = (n_d, n_v, n_k, np.full(5, 0.1), 0.01, 300.0)
    draws, path, cut = draw_block_many(*problem, 80, SIMULATIONS.index(simulation), rescaled, 6000, np.uint64(5))
    assert path >= 1
    if simulation == "nested" and not rescaled:
        assert path == 1 and np.all(cut == 80)  # one tilt, level tree (no tail cut)
    for topic in (0, 4):
        probs = _exact_marginal(*problem, 80, topic)
        hist = np.bincount(draws[:, topic], minlength=81).astype(float)
        assert chi_square_pvalue(hist, probs) > FALSE_ALARM
        shifted = np.roll(probs, 1)  # one token more: a slightly wrong marginal
        assert chi_square_pvalue(hist, shifted) < FALSE_ALARM


@pytest.mark.parametrize("simulation,rescaled", [("backward", False), ("backward", True), ("nested", True),
                                                 ("nested", False)])
def test_tail_cut_keeps_the_distribution(simulation, rescaled):
    """Two strong topics absorb a block of 12; on the paths with a tail cut (backward, and the
    per-node rescaled tree) the empty topic's leaf is cut (it can take at most 6 tokens in the
    draw, P(more) < 1e-15), and the distribution, including the empty topic's rare share (5e-5),
    still matches enumeration. Nested plain blocks take the level tree, which cuts nothing."""
    n_d = np.array([40, 0, 30], np.int32)
    n_v = np.array([60, 0, 50], np.int32)
    n_k = np.array([400, 300, 450], np.int64)
    problem = (n_d, n_v, n_k, np.full(3, 0.3), 0.05, 20.0)
    draws, path, cut = draw_block_many(*problem, 12, SIMULATIONS.index(simulation), rescaled, 40000, np.uint64(11))
    assert (path > 0) == rescaled
    if simulation == "nested" and not rescaled:
        assert np.all(cut == 12)
    else:
        assert cut[1] < 12 and cut[0] == cut[2] == 12
    configs, probs = _enumerated(*problem, 12)
    hist = _histogram(draws, configs)
    assert chi_square_pvalue(hist, probs) > FALSE_ALARM
    _, wrong = _enumerated(*problem, 12, a_scale=1.5)
    assert chi_square_pvalue(hist, wrong) < FALSE_ALARM


def test_balanced_tree_is_the_recursive_split():
    def split(lo, hi, n_topics, out):
        if hi - lo == 1:
            return lo
        mid = lo + (hi - lo + 1) // 2
        left, right = split(lo, mid, n_topics, out), split(mid, hi, n_topics, out)
        out.append((left, right))
        return n_topics + len(out) - 1

    for n_topics in (1, 2, 3, 7, 16, 33):
        out = []
        split(0, n_topics, n_topics, out)
        expected = np.array(out, dtype=np.int64).reshape(-1, 2).T
        np.testing.assert_array_equal(balanced_tree_arrays(n_topics), expected)


# -- grouping and the sweep -----------------------------------------------------------------------
def test_grouping_equals_a_plain_python_grouping():
    rng = np.random.default_rng(0)
    docs = [list(rng.integers(0, 6, rng.integers(0, 12))) for _ in range(30)]
    word_ids, doc_ptr = token_arrays(docs)
    blocks = group_tokens(word_ids, doc_ptr)
    expected = []
    for d, doc in enumerate(docs):
        start = doc_ptr[d]
        for v in sorted(set(doc)):
            expected.append([start + i for i, w in enumerate(doc) if w == v])
    got = [blocks.order[blocks.block_ptr[b]:blocks.block_ptr[b + 1]].tolist() for b in range(len(expected))]
    assert got == expected and blocks.block_ptr[-1] == word_ids.size
    for d in range(len(docs)):
        owned = range(blocks.doc_blocks[d], blocks.doc_blocks[d + 1])
        assert sum(blocks.sizes[b] for b in owned) == len(docs[d])


def test_single_token_blocks_are_exactly_the_single_site_sweep():
    """With no repeated word in any document every block has one token: the blocked sweep is
    then gibbs_sweep draw for draw (same streams, same z, same counts)."""
    rng = np.random.default_rng(1)
    docs = [sorted(rng.choice(40, size=rng.integers(1, 15), replace=False).tolist()) for _ in range(300)]
    word_ids, doc_ptr = token_arrays(docs)
    a = ChainState.initialize(word_ids, doc_ptr, 40, 7, np.full(7, 0.3), 0.05, np.random.default_rng(2))
    b = ChainState.initialize(word_ids, doc_ptr, 40, 7, np.full(7, 0.3), 0.05, np.random.default_rng(2))
    no_tasks = np.zeros((0, 7)), np.zeros((len(docs), 0)), np.zeros((len(docs), 0))
    for simulation in SIMULATIONS:
        for _ in range(3):
            BlockedGibbs(simulation).sweep(a, *no_tasks, None)
            gibbs_sweep(Tokens(b.word_ids, b.doc_ptr, b.z), Counts(b.n_dk, b.n_wk, b.n_k), b.alpha, b.beta,
                        b.vbeta, Supervision(*no_tasks), b.streams)
            np.testing.assert_array_equal(a.z, b.z)
            np.testing.assert_array_equal(a.streams, b.streams)


@pytest.mark.parametrize("simulation", SIMULATIONS)
def test_sweep_keeps_counts_consistent_and_is_deterministic(simulation):
    corpus, _ = make_supervised_corpus(120, 6, doc_length=60, random_state=3)
    states = []
    for _ in range(2):
        state = ChainState.initialize(corpus.word_ids, corpus.doc_ptr, corpus.n_words, 6,
                                        np.full(6, 0.2), 0.01, np.random.default_rng(4))
        sampler = BlockedGibbs(simulation)
        for _ in range(4):
            sampler.sweep(state, np.zeros((0, 6)), np.zeros((120, 0)), np.zeros((120, 0)), None)
            n_dk, n_wk, n_k = state.n_dk.copy(), state.n_wk.copy(), state.n_k.copy()
            state.refresh_counts()
            np.testing.assert_array_equal(n_dk, state.n_dk)
            np.testing.assert_array_equal(n_wk, state.n_wk)
            np.testing.assert_array_equal(n_k, state.n_k)
        states.append(state.z.copy())
    np.testing.assert_array_equal(states[0], states[1])


def test_blocked_sampler_refuses_supervision():
    state = ChainState.initialize(*token_arrays([[0, 0, 1]]), 2, 2, np.full(2, 0.5), 0.1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="unsupervised LDA only"):
        BlockedGibbs().sweep(state, np.ones((1, 2)), np.ones((1, 1)), np.ones((1, 1)), None)
    with pytest.raises(ValueError, match="block_simulation must be one of"):
        BlockedGibbs("forward")


# -- estimator, measures, command line ------------------------------------------------------------
@pytest.fixture(scope="module")
def small_corpus():
    corpus, _ = make_supervised_corpus(260, 5, doc_length=50, random_state=7)
    return corpus.subset(np.arange(200)), corpus.subset(np.arange(200, 260)), corpus.single_labels()[:200]


@pytest.mark.parametrize("simulation", SIMULATIONS)
def test_lda_blocked_traces_log_joint_and_heldout_perplexity(small_corpus, simulation):
    train, held, _ = small_corpus
    model = LDA(5, sampler="blocked", block_simulation=simulation, max_iter=6, trace=True,
                n_infer_burn=3, n_infer_avg=2, random_state=0).fit(train, heldout=held)
    assert [t["iteration"] for t in model.trace_] == list(range(1, 7))
    assert all({"seconds", "log_joint", "perplexity"} <= set(t) for t in model.trace_)
    assert model.trace_[-1]["log_joint"] == pytest.approx(model.log_joint_)
    assert model.trace_[-1]["log_joint"] > model.trace_[0]["log_joint"]
    plain = LDA(5, sampler="blocked", block_simulation=simulation, max_iter=6, random_state=0).fit(train)
    np.testing.assert_array_equal(plain.topic_word_counts_, model.topic_word_counts_)  # measuring is passive
    assert "log_joint" not in plain.trace_[0]
    every = LDA(5, max_iter=5, trace=True, trace_every=2, random_state=0).fit(train, heldout=held)
    assert [("log_joint" in t, "perplexity" in t) for t in every.trace_] == (
        [(False, False), (True, True), (False, False), (True, True), (True, True)])


def test_heldout_measure_equals_completion_perplexity(small_corpus):
    train, held, _ = small_corpus
    model = LDA(5, max_iter=3, random_state=0).fit(train)
    state = ChainState.initialize(train.word_ids, train.doc_ptr, train.n_words, 5, model._alpha(),
                                    model.beta, np.random.default_rng(0))
    state.n_wk[:] = model.topic_word_counts_.T
    state.n_k[:] = model.topic_word_counts_.sum(axis=1)
    measured = HeldoutPerplexity(held.word_ids, held.doc_ptr, ExactGibbs(), 4, 3, np.random.default_rng(9))(state)
    direct = completion_perplexity(held.word_ids, held.doc_ptr, model._phi_wk(), model._alpha(), 4, 3,
                                   np.random.default_rng(9))
    assert measured["perplexity"] == pytest.approx(direct, rel=1e-12)
    split = CompletionSplit.draw(held.word_ids, held.doc_ptr, np.random.default_rng(1))
    assert split.first_ids.size + split.second_ids.size == held.n_tokens


def test_blocked_sampler_errors(small_corpus):
    train, held, y = small_corpus
    with pytest.raises(ValueError, match="'block_simulation' parameter of LDA must be a str among"):
        LDA(5, sampler="blocked", block_simulation="sideways").fit(train)
    with pytest.raises(ValueError, match="'trace_every' parameter of LDA must be"):
        LDA(5, trace_every=0).fit(train)
    with pytest.raises(ValueError, match="unsupervised LDA only"):
        MedLDAClassifier(5, sampler="blocked", max_iter=2).fit(train, y)
    with pytest.raises(ValueError, match="words"):
        LDA(5, max_iter=2).fit(train, heldout=held.to_sparse()[:, :10])
