"""The EM inference of new documents (``inference="em"``): each document's expected topic counts
at the fixed point theta_k = alpha_k + sum_i r_ik of its topic weights given phi, against a
NumPy statement of the same passes; the same result on any number of threads; the estimators'
``inference`` parameter switches transform and predict to it and a model file keeps it."""

from __future__ import annotations

import numpy as np
import pytest

from medlda import LDA, MedLDAClassifier, load_model
from medlda.data.synthetic import make_supervised_corpus
from medlda.samplers.inference import em_infer


def numpy_em(word_ids, doc_ptr, phi_wk, alpha, n_passes):
    """The passes written with NumPy, one document at a time."""
    out = np.zeros((doc_ptr.size - 1, phi_wk.shape[1]))
    for d in range(doc_ptr.size - 1):
        p = phi_wk[word_ids[doc_ptr[d]:doc_ptr[d + 1]]]  # (N_d, K)
        theta = alpha.copy()
        for _ in range(n_passes):
            r = p * theta
            out[d] = (r / r.sum(axis=1, keepdims=True)).sum(axis=0)
            theta = alpha + out[d]
    return out


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(3)
    n_words, n_topics = 30, 5
    phi_wk = rng.dirichlet(np.full(n_words, 0.3), size=n_topics).T.copy()  # (V, K)
    lengths = rng.integers(0, 25, size=40)
    doc_ptr = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    word_ids = rng.integers(0, n_words, size=doc_ptr[-1]).astype(np.int32)
    return word_ids, doc_ptr, phi_wk, np.full(n_topics, 0.2)


def test_em_passes_are_the_numpy_ones_and_reach_the_fixed_point(problem):
    word_ids, doc_ptr, phi_wk, alpha = problem
    for n_passes in (1, 3, 8):
        np.testing.assert_allclose(em_infer(word_ids, doc_ptr, phi_wk, alpha, n_passes=n_passes),
                                   numpy_em(word_ids, doc_ptr, phi_wk, alpha, n_passes), rtol=1e-10, atol=1e-12)
    counts = em_infer(word_ids, doc_ptr, phi_wk, alpha, n_passes=400)
    one_more = numpy_em(word_ids, doc_ptr, phi_wk, alpha, 401)
    np.testing.assert_allclose(counts, one_more, atol=1e-6)  # a fixed point: one more pass moves nothing
    np.testing.assert_allclose(counts.sum(axis=1), np.diff(doc_ptr), rtol=1e-12)  # each token's r sums to 1
    assert not np.allclose(counts, em_infer(word_ids, doc_ptr, phi_wk, alpha * 5, n_passes=400), atol=1e-3)


def test_em_gives_the_same_counts_on_any_number_of_threads(problem):
    word_ids, doc_ptr, phi_wk, alpha = problem
    one = em_infer(word_ids, doc_ptr, phi_wk, alpha)
    for n_jobs in (2, 3, 64):
        assert np.array_equal(em_infer(word_ids, doc_ptr, phi_wk, alpha, n_jobs=n_jobs), one)


def test_inference_em_switches_transform_and_predict_and_is_saved(tmp_path):
    corpus, _ = make_supervised_corpus(60, 4, random_state=0)
    y = corpus.single_labels()
    model = MedLDAClassifier(4, sampler="gibbs", max_iter=5, random_state=0).fit(corpus, y)
    gibbs = model.transform(corpus)
    model.set_params(inference="em")
    em = model.transform(corpus)
    assert not np.allclose(em, gibbs)
    expected = em_infer(corpus.word_ids, corpus.doc_ptr, model.topic_word_.T.copy(),
                        np.full(4, model.alpha_sum / 4))
    np.testing.assert_allclose(em, expected / corpus.doc_lengths[:, None])
    assert np.array_equal(model.predict(corpus), model.labels_from_decision(model.decision_from_topics(em)))
    model.save(tmp_path / "m.npz")
    loaded = load_model(tmp_path / "m.npz")
    assert loaded.inference == "em" and np.array_equal(loaded.transform(corpus), em)
    with pytest.raises(ValueError, match="inference"):
        LDA(3, inference="variational").fit(corpus)
