"""predict_proba's scale: fit_proba_scale recovers a planted scale for every task kind, and a
fitted logistic model's probabilities beat sigmoid(c omega) on held-out documents."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import log_loss as sklearn_log_loss

from medlda import MedLDAClassifier
from medlda.data.synthetic import make_supervised_corpus
from medlda.evaluation.calibration import fit_proba_scale, log_loss, proba_from_omega


def _planted(kind: str, scale: float, n: int = 20000, seed: int = 0):
    """Discriminants and labels drawn from proba_from_omega at ``scale``."""
    rng = np.random.default_rng(seed)
    width = {"binary": 1, "multiclass": 4, "multilabel": 3}[kind]
    omega = rng.normal(0.0, 2.0, size=(n, width))
    p = proba_from_omega(omega, scale, kind == "multilabel")
    if kind == "multilabel":
        return omega, (rng.random(p.shape) < p).astype(int)
    return omega, (rng.random(n)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)


@pytest.mark.parametrize("kind", ["binary", "multiclass", "multilabel"])
@pytest.mark.parametrize("scale", [0.3, 2.5])
def test_fitted_scale_recovers_the_planted_one(kind, scale):
    omega, truth = _planted(kind, scale)
    fitted = fit_proba_scale(omega, truth, kind == "multilabel")
    assert abs(fitted - scale) < 0.06 * scale  # standard error about 1% at 20,000 documents


@pytest.mark.parametrize("kind", ["binary", "multiclass", "multilabel"])
def test_log_loss_is_that_of_the_probabilities_and_finite_when_they_saturate(kind):
    omega, truth = _planted(kind, 1.0, n=500)
    multilabel = kind == "multilabel"
    p = proba_from_omega(omega, 1.0, multilabel)
    if multilabel:
        direct = -np.mean(np.sum(np.where(truth == 1, np.log(p), np.log1p(-p)), axis=1))
    else:
        direct = sklearn_log_loss(truth, p, labels=np.arange(p.shape[1]))
    assert np.isclose(log_loss(omega, truth, 1.0, multilabel), direct)
    assert np.isfinite(log_loss(omega, truth, 1e4, multilabel))  # p rounds to 0 or 1, the loss stays finite


@pytest.mark.slow
def test_predict_proba_is_no_longer_saturated_and_predicts_held_out_labels_better():
    """sigmoid(c omega) with c = 25 puts nearly every document at 0 or 1; the fitted scale must
    give a lower held-out log loss, and ranks classes as predict does."""
    corpus, _ = make_supervised_corpus(900, 6, words_per_topic=20, n_classes=3, random_state=8)
    y = np.array(["a", "b", "c"])[corpus.single_labels()]
    train, test = corpus.subset(np.arange(600)), corpus.subset(np.arange(600, 900))
    for strategy in ("multitask", "ovr"):
        model = MedLDAClassifier(6, loss="logistic", strategy=strategy, sampler="light", alpha_sum=1.0, max_iter=30,
                                 n_jobs=1, random_state=0).fit(train, y[:600])
        assert 0 < model.proba_scale_ < model.c_ and model.fit_stats_["calibration_seconds"] > 0
        omega, codes = model.decision_function(test), np.searchsorted(model.classes_, y[600:])
        proba = model.predict_proba(test)
        assert np.array_equal(model.classes_[proba.argmax(1)], model.predict(test))
        fitted = sklearn_log_loss(codes, proba, labels=[0, 1, 2])
        assert fitted < log_loss(omega, codes, model.c_, False)
        assert fitted == pytest.approx(log_loss(omega, codes, model.proba_scale_, False))


def test_calibration_infers_fewer_documents_per_model_when_there_are_many_models():
    from medlda.evaluation.calibration import CALIBRATION_DOCS, CALIBRATION_MIN_DOCS, calibration_size

    assert calibration_size(300, 1) == 300
    assert calibration_size(11314, 1) == CALIBRATION_DOCS
    assert calibration_size(11314, 20) == max(CALIBRATION_MIN_DOCS, CALIBRATION_DOCS // 20)


def test_calibrated_classifier_cv_wraps_the_classifier(binary_corpus):
    """The README's advice for probabilities calibrated on held-out folds works as written."""
    from sklearn.calibration import CalibratedClassifierCV

    corpus, _ = binary_corpus
    y, X = corpus.single_labels(), corpus.to_sparse()
    model = CalibratedClassifierCV(MedLDAClassifier(4, max_iter=5, sampler="light", random_state=0), cv=3)
    proba = model.fit(X[:200], y[:200]).predict_proba(X[200:])
    assert proba.shape == (100, 2) and np.allclose(proba.sum(axis=1), 1.0)
    assert model.score(X[200:], y[200:]) > 0.8


@pytest.mark.parametrize("kind", ["binary", "multiclass", "multilabel"])
def test_log_probabilities_are_the_logs_of_the_probabilities_and_stay_finite(kind):
    from medlda.evaluation.calibration import log_proba_from_omega

    omega, _ = _planted(kind, 1.0, n=300)
    multilabel = kind == "multilabel"
    np.testing.assert_allclose(log_proba_from_omega(omega, 1.0, multilabel),
                               np.log(proba_from_omega(omega, 1.0, multilabel)), rtol=1e-10, atol=1e-12)
    assert np.all(np.isfinite(log_proba_from_omega(omega, 1e4, multilabel)))


def test_predict_log_proba_of_the_classifier(binary_corpus):
    corpus, _ = binary_corpus
    y = corpus.single_labels()
    model = MedLDAClassifier(4, loss="logistic", max_iter=5, sampler="light", random_state=0).fit(corpus, y)
    np.testing.assert_allclose(np.exp(model.predict_log_proba(corpus)), model.predict_proba(corpus))
    assert not hasattr(MedLDAClassifier(4).fit(corpus, y), "predict_log_proba")
