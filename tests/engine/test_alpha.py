"""The learned asymmetric alpha (``optimize_alpha=True``): Minka's update recovers a known prior, every
sampler reads a prior changed between sweeps, and a fit with it is reproducible, resumable and
saved whole."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from crashes import crash_then_resume
from medlda import LDA, MedLDAClassifier
from medlda.engine.alpha import ALPHA_FLOOR, AlphaOptimizer, minka_alpha
from medlda.engine.checkpoint import CheckpointError
from medlda.engine.local import LocalBackend
from medlda.io.model_file import load_model
from medlda.samplers import make_sampler

ALPHA_TRUE = np.array([2.0, 0.6, 0.25, 0.1])


def _counts(n_docs: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Doc-topic counts (D, K) of documents of 40..79 tokens with theta_d ~ Dirichlet(ALPHA_TRUE)."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(40, 80, size=n_docs)
    theta = rng.dirichlet(ALPHA_TRUE, size=n_docs)
    return np.array([rng.multinomial(n, t) for n, t in zip(lengths, theta)]), lengths


def _corpus(seed: int = 0, n_docs: int = 600) -> tuple[sp.csr_matrix, np.ndarray]:
    """Documents drawn from LDA with ALPHA_TRUE and four topics on their own 20 words each (98% of
    their mass); the doc-topic counts drawn."""
    rng = np.random.default_rng(seed)
    n_dk, _ = _counts(n_docs, seed)
    n_topics, per = ALPHA_TRUE.size, 20
    phi = np.zeros((n_topics, n_topics * per))
    for k in range(n_topics):
        phi[k, k * per:(k + 1) * per] = 1.0 / per
    phi /= phi.sum(axis=1, keepdims=True)
    rows = [np.bincount(np.concatenate([rng.choice(phi.shape[1], size=c, p=phi[k]) for k, c in enumerate(doc)]),
                        minlength=phi.shape[1]) for doc in n_dk]
    return sp.csr_matrix(np.array(rows)), n_dk


def test_minka_update_recovers_a_known_asymmetric_alpha():
    """From 2,000 documents' counts the fixed point is within 15% of the alpha they were drawn
    with, from a symmetric start; the symmetric prior of the same total is not (up to 6x off)."""
    n_dk, lengths = _counts(2000)
    learned = minka_alpha(n_dk, lengths, np.full(4, 0.5))
    np.testing.assert_allclose(learned, ALPHA_TRUE, rtol=0.15)
    symmetric = np.full(4, ALPHA_TRUE.sum() / 4)
    assert not np.allclose(symmetric, ALPHA_TRUE, rtol=0.15)
    assert np.all(np.isfinite(learned)) and np.all(learned > 0)
    # the fixed point: one more update moves it by less than the tolerance
    np.testing.assert_allclose(minka_alpha(n_dk, lengths, learned, max_steps=1), learned, rtol=1e-8)


def test_minka_update_keeps_empty_topics_positive():
    """A topic no document uses keeps a positive, finite prior (the floor); the others stay finite."""
    n_dk, lengths = _counts(300)
    n_dk = np.column_stack([n_dk, np.zeros(len(n_dk), np.int64)])
    learned = minka_alpha(n_dk, lengths, np.full(5, 0.5))
    assert np.all(np.isfinite(learned)) and learned[-1] == ALPHA_FLOOR and np.all(learned[:-1] > 0.05)


def test_schedule_updates_after_the_burn_in_and_then_every_few_iterations():
    schedule = AlphaOptimizer(burn_in=10, every=5)
    assert [i for i in range(1, 31) if schedule.due(i)] == [10, 15, 20, 25, 30]


@pytest.mark.parametrize("sampler,variant", [("gibbs", "collapsed"), ("light", "collapsed"),
                                             ("light", "partial"), ("blocked", "collapsed")])
def test_every_sampler_reads_a_prior_set_between_sweeps(sampler, variant):
    """Words spread uniformly over topics: given alpha = (30, 0.01, ...), set after the chain
    started symmetric, the sweeps put most tokens in topic 0; the symmetric chain does not."""
    rng = np.random.default_rng(0)
    word_ids = rng.integers(0, 50, size=3000).astype(np.int32)
    doc_ptr = np.arange(0, 3001, 30, dtype=np.int64)
    shares = {}
    for learned in (False, True):
        backend = LocalBackend.initialize(word_ids, doc_ptr, 50, 4, np.full(4, 0.25), 1.0,
                                          make_sampler(sampler, light_variant=variant), np.random.default_rng(1))
        if learned:
            backend.set_alpha(np.array([30.0, 0.01, 0.01, 0.01]))
        for it in range(10):
            backend.iterate(it + 1, None, rng, False)
        state = backend.chain()
        shares[learned] = state.n_k[0] / state.n_k.sum()
    assert shares[True] > 0.8 and shares[False] < 0.5


def test_learned_alpha_on_lda_data_and_reproducible():
    """Exact Gibbs LDA with optimize_alpha on documents drawn with ALPHA_TRUE: each topic's learned
    alpha_k (topics matched by their words) within a factor 1.35 of the truth after 60 iterations,
    where the symmetric prior of the same total is 2.7x to 7x off; the same seed gives the same
    alpha_ and counts bitwise."""
    X, _ = _corpus()
    kw = dict(optimize_alpha=True, alpha_sum=1.0, sampler="gibbs", max_iter=60, random_state=0)
    model = LDA(4, **kw).fit(X)
    order = [int(np.argmax(model.topic_word_counts_[:, k * 20:(k + 1) * 20].sum(axis=1))) for k in range(4)]
    assert sorted(order) == [0, 1, 2, 3]
    ratio = model.alpha_[order] / ALPHA_TRUE
    assert np.all((ratio > 1 / 1.35) & (ratio < 1.35)), ratio
    symmetric = ALPHA_TRUE.sum() / 4 / ALPHA_TRUE
    assert not np.all((symmetric > 1 / 1.35) & (symmetric < 1.35))
    assert np.all(np.isfinite(model.alpha_)) and np.all(model.alpha_ > 0)
    again = LDA(4, **kw).fit(X)
    np.testing.assert_array_equal(again.alpha_, model.alpha_)
    np.testing.assert_array_equal(again.topic_word_counts_, model.topic_word_counts_)
    theta = model.transform(X[:20])
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)


def test_symmetric_fit_keeps_the_symmetric_prior():
    X, _ = _corpus(n_docs=100)
    model = LDA(4, alpha_sum=1.0, sampler="gibbs", max_iter=12, random_state=0).fit(X)
    np.testing.assert_array_equal(model.alpha_, np.full(4, 0.25))


@pytest.mark.parametrize("strategy", ["multitask", "ovr"])
def test_saved_model_with_a_learned_alpha_transforms_identically(tmp_path, strategy):
    X, n_dk = _corpus(n_docs=200)
    y = n_dk.argmax(axis=1) % 3
    model = MedLDAClassifier(4, optimize_alpha=True, alpha_sum=1.0, sampler="light", max_iter=16,
                             strategy=strategy, n_infer_burn=5, n_infer_avg=5, random_state=0).fit(X, y)
    subs = getattr(model, "estimators_", None) or [model]
    assert all(not np.allclose(m.alpha_, 0.25) for m in subs)  # learned, not the prior
    model.save(tmp_path / "m.npz")
    loaded = load_model(tmp_path / "m.npz")
    for sub, back in zip(subs, getattr(loaded, "estimators_", None) or [loaded]):
        np.testing.assert_array_equal(back.alpha_, sub.alpha_)
    np.testing.assert_array_equal(loaded.transform(X[:30]), model.transform(X[:30]))
    np.testing.assert_array_equal(loaded.predict(X[:30]), model.predict(X[:30]))
    if strategy == "multitask":  # an empty document gets the learned prior's mean
        empty = sp.csr_matrix((1, X.shape[1]), dtype=np.int64)
        np.testing.assert_allclose(loaded.transform(empty)[0], model.alpha_ / model.alpha_.sum())


def test_a_model_file_without_its_learned_alpha_is_refused(tmp_path):
    X, _ = _corpus(n_docs=100)
    LDA(4, optimize_alpha=True, max_iter=11, sampler="light", random_state=0).fit(X).save(tmp_path / "m.npz")
    with np.load(tmp_path / "m.npz", allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files}
    for bad, problem in ((None, "missing alpha"), (np.array([1.0, -1.0, 1.0, 1.0]), "alpha"),
                         (np.ones(3), "alpha should be of shape")):
        broken = dict(arrays)
        if bad is None:
            del broken["alpha"]
        else:
            broken["alpha"] = bad
        with open(tmp_path / "b.npz", "wb") as f:
            np.savez(f, **broken)
        with pytest.raises(ValueError, match=problem):
            load_model(tmp_path / "b.npz")



def test_resumed_fit_with_a_learned_alpha_equals_uninterrupted(tmp_path, monkeypatch):
    """The checkpoint at iteration 12 holds alpha as learned at 10; resuming from it ends with the
    uninterrupted run's alpha_, counts and transform."""
    X, _ = _corpus(n_docs=150)
    kw = dict(optimize_alpha=True, max_iter=17, sampler="light", random_state=2)
    reference = LDA(5, **kw).fit(X)
    resumed = crash_then_resume(
        monkeypatch, lambda resume: LDA(5, checkpoint_every=4, checkpoint_path=tmp_path / "c", resume=resume,
                                        **kw).fit(X), 12)
    assert resumed.fit_stats_["resumed_from_iteration"] == 12
    np.testing.assert_array_equal(resumed.alpha_, reference.alpha_)
    np.testing.assert_array_equal(resumed.topic_word_counts_, reference.topic_word_counts_)
    np.testing.assert_array_equal(resumed.transform(X), reference.transform(X))


def test_a_checkpoint_with_a_bad_alpha_is_refused(tmp_path):
    X, _ = _corpus(n_docs=60)
    kw = dict(optimize_alpha=True, max_iter=12, sampler="light", random_state=2, checkpoint_every=12,
              checkpoint_path=tmp_path / "c")
    LDA(4, **kw).fit(X)
    with np.load(tmp_path / "c", allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files}
    assert arrays["alpha"].shape == (4,)
    for bad in (np.array([0.5, 0.0, 0.5, 0.5]), np.array([0.5, np.nan, 0.5, 0.5]), np.ones(5)):
        arrays["alpha"] = bad
        with open(tmp_path / "c", "wb") as f:
            np.savez(f, **arrays)
        with pytest.raises(CheckpointError, match="alpha"):
            LDA(4, **kw, resume=True).fit(X)


def test_learned_alpha_needs_the_local_backend():
    X, _ = _corpus(n_docs=50)
    with pytest.raises(NotImplementedError, match="optimize_alpha .*backend='local'"):
        LDA(4, optimize_alpha=True, backend="ray", max_iter=2).fit(X)
    with pytest.raises(ValueError, match="'optimize_alpha' parameter of LDA must be True or False"):
        LDA(4, optimize_alpha="auto").fit(X)
