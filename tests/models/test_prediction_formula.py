"""Prediction against its formula, not accuracy: the classifier weights a fitted model predicts
with are the mean of the eta samples of the last n_eta_avg iterations (recorded as the training
loop draws them), and a new document's topics are inferred under the per-topic prior alpha_k =
alpha_sum / K, given the fitted phi: the inference chain's draws against their enumerated
posterior (chi-square at ``exact.FALSE_ALARM``), and the predicted topic proportions' mean
against the posterior mean; each must reject the posterior under alpha_sum per topic.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats
from scipy.special import gammaln

from exact import FALSE_ALARM, chi_square_pvalue, normalize_log, token_arrays
from medlda import MedLDAClassifier, MedLDARegressor
from medlda.data.corpus import Corpus
from medlda.models import base
from medlda.samplers import inference

# -- eta averaging ---------------------------------------------------------------------------------
DOCS = [[0, 0, 1, 2], [1, 1, 0], [2, 3, 3], [3, 2, 2, 1], [0, 1, 1], [3, 3, 2]]
VOCABULARY = np.array(["a", "b", "c", "d"])
FIT = dict(alpha_sum=1.0, beta=0.1, max_iter=8, n_eta_avg=3, n_infer_burn=5, n_infer_avg=3, random_state=0)


def corpus_of(docs: list[list[int]]) -> Corpus:
    return Corpus(*token_arrays(docs), VOCABULARY)


@pytest.fixture
def drawn_etas(monkeypatch) -> list[list[np.ndarray]]:
    """Every eta each fit's training loop draws, in order (one list per fit: one-vs-rest fits one
    binary model after another), recorded by a callback added to the loop the estimators call."""
    fits: list[list[np.ndarray]] = []
    real = base.train

    def recording_train(*args, callbacks=(), **kwargs):
        etas: list[np.ndarray] = []
        fits.append(etas)
        return real(*args, callbacks=[*callbacks, lambda info, run: etas.append(run.supervision.eta.copy())],
                    **kwargs)

    monkeypatch.setattr(base, "train", recording_train)
    return fits


def mean_of_last(etas: list[np.ndarray], n: int) -> np.ndarray:
    assert len(etas) == FIT["max_iter"]
    return np.mean(etas[-n:], axis=0)


@pytest.mark.parametrize("sampler", ["gibbs", "light"])
def test_multitask_classifier_predicts_with_the_mean_of_the_last_eta_samples(drawn_etas, sampler):
    model = MedLDAClassifier(2, c=1.0, margin=1.0, sampler=sampler, **FIT).fit(corpus_of(DOCS), [0, 1, 2, 2, 0, 1])
    (etas,) = drawn_etas
    np.testing.assert_array_equal(model.eta_samples_, np.array(etas[-3:]))
    np.testing.assert_allclose(model.eta_, mean_of_last(etas, 3), rtol=1e-12)
    new = corpus_of([[0, 1, 3], [2, 2, 3, 0]])
    np.testing.assert_allclose(model.decision_function(new), model.transform(new) @ mean_of_last(etas, 3).T,
                               rtol=1e-12)


def test_one_vs_rest_predicts_with_each_binary_models_mean(drawn_etas):
    model = MedLDAClassifier(2, c=1.0, margin=1.0, sampler="gibbs", strategy="ovr", n_jobs=1,
                             **FIT).fit(corpus_of(DOCS), [0, 1, 2, 2, 0, 1])
    assert len(drawn_etas) == 3
    eta = np.zeros((3, 6))
    for t, etas in enumerate(drawn_etas):
        eta[t, 2 * t:2 * t + 2] = mean_of_last(etas, 3)[0]
    np.testing.assert_allclose(model.eta_, eta, rtol=1e-12)
    new = corpus_of([[0, 1, 3], [2, 2, 3, 0]])
    np.testing.assert_allclose(model.decision_function(new), model.transform(new) @ eta.T, rtol=1e-12)


def test_regressor_predicts_with_the_mean_of_the_last_eta_samples(drawn_etas):
    y = np.array([1.0, 2.0, -1.0, 0.5, 1.5, -2.0])
    model = MedLDARegressor(2, c=1.0, **FIT).fit(corpus_of(DOCS), y)
    (etas,) = drawn_etas
    scale = y.std()  # the chain's responses are centred and scaled to unit variance; eta is kept in y's units
    assert model.y_scale_ == pytest.approx(scale) and model.y_mean_ == pytest.approx(y.mean())
    np.testing.assert_allclose(model.eta_samples_, np.array(etas[-3:]) * scale, rtol=1e-12)
    new = corpus_of([[0, 1, 3], [2, 2, 3, 0]])
    np.testing.assert_allclose(model.predict(new),
                               model.transform(new) @ mean_of_last(etas, 3)[0] * scale + y.mean(), rtol=1e-12)


# -- the inference prior ---------------------------------------------------------------------------
K = 3
ALPHA_SUM = 0.6  # alpha_k = 0.2; alpha_sum per topic would be three times that
NEW_DOC = [0, 2, 1, 3]
N_COPIES = 3000


@pytest.fixture(scope="module")
def fitted() -> MedLDAClassifier:
    docs = [[0, 0, 1, 0], [1, 1, 0], [2, 3, 3], [3, 2, 2, 3], [0, 1, 2, 3], [1, 3, 0, 2]]
    return MedLDAClassifier(K, c=1.0, margin=1.0, sampler="gibbs", alpha_sum=ALPHA_SUM, beta=0.2, max_iter=20,
                            inference="gibbs", n_infer_burn=15, n_infer_avg=1,
                            random_state=2).fit(corpus_of(docs), [0, 0, 1, 1, 0, 1])


def new_doc_posterior(phi: np.ndarray, alpha_k: float) -> tuple[list[tuple], np.ndarray]:
    """Every assignment of NEW_DOC's tokens and its probability given phi (K, V) and a symmetric
    alpha_k: prod_i phi_{z_i w_i} times the Dirichlet-multinomial of the topic counts."""
    states = list(itertools.product(range(K), repeat=len(NEW_DOC)))
    logp = []
    for z in states:
        counts = np.bincount(z, minlength=K)
        logp.append(sum(np.log(phi[k, v]) for k, v in zip(z, NEW_DOC))
                    + np.sum(gammaln(counts + alpha_k) - gammaln(alpha_k)))
    return states, normalize_log(np.array(logp))


def count_posterior(phi: np.ndarray, alpha_k: float) -> tuple[list[tuple], np.ndarray]:
    """NEW_DOC's topic counts (n_0, ..., n_{K-1}) and their posterior probabilities."""
    states, probs = new_doc_posterior(phi, alpha_k)
    out: dict[tuple, float] = {}
    for z, p in zip(states, probs):
        key = tuple(np.bincount(z, minlength=K))
        out[key] = out.get(key, 0.0) + p
    keys = sorted(out)
    return keys, np.array([out[k] for k in keys])


