"""The aux draw in blocks (``medlda.engine.aux``): the same draws on any number of threads, each
block from its own stream, and the loss's distribution kept (z-test at ``exact.FALSE_ALARM``
with a power check)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from exact import FALSE_ALARM
from medlda.engine.aux import AUX_BLOCK_CELLS, aux_blocks, draw_aux
from medlda.losses import EpsilonLoss, HingeLoss, LogisticLoss


def _problem(n_docs: int, n_tasks: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    omega = rng.normal(size=(n_docs, n_tasks)) * 3
    targets = np.where(rng.random((n_docs, n_tasks)) < 0.3, 1.0, -1.0)
    return omega, targets


def test_blocks_depend_on_the_problem_size_only_and_cover_every_document():
    assert aux_blocks(100, 3).tolist() == [0, 100]
    edges = aux_blocks(10_000, 20)
    assert edges[0] == 0 and edges[-1] == 10_000 and np.all(np.diff(edges) > 0)
    assert edges.size - 1 == 10_000 * 20 // AUX_BLOCK_CELLS
    assert aux_blocks(3, 10**7).size == 4  # never more blocks than documents
    assert aux_blocks(0, 5).tolist() == [0, 0]


def test_one_block_draws_from_the_chain_generator_itself():
    omega, targets = _problem(50, 2)
    loss = HingeLoss(1.6, 64.0)
    expected = loss.draw_aux(omega, targets, np.random.default_rng(7))
    kappa, w = draw_aux(loss, omega, targets, np.random.default_rng(7), n_jobs=3)
    assert np.array_equal(kappa, expected[0]) and np.array_equal(w, expected[1])
    assert kappa.flags.c_contiguous and w.flags.c_contiguous


@pytest.mark.parametrize("loss", [HingeLoss(1.6, 64.0), LogisticLoss(25.0), EpsilonLoss(2.0, epsilon=0.1)],
                         ids=lambda loss: loss.name)
def test_the_draws_are_the_same_on_any_number_of_threads(loss):
    omega, targets = _problem(3 * AUX_BLOCK_CELLS + 17, 2)
    if loss.name == "logistic":
        targets = (targets > 0).astype(float)
    elif loss.name == "epsilon":
        targets = targets[:, :1] * 0.5
        omega = np.ascontiguousarray(omega[:, :1])
    draws = [draw_aux(loss, omega, targets, np.random.default_rng(3), n_jobs) for n_jobs in (1, 2, 5)]
    assert aux_blocks(*omega.shape).size > 2
    for kappa, w in draws[1:]:
        assert np.array_equal(kappa, draws[0][0]) and np.array_equal(w, draws[0][1])


def test_each_block_has_its_own_stream_and_the_draws_keep_their_distribution():
    """Equal inputs in every block: the blocks' draws differ (a shared seed would repeat them), and
    their mean is the inverse-Gaussian's, 1 / zeta, which a 5% wrong one fails."""
    n_docs, c, margin, omega_value = 8 * AUX_BLOCK_CELLS, 1.6, 4.0, 1.5
    omega, targets = np.full((n_docs, 1), omega_value), np.ones((n_docs, 1))
    _, w = draw_aux(HingeLoss(c, margin), omega, targets, np.random.default_rng(11), n_jobs=2)
    edges = aux_blocks(n_docs, 1)
    first, second = w[edges[0]:edges[1], 0], w[edges[1]:edges[2], 0]
    size = min(first.size, second.size)
    assert not np.array_equal(first[:size], second[:size])
    assert abs(np.corrcoef(first[:size], second[:size])[0, 1]) < 0.05
    xi = w[:, 0] / c ** 2
    mean = 1.0 / (c * abs(margin - omega_value))  # IG(mu, 1): mean mu, variance mu^3
    for target, should_pass in ((mean, True), (1.05 * mean, False)):
        z = (xi.mean() - target) / np.sqrt(mean ** 3 / xi.size)
        assert (2 * stats.norm.sf(abs(z)) > FALSE_ALARM) == should_pass


def test_per_document_weights_follow_their_documents_into_the_blocks():
    """Logistic with document weights s_d: a weight of 0 draws w = 0 exactly, wherever the
    document's block starts."""
    n_docs = 2 * AUX_BLOCK_CELLS + 5
    omega, targets = _problem(n_docs, 1)
    loss = LogisticLoss(4.0)
    weights = np.ones(n_docs)
    weights[::7] = 0.0
    loss.doc_weight = weights
    kappa, w = draw_aux(loss, omega, (targets > 0).astype(float), np.random.default_rng(2), n_jobs=2)
    assert np.all(w[::7] == 0) and np.all(kappa[::7] == 0)
    assert np.all(w[1::7] > 0)


def test_a_fit_with_several_aux_blocks_is_the_same_on_one_and_two_threads():
    """Gibbs sweeps do not depend on n_jobs, so the aux draws are the only threaded part here."""
    from scipy import sparse

    import medlda

    rng = np.random.default_rng(0)
    n_docs, n_words = 2 * AUX_BLOCK_CELLS // 4 + 9, 30
    y = rng.integers(0, 4, size=n_docs)
    words = (y[:, None] * 7 + rng.integers(0, 12, size=(n_docs, 4))) % n_words
    X = sparse.csr_matrix((np.ones(words.size), (np.repeat(np.arange(n_docs), 4), words.ravel())),
                          shape=(n_docs, n_words))
    assert aux_blocks(n_docs, 4).size > 2
    fits = [medlda.MedLDAClassifier(3, sampler="gibbs", max_iter=2, n_jobs=n_jobs, random_state=0).fit(X, y)
            for n_jobs in (1, 2)]
    assert np.array_equal(fits[0].eta_, fits[1].eta_)
    assert np.array_equal(fits[0].topic_word_counts_, fits[1].topic_word_counts_)
