"""Estimators: recovery of planted topics and classifier, scikit-learn contracts, determinism."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline

from medlda import LDA, Corpus, MedLDAClassifier, MedLDARegressor
from medlda.data.synthetic import make_supervised_corpus


@pytest.fixture(scope="module")
def planted():
    corpus, truth = make_supervised_corpus(1500, 6, words_per_topic=20, doc_length=60, random_state=7)
    y = corpus.single_labels()
    return corpus, truth, y


def _matched_l1(phi: np.ndarray, truth_phi: np.ndarray):
    cost = np.abs(phi[:, None, :] - truth_phi[None]).sum(-1)
    rows, cols = linear_sum_assignment(cost)
    return cost[rows, cols], cols


def test_lda_recovers_planted_topics(planted):
    corpus, truth, _ = planted
    model = LDA(6, alpha_sum=1.0, max_iter=60, random_state=0).fit(corpus)
    l1, _ = _matched_l1(model.topic_word_, truth.topic_word)
    assert l1.max() < 0.35, l1
    # a random topic-word matrix is far from the truth: the check can fail
    rand = np.random.default_rng(0).dirichlet(np.ones(corpus.n_words), size=6)
    assert _matched_l1(rand, truth.topic_word)[0].min() > 1.0


def test_medlda_recovers_topics_and_classifier(planted):
    corpus, truth, y = planted
    train, test = corpus.subset(np.arange(1200)), corpus.subset(np.arange(1200, 1500))
    model = MedLDAClassifier(6, alpha_sum=1.0, c=1.0, margin=1.0, max_iter=80, random_state=0)
    model.fit(train, y[:1200])
    l1, match = _matched_l1(model.topic_word_, truth.topic_word)
    assert l1.max() < 0.35, l1
    assert model.score(test, y[1200:]) > 0.9
    # learned weights, aligned to the true topics, order the topics as the true classifier does
    eta = np.empty(6)
    eta[match] = model.eta_[0]
    assert stats_spearman(eta, truth.eta[0]) > 0.7


def stats_spearman(a, b) -> float:
    from scipy.stats import spearmanr
    return float(spearmanr(a, b).statistic)


def test_supervision_beats_chance_on_any_two_labels(planted):
    corpus, _, y = planted
    names = np.where(y == 1, "spam", "ham")
    model = MedLDAClassifier(6, alpha_sum=1.0, c=1.0, margin=1.0, max_iter=40, random_state=1).fit(corpus, names)
    assert set(model.classes_) == {"ham", "spam"}
    pred = model.predict(corpus)
    assert set(pred) <= {"ham", "spam"}
    assert np.mean(pred == names) > 0.85
    scores = model.decision_function(corpus)
    assert scores.shape == (corpus.n_docs,)
    assert np.array_equal(model.classes_[(scores > 0).astype(int)], pred)


def test_same_seed_same_model(planted):
    corpus, _, y = planted
    a = MedLDAClassifier(6, max_iter=5, random_state=3).fit(corpus, y)
    b = MedLDAClassifier(6, max_iter=5, random_state=3).fit(corpus, y)
    c = MedLDAClassifier(6, max_iter=5, random_state=4).fit(corpus, y)
    assert np.array_equal(a.topic_word_counts_, b.topic_word_counts_)
    assert np.array_equal(a.eta_samples_, b.eta_samples_)
    assert np.array_equal(a.transform(corpus), b.transform(corpus))
    assert not np.array_equal(a.topic_word_counts_, c.topic_word_counts_)


def test_sparse_dense_and_corpus_inputs_agree(planted):
    corpus, _, y = planted
    X = corpus.subset(np.arange(200)).to_sparse()
    inputs = (Corpus.from_sparse(X), X, X.toarray(), X.tocoo())
    fits = [MedLDAClassifier(4, max_iter=3, random_state=0).fit(inp, y[:200]) for inp in inputs]
    for f in fits[1:]:
        assert np.array_equal(f.topic_word_counts_, fits[0].topic_word_counts_)


def test_pipeline_clone_and_cross_validation():
    texts = ["apple banana fruit salad", "banana apple smoothie fruit", "engine wheel car road",
             "car road traffic engine", "fruit apple orchard", "road car truck wheel"] * 5
    labels = ["food", "food", "cars", "cars", "food", "cars"] * 5
    pipe = make_pipeline(CountVectorizer(), MedLDAClassifier(2, alpha_sum=0.5, c=1.0, margin=1.0, max_iter=30,
                                                             random_state=0))
    scores = cross_val_score(pipe, texts, labels, cv=3)
    assert scores.mean() > 0.8
    est = MedLDAClassifier(5, c=2.0)
    twin = clone(est)
    assert twin.get_params() == est.get_params() and twin is not est
    fitted = pipe.fit(texts, labels)
    words = fitted[-1].top_words(3, vocabulary=fitted[0].get_feature_names_out())
    assert {w for topic in words for w, _ in topic} <= set(fitted[0].get_feature_names_out())
    with pytest.raises(ValueError, match="vocabulary has 2 words"):
        fitted[-1].top_words(3, vocabulary=["a", "b"])
    with pytest.raises(ValueError, match=r"The 'n \(words per topic\)' parameter must be an int in the range \[1, inf\)\. Got -3 instead"):
        fitted[-1].top_words(-3)  # not silently all words but the last 3
    lda = make_pipeline(CountVectorizer(), LDA(2, max_iter=10, random_state=0)).fit(texts)
    theta = lda.transform(texts)
    assert theta.shape == (30, 2) and np.allclose(theta.sum(1), 1)


def test_lda_transform_perplexity_and_log_joint(planted):
    corpus, truth, _ = planted
    train, test = corpus.subset(np.arange(1000)), corpus.subset(np.arange(1000, 1500))
    short = LDA(6, alpha_sum=1.0, max_iter=2, random_state=0, trace=True).fit(train)
    long = LDA(6, alpha_sum=1.0, max_iter=60, random_state=0, trace=True).fit(train)
    assert long.log_joint_ > short.log_joint_
    assert [t["iteration"] for t in long.trace_] == list(range(1, 61))
    assert long.trace_[-1]["log_joint"] == pytest.approx(long.log_joint_)
    assert long.perplexity(test) < short.perplexity(test)
    assert long.perplexity(test) < corpus.n_words  # better than uniform over the vocabulary
    assert long.score(test) == pytest.approx(-np.log(long.perplexity(test)))
    theta = long.transform(test)
    assert theta.shape == (500, 6) and np.allclose(theta.sum(1), 1.0)
    assert len(long.top_words(5)) == 6 and all(len(t) == 5 for t in long.top_words(5))
    assert long.top_words(1)[0][0][0].startswith("t")


def test_top_words_by_relevance():
    """relevance = 1 ranks by phi_kw; lower values by lambda log phi_kw + (1 - lambda) log(phi_kw / p_w),
    p_w = sum_k p(k) phi_kw, computed here word by word; a word every topic holds sinks."""
    model = LDA(2, beta=0.5)
    model.topic_word_counts_ = np.array([[50, 30, 20, 0, 1], [5, 0, 1, 3, 1]])  # word 0 in both
    model.n_features_in_, model.vocabulary_ = 5, np.array(list("abcde"))
    phi = model.topic_word_
    assert model.top_word_ids(5).tolist() == [[0, 1, 2, 4, 3], [0, 3, 2, 4, 1]]
    share = np.array([101, 10]) / 111
    for lam in (0.0, 0.3, 0.6):
        expected = []
        for k in range(2):
            score = {}
            for w in range(5):
                p_w = sum(share[j] * phi[j, w] for j in range(2))
                score[w] = lam * np.log(phi[k, w]) + (1 - lam) * np.log(phi[k, w] / p_w)
            expected.append(sorted(range(5), key=lambda w: -score[w])[:3])
        assert model.top_word_ids(3, relevance=lam).tolist() == expected
    assert model.top_words(1, relevance=0.0) == [[("b", phi[0, 1])], [("d", phi[1, 3])]]  # not 'a', in both
    for bad in (1.5, -0.1, "0.6", True):
        with pytest.raises(ValueError, match="relevance must be a number in \\[0, 1\\]"):
            model.top_word_ids(3, relevance=bad)


def test_empty_documents_are_skipped_in_fit_and_get_the_prior_in_transform(planted):
    corpus, _, y = planted
    X = corpus.subset(np.arange(100)).to_sparse().tolil()
    X[3, :] = 0
    X = X.tocsr()
    with pytest.warns(UserWarning, match=r"MedLDAClassifier.fit skipped 1 empty document \(no words\) of 100"):
        model = MedLDAClassifier(4, max_iter=3, random_state=0).fit(X, y[:100])
    assert model.n_empty_skipped_ == 1
    zbar = model.transform(X)
    assert np.allclose(zbar[3], 0.25)


@pytest.mark.parametrize("params, match", [
    (dict(n_components=0), "n_components"), (dict(alpha_sum=-1.0), "alpha_sum"), (dict(beta=0), "beta"),
    (dict(max_iter=0), "max_iter"), (dict(c=0), "'c' parameter of MedLDAClassifier must"), (dict(margin=-1), "margin"),
    (dict(sigma2=0.0), "sigma2"), (dict(sampler="fast"), "sampler"), (dict(loss="squared"), "loss"),
    (dict(n_components=2.5), "n_components"), (dict(n_eta_avg=0), "n_eta_avg"), (dict(eta_draw="fast"), "eta_draw"),
])
def test_invalid_hyperparameters_raise_clear_errors(planted, params, match):
    corpus, _, y = planted
    with pytest.raises(ValueError, match=match):
        MedLDAClassifier(**params).fit(corpus, y)


def test_bad_inputs_to_fit_and_predict(planted):
    corpus, _, y = planted
    with pytest.raises(ValueError, match="two classes"):
        MedLDAClassifier(3, max_iter=2).fit(corpus, np.zeros(corpus.n_docs))
    with pytest.raises(ValueError, match="negative"):
        LDA(3, max_iter=2).fit(np.array([[1, -1], [2, 0]]))
    with pytest.raises(ValueError, match="integer"):
        LDA(3, max_iter=2).fit(np.array([[1.5, 1], [2, 0]]))
    with pytest.raises(ValueError, match="labels"):
        MedLDAClassifier(3, max_iter=2).fit(corpus, y[:10])
    model = LDA(3, max_iter=2, random_state=0).fit(corpus)
    with pytest.raises(ValueError, match="columns"):
        model.transform(np.ones((2, corpus.n_words + 1), int))
    # raw texts, a 1-d row, missing labels and absurd totals are named, not left to fail deep inside
    for fit in (lambda: MedLDAClassifier(3, max_iter=2).fit(["cheap flights", "dear team"], [0, 1]),
                lambda: LDA(3, max_iter=2).fit(np.array(["cheap flights"])), lambda: model.transform(["a text"])):
        with pytest.raises(ValueError, match="X holds text, not word counts.*make_vectorizer"):
            fit()
    with pytest.raises(ValueError, match=r"2-d document-term count matrix \(documents x words\), got shape \(5,\)"):
        MedLDAClassifier(3, max_iter=2).fit(np.ones(5, int), y[:5])
    with pytest.raises(ValueError, match="missing labels .* the first at document 1"):
        MedLDAClassifier(3, max_iter=2).fit(corpus, np.where(np.arange(corpus.n_docs) == 1, np.nan, y))
    with pytest.raises(ValueError, match="missing labels"):
        MedLDAClassifier(3, max_iter=2).fit(corpus, np.array([None] + ["a", "b"] * (corpus.n_docs // 2), object)[:corpus.n_docs])
    with pytest.raises(ValueError, match="1.319e\\+13 tokens .* is it raw word counts"):
        LDA(3, max_iter=2).fit(np.full((4, 3), 2**40))
    # scikit-learn's wordings, which its estimator checks look for
    with pytest.raises(ValueError, match="Reshape your data with X.reshape"):
        model.transform(np.ones(corpus.n_words, int))
    with pytest.raises(ValueError, match="Complex data not supported"):
        LDA(3, max_iter=2).fit(np.ones((3, 4), complex))
    with pytest.raises(ValueError, match=r"Found array with 0 feature\(s\) \(shape=\(3, 0\)\)"):
        LDA(3, max_iter=2).fit(np.ones((3, 0), int))
    with pytest.raises(ValueError, match=r"Found array with 0 sample\(s\)"):
        MedLDAClassifier(3, max_iter=2).fit(np.ones((0, 4), int), [])
    with pytest.raises(ValueError, match="requires y to be passed, but the target y is None"):
        MedLDAClassifier(3, max_iter=2).fit(corpus, None)
    with pytest.raises(ValueError, match="Negative values in data"):
        LDA(3, max_iter=2).fit(np.array([[1, -1], [2, 0]]))
    numbers = np.array([[1, 0, 2], [0, 3, 1]], dtype=object)  # numbers in an object array, as from pandas
    assert LDA(2, max_iter=2, random_state=0).fit(numbers).topic_word_counts_.sum() == 7


def test_multiclass_multitask_predicts_one_of_the_classes():
    corpus, truth = make_supervised_corpus(900, 6, words_per_topic=20, n_classes=3, random_state=2)
    y = corpus.single_labels()
    model = MedLDAClassifier(6, alpha_sum=1.0, c=1.0, margin=1.0, max_iter=60, random_state=0).fit(corpus, y)
    assert model.eta_.shape == (3, 6)
    assert model.decision_function(corpus).shape == (900, 3)
    assert model.score(corpus, y) > 0.8
    assert set(model.class_topics(2)) == {0, 1, 2}


def test_corpus_round_trip_through_sparse(planted):
    corpus, _, _ = planted
    again = Corpus.from_sparse(corpus.to_sparse(), corpus.vocabulary, corpus.labels)
    assert np.array_equal(again.doc_ptr, corpus.doc_ptr)
    assert np.array_equal(again.to_sparse().toarray(), corpus.to_sparse().toarray())


@pytest.mark.parametrize("n_jobs, threads", [(None, 1), (2, 2)])
def test_blas_gets_the_estimators_threads_while_fitting(planted, monkeypatch, n_jobs, threads):
    """The exact eta draws run BLAS on n_jobs threads (None: one), not on every core: OpenBLAS
    threads spin on a core another process holds."""
    from threadpoolctl import threadpool_info, threadpool_limits

    import medlda.samplers.eta as classifier
    from medlda.engine.warmup import warm_up

    corpus, _, y = planted
    warm_up()  # compiles on a tiny problem first (once per process), before the limit
    seen = []
    statistics = classifier.row_statistics

    def recording(*args):
        seen.append({lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"})
        return statistics(*args)

    monkeypatch.setattr(classifier, "row_statistics", recording)
    with threadpool_limits(3, user_api="blas"):  # what the process had: restored after fit
        MedLDAClassifier(4, max_iter=2, n_jobs=n_jobs, random_state=0).fit(corpus, y)
        after = {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}
    assert seen and all(s == {threads} for s in seen)
    assert after == {3}


@pytest.mark.parametrize("eta_draw, exact_draws", [("auto", 3), ("exact", 3), ("coordinate", 0)])
def test_eta_draw_chooses_how_light_draws_eta(planted, monkeypatch, eta_draw, exact_draws):
    """On this small problem "auto" draws eta exactly (cheap); "coordinate" never does."""
    import medlda.samplers.light as light
    from medlda.engine.warmup import warm_up

    corpus, _, y = planted
    warm_up()  # its gibbs sampler draws eta exactly once per process
    calls = []
    exact = light.exact_eta
    monkeypatch.setattr(light, "exact_eta", lambda *a: calls.append(1) or exact(*a))
    model = MedLDAClassifier(4, max_iter=3, sampler="light", eta_draw=eta_draw, random_state=0).fit(corpus, y)
    assert len(calls) == exact_draws and model.get_params()["eta_draw"] == eta_draw


def test_every_model_is_a_transformer_of_count_data(planted):
    """scikit-learn sees non-negative sparse-capable input and a transformer (fit_transform), so
    a supervised model can feed its topic proportions to another step of a pipeline."""
    corpus, _, y = planted
    X = corpus.to_sparse()
    model = MedLDAClassifier(3, max_iter=3, sampler="light", random_state=0)
    np.testing.assert_array_equal(model.fit_transform(X, y), clone(model).fit(X, y).transform(X))
    sklearn_tags = pytest.importorskip("sklearn.utils").__dict__.get("get_tags")
    if sklearn_tags is None:
        pytest.skip("scikit-learn < 1.6 has no tags API")
    from medlda import MedLDARegressor
    for estimator in (model, MedLDARegressor(3), LDA(3)):
        tags = sklearn_tags(estimator)
        assert tags.input_tags.positive_only and tags.input_tags.sparse and tags.transformer_tags is not None


def test_sample_weight_scales_each_documents_c():
    """Weight 2 on every document is c doubled, draw for draw: binary, one-vs-rest and regression;
    a weight on an empty (skipped) document goes with it."""
    from medlda import MedLDARegressor
    from medlda.data.synthetic import make_regression_corpus

    corpus, _ = make_supervised_corpus(300, 4, words_per_topic=10, doc_length=30, n_classes=3, random_state=6)
    y = corpus.single_labels()
    assert np.unique(y).size == 3
    two = np.full(corpus.n_docs, 2.0)
    for strategy in ("multitask", "ovr"):
        common = dict(margin=1.0, max_iter=8, random_state=0, strategy=strategy, sampler="light")
        a = MedLDAClassifier(4, c=3.2, **common).fit(corpus, y)
        b = MedLDAClassifier(4, c=1.6, **common).fit(corpus, y, sample_weight=two)
        c = MedLDAClassifier(4, c=1.6, **common).fit(corpus, y)
        assert np.array_equal(a.eta_samples_, b.eta_samples_) and not np.array_equal(a.eta_samples_, c.eta_samples_)
    responses, _ = make_regression_corpus(200, 4, random_state=1)
    r = responses.real_labels()
    a = MedLDARegressor(4, c=2.0, loss="squared", max_iter=8, random_state=0).fit(responses, r)
    b = MedLDARegressor(4, c=1.0, loss="squared", max_iter=8, random_state=0).fit(responses, r, sample_weight=two[:200])
    assert np.array_equal(a.eta_samples_, b.eta_samples_)
    X = corpus.to_sparse().tolil()
    X[5, :] = 0  # skipped in fit: its weight must go with it, not shift onto document 6
    weight = np.where(np.arange(corpus.n_docs) % 2 == 0, 0.5, 3.0)
    common = dict(c=1.6, margin=1.0, max_iter=8, random_state=0)
    with pytest.warns(UserWarning, match="skipped 1 empty document"):
        a = MedLDAClassifier(4, **common).fit(X.tocsr(), y, sample_weight=weight)
    keep = np.arange(corpus.n_docs) != 5
    b = MedLDAClassifier(4, **common).fit(X.tocsr()[keep], y[keep], sample_weight=weight[keep])
    assert np.array_equal(a.eta_samples_, b.eta_samples_)


def test_class_weight_balanced_lifts_a_rare_class():
    """One class in 13: unweighted, the rare class is mostly missed; balanced, most of it is found."""
    from sklearn.metrics import recall_score

    corpus, _ = make_supervised_corpus(3000, 8, words_per_topic=20, doc_length=30, label_noise=0.1, random_state=2)
    y = corpus.single_labels()
    common, rare = np.flatnonzero(y == 0), np.flatnonzero(y == 1)
    keep = np.sort(np.concatenate([common, np.random.default_rng(0).choice(rare, common.size // 12, replace=False)]))
    corpus, y = corpus.subset(keep), y[keep]
    n = int(0.7 * corpus.n_docs)
    train, test = corpus.subset(np.arange(n)), corpus.subset(np.arange(n, corpus.n_docs))
    recall = {}
    for weight in (None, "balanced"):
        model = MedLDAClassifier(8, c=1.0, margin=1.0, max_iter=40, random_state=0, sampler="light", class_weight=weight)
        recall[weight] = recall_score(y[n:], model.fit(train, y[:n]).predict(test), pos_label=1)
    assert recall[None] < 0.5 < 0.7 < recall["balanced"], recall


def test_bad_weights_are_refused():
    corpus, _ = make_supervised_corpus(40, 3, words_per_topic=5, doc_length=10, random_state=0)
    y = corpus.single_labels()
    for weight, match in ((np.ones(39), "one weight per document: X has 40 documents"),
                          (-np.ones(40), "finite and non-negative"), (np.zeros(40), "not all zero"),
                          (["a"] * 40, "must be numbers")):
        with pytest.raises(ValueError, match=match):
            MedLDAClassifier(3, max_iter=2).fit(corpus, y, sample_weight=weight)
    with pytest.raises(ValueError, match=r"The 'class_weight' parameter of MedLDAClassifier must be None, 'balanced' or a "
                                         r"dict \{class: weight\}\. Got 'equal' instead"):
        MedLDAClassifier(3, max_iter=2, class_weight="equal").fit(corpus, y)
    with pytest.raises(ValueError, match=r"class_weight names classes not in y: \[7\]"):
        MedLDAClassifier(3, max_iter=2, class_weight={7: 2.0}).fit(corpus, y)
    with pytest.raises(ValueError, match="class_weight values must be finite and non-negative"):
        MedLDAClassifier(3, max_iter=2, class_weight={0: -1.0}).fit(corpus, y)
    with pytest.raises(ValueError, match="class_weight gives every training document weight 0"):
        MedLDAClassifier(3, max_iter=2, class_weight={0: 0.0, 1: 0.0}).fit(corpus, y)
    Y = np.column_stack([y, 1 - y])
    with pytest.raises(ValueError, match="class_weight is for single-label data"):
        MedLDAClassifier(3, max_iter=2, class_weight="balanced").fit(corpus, Y)


def test_a_class_weight_dict_weighs_its_classes_documents_as_sample_weight_would():
    corpus, _ = make_supervised_corpus(120, 3, words_per_topic=5, doc_length=20, random_state=1)
    y = np.array(["neg", "pos"])[corpus.single_labels()]
    common = dict(max_iter=4, random_state=0)
    by_dict = MedLDAClassifier(3, class_weight={"pos": 3.0}, **common).fit(corpus, y)
    by_weight = MedLDAClassifier(3, **common).fit(corpus, y, sample_weight=np.where(y == "pos", 3.0, 1.0))
    plain = MedLDAClassifier(3, **common).fit(corpus, y)
    assert np.array_equal(by_dict.eta_samples_, by_weight.eta_samples_)
    assert not np.array_equal(by_dict.eta_samples_, plain.eta_samples_)


def test_verbose_inference_shows_a_progress_bar(capsys, planted):
    corpus, _, y = planted
    model = MedLDAClassifier(6, max_iter=2, random_state=0).fit(corpus, y)
    quiet = model.transform(corpus)
    assert "inference" not in capsys.readouterr().err
    model.set_params(verbose=1)
    assert np.array_equal(model.transform(corpus), quiet)
    err = capsys.readouterr().err
    assert "inference" in err and "1500/1500" in err


def _fresh_process_prints(code: str, timeout: int) -> str:
    """What ``code`` prints in a fresh Python process (nothing compiled or warmed up yet)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.slow
