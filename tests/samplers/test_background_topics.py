"""Background topics (``background_topics``): the last topics keep no classifier weight, and the
first ones are drawn from their conditional given those zeros, by every eta draw."""

from __future__ import annotations

import numpy as np
import pytest

from medlda import MedLDAClassifier, MedLDARegressor
from medlda.engine.state import ChainState
from medlda.samplers import Light
from medlda._kernels.eta import coordinate_eta_sweeps
from medlda.samplers.eta import draw_eta_from_statistics, shift_eta

# a task's statistics where the supervised topics' weights lean on the background's: their
# conditional given background weights of 0 and their marginal differ in mean and variance
GRAM = np.array([[[4.0, 1.0, 2.5], [1.0, 3.0, 1.5], [2.5, 1.5, 5.0]]])
LINEAR = np.array([[2.0, -1.0, 3.0]])
NU = 0.5


def _conditional(free: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean and covariance of the first ``free`` weights given the others at 0."""
    precision = GRAM[0, :free, :free] + NU * np.eye(free)
    cov = np.linalg.inv(precision)
    return cov @ LINEAR[0, :free], cov


@pytest.mark.parametrize("sampler, eta_draw", [("gibbs", "auto"), ("light", "exact"), ("light", "coordinate")])
def test_background_topics_keep_no_weight(multiclass_corpus, sampler, eta_draw):
    corpus, _ = multiclass_corpus
    y = corpus.single_labels()
    model = MedLDAClassifier(8, background_topics=3, sampler=sampler, eta_draw=eta_draw, max_iter=4,
                             random_state=0).fit(corpus, y)
    assert np.all(model.eta_samples_[:, :, 5:] == 0.0) and np.all(model.eta_samples_[:, :, :5].any(axis=2))
    regressor = MedLDARegressor(8, background_topics=2, sampler=sampler, eta_draw=eta_draw, max_iter=3,
                                random_state=0).fit(corpus, np.arange(corpus.n_docs) % 7 / 7.0)
    assert np.all(regressor.eta_samples_[:, :, 6:] == 0.0) and regressor.eta_samples_[:, :, :6].any()


def test_no_background_topics_draws_as_before():
    """n_supervised = K (or None) draws the same bits: the default's chains are unchanged."""
    a = draw_eta_from_statistics(GRAM, LINEAR, NU, np.random.default_rng(3))
    b = draw_eta_from_statistics(GRAM, LINEAR, NU, np.random.default_rng(3), 3)
    assert np.array_equal(a, b)


def test_the_exact_draw_is_the_conditional_given_the_zeros():
    """20,000 exact draws with the third topic in the background: each supervised weight's mean
    within 4.5 standard errors of its conditional mean (false alarm under 1e-5 per weight) and its
    variance within 5% (about 7 standard errors of a variance estimate). Power: the marginal's
    means, what zeroing the third weight of a full draw would give, lie over 40 standard errors away."""
    n = 20_000
    rng = np.random.default_rng(11)
    draws = np.array([draw_eta_from_statistics(GRAM, LINEAR, NU, rng, 2)[0] for _ in range(n)])
    assert np.all(draws[:, 2] == 0.0)
    mean, cov = _conditional(2)
    se = np.sqrt(np.diag(cov) / n)
    assert np.all(np.abs(draws[:, :2].mean(axis=0) - mean) < 4.5 * se)
    assert np.allclose(draws[:, :2].var(axis=0), np.diag(cov), rtol=0.05)
    full = np.linalg.solve(GRAM[0] + NU * np.eye(3), LINEAR[0])[:2]
    assert np.all(np.abs(full - mean) > 40 * se)


def _fixed_chain(n_topics: int) -> tuple[ChainState, np.ndarray, np.ndarray, np.random.Generator]:
    """A random chain state of 60 documents, one task's aux (kappa, w) and the stream after them."""
    rng = np.random.default_rng(5)
    lengths = rng.integers(5, 30, 60)
    doc_ptr = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    word_ids = rng.integers(0, 20, doc_ptr[-1]).astype(np.int32)
    state = ChainState.initialize(word_ids, doc_ptr, 20, n_topics, np.full(n_topics, 0.5), 0.1, rng)
    return state, rng.normal(0.0, 1.0, (60, 1)), rng.gamma(2.0, 1.0, (60, 1)), rng


def _coordinate_chain_z(free: int, n_topics: int, wrong: bool = False) -> np.ndarray:
    """z-scores of the time average of light's coordinate draws (one sweep and the bias draw per
    step), as a chain of eta alone on a fixed chain state and aux: 6,000 draws after 200, standard
    errors by 30 batch means, against the exact conditional mean of the first ``free`` weights
    given the others at 0; the others must stay 0. ``wrong``: the bias draw takes every
    document's weights to sum to 1, the background topics' share counted in."""
    state, kappa, w, rng = _fixed_chain(n_topics)
    zbar = state.n_dk / state.doc_lengths[:, None]
    precision = (zbar[:, :free].T * w[:, 0]) @ zbar[:, :free] + NU * np.eye(free)
    mean = np.linalg.solve(precision, zbar[:, :free].T @ kappa[:, 0])
    sampler = Light(eta_draw="coordinate", n_gibbs=1)

    def draw(eta):
        if not wrong:
            return sampler.draw_eta(state, eta, kappa, w, NU, rng, free)[0]
        columns = state.topic_columns()
        weights, omega = eta[:, :free].copy(), state.omega(eta, columns)
        coordinate_eta_sweeps((columns[0][:free + 1], columns[1], columns[2]), kappa, w, omega, weights, NU,
                              rng.standard_normal((1, 1, free)))
        shift_eta(weights, omega, kappa, w, np.ones(state.n_dk.shape[0]), NU, rng)
        out = np.zeros_like(eta)
        out[:, :free] = weights
        return out

    eta, draws = np.zeros((1, n_topics)), []
    for i in range(6200):
        eta = draw(eta)
        assert np.all(eta[:, free:] == 0.0)
        if i >= 200:
            draws.append(eta[0, :free].copy())
    batches = np.array(draws).reshape(30, 200, free).mean(axis=1)
    return (batches.mean(axis=0) - mean) / (batches.std(axis=0, ddof=1) / np.sqrt(30))


@pytest.mark.parametrize("free, n_topics", [(3, 4), (1, 3)])
def test_the_coordinate_draws_keep_the_conditional(free, n_topics):
    """Within 4.5 batch standard errors (t with 29 degrees of freedom: a false alarm about 1e-4
    per weight)."""
    assert np.all(np.abs(_coordinate_chain_z(free, n_topics)) < 4.5)


def test_the_coordinate_check_fails_a_bias_draw_that_ignores_the_background():
    """Power: the same chain with the wrong bias draw drifts from the conditional, over 4.5
    standard errors."""
    assert np.any(np.abs(_coordinate_chain_z(1, 3, wrong=True)) > 4.5)
