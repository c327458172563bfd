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