def test_a_fit_compiles_only_its_samplers_kernels():
    """A fresh process fitting with gibbs warms up gibbs's kernels alone (on a fresh install the
    first fit compiles in seconds, not every sampler's minute): no light or blocked kernel runs."""
    code = ("from medlda import MedLDAClassifier\nfrom medlda.engine import warmup\n"
            "from medlda._kernels.blocked import sweep as blocked\nfrom medlda._kernels.light import sweeps as light\n"
            "from medlda.data.synthetic import make_supervised_corpus\n"
            "corpus, _ = make_supervised_corpus(60, 3, words_per_topic=5, doc_length=10, random_state=0)\n"
            "MedLDAClassifier(3, max_iter=2, sampler='gibbs').fit(corpus, corpus.single_labels())\n"
            "used = [n for m in (light, blocked) for n, v in vars(m).items() if getattr(v, 'signatures', None)]\n"
            "print(sorted(warmup._COMPILED), used)\n")
    assert _fresh_process_prints(code, 300) == "[('gibbs', 'tasks')] []"


@pytest.mark.slow
@pytest.mark.parametrize("n_classes", [2, 3])
def test_a_light_fit_warms_up_the_sweep_it_runs(n_classes):
    """The light sweeps are compiled per (proposal mode, n_mh, task kind): a fresh process's fit
    warms up, before its timed sweeps, the one its task needs, and sweeps with no other; the
    inference kernels wait for a prediction."""
    code = ("from medlda import MedLDAClassifier\nfrom medlda.engine import warmup\n"
            "from medlda._kernels.light.sweeps import sweeps_for\nfrom medlda._kernels import inference\n"
            "from medlda.data.synthetic import make_supervised_corpus\n"
            f"corpus, _ = make_supervised_corpus(60, 3, n_classes={n_classes}, words_per_topic=5, doc_length=10, "
            "random_state=0)\n"
            "model = MedLDAClassifier(3, max_iter=2, sampler='light', proposal='cycle', n_mh=3)\n"
            "model.fit(corpus, corpus.single_labels())\n"
            "inferred = [n for n, v in vars(inference).items() if getattr(v, 'signatures', None)\n"
            "            and v.py_func.__module__ == inference.__name__]\n"
            "print(sorted(warmup._COMPILED), sweeps_for.cache_info().currsize, inferred)\n")
    tasks = 1 if n_classes == 2 else 2  # one task, or several; eta drawn exactly (cheap here), no coordinate sweeps
    assert _fresh_process_prints(code, 600) == f"[('light', 'collapsed', False, 'cycle', 3, {tasks}, False)] 1 []"


