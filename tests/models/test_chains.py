"""Several chains (``n_chains``): each chain is the single-chain fit of its spawned seed, the model
averages their discriminants or predictions through its stacked topics and eta, files keep them,
and the settings they do not support are refused."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.base import clone

from medlda import MedLDAClassifier, MedLDARegressor, load_model
from medlda.exceptions import ModelFileError
from medlda.models.chains import spawn_seeds

FAST = dict(alpha_sum=1.0, sampler="light", n_infer_burn=10, n_infer_avg=5, max_iter=5, random_state=0)


@pytest.fixture(scope="module")
def multiclass(multiclass_corpus):
    corpus, _ = multiclass_corpus
    y = np.array(["a", "b", "c"])[corpus.single_labels()]
    return corpus.subset(np.arange(400)), y[:400], corpus.subset(np.arange(400, 500))


@pytest.fixture(scope="module")
def chains3(multiclass):
    train, y, _ = multiclass
    return MedLDAClassifier(4, c=1.0, margin=1.0, n_chains=3, n_jobs=1, **FAST).fit(train, y)


def test_each_chain_is_the_fit_of_its_spawned_seed(multiclass, chains3):
    train, y, test = multiclass
    seeds = spawn_seeds(0, 3)
    for chain, seed in zip(chains3.chains_, seeds):
        alone = MedLDAClassifier(4, c=1.0, margin=1.0, **{**FAST, "random_state": seed}).fit(train, y)
        assert np.array_equal(chain.topic_word_counts_, alone.topic_word_counts_)
        assert np.array_equal(chain.eta_samples_, alone.eta_samples_)
    # the chains differ: they are independent, not copies of one
    assert not np.array_equal(chains3.chains_[0].topic_word_counts_, chains3.chains_[1].topic_word_counts_)


def test_the_model_averages_its_chains(multiclass, chains3):
    _, _, test = multiclass
    mean = np.mean([m.decision_function(test) for m in chains3.chains_], axis=0)
    assert np.allclose(chains3.decision_function(test), mean, rtol=0, atol=1e-9)
    assert np.array_equal(chains3.predict(test), chains3.classes_[mean.argmax(1)])
    assert chains3.topic_word_counts_.shape[0] == 12 and chains3.eta_.shape == (3, 12)
    zbar = chains3.transform(test)
    assert zbar.shape == (100, 12) and np.allclose(zbar.reshape(100, 3, 4).sum(2), 1.0)
    assert len(chains3.get_feature_names_out()) == 12
    contributions = chains3.decision_contributions(test, "a")
    assert np.allclose(contributions.sum(1), chains3.decision_function(test)[:, 0])
    assert chains3.summary()["n_chains"] == 3


def test_chains_in_parallel_match_one_at_a_time(multiclass, chains3):
    train, y, test = multiclass
    parallel = clone(chains3).set_params(n_jobs=2).fit(train, y)
    assert np.array_equal(parallel.topic_word_counts_, chains3.topic_word_counts_)
    assert np.array_equal(parallel.predict(test), chains3.predict(test))
    assert parallel.fit_stats_["pool"] == "threads" and parallel.fit_stats_["n_chains"] == 3


def test_a_refit_with_one_chain_drops_the_chains(multiclass):
    train, y, test = multiclass
    model = MedLDAClassifier(4, c=1.0, margin=1.0, n_chains=2, **FAST).fit(train, y)
    model.set_params(n_chains=1).fit(train, y)
    assert not hasattr(model, "chains_") and model.transform(test).shape == (100, 4)


def test_model_files_keep_the_chains(multiclass, chains3, tmp_path):
    _, _, test = multiclass
    chains3.save(tmp_path / "m.npz")
    loaded = load_model(tmp_path / "m.npz")
    assert len(loaded.chains_) == 3
    assert np.array_equal(loaded.decision_function(test), chains3.decision_function(test))
    for read, fitted in zip(loaded.chains_, chains3.chains_):  # each chain predicts on its own too
        assert np.array_equal(read.predict(test), fitted.predict(test))


def _with_params(src, dst, **params):
    """A copy of model file ``src`` whose metadata says other parameters."""
    with np.load(src, allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files}
    meta = json.loads(arrays["__metadata__"].tobytes())
    meta["params"].update(params)
    arrays["__metadata__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(dst, **arrays)


def test_files_whose_chains_do_not_match_their_topics_are_refused(chains3, tmp_path):
    chains3.save(tmp_path / "m.npz")
    _with_params(tmp_path / "m.npz", tmp_path / "more.npz", n_chains=4)  # 12 topics are not 4 chains of 4
    with pytest.raises(ModelFileError, match="topic_word_counts should be of shape"):
        load_model(tmp_path / "more.npz")
    _with_params(tmp_path / "m.npz", tmp_path / "one.npz", n_chains=1)
    with pytest.raises(ModelFileError, match="topic_word_counts should be of shape"):
        load_model(tmp_path / "one.npz")


def test_regressor_averages_its_chains(regression_corpus, tmp_path):
    corpus, truth = regression_corpus
    train, test = corpus.subset(np.arange(200)), corpus.subset(np.arange(200, 300))
    model = MedLDARegressor(5, n_chains=2, **FAST).fit(train, truth.y[:200])
    mean = np.mean([m.predict(test) for m in model.chains_], axis=0)
    assert np.allclose(model.predict(test), mean, rtol=0, atol=1e-9)
    assert model.train_score_ == pytest.approx(np.mean([m.train_score_ for m in model.chains_]))
    model.save(tmp_path / "r.npz")
    assert np.array_equal(load_model(tmp_path / "r.npz").predict(test), model.predict(test))


@pytest.mark.parametrize("setting, named", [({"strategy": "ovr"}, "strategy"),
                                            ({"checkpoint_every": 2, "checkpoint_path": "c.npz"}, "checkpoint")])
def test_unsupported_settings_are_refused(multiclass, setting, named):
    train, y, _ = multiclass
    with pytest.raises(ValueError, match=named):
        MedLDAClassifier(4, n_chains=2, **FAST, **setting).fit(train, y)


@pytest.mark.parametrize("n_classes, n_chains", [(2, 1), (3, 2)])
def test_combine_ridge_classifies_by_ridge_regression_on_the_inferred_topics(multiclass, n_classes, n_chains,
                                                                            tmp_path):
    """The decision is scikit-learn's RidgeClassifierCV fitted to the training documents' topics
    inferred as new ones (every chain's side by side), intercept included; files keep it."""
    from sklearn.linear_model import RidgeClassifierCV

    from medlda.models.chains import RIDGE_PENALTIES

    train, y, test = multiclass
    keep = np.isin(y, ["a", "b", "c"][:n_classes])
    train = train.subset(np.flatnonzero(keep))
    model = MedLDAClassifier(4, c=1.0, margin=1.0, n_chains=n_chains, combine="ridge", **FAST).fit(train, y[keep])
    chains = model.chains_ if n_chains > 1 else [model]
    features = [np.hstack([c.transform(part) for c in chains]) for part in (train, test)]
    reference = RidgeClassifierCV(alphas=RIDGE_PENALTIES).fit(features[0], y[keep])
    np.testing.assert_allclose(model.decision_function(test), reference.decision_function(features[1]), rtol=0,
                               atol=1e-9)
    assert np.array_equal(model.predict(test), reference.predict(features[1]))
    assert model.fit_stats_["ridge_penalty"] == reference.alpha_
    model.save(tmp_path / "m.npz")
    np.testing.assert_allclose(load_model(tmp_path / "m.npz").decision_function(test), model.decision_function(test),
                               rtol=0, atol=1e-12)


def test_combine_ridge_needs_one_set_of_topics_and_no_background_topics(multiclass):
    train, y, _ = multiclass
    with pytest.raises(ValueError, match="it needs strategy='multitask'"):
        MedLDAClassifier(4, strategy="ovr", combine="ridge", **FAST).fit(train, y)
    with pytest.raises(ValueError, match="set background_topics=0"):
        MedLDAClassifier(4, background_topics=1, combine="ridge", **FAST).fit(train, y)
