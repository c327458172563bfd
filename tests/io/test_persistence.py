"""Model files: round trips, atomic writes, and refusal of foreign or inconsistent files."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest

from medlda import LDA, MedLDAClassifier
from medlda.exceptions import ModelFileError
from medlda.io.model_file import load_model, save_model


@pytest.fixture(scope="module")
def fitted(binary_corpus):
    corpus, _ = binary_corpus
    y = np.where(corpus.single_labels() == 1, "yes", "no")
    clf = MedLDAClassifier(4, c=1.0, margin=1.0, max_iter=10, random_state=0).fit(corpus, y)
    lda = LDA(4, max_iter=10, random_state=0).fit(corpus.to_sparse())
    return corpus, y, clf, lda


def test_classifier_round_trip_predicts_identically(tmp_path, fitted):
    corpus, y, clf, _ = fitted
    path = tmp_path / "clf.npz"
    clf.save(path)
    again = load_model(path)
    assert isinstance(again, MedLDAClassifier)
    assert again.get_params() == clf.get_params()
    assert np.array_equal(again.topic_word_counts_, clf.topic_word_counts_)
    assert np.array_equal(again.eta_samples_, clf.eta_samples_)
    assert list(again.classes_) == ["no", "yes"]
    assert list(again.vocabulary_) == list(corpus.vocabulary)
    assert np.array_equal(again.predict(corpus), clf.predict(corpus))
    assert again.top_words(3) == clf.top_words(3)


def test_lda_round_trip(tmp_path, fitted):
    corpus, _, _, lda = fitted
    path = tmp_path / "lda.model"  # any file name works
    save_model(lda, path)
    again = load_model(path)
    assert isinstance(again, LDA) and again.vocabulary_ is None
    assert np.allclose(again.transform(corpus), lda.transform(corpus))
    assert again.fit_stats_ == pytest.approx(lda.fit_stats_)


def test_failed_save_leaves_existing_file_untouched(tmp_path, fitted, monkeypatch):
    _, _, clf, _ = fitted
    path = tmp_path / "model.npz"
    path.write_bytes(b"precious")

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez_compressed", broken)
    with pytest.raises(OSError, match="disk full"):
        clf.save(path)
    assert path.read_bytes() == b"precious"
    assert [p.name for p in tmp_path.iterdir()] == ["model.npz"]  # no temporary file left behind


def test_saved_files_get_the_usual_permissions(tmp_path, fitted):
    """A new file gets 0o666 less the umask (not the temporary file's owner-only 0o600); an
    overwritten one keeps its own mode."""
    import os
    import stat

    _, _, clf, _ = fitted
    mask = os.umask(0o022)
    try:
        clf.save(tmp_path / "new.npz")
        kept = tmp_path / "kept.npz"
        kept.write_bytes(b"old")
        kept.chmod(0o640)
        clf.save(kept)
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "new.npz").stat().st_mode) == 0o644
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640
    assert isinstance(load_model(kept), MedLDAClassifier)


def test_foreign_and_broken_files_are_refused(tmp_path, fitted):
    _, _, clf, _ = fitted
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(ModelFileError, match="notes.txt: not a medlda model file"):
        load_model(text)
    with pytest.raises(ModelFileError, match="no such model file"):
        load_model(tmp_path / "missing.npz")
    other = tmp_path / "other.npz"
    np.savez(other, a=np.arange(3))
    with pytest.raises(ModelFileError, match="no metadata"):
        load_model(other)
    # an object array would need pickle to load: refused, never unpickled
    evil = tmp_path / "evil.npz"
    np.savez(evil, __metadata__=np.array([{"x": 1}], dtype=object))
    with pytest.raises(ModelFileError, match="not a medlda model file"):
        load_model(evil)


@pytest.mark.parametrize("name, content", [
    ("table.npz", b"text,label\nfootball match,sports\n"),  # a CSV renamed .npz
    ("notes.txt", b"hello\n"),
    ("noise.npz", bytes(np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8))),
])
def test_non_archives_are_named_as_such_without_pickle_advice(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ModelFileError) as info:
        load_model(path)
    assert str(info.value) == f"{path}: not a medlda model file (not an npz archive)"


def test_truncated_archives_and_object_arrays_never_suggest_allow_pickle(tmp_path, fitted):
    _, _, clf, _ = fitted
    whole = tmp_path / "whole.npz"
    clf.save(whole)
    cut = tmp_path / "cut.npz"
    cut.write_bytes(whole.read_bytes()[:2000])
    with pytest.raises(ModelFileError, match=r"cut\.npz: not a medlda model file \(a truncated or damaged npz"):
        load_model(cut)
    evil = tmp_path / "evil.npz"
    np.savez(evil, __metadata__=np.array([{"x": 1}], dtype=object))
    for path in (cut, evil):
        with pytest.raises(ModelFileError) as info:
            load_model(path)
        assert "allow_pickle" not in str(info.value) and "pickle.load" not in str(info.value)


def _rewrite(src, dst, change):
    """Copy a model file with one archive member changed by ``change(name, array)``."""
    with np.load(src, allow_pickle=False) as archive:
        arrays = {k: change(k, archive[k]) for k in archive.files}
    np.savez(dst, **arrays)


def test_version_and_shape_checks(tmp_path, fitted):
    _, _, clf, _ = fitted
    good = tmp_path / "good.npz"
    clf.save(good)

    def meta_with(**fields):
        def change(name, arr):
            if name != "__metadata__":
                return arr
            meta = json.loads(arr.tobytes())
            meta.update(fields)
            return np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
        return change

    _rewrite(good, tmp_path / "v9.npz", meta_with(format_version=9))
    with pytest.raises(ModelFileError, match="format version 9 is not supported"):
        load_model(tmp_path / "v9.npz")
    _rewrite(good, tmp_path / "foreign.npz", meta_with(format="something-else"))
    with pytest.raises(ModelFileError, match="format 'something-else'"):
        load_model(tmp_path / "foreign.npz")
    _rewrite(good, tmp_path / "old.npz", meta_with(medlda_version="0.0.1"))
    with pytest.warns(UserWarning, match="saved by medlda 0.0.1"):
        load_model(tmp_path / "old.npz")
    _rewrite(good, tmp_path / "shape.npz", lambda n, a: a[:, :, :2] if n == "eta_samples" else a)
    with pytest.raises(ModelFileError, match="eta_samples should be"):
        load_model(tmp_path / "shape.npz")
    _rewrite(good, tmp_path / "vocab.npz", lambda n, a: a[:-1] if n == "vocabulary" else a)
    with pytest.raises(ModelFileError, match="vocabulary should hold"):
        load_model(tmp_path / "vocab.npz")


def test_model_file_is_plain_zip_of_npy(tmp_path, fitted):
    _, _, clf, _ = fitted
    path = tmp_path / "m.npz"
    clf.save(path)
    with zipfile.ZipFile(path) as z:
        names = sorted(z.namelist())
        meta = json.loads(np.load(io.BytesIO(z.read("__metadata__.npy"))).tobytes())
    assert names == sorted(["__metadata__.npy", "classes.npy", "eta_samples.npy",
                            "topic_word_counts.npy", "vocabulary.npy"])
    assert meta["format"] == "medlda-model" and meta["params"]["n_components"] == 4


# -- text models: the vectorizer's settings and words in the file --------------------------------
TEXTS = [f"{' '.join(words)} {extra}" for extra in ("one", "two", "three", "four", "five", "six")
         for words in (("apple", "mango", "juice", "banana"), ("engine", "brake", "wheel", "garage"))]
LABELS = ["fruit", "cars"] * 6


@pytest.fixture(scope="module")
def text_pipeline():
    from sklearn.pipeline import make_pipeline

    from medlda.data.text import make_vectorizer

    model = MedLDAClassifier(2, c=1.0, margin=1.0, max_iter=20, random_state=0)
    return make_pipeline(make_vectorizer(news=False, min_df=2, stop_words=["juice"]), model).fit(TEXTS, LABELS)


def test_a_pipeline_saves_as_one_file_that_predicts_raw_text(tmp_path, text_pipeline):
    from medlda import save_model as public_save

    path = tmp_path / "pipe.npz"
    public_save(text_pipeline, path)
    again = load_model(path)
    new = ["banana apple mango", "wheel garage brake", "nothing known here"]
    assert list(again.predict(new)) == list(text_pipeline.predict(new))
    assert np.array_equal(again.transform(new), text_pipeline.transform(new))
    assert list(again.vocabulary_) == list(text_pipeline[0].get_feature_names_out())
    settings = again.vectorizer_.get_params()
    assert settings["min_df"] == 2 and settings["stop_words"] == ["juice"] and settings["preprocessor"] is None
    with zipfile.ZipFile(path) as z:
        meta = json.loads(np.load(io.BytesIO(z.read("__metadata__.npy"))).tobytes())
    assert meta["vectorizer"] == {"news": False, "quotes": False, "min_df": 2, "max_df": 1.0,
                                  "max_features": None, "stop_words": ["juice"]}
    text_pipeline[-1].save(tmp_path / "own.npz", vectorizer=text_pipeline[0])  # the estimator's own save
    assert list(load_model(tmp_path / "own.npz").predict(new)) == list(again.predict(new))


def test_a_model_fitted_on_texts_keeps_its_vectorizer_through_save(tmp_path):
    from medlda.data.corpus import Corpus

    corpus = Corpus.from_texts(TEXTS, LABELS)
    clf = MedLDAClassifier(2, c=1.0, margin=1.0, max_iter=20, random_state=0).fit(corpus, LABELS)
    assert list(clf.predict(["banana apple", "brake engine"])) == ["fruit", "cars"]
    clf.save(tmp_path / "m.npz")
    again = load_model(tmp_path / "m.npz")
    assert np.array_equal(again.transform(["banana apple", "brake engine"]), clf.transform(["banana apple",
                                                                                           "brake engine"]))
    clf.save(tmp_path / "bare.npz", vectorizer=False)  # words only: texts must then be counted first
    bare = load_model(tmp_path / "bare.npz")
    assert bare.vectorizer_ is None and list(bare.vocabulary_) == list(clf.vocabulary_)
    with pytest.raises(ValueError, match=r"Corpus.from_texts\(texts, vocabulary=model.vocabulary_\)"):
        bare.predict(["banana apple"])
    counted = Corpus.from_texts(["banana apple"], vocabulary=bare.vocabulary_)  # the hint, followed
    assert list(bare.predict(counted)) == ["fruit"]


def test_a_vectorizer_make_vectorizer_cannot_describe_is_refused(tmp_path, text_pipeline):
    from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
    from sklearn.pipeline import make_pipeline

    model = text_pipeline[-1]
    for vectorizer, match in ((CountVectorizer(), "its token_pattern differs"),
                              (TfidfVectorizer(), "cannot describe a TfidfVectorizer"),
                              (CountVectorizer(token_pattern=r"(?u)\b[^\W\d_]{3,}\b", ngram_range=(1, 2)),
                               "its ngram_range differs")):
        with pytest.raises(ValueError, match=match):
            save_model(make_pipeline(vectorizer.fit(TEXTS), model), tmp_path / "m.npz")
    assert not (tmp_path / "m.npz").exists()
    with pytest.raises(ValueError, match="the vectorizer has 3 words, the model"):
        model.save(tmp_path / "m.npz", vectorizer=CountVectorizer(vocabulary=["a", "b", "c"],
                                                                  token_pattern=r"(?u)\b[^\W\d_]{3,}\b"))
    with pytest.raises(TypeError, match="two steps, not 3"):
        save_model(make_pipeline(text_pipeline[0], CountVectorizer(), model), tmp_path / "m.npz")


def test_a_file_without_text_metadata_still_loads(tmp_path, fitted):
    """Files written before the text preprocessing and data selection were kept load as they did."""
    corpus, _, clf, _ = fitted
    path = tmp_path / "m.npz"
    clf.save(path)
    with zipfile.ZipFile(path) as z:
        meta = json.loads(np.load(io.BytesIO(z.read("__metadata__.npy"))).tobytes())
    assert "vectorizer" not in meta and "data_selection" not in meta
    again = load_model(path)
    assert again.vectorizer_ is None and again.data_selection_ is None
    assert np.array_equal(again.predict(corpus), clf.predict(corpus))


def _with_meta(src, dst, change):
    def rewrite(name, arr):
        if name != "__metadata__":
            return arr
        return np.frombuffer(json.dumps(change(json.loads(arr.tobytes()))).encode(), dtype=np.uint8)
    _rewrite(src, dst, rewrite)


@pytest.mark.parametrize("field, value, match", [
    ("vectorizer", {"news": True}, "vectorizer does not fit the format: missing"),
    ("vectorizer", {"news": "yes", "min_df": 1, "max_df": 1.0, "max_features": None, "stop_words": None},
     "vectorizer: news should be true or false"),
    ("vectorizer", {"news": True, "min_df": 0, "max_df": 1.0, "max_features": None, "stop_words": None},
     "min_df should be a number of documents"),
    ("vectorizer", {"news": True, "min_df": 1.5, "max_df": 1.0, "max_features": None, "stop_words": None},
     "min_df should be a number of documents"),
    ("vectorizer", {"news": True, "min_df": 1, "max_df": 1.0, "max_features": -2, "stop_words": None},
     "max_features should be an integer >= 1"),
    ("vectorizer", {"news": True, "min_df": 1, "max_df": 1.0, "max_features": None, "stop_words": "french"},
     "stop_words should be 'english', null or a list of words"),
    ("vectorizer", {"news": True, "min_df": 1, "max_df": 1.0, "max_features": None, "stop_words": None,
                    "tokenizer": "os.system"}, "unexpected tokenizer"),
    ("data_selection", {"format": "pickle", "categories": None, "label_column": None, "text_column": None},
     "format should be one of bow"),
    ("data_selection", {"format": "folder", "categories": ["a", "a"], "label_column": None, "text_column": None},
     "categories should be a list of distinct non-empty strings"),
    ("data_selection", {"format": "csv", "categories": None, "label_column": "x" * 1001, "text_column": None},
     "label_column should be a non-empty string of at most 1000"),
    ("data_selection", [], "data_selection should be an object"),
])
def test_bad_text_metadata_is_refused_in_one_line(tmp_path, text_pipeline, field, value, match):
    good = tmp_path / "good.npz"
    save_model(text_pipeline, good)
    _with_meta(good, tmp_path / "bad.npz", lambda meta: {**meta, field: value})
    with pytest.raises(ModelFileError, match=match) as info:
        load_model(tmp_path / "bad.npz")
    assert str(info.value).startswith(f"{tmp_path / 'bad.npz'}: ") and "\n" not in str(info.value)


def test_text_metadata_sizes_are_bounded_and_need_the_vocabulary(tmp_path, text_pipeline, monkeypatch):
    from medlda.exceptions import LimitError

    good = tmp_path / "good.npz"
    save_model(text_pipeline, good)
    _with_meta(good, tmp_path / "stop.npz",
               lambda meta: {**meta, "vectorizer": {**meta["vectorizer"], "stop_words": ["w"] * 50}})
    assert load_model(tmp_path / "stop.npz").vectorizer_.get_params()["stop_words"] == ["w"] * 50
    monkeypatch.setenv("MEDLDA_MAX_WORDS", "10")
    with pytest.raises(LimitError, match="stop_words: number of words 50 exceeds the limit of 10"):
        load_model(tmp_path / "stop.npz")
    monkeypatch.setenv("MEDLDA_MAX_FILES", "2")
    _with_meta(good, tmp_path / "cats.npz", lambda meta: {**meta, "data_selection": {
        "format": "folder", "categories": ["a", "b", "c"], "label_column": None, "text_column": None}})
    with pytest.raises(LimitError, match="categories: number of files 3 exceeds the limit of 2"):
        load_model(tmp_path / "cats.npz")
    with np.load(good, allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files if k != "vocabulary"}
    np.savez(tmp_path / "novocab.npz", **arrays)
    with pytest.raises(ModelFileError, match="missing vocabulary"):
        load_model(tmp_path / "novocab.npz")


def test_the_schema_names_every_reader_format():
    from medlda.data.readers import FORMATS
    from medlda.io.model_schema import DATA_FORMATS

    assert DATA_FORMATS == FORMATS


def test_from_texts_counts_against_a_given_vocabulary():
    from medlda.data.corpus import Corpus

    corpus = Corpus.from_texts(["mango apple zebra apple", "", "Zebra!"], vocabulary=["zebra", "apple"])
    assert list(corpus.vocabulary) == ["zebra", "apple"] and corpus.n_docs == 3
    assert corpus.to_sparse().toarray().tolist() == [[1, 2], [0, 0], [1, 0]]
    assert corpus.n_oov_dropped == 1  # mango
