"""Explanations: each topic's part of a decision, summing exactly to the decision it splits."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from medlda import MedLDAClassifier, MedLDARegressor
from medlda.data.synthetic import make_multilabel_corpus, make_supervised_corpus
from medlda.evaluation.explain import top_topics, toward_prediction

FAST = dict(max_iter=20, alpha_sum=1.0, random_state=0, sampler="light")


def runner_up_margin(omega: np.ndarray) -> np.ndarray:
    top = np.sort(omega, axis=1)
    return top[:, -1] - top[:, -2]


def test_binary_contributions_sum_to_the_decision():
    corpus, _ = make_supervised_corpus(300, 5, words_per_topic=15, doc_length=50, random_state=3)
    y = corpus.single_labels()
    model = MedLDAClassifier(5, c=1.0, margin=1.0, **FAST).fit(corpus, y)
    omega = model.decision_function(corpus)
    toward = model.decision_contributions(corpus)
    assert toward.shape == (corpus.n_docs, 5)
    np.testing.assert_allclose(toward.sum(axis=1), np.abs(omega), atol=1e-10)
    np.testing.assert_allclose(model.decision_contributions(corpus, label=model.classes_[1]).sum(axis=1), omega,
                               atol=1e-10)
    np.testing.assert_allclose(model.decision_contributions(corpus, label=str(model.classes_[0])).sum(axis=1), -omega,
                               atol=1e-10)
    # toward the prediction: documents called classes_[0] are explained by topics of negative weight
    called_0 = model.predict(corpus) == model.classes_[0]
    ids, _ = top_topics(toward, 1)
    assert np.all(model.eta_[0, ids[called_0, 0]] < 0) and np.all(model.eta_[0, ids[~called_0, 0]] > 0)


@pytest.mark.parametrize("strategy", ["multitask", "ovr"])
def test_multiclass_contributions_sum_to_the_margin_over_the_runner_up(strategy):
    corpus, _ = make_supervised_corpus(400, 6, n_classes=3, random_state=3)
    model = MedLDAClassifier(6, strategy=strategy, n_jobs=1, **FAST).fit(corpus, corpus.single_labels())
    omega = model.decision_function(corpus)
    toward = model.decision_contributions(corpus)
    assert toward.shape == (corpus.n_docs, 6 if strategy == "multitask" else 18)
    np.testing.assert_allclose(toward.sum(axis=1), runner_up_margin(omega), atol=1e-10)
    assert runner_up_margin(omega).min() >= 0
    for t, label in enumerate(model.classes_):
        np.testing.assert_allclose(model.decision_contributions(corpus, label=label).sum(axis=1), omega[:, t],
                                   atol=1e-10)


def test_toward_prediction_by_hand():
    zbar = np.array([[0.5, 0.5, 0.0], [0.0, 0.25, 0.75]])
    eta = np.array([[1.0, -2.0, 4.0], [3.0, 1.0, -1.0], [0.0, 0.0, 0.0]])
    omega = zbar @ eta.T  # doc 0: (-0.5, 2, 0): class 1 over class 2; doc 1: (2.5, -0.5, 0): class 0 over 2
    np.testing.assert_allclose(toward_prediction(zbar, eta, omega), [[1.5, 0.5, 0.0], [0.0, -0.5, 3.0]])
    one = eta[:1]  # binary: doc 0 has omega -0.5 (classes_[0]), doc 1 has 2.5 (classes_[1])
    np.testing.assert_allclose(toward_prediction(zbar, one, zbar @ one.T), [[-0.5, 1.0, 0.0], [0.0, -0.5, 3.0]])


def test_regression_contributions_sum_to_the_prediction_less_the_mean(regression_corpus):
    corpus, truth = regression_corpus
    model = MedLDARegressor(5, c=10.0, **FAST).fit(corpus, truth.y)
    parts = model.decision_contributions(corpus)
    np.testing.assert_allclose(parts.sum(axis=1), model.predict(corpus) - model.y_mean_, atol=1e-10)


def test_top_topics_orders_by_value_or_size():
    parts = np.array([[0.1, -3.0, 2.0, 0.5]])
    ids, values = top_topics(parts, 2)
    assert ids.tolist() == [[2, 3]] and values.tolist() == [[2.0, 0.5]]
    ids, values = top_topics(parts, 2, absolute=True)
    assert ids.tolist() == [[1, 2]] and values.tolist() == [[-3.0, 2.0]]
    assert top_topics(parts, 10)[0].shape == (1, 4)
    with pytest.raises(ValueError, match="at least 1"):
        top_topics(parts, 0)


def test_refusals_are_clear():
    with pytest.raises(NotFittedError):
        MedLDAClassifier(3).decision_contributions(np.ones((2, 4)))
    corpus, truth = make_multilabel_corpus(200, 4, n_labels=3, words_per_topic=10, random_state=3)
    model = MedLDAClassifier(4, **FAST).fit(corpus, truth.Y)
    with pytest.raises(ValueError, match="decides each label apart"):
        model.decision_contributions(corpus)
    with pytest.raises(ValueError, match="'nope' is not one of the model's classes"):
        model.decision_contributions(corpus, label="nope")
    omega = model.decision_function(corpus)
    np.testing.assert_allclose(model.decision_contributions(corpus, label=model.classes_[2]).sum(axis=1),
                               omega[:, 2], atol=1e-10)
