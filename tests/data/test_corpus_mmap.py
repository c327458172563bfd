"""Corpora on disk: save_npy / load(mmap=True) keep int32 contiguous token arrays, memory-mapped,
and training on the mapped corpus gives exactly the model trained on the in-memory one."""

from __future__ import annotations

import json

import numpy as np
import pytest

from medlda import LDA, MedLDAClassifier
from medlda.data.corpus import Corpus
from medlda.data.synthetic import make_supervised_corpus
from medlda.engine.state import ChainState


@pytest.fixture(scope="module")
def corpus():
    corpus, _ = make_supervised_corpus(400, 4, words_per_topic=10, doc_length=30, random_state=1)
    corpus.doc_names = [f"doc{d}" for d in range(corpus.n_docs)]
    return corpus


def test_round_trip_keeps_everything(tmp_path, corpus):
    corpus.save_npy(tmp_path / "c")
    for mmap in (False, True):
        back = Corpus.load(tmp_path / "c", mmap=mmap)
        np.testing.assert_array_equal(back.word_ids, corpus.word_ids)
        np.testing.assert_array_equal(back.doc_ptr, corpus.doc_ptr)
        np.testing.assert_array_equal(back.vocabulary, corpus.vocabulary)
        assert back.labels == corpus.labels and back.doc_names == corpus.doc_names
        assert (back.mmap_file is not None) == mmap
    assert not list((tmp_path / "c").glob(".*tmp"))


def test_mapped_token_arrays_are_int32_contiguous_views_of_the_file(tmp_path, corpus):
    mapped = Corpus.load(corpus.save_npy(tmp_path / "c"), mmap=True)
    assert mapped.word_ids.dtype == np.int32 and mapped.word_ids.flags.c_contiguous
    assert mapped.mmap_file == str(tmp_path / "c" / "word_ids.npy")
    on_disk = np.load(tmp_path / "c" / "word_ids.npy", mmap_mode="r")
    assert np.shares_memory(mapped.word_ids, mapped.word_ids.base) and isinstance(mapped.word_ids.base, np.memmap)
    mapped.word_ids[0] = (mapped.word_ids[0] + 1) % mapped.n_words  # copy-on-write: the file is untouched
    assert on_disk[0] == corpus.word_ids[0]


def test_training_on_the_mapped_corpus_equals_in_memory(tmp_path, corpus):
    mapped = Corpus.load(corpus.save_npy(tmp_path / "c"), mmap=True)
    y = corpus.single_labels()
    kw = dict(max_iter=5, sampler="light", random_state=0)
    np.testing.assert_array_equal(LDA(4, **kw).fit(mapped).topic_word_counts_,
                                  LDA(4, **kw).fit(corpus).topic_word_counts_)
    a, b = MedLDAClassifier(4, **kw).fit(mapped, y), MedLDAClassifier(4, **kw).fit(corpus, y)
    np.testing.assert_array_equal(a.eta_samples_, b.eta_samples_)
    # the sampler reads the mapped array itself, no in-memory copy
    state = ChainState.initialize(mapped.word_ids, mapped.doc_ptr, mapped.n_words, 4, np.full(4, 0.25),
                                    0.01, np.random.default_rng(0))
    assert isinstance(state.word_ids.base, np.memmap) and np.shares_memory(state.word_ids, mapped.word_ids)


def test_load_refuses_other_folders(tmp_path, corpus):
    with pytest.raises(ValueError, match="not a corpus folder"):
        Corpus.load(tmp_path)
    corpus.save_npy(tmp_path / "c")
    meta = json.loads((tmp_path / "c" / "corpus.json").read_text())
    meta["n_tokens"] += 1
    (tmp_path / "c" / "corpus.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="sizes disagree"):
        Corpus.load(tmp_path / "c", mmap=True)