QUICK = dict(max_iter=3, n_infer_burn=2, n_infer_avg=3, random_state=0)  # predictions compared, not judged


@pytest.mark.parametrize("strategy", ["multitask", "ovr"])
def test_a_test_corpus_is_read_through_the_models_words_whatever_its_own_vocabulary(strategy):
    """A Corpus carries its words: one whose vocabulary is ordered otherwise, or holds words the model
    never saw, means the same documents, so it gets the predictions of the corpus in the model's own
    words (unknown words dropped, a document of unknown words only still getting its row, the
    prior's); a Corpus without words (column numbers only) must still match in size."""
    corpus, _ = make_supervised_corpus(200, 4, words_per_topic=10, n_classes=3, random_state=5)
    y = corpus.single_labels()
    model = MedLDAClassifier(4, strategy=strategy, **QUICK).fit(corpus.subset(np.arange(150)), y[:150])
    X, words = corpus.subset(np.arange(150, 200)).to_sparse(), corpus.vocabulary
    base = Corpus.from_sparse(X, words)
    perm = np.random.default_rng(0).permutation(words.size)
    shuffled = Corpus.from_sparse(X[:, perm], words[perm])
    assert np.array_equal(model.decision_function(shuffled), model.decision_function(base))
    assert np.array_equal(model.predict(shuffled), model.predict(base))
    assert base.to_vocabulary(model.vocabulary_) is base  # the model's own words: no copy
    # two unseen words in every document, and a last document holding nothing else
    extra = sp.vstack([sp.hstack([X, np.ones((50, 2), int)]), sp.csr_matrix([[0] * words.size + [3, 1]])])
    unknown = Corpus.from_sparse(extra.tocsr(), [*words, "zz_unseen", "qq_unseen"])
    assert np.array_equal(model.predict(unknown)[:50], model.predict(base))
    aligned = unknown.to_vocabulary(model.vocabulary_)
    assert aligned.n_docs == 51 and aligned.n_oov_dropped == 2 * 50 + 4 and aligned.doc_lengths[-1] == 0
    zbar = model.transform(unknown)
    assert zbar.shape[0] == 51 and np.array_equal(zbar[:50], model.transform(base))
    assert np.allclose(zbar[-1], model.transform(sp.csr_matrix((1, words.size), dtype=int))[0])
    assert model.score(shuffled, y[150:]) == model.score(base, y[150:])
    with pytest.raises(ValueError, match=f"X has {words.size - 1} features, but MedLDAClassifier is expecting "
                                         f"{words.size} features as input"):
        model.predict(Corpus.from_sparse(X[:, 1:]))  # no words of its own: nothing to align by


