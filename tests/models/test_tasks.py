"""Every task: multi-class (multi-task and one-vs-rest, hinge and logistic), multi-label and
regression recover planted structure; predict_proba, model files and errors of the new estimators.
(The task read from a file's labels: tests/data/test_detect_task.py; ``medlda train`` on each:
tests/cli/test_train.py.)"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.metrics import f1_score

from medlda import MedLDAClassifier, MedLDARegressor, losses
from medlda.data.synthetic import make_regression_corpus
from medlda.io.model_file import load_model

FAST = dict(alpha_sum=1.0, sampler="light", n_infer_burn=10, n_infer_avg=5, random_state=0)


@pytest.fixture(scope="module")
def multiclass(multiclass_corpus):
    corpus, truth = multiclass_corpus
    y = np.array(["a", "b", "c"])[corpus.single_labels()]
    return corpus.subset(np.arange(500)), y[:500], corpus.subset(np.arange(500, 700)), y[500:]


@pytest.fixture(scope="module")
def multilabel(multilabel_corpus):
    corpus, truth = multilabel_corpus
    return corpus.subset(np.arange(500)), truth.Y[:500], corpus.subset(np.arange(500, 700)), truth.Y[500:]


@pytest.mark.parametrize("loss, strategy", [("hinge", "ovr"), ("logistic", "multitask"), ("logistic", "ovr")])
def test_multiclass_recovers_planted_classifier(multiclass, loss, strategy):
    train, y, test, y_test = multiclass
    margin = 1.0 if loss == "hinge" else "auto"
    c = 1.0 if loss == "hinge" else 10.0
    model = MedLDAClassifier(6, c=c, margin=margin, loss=loss, strategy=strategy, max_iter=40, n_jobs=1,
                             **FAST).fit(train, y)
    assert model.score(test, y_test) > 0.8
    # the planted labels are learnable; shuffled ones are not (the check can fail)
    assert model.score(test, np.random.default_rng(0).permutation(y_test)) < 0.6
    assert list(model.classes_) == ["a", "b", "c"]
    if strategy == "ovr":
        assert len(model.estimators_) == 3 and model.eta_.shape == (3, 18)
        assert model.transform(test).shape == (200, 18) and model.topic_word_counts_.shape[0] == 18
    else:
        assert model.eta_.shape == (3, 6)


@pytest.mark.slow
@pytest.mark.parametrize("sampler, pool", [("light", "threads"), ("gibbs", "processes")])
def test_ovr_in_parallel_matches_one_process(multiclass, sampler, pool):
    """Light's binary models train on threads (its sweeps release the GIL), gibbs's in processes;
    either gives the one-process model."""
    train, y, test, _ = multiclass
    serial = MedLDAClassifier(4, c=1.0, margin=1.0, strategy="ovr", max_iter=5, n_jobs=1,
                              **{**FAST, "sampler": sampler}).fit(train, y)
    parallel = clone(serial).set_params(n_jobs=2).fit(train, y)
    assert np.array_equal(serial.eta_samples_, parallel.eta_samples_)
    assert np.array_equal(serial.topic_word_counts_, parallel.topic_word_counts_)
    assert np.array_equal(serial.predict(test), parallel.predict(test))
    assert serial.fit_stats_["n_jobs"] == 1 and parallel.fit_stats_["n_jobs"] == 2
    assert parallel.fit_stats_["pool"] == pool


def test_predict_proba_only_for_the_logistic_loss(multiclass):
    train, y, test, _ = multiclass
    hinge = MedLDAClassifier(4, c=1.0, margin=1.0, max_iter=3, **FAST).fit(train, y)
    assert not hasattr(hinge, "predict_proba")
    with pytest.raises(AttributeError, match="predict_proba"):
        hinge.predict_proba(test)
    logistic = clone(hinge).set_params(loss="logistic", c="auto").fit(train, y)
    proba = logistic.predict_proba(test)
    assert proba.shape == (200, 3) and np.allclose(proba.sum(1), 1.0)
    assert np.array_equal(logistic.classes_[proba.argmax(1)], logistic.predict(test))
    assert logistic.c_ == 204.8
    binary = clone(logistic).fit(train, np.where(y == "a", "a", "rest"))
    assert binary.c_ == 25.0 and binary.predict_proba(test).shape == (200, 2)


@pytest.mark.parametrize("strategy", ["multitask", "ovr"])
def test_multilabel_recovers_planted_labels(multilabel, strategy):
    train, Y, test, Y_test = multilabel
    model = MedLDAClassifier(6, c=1.0, margin=1.0, strategy=strategy, max_iter=40, n_jobs=1, **FAST).fit(train, Y)
    pred = model.predict(test)
    assert pred.shape == Y_test.shape and set(np.unique(pred)) <= {0, 1}
    assert f1_score(Y_test, pred, average="micro") > 0.75
    shuffled = Y_test[np.random.default_rng(0).permutation(len(Y_test))]
    assert f1_score(shuffled, pred, average="micro") < 0.6  # the check can fail
    assert list(model.classes_) == [0, 1, 2, 3]


@pytest.mark.parametrize("loss", ["epsilon", "squared"])
def test_regression_recovers_planted_response(loss):
    corpus, truth = make_regression_corpus(700, 6, words_per_topic=20, noise=0.1, random_state=4)
    train, test = corpus.subset(np.arange(500)), corpus.subset(np.arange(500, 700))
    y = corpus.real_labels()
    model = MedLDARegressor(6, loss=loss, c=10.0, max_iter=40, **FAST).fit(train, y[:500])
    assert model.score(test, y[500:]) > 0.7
    assert model.score(test, np.random.default_rng(0).permutation(y[500:])) < 0.2  # can fail
    assert model.predict(test).shape == (200,)


def test_model_files_round_trip_every_estimator(tmp_path, multiclass, multilabel):
    train, y, test, _ = multiclass
    ml_train, Y, ml_test, _ = multilabel
    reg_corpus, reg = make_regression_corpus(200, 4, words_per_topic=10, random_state=5)
    fitted = [
        (MedLDAClassifier(4, loss="logistic", strategy="ovr", max_iter=3, n_jobs=1, **FAST).fit(train, y), test),
        (MedLDAClassifier(4, c=1.0, margin=1.0, max_iter=3, **FAST).fit(ml_train, Y), ml_test),
        (MedLDAClassifier(4, strategy="ovr", max_iter=3, n_jobs=1, **FAST).fit(ml_train, Y), ml_test),
        (MedLDARegressor(4, loss="squared", max_iter=3, **FAST).fit(reg_corpus, reg.y), reg_corpus),
    ]
    for i, (model, X) in enumerate(fitted):
        path = tmp_path / f"m{i}.npz"
        model.save(path)
        again = load_model(path)
        assert type(again) is type(model) and again.get_params() == model.get_params()
        if isinstance(model, MedLDAClassifier):
            assert (again.c_, again.margin_, again.positive_cost_) == (model.c_, model.margin_, model.positive_cost_)
        assert np.array_equal(again.eta_samples_, model.eta_samples_)
        assert np.array_equal(again.predict(X), model.predict(X))
        if hasattr(model, "predict_proba"):
            assert again.proba_scale_ == model.proba_scale_ != model.c_
            assert np.allclose(again.predict_proba(X), model.predict_proba(X))
        if hasattr(model, "estimators_"):
            assert len(again.estimators_) == len(model.estimators_)


def test_positive_cost_reaches_the_loss_of_every_strategy(multiclass, multilabel, monkeypatch):
    """An explicit positive_cost goes to every loss; 'auto' is MULTILABEL_POSITIVE_COST for
    multi-label data, C - 1 for one-vs-rest on C single-label classes (each binary model
    balanced; for the logistic loss up to OVR_LOGISTIC_BALANCED_MAX_K topics) and 1 otherwise,
    in the multi-task model and every binary model."""
    import medlda.models.classifier as est

    train, y, _, _ = multiclass
    ml_train, Y, _, _ = multilabel
    seen, real = [], est.make_loss
    monkeypatch.setattr(est, "make_loss", lambda *a, **k: seen.append(k.get("positive_cost")) or real(*a, **k))
    fits = [(dict(positive_cost=3.0), ml_train, Y, [3.0]),
            (dict(positive_cost=3.0, strategy="ovr"), ml_train, Y, [3.0] * 4),
            (dict(), ml_train, Y, [losses.MULTILABEL_POSITIVE_COST]),
            (dict(strategy="ovr"), ml_train, Y, [losses.MULTILABEL_POSITIVE_COST] * 4),
            (dict(), train, y, [1.0]), (dict(strategy="ovr"), train, y, [2.0] * 3),
            (dict(strategy="ovr", loss="logistic"), train, y, [2.0] * 3),
            (dict(strategy="ovr"), train, np.where(y == y[0], "one", "rest"), [1.0])]  # two classes: one binary model
    for params, X, labels, expected in fits:
        seen.clear()
        model = MedLDAClassifier(4, max_iter=2, n_jobs=1, **FAST, **params).fit(X, labels)
        assert seen == expected and model.positive_cost_ == expected[0], params
    assert losses.MULTILABEL_POSITIVE_COST == 4.0
    big = losses.OVR_LOGISTIC_BALANCED_MAX_K
    for loss, k, expected in (("logistic", big, 19.0), ("logistic", big + 1, 1.0), ("hinge", big + 1, 19.0)):
        default = losses.LOSSES[loss].default_positive_cost
        assert default(20, multilabel=False, one_vs_rest=True, n_topics=k) == expected, (loss, k)
        assert default(20, multilabel=False, one_vs_rest=False, n_topics=k) == 1.0  # multitask


def test_auto_margin_is_the_multilabel_one_only_for_multilabel_data(multiclass, multilabel, monkeypatch):
    """margin='auto' gives multi-label multi-task models MULTILABEL_MARGIN (validated on Reuters)
    and leaves the papers' multi-class margin alone; an explicit margin always wins."""
    import medlda.models.classifier as est

    train, y, _, _ = multiclass
    ml_train, Y, _, _ = multilabel
    seen, real = [], est.make_loss
    monkeypatch.setattr(est, "make_loss", lambda *a, **k: seen.append(a[2]) or real(*a, **k))
    for params, X, labels, expected in [(dict(), ml_train, Y, losses.MULTILABEL_MARGIN),
                                        (dict(margin=5.0), ml_train, Y, 5.0),
                                        (dict(), train, y, losses.MULTICLASS_MARGIN)]:
        seen.clear()
        model = MedLDAClassifier(4, max_iter=2, n_jobs=1, **FAST, **params).fit(X, labels)
        assert seen == [expected] and model.margin_ == expected, params
    assert losses.MULTILABEL_MARGIN == 8.0 != losses.MULTICLASS_MARGIN


