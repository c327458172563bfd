"""The names and inputs users of scikit-learn, gensim and tomotopy know: ``n_components`` and
``max_iter`` (the former ``n_topics`` and ``n_iter`` still accepted with a FutureWarning, in
model files without one), documents as lists of tokens, a clear error for anything that is no
form of documents, ``top_words`` as (word, weight) pairs, and ``summary()`` saying in words what
``medlda info`` says."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer

from medlda import LDA, Corpus, MedLDAClassifier, MedLDARegressor, load_model
from medlda.cli import main
from medlda.io.model_file import ModelFileError

QUICK = dict(max_iter=3, random_state=0, n_infer_burn=3, n_infer_avg=3)
DOCS = [["apple", "banana", "apple"], ["cherry", "banana"], ["kiwi", "apple"], ["cherry"]] * 5


@pytest.mark.parametrize("estimator", [LDA, MedLDAClassifier, MedLDARegressor])
def test_scikit_learn_names_round_trip(estimator):
    model = estimator(n_components=4, max_iter=7)
    assert model.get_params()["n_components"] == 4 and model.get_params()["max_iter"] == 7
    assert {"n_topics", "n_iter"}.isdisjoint(model.get_params())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the current names warn nowhere
        twin = clone(model).set_params(n_components=5)
    assert twin.n_components == 5 and twin.max_iter == 7 and model.n_components == 4


@pytest.mark.parametrize("estimator", [LDA, MedLDAClassifier, MedLDARegressor])
def test_former_names_still_work_with_a_future_warning(estimator):
    name = estimator.__name__
    with pytest.warns(FutureWarning, match=rf"{name}: the parameter 'n_topics' is deprecated .* use 'n_components'"):
        model = estimator(n_topics=4)
    assert model.get_params() == estimator(n_components=4).get_params()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert clone(model).n_components == 4  # clone reads the current names: no warning
    with pytest.warns(FutureWarning, match="'n_iter' is deprecated .* use 'max_iter'"):
        model.set_params(n_iter=9)
    assert model.max_iter == 9
    with pytest.warns(FutureWarning, match="'n_topics' is deprecated"):
        assert model.n_topics == 4
    with pytest.warns(FutureWarning, match="'n_iter' is deprecated"):
        model.n_iter = 11
    assert model.max_iter == 11
    with pytest.raises(TypeError, match=rf"{name}: got both 'n_topics' and 'n_components'"):
        estimator(n_topics=3, n_components=4)


def test_model_files_naming_the_former_parameters_load(tmp_path):
    """A file whose params say n_topics and n_iter loads as one saying n_components and max_iter,
    quietly (the user did not write those names); a file naming both is refused."""
    corpus = Corpus.from_tokens(DOCS)
    model = LDA(2, **QUICK).fit(corpus)
    path = tmp_path / "lda.npz"
    model.save(path)
    with np.load(path, allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files}
    meta = json.loads(arrays.pop("__metadata__").tobytes())
    params = meta["params"]
    params["n_topics"], params["n_iter"] = params.pop("n_components"), params.pop("max_iter")

    def write(name: str, meta: dict):
        with open(tmp_path / name, "wb") as f:
            np.savez(f, __metadata__=np.frombuffer(json.dumps(meta).encode(), np.uint8), **arrays)
        return tmp_path / name

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        old = load_model(write("old.npz", meta))
    assert old.get_params() == model.get_params() and old.n_iter_ == model.n_iter_ == 3
    np.testing.assert_array_equal(old.transform(corpus), model.transform(corpus))
    params["n_components"] = 2
    with pytest.raises(ModelFileError, match="params name 'n_topics' and 'n_components', two names of the same"):
        load_model(write("both.npz", meta))


def test_lists_of_tokens_are_documents_with_their_own_words():
    """Tokens give the corpus their count matrix gives (its words sorted), so the same draws."""
    vectorizer = CountVectorizer(analyzer=lambda doc: doc)
    counts = vectorizer.fit_transform(DOCS)
    by_tokens = LDA(2, **QUICK).fit(DOCS)
    by_counts = LDA(2, **QUICK).fit(counts)
    assert by_tokens.vocabulary_.tolist() == vectorizer.get_feature_names_out().tolist() == sorted({*sum(DOCS, [])})
    np.testing.assert_array_equal(by_tokens.topic_word_counts_, by_counts.topic_word_counts_)
    new = [["kiwi", "durian", "kiwi"], [], ["banana"]]  # an unknown word dropped, an empty document kept
    np.testing.assert_array_equal(by_tokens.transform(new), by_counts.transform(vectorizer.transform(new)))
    labels = [0, 1, 0, 1] * 5
    clf = MedLDAClassifier(2, **QUICK).fit(DOCS, labels)
    assert clf.predict(new).shape == (3,) and clf.vocabulary_.tolist() == by_tokens.vocabulary_.tolist()
    with pytest.raises(ValueError, match="X is lists of tokens, but LDA was fitted on a count matrix without words"):
        by_counts.transform(new)


@pytest.mark.parametrize("X, match", [
    ([[1, 2], [3]], "X is not documents in a form medlda reads"),
    ([[(0, 2), (3, 1)], [(1, 1)]], "gensim's bag-of-words .*corpus2csc"),
    ([[(0, 2), (3, 1)], [(1, 1), (2, 2)]], "gensim's bag-of-words"),  # equal lengths: a 3-d array
    ([["apple", 3], ["kiwi"]], "X is not documents in a form medlda reads"),
])
def test_anything_else_is_refused_naming_the_forms_of_documents(X, match):
    for fit in (lambda: LDA(2, **QUICK).fit(X), lambda: MedLDAClassifier(2, **QUICK).fit(X, [0, 1])):
        with pytest.raises(ValueError, match=match) as info:
            fit()
        message = str(info.value)
        assert "lists of tokens" in message and "count matrix" in message and "inhomogeneous" not in message


def test_top_words_are_word_and_weight_pairs():
    model = LDA(2, **QUICK).fit(DOCS)
    pairs = model.top_words(3)
    ids = model.top_word_ids(3)
    assert [[w for w, _ in topic] for topic in pairs] == model.words_of(ids)
    for k, topic in enumerate(pairs):
        held = ids[k][model.topic_word_counts_[k, ids[k]] > 0]
        weights = [p for _, p in topic]
        assert weights == model.topic_word_[k, held].tolist() and weights == sorted(weights, reverse=True)
    by_relevance = model.top_words(3, relevance=0.0)
    ranked = model.top_word_ids(3, relevance=0.0)[0]
    assert [p for _, p in by_relevance[0]] == model.topic_word_[0, ranked[model.topic_word_counts_[0, ranked] > 0]].tolist()


def test_an_empty_topic_has_no_top_words():
    model = LDA(2, **QUICK).fit(DOCS)
    model.topic_word_counts_[1] = 0
    assert model.top_words(3)[1] == [] and model.words_of(model.top_word_ids(3))[1] == []
    assert len(model.top_words(3)[0]) > 0


def test_summary_says_what_medlda_info_says(tmp_path, capsys):
    labels = [0, 1, 0, 1] * 5
    model = MedLDAClassifier(2, **QUICK).fit(DOCS, labels)
    summary = model.summary()
    text = str(summary)
    assert repr(summary) == text
    assert "estimator: MedLDAClassifier, a supervised topic model for classification" in text
    assert "c: 1.6, how much the labels weigh against the words" in text
    assert "margin: 164, how far the right class's score must lead every other" in text
    assert "c='auto': the loss's default for this number of classes" in text and "mean length" not in text
    path = tmp_path / "m.npz"
    model.save(path)
    assert main(["info", "--model", str(path)]) == 0
    info = capsys.readouterr().out.splitlines()
    assert info[0] == f"model file: {path}" and any(line.startswith("saved by: medlda ") for line in info)
    assert [line for line in info[1:] if not line.startswith("saved by: ")] == text.splitlines()
    assert main(["info", "--model", str(path), "--json"]) == 0
    as_json = json.loads(capsys.readouterr().out)
    assert {k: v for k, v in as_json.items() if k not in ("model", "saved_by")} == json.loads(json.dumps(summary))
    logistic = MedLDAClassifier(2, loss="logistic", **QUICK).fit(DOCS, labels).summary()
    assert "margin" not in str(logistic).split("parameters:")[0]  # the logistic loss has no margin
    assert "margin" not in logistic and "margin" in summary  # nor a margin field (medlda info --json)
    regressor = MedLDARegressor(2, **QUICK).fit(DOCS, np.arange(20.0))
    regression = str(regressor.summary())
    assert (f"c: {regressor.c_:.4g}, how much the responses weigh against the words (the regularization constant, "
            "set by c='auto' from the training documents' mean length" in regression)
    assert "epsilon: 0.001, the error within which a prediction costs nothing (in standard deviations" in regression
    assert "topics: 2" in str(LDA(2, **QUICK).fit(DOCS).summary())
    assert "document-topic prior" not in text  # the symmetric prior is in the parameters
    learned = LDA(2, optimize_alpha=True, **{**QUICK, "max_iter": 20}).fit(DOCS)
    assert learned.summary()["alpha"] == pytest.approx(learned.alpha_.tolist())
    assert "document-topic prior: learned (optimize_alpha), alpha_k from" in str(learned.summary())
