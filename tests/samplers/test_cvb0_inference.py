"""CVB0 inference of new documents: the kernel's passes against a NumPy statement of the same
updates; the estimate against the exact posterior mean of the topic counts on documents small
enough to enumerate (exact for a one-token document, close for longer ones, where the EM fixed
point is not); the same result on any number of threads; the estimators' default, switched to
Gibbs by their ``inference`` parameter and kept in model files."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.special import gammaln

from medlda import LDA, MedLDAClassifier, load_model
from medlda.data.synthetic import make_supervised_corpus
from medlda.exceptions import LimitError
from medlda.samplers.inference import cvb0_infer


def numpy_cvb0(word_ids, doc_ptr, phi_wk, alpha, n_passes):
    """The start and passes written with NumPy, one document and one token at a time."""
    out = np.zeros((doc_ptr.size - 1, phi_wk.shape[1]))
    for d in range(doc_ptr.size - 1):
        p = phi_wk[word_ids[doc_ptr[d]:doc_ptr[d + 1]]]  # (N_d, K)
        r = p * alpha
        r /= r.sum(axis=1, keepdims=True)
        for _ in range(n_passes):
            for i in range(r.shape[0]):
                others = r.sum(axis=0) - r[i] + alpha
                r[i] = p[i] * others / (p[i] * others).sum()
        out[d] = r.sum(axis=0)
    return out


def exact_mean_counts(doc, phi_kw, alpha):
    """E[n_dk] under p(z | w, phi, alpha), summed over every assignment of the document's tokens."""
    total, norm = np.zeros(alpha.size), 0.0
    for z in itertools.product(range(alpha.size), repeat=len(doc)):
        n = np.bincount(z, minlength=alpha.size)
        weight = np.exp(gammaln(n + alpha).sum()) * np.prod([phi_kw[k, v] for k, v in zip(z, doc)])
        total += weight * n
        norm += weight
    return total / norm


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(3)
    n_words, n_topics = 30, 5
    phi_wk = rng.dirichlet(np.full(n_words, 0.3), size=n_topics).T.copy()  # (V, K)
    lengths = rng.integers(0, 25, size=40)
    doc_ptr = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    word_ids = rng.integers(0, n_words, size=doc_ptr[-1]).astype(np.int32)
    return word_ids, doc_ptr, phi_wk, np.full(n_topics, 0.2)


def test_cvb0_passes_are_the_numpy_ones(problem):
    word_ids, doc_ptr, phi_wk, alpha = problem
    for n_passes in (0, 1, 3, 8):
        counts = cvb0_infer(word_ids, doc_ptr, phi_wk, alpha, n_passes=n_passes)
        np.testing.assert_allclose(counts, numpy_cvb0(word_ids, doc_ptr, phi_wk, alpha, n_passes),
                                   rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(counts.sum(axis=1), np.diff(doc_ptr), rtol=1e-12)  # each token's r sums to 1


def test_cvb0_is_near_the_exact_posterior_mean_where_the_em_fixed_point_is_not():
    """A one-token document's CVB0 estimate is its exact posterior mean; on documents of 2-6 tokens
    over 3 topics it is within 0.15 (L1 over topics) of it, where the EM fixed point (each token's
    own responsibility left in its document's counts) is 0.17-0.25 away."""
    rng = np.random.default_rng(3)
    phi_kw = rng.dirichlet(np.full(5, 0.5), size=3)
    phi_wk, alpha = phi_kw.T.copy(), np.array([0.3, 0.6, 0.9])
    distances, em_distances = [], []
    for doc in ([0], [2], [0, 1], [0, 0, 3], [1, 2, 3, 4, 0], [4, 4, 4, 1, 1, 0]):
        ids, ptr = np.array(doc, np.int32), np.array([0, len(doc)], np.int64)
        exact = exact_mean_counts(doc, phi_kw, alpha)
        distances.append(np.abs(cvb0_infer(ids, ptr, phi_wk, alpha, n_passes=50)[0] - exact).sum())
        theta = alpha.copy()  # the EM fixed point, as the wrong answer this test must tell apart
        for _ in range(200):
            r = phi_wk[ids] * theta
            theta = alpha + (r / r.sum(axis=1, keepdims=True)).sum(axis=0)
        em_distances.append(np.abs(theta - alpha - exact).sum())
    assert max(distances[:2]) < 1e-12
    assert max(distances) < 0.15 and max(em_distances) > 0.15


def test_cvb0_gives_the_same_counts_on_any_number_of_threads(problem):
    word_ids, doc_ptr, phi_wk, alpha = problem
    one = cvb0_infer(word_ids, doc_ptr, phi_wk, alpha)
    for n_jobs in (2, 3, 64):
        assert np.array_equal(cvb0_infer(word_ids, doc_ptr, phi_wk, alpha, n_jobs=n_jobs), one)


def test_cvb0_bounds_its_scratch_before_allocating(problem, monkeypatch):
    word_ids, doc_ptr, phi_wk, alpha = problem
    monkeypatch.setenv("MEDLDA_MAX_CELLS", "100")  # the longest document (24 tokens) x 5 topics is more
    with pytest.raises(LimitError, match="MEDLDA_MAX_CELLS"):
        cvb0_infer(word_ids, doc_ptr, phi_wk, alpha)


def test_cvb0_is_the_estimators_inference_and_gibbs_is_a_parameter_away(tmp_path):
    corpus, _ = make_supervised_corpus(60, 4, random_state=0)
    y = corpus.single_labels()
    model = MedLDAClassifier(4, sampler="gibbs", max_iter=5, random_state=0).fit(corpus, y)
    assert model.inference == "cvb0"
    cvb0 = model.transform(corpus)
    expected = cvb0_infer(corpus.word_ids, corpus.doc_ptr, model.topic_word_.T.copy(), np.full(4, model.alpha_sum / 4))
    np.testing.assert_allclose(cvb0, expected / corpus.doc_lengths[:, None])
    assert np.array_equal(model.predict(corpus), model.labels_from_decision(model.decision_from_topics(cvb0)))
    assert np.array_equal(model.set_params(random_state=1).transform(corpus), cvb0)  # no random numbers
    gibbs = model.set_params(inference="gibbs").transform(corpus)
    assert not np.allclose(gibbs, cvb0)
    model.save(tmp_path / "m.npz")
    loaded = load_model(tmp_path / "m.npz")
    assert loaded.inference == "gibbs" and np.array_equal(loaded.transform(corpus), gibbs)
    with pytest.raises(ValueError, match="inference"):
        LDA(3, inference="em").fit(corpus)