def test_lda_and_regressor_read_a_corpus_through_their_words_too():
    corpus, _ = make_supervised_corpus(150, 3, words_per_topic=10, random_state=6)
    train, X, words = corpus.subset(np.arange(100)), corpus.subset(np.arange(100, 150)).to_sparse(), corpus.vocabulary
    base = Corpus.from_sparse(X, words)
    perm = np.random.default_rng(1).permutation(words.size)
    shuffled = Corpus.from_sparse(X[:, perm], words[perm])
    lda = LDA(3, **QUICK).fit(train, heldout=shuffled)
    assert np.array_equal(lda.transform(shuffled), lda.transform(base))
    assert lda.perplexity(shuffled) == lda.perplexity(base)
    reg = MedLDARegressor(3, **QUICK).fit(train, np.arange(100.0))
    assert np.array_equal(reg.predict(shuffled), reg.predict(base))


def test_corpus_to_vocabulary_maps_words_by_string_and_keeps_every_document():
    corpus = Corpus(np.array([0, 1, 2, 2, 1]), np.array([0, 3, 3, 4, 5]), ["a", "b", "c"], labels=[("x",)] * 4,
                    n_oov_dropped=7)
    out = corpus.to_vocabulary(["c", "a", "d"])
    assert out.vocabulary.tolist() == ["c", "a", "d"]
    assert out.doc_ptr.tolist() == [0, 2, 2, 3, 3]  # "b" dropped; the emptied documents kept
    assert out.word_ids.tolist() == [0, 1, 0]  # each document's tokens by their new id
    assert out.n_oov_dropped == 7 + 2 and out.labels == corpus.labels
    assert corpus.to_vocabulary(np.array(["a", "b", "c"])) is corpus