def independent_chains(monkeypatch, rao_blackwell: bool) -> None:
    """Inference with each copy of a document its own chain (one stream per block of documents,
    not one seed per document's words) and, unless ``rao_blackwell``, the drawn counts of the last
    sweep instead of the averaged conditionals: what the estimator passes (phi, alpha, sweeps) is
    left as it is."""
    real = inference.sparse_infer_doc_topic
    monkeypatch.setattr(inference, "doc_streams", inference.make_streams)
    monkeypatch.setattr(inference, "sparse_infer_doc_topic",
                        lambda *args: real(*args[:-2], rao_blackwell, False))


def test_inference_chain_of_a_new_document_targets_the_per_topic_prior(fitted, monkeypatch):
    """3000 copies of a 4-token document, each an inference chain of 16 sweeps given the fitted
    phi: its final topic counts against the enumerated posterior under alpha_k = alpha_sum / K."""
    independent_chains(monkeypatch, rao_blackwell=False)
    counts = np.rint(fitted.transform(corpus_of([NEW_DOC] * N_COPIES)) * len(NEW_DOC)).astype(int)
    phi = fitted.topic_word_
    keys, right = count_posterior(phi, ALPHA_SUM / K)
    observed = np.array([np.sum(np.all(counts == k, axis=1)) for k in keys], dtype=float)
    assert observed.sum() == N_COPIES
    assert chi_square_pvalue(observed, right) > FALSE_ALARM
    assert chi_square_pvalue(observed, count_posterior(phi, ALPHA_SUM)[1]) < FALSE_ALARM


def test_predicted_topics_of_a_new_document_have_the_posterior_mean(fitted, monkeypatch):
    """What transform returns (each token's conditional averaged, the estimator's own sweeps),
    averaged over 3000 independent chains, against the posterior mean of zbar: Hotelling's
    statistic (K - 1 free proportions) at the false-alarm rate."""
    independent_chains(monkeypatch, rao_blackwell=True)
    zbar = fitted.transform(corpus_of([NEW_DOC] * N_COPIES))
    np.testing.assert_allclose(zbar.sum(axis=1), 1.0)

    def pvalue(alpha_k: float) -> float:
        keys, probs = count_posterior(fitted.topic_word_, alpha_k)
        mean = probs @ np.array(keys) / len(NEW_DOC)
        diff = (zbar.mean(axis=0) - mean)[:-1]
        cov = np.cov(zbar[:, :-1], rowvar=False) / N_COPIES
        return float(stats.chi2.sf(diff @ np.linalg.solve(cov, diff), K - 1))

    assert pvalue(ALPHA_SUM / K) > FALSE_ALARM
    assert pvalue(ALPHA_SUM) < FALSE_ALARM
