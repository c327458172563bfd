"""MedLDARegressor's response scaling and its 'auto' c: the chain sees unit-variance responses, so
a rescaled response gives the same model in its own units, and c follows the documents' length."""

from __future__ import annotations

import numpy as np
import pytest

from medlda import MedLDARegressor
from medlda.io.model_file import load_model, save_model
from medlda.losses import REGRESSION_C_PER_TOKEN

QUICK = dict(max_iter=6, random_state=0, n_infer_burn=3, n_infer_avg=4)


@pytest.fixture(scope="module")
def data(regression_corpus):
    corpus, truth = regression_corpus
    return corpus, corpus.real_labels()


@pytest.mark.parametrize("loss", ["epsilon", "squared"])
def test_a_rescaled_response_gives_the_same_model_in_its_units(data, loss):
    """Times 4 (exact in binary floating point): the same draws, eta and predictions times 4. Were
    the responses not scaled, c and epsilon would weigh the larger residuals differently."""
    corpus, y = data
    a = MedLDARegressor(5, loss=loss, **QUICK).fit(corpus, y)
    b = MedLDARegressor(5, loss=loss, **QUICK).fit(corpus, 4.0 * y)
    assert b.y_scale_ == 4.0 * a.y_scale_ and b.y_mean_ == 4.0 * a.y_mean_
    assert np.array_equal(a.topic_word_counts_, b.topic_word_counts_)
    np.testing.assert_allclose(b.eta_samples_, 4.0 * a.eta_samples_, rtol=1e-12)
    np.testing.assert_allclose(b.predict(corpus), 4.0 * a.predict(corpus), rtol=1e-12)
    assert a.train_score_ == b.train_score_


def test_responses_are_centred_and_scaled_for_the_chain(data):
    corpus, y = data
    model = MedLDARegressor(5, **QUICK).fit(corpus, 10.0 + 3.0 * y)
    assert model.y_mean_ == pytest.approx(10.0 + 3.0 * y.mean())
    assert model.y_scale_ == pytest.approx(3.0 * y.std())
    zbar = model.transform(corpus)  # predictions are in the response's units: eta . zbar + mean
    np.testing.assert_allclose(model.predict(corpus), zbar @ model.eta_[0] + model.y_mean_)
    constant = MedLDARegressor(5, **QUICK).fit(corpus, np.full(corpus.n_docs, 2.5))
    assert constant.y_scale_ == 1.0 and constant.y_mean_ == 2.5  # nothing to scale
    assert np.all(np.isfinite(constant.eta_samples_))


def test_auto_c_is_per_token_times_the_mean_document_length(data):
    corpus, y = data
    model = MedLDARegressor(5, **QUICK).fit(corpus, y)
    assert model.c == "auto"  # the parameter is left as given (scikit-learn)
    assert model.c_ == pytest.approx(REGRESSION_C_PER_TOKEN * corpus.n_tokens / corpus.n_docs)
    fixed = MedLDARegressor(5, c=2.5, **QUICK).fit(corpus, y)
    assert fixed.c_ == 2.5
    assert not np.array_equal(model.eta_samples_, fixed.eta_samples_)


def test_model_files_keep_the_scale_and_c(data, tmp_path):
    corpus, y = data
    model = MedLDARegressor(5, **QUICK).fit(corpus, 7.0 * y)
    save_model(model, tmp_path / "m.npz")
    loaded = load_model(tmp_path / "m.npz")
    assert loaded.y_scale_ == model.y_scale_ and loaded.c_ == model.c_ and loaded.c == "auto"
    np.testing.assert_array_equal(loaded.eta_samples_, model.eta_samples_)


@pytest.mark.parametrize("n_chains", [1, 2])
def test_combine_ridge_predicts_by_ridge_regression_on_the_inferred_topics(regression_corpus, n_chains, tmp_path):
    """The same chains as combine='average'; only the weights differ: those of scikit-learn's
    RidgeCV fitted to the training documents' topics inferred as new ones, intercept included."""
    from sklearn.linear_model import RidgeCV

    from medlda.models.chains import RIDGE_PENALTIES

    corpus, truth = regression_corpus
    train, test = corpus.subset(np.arange(200)), corpus.subset(np.arange(200, 300))
    y = 2.0 + truth.y[:200]
    ridge = MedLDARegressor(5, n_chains=n_chains, combine="ridge", **QUICK).fit(train, y)
    average = MedLDARegressor(5, n_chains=n_chains, **QUICK).fit(train, y)
    assert np.array_equal(ridge.topic_word_counts_, average.topic_word_counts_)
    chains = ridge.chains_ if n_chains > 1 else [ridge]
    features = [np.hstack([c.transform(part) for c in chains]) for part in (train, test)]
    reference = RidgeCV(alphas=RIDGE_PENALTIES).fit(features[0], y)
    np.testing.assert_allclose(ridge.predict(test), reference.predict(features[1]), rtol=0, atol=1e-9)
    assert ridge.fit_stats_["ridge_penalty"] == reference.alpha_
    assert not np.allclose(ridge.predict(test), average.predict(test))
    ridge.save(tmp_path / "r.npz")
    np.testing.assert_allclose(load_model(tmp_path / "r.npz").predict(test), ridge.predict(test), rtol=0, atol=1e-12)


def test_combine_ridge_refuses_background_topics(data):
    """Ridge regression weighs every topic: none could keep the zero weight of a background topic."""
    corpus, y = data
    with pytest.raises(ValueError, match="set background_topics=0"):
        MedLDARegressor(5, combine="ridge", background_topics=1, **QUICK).fit(corpus, y)