def test_continuous_labels_are_refused_by_the_classifier_as_scikit_learn_refuses_them(planted):
    """Floats that are not integers would each become a class: a regression target given to a classifier."""
    corpus, _, y = planted
    small = corpus.subset(np.arange(120))
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        MedLDAClassifier(3, max_iter=2).fit(small, np.random.default_rng(0).normal(size=120))
    with pytest.raises(ValueError, match="Unknown label type: continuous"):  # numbers in an object array too
        MedLDAClassifier(3, max_iter=2).fit(small, np.array(np.linspace(0, 1, 120).tolist(), dtype=object))
    assert MedLDAClassifier(3, max_iter=2).fit(small, y[:120] * 2.0).classes_.tolist() == [0.0, 2.0]  # whole floats


def test_labels_mixing_strings_and_numbers_are_named_not_a_type_error(planted):
    corpus, _, y = planted
    mixed = np.array([1 if v else "b" for v in y[:120]], dtype=object)
    with pytest.raises(ValueError, match=r"Mix of label input types \(string and number\)"):
        MedLDAClassifier(3, max_iter=2).fit(corpus.subset(np.arange(120)), mixed)


def test_a_column_vector_y_is_one_label_per_document_as_in_scikit_learn(planted):
    """A dense (D, 1) y is 1-d labels (responses), raveled with scikit-learn's DataConversionWarning;
    a sparse y stays a label-indicator matrix, the way to pass a multi-label y of one column."""
    from sklearn.exceptions import DataConversionWarning

    corpus, _, y = planted
    small, y = corpus.subset(np.arange(120)), y[:120]
    flat = MedLDAClassifier(3, **QUICK).fit(small, y + 3)
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        column = MedLDAClassifier(3, **QUICK).fit(small, (y + 3)[:, None])
    assert not column.multilabel_ and column.classes_.tolist() == [3, 4]
    assert np.array_equal(column.eta_samples_, flat.eta_samples_)
    assert np.array_equal(column.predict(small), flat.predict(small))
    with pytest.warns(DataConversionWarning, match="column-vector y"):  # 0/1: not a one-label indicator
        assert MedLDAClassifier(3, max_iter=2).fit(small, y[:, None]).predict(small).shape == (120,)
    one_label = MedLDAClassifier(3, **QUICK).fit(small, sp.csr_matrix(y[:, None]))
    assert one_label.multilabel_ and one_label.predict(small).shape == (120, 1)
    reg = MedLDARegressor(3, **QUICK).fit(small, y * 1.5)
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        reg_column = MedLDARegressor(3, **QUICK).fit(small, (y * 1.5)[:, None])
    assert np.array_equal(reg_column.predict(small), reg.predict(small))


