"""load_20newsgroups: local archive or folder, lookup in $MEDLDA_DATA / cache, download, real counts."""

from __future__ import annotations

import io
import tarfile
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from files import make_tar
from medlda.data import datasets
from medlda.data.datasets import NEWS20_ARCHIVE, load_20newsgroups
from medlda.data.readers import read_corpus
from medlda.data.text import PAPERS, make_vectorizer

MESSAGES = {
    "20news-bydate-train/sci.space/101": "From: a@b\nSubject: orbit question\n\nHow high is the orbit?",
    "20news-bydate-train/alt.atheism/102": "From: c@d\nSubject: god\n\nNo gods here.",
    "20news-bydate-train/alt.atheism/100": "From: e@f\nSubject: faith\n\nFaith and reason.",
    "20news-bydate-test/sci.space/200": "From: g@h\nSubject: moon\n\nThe moon is far.",
    "20news-bydate-test/rec.autos/201": "From: i@j\nSubject: cars\n\nFast cars.",
}


def tiny_archive(path: Path) -> Path:
    return make_tar(path, MESSAGES)


@pytest.fixture
def archive(tmp_path):
    return tiny_archive(tmp_path / NEWS20_ARCHIVE)


def test_load_from_archive_like_sklearn(archive):
    news = load_20newsgroups(archive)
    assert news.target_names == ["alt.atheism", "sci.space"]
    assert news.target.tolist() == [0, 0, 1]
    assert news.filenames.tolist() == [
        "20news-bydate-train/alt.atheism/100",
        "20news-bydate-train/alt.atheism/102",
        "20news-bydate-train/sci.space/101",
    ]
    assert news.data[0].startswith("From: e@f")


def test_subsets_categories_and_header_removal(archive):
    test = load_20newsgroups(archive, subset="test", remove_headers=True)
    assert test.target_names == ["rec.autos", "sci.space"]
    assert test.data == ["cars\n\nFast cars.", "moon\n\nThe moon is far."]
    both = load_20newsgroups(archive, subset="all", categories=["sci.space"])
    assert both.target_names == ["sci.space"] and len(both.data) == 2 and both.target.tolist() == [0, 0]
    with pytest.raises(ValueError, match="unknown categories"):
        load_20newsgroups(archive, categories=["comp.graphics"])
    with pytest.raises(ValueError, match="subset"):
        load_20newsgroups(archive, subset=None)


def test_load_from_extracted_folder(archive, tmp_path):
    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path / "extracted", filter="data")
    from_folder = load_20newsgroups(tmp_path / "extracted", subset="all")
    from_archive = load_20newsgroups(archive, subset="all")
    assert from_folder.data == from_archive.data and len(from_folder.data) == 5
    assert from_folder.target.tolist() == from_archive.target.tolist()


def test_finds_archive_in_medlda_data(archive, monkeypatch):
    monkeypatch.setenv("MEDLDA_DATA", str(archive.parent))
    monkeypatch.setattr(urllib.request, "urlopen", _no_network)
    assert len(load_20newsgroups().data) == 3


def _no_network(*args, **kwargs):
    raise urllib.error.URLError("network is unreachable")


def test_missing_archive_without_download(tmp_path, monkeypatch):
    monkeypatch.setenv("MEDLDA_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with pytest.raises(FileNotFoundError, match="pass path="):
        load_20newsgroups(download_if_missing=False)


def test_download_failure_is_clear_and_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("MEDLDA_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr(urllib.request, "urlopen", _no_network)
    with pytest.raises(ConnectionError, match=r"could not download .*20news-bydate.tar.gz.*path="):
        load_20newsgroups()
    assert list((tmp_path / "data").iterdir()) == []


def test_download_writes_archive_then_loads_it(archive, tmp_path, monkeypatch):
    payload = archive.read_bytes()
    seen = []

    def fake_urlopen(url, timeout=None):
        seen.append(url)
        return io.BytesIO(payload)

    monkeypatch.setenv("MEDLDA_DATA", str(tmp_path / "data"))
    monkeypatch.setattr(urllib.request, "urlopen", fake_urlopen)
    news = load_20newsgroups(subset="test")
    assert seen == [datasets.NEWS20_URL]
    assert (tmp_path / "data" / NEWS20_ARCHIVE).read_bytes() == payload
    assert [p.name for p in (tmp_path / "data").iterdir()] == [NEWS20_ARCHIVE]
    assert news.target_names == ["rec.autos", "sci.space"]


# -- real data --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def real_archive(shared_data):
    archive = shared_data / NEWS20_ARCHIVE
    if not archive.is_file():
        pytest.skip(f"real data not available: {archive} is absent")
    return archive


@pytest.mark.slow
def test_real_binary_task_counts(real_archive):
    cats = ["alt.atheism", "talk.religion.misc"]
    train = load_20newsgroups(real_archive, subset="train", categories=cats)
    test = load_20newsgroups(real_archive, subset="test", categories=cats)
    assert train.target_names == cats
    assert np.bincount(train.target).tolist() == [480, 377]  # 857 training documents
    assert np.bincount(test.target).tolist() == [319, 251]   # 570 test documents
    assert train.filenames[0] == "20news-bydate-train/alt.atheism/49960"


@pytest.mark.slow
def test_real_multiclass_preprocessing(real_archive):
    papers = make_vectorizer(**PAPERS)
    train = read_corpus(real_archive, subset="train", vectorizer=papers)
    assert train.n_docs == 11_314 and len(set(train.labels)) == 20
    # the papers' preprocessing gives V ~ 30.4k words and ~1.40M tokens (headers but Subject dropped)
    assert 29_000 < train.n_words < 32_000 and 1.3e6 < train.n_tokens < 1.5e6
    test = read_corpus(real_archive, subset="test", vocabulary=train.vocabulary, vectorizer=papers)
    assert test.n_docs + test.n_empty_skipped == 7_532 and test.n_oov_dropped > 0
    assert np.array_equal(test.vocabulary, train.vocabulary)
    # the default also drops quotes and signatures: V ~ 24.2k words, ~0.99M tokens
    default = read_corpus(real_archive, subset="train")
    assert default.n_docs + default.n_empty_skipped == 11_314
    assert 23_000 < default.n_words < 25_500 and 0.9e6 < default.n_tokens < 1.1e6