@pytest.mark.parametrize("params, match", [
    (dict(loss="epsilon"), "MedLDARegressor"), (dict(strategy="ova"), "strategy"), (dict(n_jobs=0), "n_jobs"),
    (dict(c="big"), "'c' parameter of MedLDAClassifier must"), (dict(positive_cost=0.0), "positive_cost"),
])
def test_invalid_classifier_options(multiclass, params, match):
    train, y, _, _ = multiclass
    with pytest.raises(ValueError, match=match):
        MedLDAClassifier(3, max_iter=2, **params).fit(train, y)


def test_bad_labels_and_responses(multiclass):
    train, y, _, _ = multiclass
    with pytest.raises(ValueError, match="0/1 label-indicator"):
        MedLDAClassifier(3, max_iter=2).fit(train, np.full((train.n_docs, 2), 2))
    with pytest.raises(ValueError, match="NaN"):
        MedLDARegressor(3, max_iter=2).fit(train, np.full(train.n_docs, np.nan))
    with pytest.raises(ValueError, match="'loss' parameter of MedLDARegressor must be a str among"):
        MedLDARegressor(3, loss="hinge", max_iter=2).fit(train, np.zeros(train.n_docs))
    with pytest.raises(ValueError, match="one response per document"):
        MedLDARegressor(3, max_iter=2).fit(train, np.zeros(3))
    with pytest.raises(ValueError, match="numeric responses y .*use MedLDAClassifier"):
        MedLDARegressor(3, max_iter=2).fit(train, np.array(["spam"] * train.n_docs))