def test_every_estimator_warns_of_the_empty_documents_fit_skips(planted):
    corpus, _, _ = planted
    X = corpus.subset(np.arange(100)).to_sparse().tolil()
    X[[2, 7], :] = 0
    with pytest.warns(UserWarning, match=r"LDA.fit skipped 2 empty documents \(no words\) of 100"):
        assert LDA(3, max_iter=2).fit(X.tocsr()).n_empty_skipped_ == 2
    with pytest.warns(UserWarning, match=r"MedLDARegressor.fit skipped 2 empty documents \(no words\) of 100"):
        MedLDARegressor(3, max_iter=2).fit(X.tocsr(), np.arange(100.0))
    with pytest.raises(ValueError, match="no non-empty documents"), warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing left to train on: the error alone, no warning before it
        LDA(3, max_iter=2).fit(np.zeros((3, 4), int))


def test_multilabel_fit_warns_of_label_columns_no_document_carries(planted):
    corpus, _, y = planted
    X = corpus.subset(np.arange(100)).to_sparse().tolil()
    X[7, :] = 0
    Y = np.column_stack([y[:100], 1 - y[:100], np.zeros(100, int), np.zeros(100, int)])
    Y[7, 3] = 1  # carried by an empty document only: nothing to learn from either
    for strategy in ("multitask", "ovr"):
        with pytest.warns(UserWarning) as record:
            MedLDAClassifier(3, max_iter=2, strategy=strategy).fit(X.tocsr(), Y)
        messages = [str(w.message) for w in record]
        assert len(messages) == 2 and messages[0].startswith("MedLDAClassifier.fit skipped 1 empty document")
        assert messages[1] == ("no (non-empty) training document carries label columns 2, 3 of y: the model can "
                               "only learn never to predict them")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every column carried, no empty document: no warning
        MedLDAClassifier(3, max_iter=2).fit(corpus.subset(np.arange(100)), Y[:, :2])


@pytest.fixture(scope="module")
def three_topics():
    """150 documents of 3 planted topics."""
    corpus, _ = make_supervised_corpus(150, 3, words_per_topic=10, random_state=7)
    return corpus


def test_transform_columns_are_named_for_pipelines_and_set_output(three_topics):
    """get_feature_names_out names each column transform returns (one-vs-rest: per class and topic)."""
    corpus = three_topics
    y = np.array(["a", "b", "c"])[np.arange(150) % 3]
    lda = LDA(3, max_iter=2, random_state=0).fit(corpus)
    assert lda.get_feature_names_out().tolist() == ["lda0", "lda1", "lda2"]
    for strategy, width in (("multitask", 3), ("ovr", 9)):
        model = MedLDAClassifier(3, max_iter=2, strategy=strategy, random_state=0).fit(corpus, y)
        names = model.get_feature_names_out()
        assert names.size == model.transform(corpus).shape[1] == width
        assert names[0] == ("medldaclassifier0" if strategy == "multitask" else "medldaclassifier_a_0")
        assert names[-1] == ("medldaclassifier2" if strategy == "multitask" else "medldaclassifier_c_2")
    with pytest.raises(Exception, match="not fitted"):
        MedLDARegressor(3).get_feature_names_out()


def test_set_output_pandas_labels_the_topics(three_topics):
    pd = pytest.importorskip("pandas")
    corpus = three_topics
    frame = MedLDARegressor(3, max_iter=2, random_state=0).set_output(transform="pandas").fit(
        corpus, np.arange(150.0)).transform(corpus)
    assert isinstance(frame, pd.DataFrame) and frame.columns.tolist() == ["medldaregressor0", "medldaregressor1",
                                                                          "medldaregressor2"]


@pytest.mark.parametrize("params", [dict(sampler="gibbs"), dict(sampler="light"), dict(sampler="light", n_jobs=2)],
                         ids=["gibbs", "light", "light-2-threads"])
def test_a_documents_prediction_does_not_depend_on_the_batch_around_it(params):
    """Each document's inference is seeded by random_state and its own words: predicting a subset,
    a permutation, or one document alone gives the rows of predicting them all (scikit-learn's
    subset and order invariance); its draws still differ from those of another document."""
    corpus, _ = make_supervised_corpus(700, 4, words_per_topic=10, doc_length=30, random_state=3)
    y = corpus.single_labels()
    model = MedLDAClassifier(4, max_iter=5, random_state=0, **params).fit(corpus.subset(np.arange(200)), y[:200])
    X = corpus.subset(np.arange(200, 700)).to_sparse()  # 500 documents: two stream blocks
    whole = model.transform(X)
    perm = np.random.default_rng(0).permutation(500)
    assert np.array_equal(model.transform(X[perm]), whole[perm])
    assert np.array_equal(model.transform(X[300:310]), whole[300:310])
    assert np.array_equal(model.transform(X[[257]]), whole[[257]])
    assert np.array_equal(model.decision_function(X[perm]), model.decision_function(X)[perm])
    twice = sp.vstack([X[[5]], X[[5]]]).tocsr()  # the same document twice: the same result
    assert np.array_equal(model.transform(twice), whole[[5, 5]])
    reseeded = clone(model).set_params(random_state=1).fit(corpus.subset(np.arange(200)), y[:200])
    assert not np.array_equal(reseeded.transform(X), whole)


def test_scikit_learn_splits_a_corpus_as_it_splits_a_matrix():
    """A Corpus has shape and row indexing (corpus[rows], corpus[rows, :]), so cross-validation,
    train_test_split, grid search and CalibratedClassifierCV take it; its rows are its documents."""
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.model_selection import GridSearchCV, train_test_split

    corpus, _ = make_supervised_corpus(240, 4, words_per_topic=10, random_state=0)
    y = corpus.single_labels()
    assert corpus.shape == (240, corpus.n_words)
    assert corpus[3].n_docs == 1 and np.array_equal(corpus[3].word_ids, corpus.subset([3]).word_ids)
    assert np.array_equal(corpus[10:20].doc_ptr, corpus.subset(np.arange(10, 20)).doc_ptr)
    assert corpus[y == 1].n_docs == int(np.sum(y == 1))
    assert np.array_equal(corpus[[4, 2], ...].word_ids, corpus.subset([4, 2]).word_ids)
    with pytest.raises(IndexError, match="indexed by documents only"):
        corpus[:, 3]
    quick = MedLDAClassifier(4, max_iter=5, sampler="light", random_state=0)
    scores = cross_val_score(quick, corpus, y, cv=3, error_score="raise")
    assert scores.shape == (3,) and scores.min() > 0.8
    train, test, y_train, y_test = train_test_split(corpus, y, test_size=0.25, random_state=0)
    assert isinstance(train, Corpus) and (train.n_docs, test.n_docs) == (180, 60)
    search = GridSearchCV(quick, {"n_components": [3, 4]}, cv=3, error_score="raise").fit(train, y_train)
    assert search.best_estimator_.vocabulary_ is not None and search.score(test, y_test) > 0.8
    calibrated = CalibratedClassifierCV(quick, cv=3).fit(train, y_train)
    assert calibrated.predict_proba(test).shape == (60, 2)


def test_a_model_fitted_on_texts_reads_raw_texts_in_every_strategy():
    """A model fitted on a text Corpus keeps its vectorizer (``vectorizer_``, over its words) and
    predicts and transforms raw texts as it would their Corpus; one fitted on counts says how to
    count them."""
    rng = np.random.default_rng(0)
    topics = {"fruit": "apple banana cherry mango".split(), "cars": "engine wheel brake garage".split(),
              "space": "orbit rocket planet moon".split()}
    labels = [list(topics)[i % 3] for i in range(45)]
    texts = [" ".join(rng.choice(topics[label], 10)) for label in labels]
    corpus = Corpus.from_texts(texts, labels, vectorizer=CountVectorizer(min_df=2))  # any vectorizer, in memory
    new = ["mango apple cherry", "rocket moon orbit planet", ""]
    for strategy in ("multitask", "ovr"):
        model = MedLDAClassifier(3, max_iter=15, random_state=0, strategy=strategy).fit(corpus, labels)
        assert model.vectorizer_.get_params()["min_df"] == 2
        assert list(model.vectorizer_.get_feature_names_out()) == list(model.vocabulary_)
        assert np.array_equal(model.transform(new), model.transform(Corpus.from_texts(new, vocabulary=model.vocabulary_,
                                                                                      vectorizer=CountVectorizer())))
        assert list(model.predict(new[:2])) == ["fruit", "space"]
    assert MedLDAClassifier(3, max_iter=2).fit(corpus.to_sparse(), labels).vectorizer_ is None
    with pytest.raises(ValueError, match="fitted on a count matrix without words"):
        LDA(3, max_iter=2).fit(corpus.to_sparse()).transform(new)
