"""Readers: bow / lda-c / folder / tar / Reuters round trips, OOV and empty-document accounting, malformed input."""

from __future__ import annotations

import pickle
import re
import tarfile
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import clone

from files import make_folder, make_tar
from medlda.data.corpus import Corpus
from medlda.data.readers import (
    FilesSkippedWarning,
    guess_format,
    read_bow,
    read_corpus,
    read_ldac,
    read_text_folder,
    read_vocab_file,
    write_bow,
)
from medlda.data.readers.reuters import modapte_subset, parse_sgml
from medlda.data.text import count_oov_tokens, make_vectorizer, strip_news_headers
from medlda.exceptions import InputFormatError


def docs_as_words(corpus: Corpus) -> list[Counter]:
    """Each document as a Counter of its words (order inside a document does not matter)."""
    vocab = corpus.vocabulary
    bounds = zip(corpus.doc_ptr[:-1], corpus.doc_ptr[1:])
    return [Counter(vocab[corpus.word_ids[a:b]].tolist()) for a, b in bounds]


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def where(path: Path, line: int) -> str:
    """The ``match=`` pattern of an InputFormatError at ``path``, ``line``."""
    return re.escape(f"{path}, line {line}:")


# -- bow --------------------------------------------------------------------------------------------
def test_bow_tokens_single_labels(tmp_path):
    path = write(tmp_path / "a.bow", "# comment\nsports ball:2 goal:1\n\npolitics vote:3 ball:1\n")
    c = read_bow(path)
    assert c.labels == [("sports",), ("politics",)]
    assert c.vocabulary.tolist() == ["ball", "goal", "vote"]  # order of first appearance
    assert docs_as_words(c) == [Counter(ball=2, goal=1), Counter(vote=3, ball=1)]
    assert c.n_empty_skipped == 0 and c.n_oov_dropped == 0 and c.source == str(path)


@pytest.mark.parametrize("line, labels", [
    ("a,b x:1 y:2", ("a", "b")),
    ("a b x:1 y:2", ("a", "b")),
    ("3 5 12:1 7:2", ("3", "5")),
    ("3,5 9 12:1", ("3", "5", "9")),
])
def test_bow_multi_labels_comma_or_space(tmp_path, line, labels):
    c = read_bow(write(tmp_path / "m.bow", line + "\nz w:1\n"))
    assert c.labels == [labels, ("z",)]


def test_bow_id_file_uses_ids_as_given(tmp_path):
    c = read_bow(write(tmp_path / "ids.svm", "+1 3:2 0:1\n-1 5:1\n"))
    assert c.vocabulary.tolist() == [str(i) for i in range(6)]
    assert sorted(c.word_ids[: c.doc_ptr[1]].tolist()) == [0, 3, 3]
    assert c.word_ids[c.doc_ptr[1]:].tolist() == [5]
    assert c.single_labels().tolist() == [1, -1]


def test_bow_unlabeled_and_word_with_colon(tmp_path):
    c = read_bow(write(tmp_path / "u.bow", "http://x:2 y:1\ny:4\n"))
    assert c.labels is None
    assert docs_as_words(c) == [Counter({"http://x": 2, "y": 1}), Counter(y=4)]


@pytest.mark.parametrize("text", [
    "a x:1 y:2\nb y:3 z:1\nc,d x:5\n",     # tokens, single and multi labels
    "1 0:1 4:2\n2 4:1\n",                   # id vocabulary
    "x:1 y:2\nz:3\n",                       # unlabeled
])
def test_bow_round_trip(tmp_path, text):
    c = read_bow(write(tmp_path / "in.bow", text))
    out = write_bow(c, tmp_path / "out.bow")
    back = read_bow(out)
    assert docs_as_words(back) == docs_as_words(c)
    assert back.labels == c.labels
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.bow", "out.bow"]  # no temporary left


def test_write_bow_round_trip_from_arrays(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.poisson(0.7, size=(30, 12))
    X[X.sum(axis=1) == 0, 0] = 1
    vocab = [f"w{i}" for i in range(12)]
    labels = [tuple(sorted({f"L{j}" for j in rng.integers(0, 3, size=rng.integers(1, 3))}))
              for _ in range(30)]
    c = Corpus.from_sparse(X, vocab, labels=labels)
    back = read_bow(write_bow(c, tmp_path / "r.bow"), vocabulary=c.vocabulary)
    assert (back.to_sparse() != c.to_sparse()).nnz == 0
    assert back.labels == c.labels


def test_write_bow_replaces_existing_file_and_rejects_unwritable(tmp_path):
    target = write(tmp_path / "t.bow", "old content that is not bow\n")
    c = Corpus.from_sparse(np.array([[1, 2]]), ["a", "b"], labels=["x"])
    write_bow(c, target)
    assert docs_as_words(read_bow(target)) == [Counter(a=1, b=2)]
    with pytest.raises(ValueError, match="label"):
        write_bow(Corpus.from_sparse(np.array([[1]]), ["a"], labels=["x y"]), tmp_path / "bad.bow")
    with pytest.raises(ValueError, match="word"):
        write_bow(Corpus.from_sparse(np.array([[1]]), ["a b"]), tmp_path / "bad.bow")
    assert not (tmp_path / "bad.bow").exists()


def test_bow_against_vocabulary_drops_and_counts_oov(tmp_path):
    path = write(tmp_path / "t.bow", "a x:2 new:3\nb new:1\nc y:1 x:1\n")
    c = read_bow(path, vocabulary=np.array(["y", "x"]))
    assert c.vocabulary.tolist() == ["y", "x"]
    assert c.n_oov_dropped == 4
    assert c.n_empty_skipped == 1  # the second document held only unknown words
    assert c.labels == [("a",), ("c",)]
    assert docs_as_words(c) == [Counter(x=2), Counter(y=1, x=1)]


def test_bow_id_file_against_vocabulary(tmp_path):
    """Against a vocabulary each word is looked up as written: ids against an id vocabulary; a
    word of digits against a word vocabulary is a word (here mostly unknown)."""
    path = write(tmp_path / "t.svm", "1 0:1 2:2 7:3\n2 9:1\n")
    c = read_bow(path, vocabulary=["0", "1", "2"])
    assert c.n_oov_dropped == 4 and c.n_empty_skipped == 1
    assert docs_as_words(c) == [Counter({"0": 1, "2": 2})]
    words = read_bow(path, vocabulary=["a", "b", "2"])
    assert docs_as_words(words) == [Counter({"2": 2})] and words.n_oov_dropped == 5


def test_bow_labels_only_line_is_skipped_as_empty(tmp_path):
    c = read_bow(write(tmp_path / "e.bow", "a x:1\nb\nc y:2\n"))
    assert c.n_docs == 2 and c.n_empty_skipped == 1 and c.labels == [("a",), ("c",)]


def test_plain_text_given_as_bow_is_an_error(tmp_path):
    path = write(tmp_path / "text.bow", "# notes\nsome plain text\nand more\n")
    with pytest.raises(InputFormatError) as info:
        read_bow(path)
    assert str(info.value) == (f"{path}: no word:count pair on any line (a bag-of-words line is 'LABELS "
                               "word:count ...'; if this is raw text, one document a line, pass --format txt; "
                               "or use a .csv/.jsonl table)")  # no 'line N' beside 'on any line'


# -- raw text, one document a line ------------------------------------------------------------------
def test_txt_reads_one_unlabeled_document_a_line_against_a_vocabulary(tmp_path):
    path = write(tmp_path / "new.txt", "The striker scored a goal\r\n\nbake the dough\nzzz qqq\nGOAL goal oven")
    corpus = read_corpus(path, format="txt", vocabulary=["dough", "goal", "oven", "striker"])
    assert corpus.labels is None and corpus.doc_names == ["line 1", "line 3", "line 5"]
    assert docs_as_words(corpus) == [Counter(striker=1, goal=1), Counter(dough=1), Counter(goal=2, oven=1)]
    assert (corpus.n_empty_skipped, corpus.n_oov_dropped, corpus.source) == (2, 4, str(path))  # scored, bake, zzz, qqq
    assert guess_format(path) == "txt"  # no line holds a word:count pair
    assert guess_format(write(tmp_path / "bow.txt", "a\nb w1:2 w2:1\n")) == "bow"
    fitted = read_corpus(path, format="txt", vectorizer=make_vectorizer(news=False, min_df=1))
    assert fitted.vocabulary.tolist() == ["bake", "dough", "goal", "oven", "qqq", "scored", "striker", "zzz"]
    with pytest.raises(ValueError, match="text_column and label_column apply only to tables"):
        read_corpus(path, format="txt", label_column="label")


def test_txt_errors_name_the_file_and_line(tmp_path):
    empty = write(tmp_path / "empty.txt", "")
    with pytest.raises(InputFormatError, match=re.escape(f"{empty}: no documents (the file is empty)")):
        read_corpus(empty, format="txt")
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"fine words\ncaf\xe9 au lait\n")
    with pytest.raises(InputFormatError, match=where(latin, 2) + " not UTF-8 text"):
        read_corpus(latin, format="txt")


def test_a_header_only_table_says_it_has_no_data_rows(tmp_path):
    path = write(tmp_path / "hdr.csv", "text,label\n")
    with pytest.raises(InputFormatError, match=re.escape(f"{path}: no data rows: the table holds only its header")):
        read_corpus(path)


def test_empty_file_is_an_error(tmp_path):
    path = write(tmp_path / "empty.bow", "# nothing\n\n")
    with pytest.raises(InputFormatError, match=re.escape(str(path))):
        read_bow(path)


def test_bow_reads_invalid_utf8_without_failing(tmp_path):
    path = tmp_path / "latin.bow"
    path.write_bytes(b"a caf\xe9:2 x:1\n")
    assert docs_as_words(read_bow(path)) == [Counter({"caf\\xe9": 2, "x": 1})]


# -- lda-c --------------------------------------------------------------------------------------------
def test_ldac_with_one_based_id_vocab(tmp_path):
    voc = write(tmp_path / "voc.dat", "1 apple\n2 bread\n3 cheese\n")
    path = write(tmp_path / "train.dat", "2 0.5 1:2 3:1\n1 -0.25 2:4\n")
    c = read_ldac(path, vocab_path=voc)
    assert c.vocabulary.tolist() == ["apple", "bread", "cheese"]
    assert docs_as_words(c) == [Counter(apple=2, cheese=1), Counter(bread=4)]
    assert c.labels == [("0.5",), ("-0.25",)]
    assert c.real_labels().tolist() == [0.5, -0.25]


@pytest.mark.parametrize("ids, expected", [
    ("0:1 2:1", Counter(a=1, c=1)),   # lda-c ids are 0-based: id i is line i + 1
    ("1:1 2:1", Counter(b=1, c=1)),
    ("1:1 3:1", None),                # no base guessed: id 3 is past the three words
])
def test_ldac_plain_vocab_ids_are_zero_based(tmp_path, ids, expected):
    voc = write(tmp_path / "vocab.txt", "a\nb\nc\n")
    path = write(tmp_path / "d.dat", f"2 1 {ids}\n")
    if expected is None:
        with pytest.raises(InputFormatError, match=where(path, 1) + " word id 3 is not in .* ids are 0-based"):
            read_ldac(path, vocab_path=voc)
    else:
        assert docs_as_words(read_ldac(path, vocab_path=voc)) == [expected]


def test_ldac_without_vocab_uses_raw_ids(tmp_path):
    c = read_ldac(write(tmp_path / "d.dat", "2 1 0:1 4:2\n"))
    assert c.vocabulary.tolist() == ["0", "1", "2", "3", "4"]
    assert sorted(c.word_ids.tolist()) == [0, 4, 4]


def test_ldac_against_vocabulary(tmp_path):
    voc = write(tmp_path / "voc.dat", "1 apple\n2 bread\n3 cheese\n")
    path = write(tmp_path / "test.dat", "2 0.1 1:1 2:2\n1 0.2 3:5\n")
    c = read_ldac(path, vocab_path=voc, vocabulary=["bread", "apple"])
    assert c.vocabulary.tolist() == ["bread", "apple"]
    assert docs_as_words(c) == [Counter(apple=1, bread=2)]
    assert c.n_oov_dropped == 5 and c.n_empty_skipped == 1 and c.labels == [("0.1",)]


@pytest.mark.parametrize("reader, suffix, text, line, message", [
    (read_bow, "bow", "a x:1\nb x:two\n", 2, "'two'"),
    (read_bow, "bow", "a x:1\n\nb x:0\n", 3, "'0'"),
    (read_bow, "bow", "a x:-1\n", 1, "positive integer"),
    (read_bow, "bow", "a x:1.5\n", 1, "positive integer"),
    (read_bow, "bow", "a x:\n", 1, "positive integer"),
    (read_bow, "bow", "a x:99999999999999999999999\n", 1, "positive integer"),
    (read_bow, "bow", "a x:3000000000\n", 1, "positive integer"),
    (read_bow, "bow", "# header\na x:1 y 2\n", 2, "missing ':' in pair 'y'"),
    (read_bow, "bow", "a x:1 :3\n", 1, "empty word"),
    (read_bow, "bow", "a x:1\ny:2\n", 2, "label every document or none"),
    (read_bow, "bow", "x:1\na y:2\n", 2, "label every document or none"),
    (read_ldac, "dat", "2 0.5 1:1 2:1\n3 0.5 1:1 2:1\n", 2, "N_TERMS is 3 but the line has 2"),
    (read_ldac, "dat", "1 good 1:1\n", 1, "score 'good'"),
    (read_ldac, "dat", "1 nan 1:1\n", 1, "score 'nan'"),
    (read_ldac, "dat", "x 0.5 1:1\n", 1, "N_TERMS 'x'"),
    (read_ldac, "dat", "0 0.5\n1 0.5 a:1\n", 2, "word id 'a'"),
    (read_ldac, "dat", "1 0.5 1:0\n", 1, "positive integer"),
    (read_ldac, "dat", "1 0.5 1:1\n1 0.5 99999999999:1\n", 2, "word id '99999999999'"),
    (read_ldac, "dat", "2 0.5 1:1 2\n", 1, "missing ':'"),
    (read_ldac, "dat", "5\n", 1, "expected 'N_TERMS SCORE"),
])
def test_malformed_lines_are_named_with_their_problem(tmp_path, reader, suffix, text, line, message):
    path = write(tmp_path / f"bad.{suffix}", text)
    with pytest.raises(InputFormatError, match=where(path, line) + ".*" + re.escape(message)):
        reader(path)


def test_ldac_id_missing_from_vocab_file(tmp_path):
    voc = write(tmp_path / "voc.dat", "1 apple\n2 bread\n")
    path = write(tmp_path / "d.dat", "1 0 1:1\n\n1 0 7:1\n")
    with pytest.raises(InputFormatError, match=where(path, 3) + ".*word id 7"):
        read_ldac(path, vocab_path=voc)


def test_vocab_file_duplicate_id(tmp_path):
    voc = write(tmp_path / "voc.dat", "1 apple\n2 bread\n1 cheese\n")
    with pytest.raises(InputFormatError, match=where(voc, 3) + ".*repeats"):
        read_vocab_file(voc)


def test_vocab_file_tolerates_crlf_and_bad_bytes(tmp_path):
    voc = tmp_path / "voc.dat"
    voc.write_bytes(b"1 apple\r\n2 cr\xc3\r\n")
    words, ids = read_vocab_file(voc)
    assert words.tolist() == ["apple", "cr\\xc3"] and ids.tolist() == [1, 2]


# -- folders and archives -------------------------------------------------------------------------------
FOLDER = {
    "sport/b.txt": "goal goal match team",
    "sport/a.txt": "From: x@y\nSubject: match report\n\ngoal team referee",
    "politics/c.txt": "vote election party",
    "politics/d.txt": "party vote vote",
    "politics/e.txt": "123 !!",  # nothing survives the preprocessing
}


def test_read_text_folder_sorted_by_label_then_name(tmp_path):
    root = make_folder(tmp_path / "corpus", {**FOLDER, "README": "not a document", "sport/.hidden": "x"})
    with pytest.warns(FilesSkippedWarning, match="1 files outside a label folder"):
        texts, labels, names = read_text_folder(root)
    assert labels == ["politics"] * 3 + ["sport"] * 2
    assert names == ["politics/c.txt", "politics/d.txt", "politics/e.txt", "sport/a.txt", "sport/b.txt"]
    assert texts[4] == "goal goal match team"


def test_read_text_folder_decodes_latin1(tmp_path):
    root = make_folder(tmp_path / "c", {"x/1": "caf\xe9 na\xefve"})
    assert read_text_folder(root)[0] == ["caf\xe9 na\xefve"]


def test_folder_and_tar_give_the_same_corpus(tmp_path):
    folder = read_corpus(make_folder(tmp_path / "corpus", FOLDER), vectorizer=make_vectorizer(min_df=1))
    archive = make_tar(tmp_path / "corpus.tar.gz", {f"corpus/{k}": v for k, v in FOLDER.items()})
    assert guess_format(archive) == "folder"
    packed = read_corpus(archive, vectorizer=make_vectorizer(min_df=1))
    for c in (folder, packed):
        assert c.n_docs == 4 and c.n_empty_skipped == 1
        assert c.labels == [("politics",)] * 2 + [("sport",)] * 2
        assert "subject" not in c.vocabulary and "report" in c.vocabulary  # header gone, subject kept
    assert docs_as_words(folder) == docs_as_words(packed)
    assert packed.doc_names[0] == "corpus/politics/c.txt"


def test_folder_default_min_df_and_fixed_vocabulary(tmp_path):
    root = make_folder(tmp_path / "c", {f"l{i % 2}/{i}": "common word" + (" rare" if i == 0 else "")
                                        for i in range(5)})
    train = read_corpus(root)
    assert sorted(train.vocabulary.tolist()) == ["common", "word"]  # "rare" is in fewer than 3 documents
    test_root = make_folder(tmp_path / "t", {"l0/x": "word unknown unknown", "l1/y": "gadget widget"})
    test = read_corpus(test_root, vocabulary=train.vocabulary)
    assert test.vocabulary.tolist() == train.vocabulary.tolist()
    assert test.n_docs == 1 and test.n_empty_skipped == 1
    assert test.n_oov_dropped == 4  # unknown, unknown, gadget, widget


BYDATE = {
    "news-train/alt.atheism/1": "god atheism",
    "news-train/alt.atheism/2": "atheism",
    "news-train/sci.space/3": "orbit",
    "news-test/alt.atheism/4": "god",
    "news-test/sci.space/5": "orbit moon",
}


@pytest.mark.parametrize("wrap", ["", "bydate/"])
def test_split_layout_needs_subset(tmp_path, wrap):
    archive = make_tar(tmp_path / "news.tgz", {wrap + k: v for k, v in BYDATE.items()})
    with pytest.raises(ValueError, match="subset='train', 'test' or 'all'"):
        read_text_folder(archive)
    assert read_text_folder(archive, subset="train")[0] == ["god atheism", "atheism", "orbit"]
    assert read_text_folder(archive, subset="test")[1] == ["alt.atheism", "sci.space"]
    assert len(read_text_folder(archive, subset="all")[0]) == 5


def test_subset_on_a_split_folder_itself(tmp_path):
    root = make_folder(tmp_path, BYDATE) / "news-train"
    assert len(read_text_folder(root, subset="train")[0]) == 3
    with pytest.raises(ValueError, match="does not apply"):
        read_text_folder(root, subset="test")


def test_unknown_category_lists_available(tmp_path):
    root = make_folder(tmp_path, BYDATE)
    with pytest.raises(ValueError, match=r"unknown categories \['rec.autos'\].*alt.atheism, sci.space"):
        read_text_folder(root, subset="train", categories=["sci.space", "rec.autos"])
    assert read_text_folder(root, subset="train", categories=["sci.space"])[1] == ["sci.space"]


def test_bad_paths_and_archives(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_corpus(tmp_path / "missing.bow")
    broken = tmp_path / "broken.tar.gz"
    broken.write_bytes(b"this is not a tar archive" * 10)
    with pytest.raises(InputFormatError, match=re.escape(str(broken)) + ": not a tar archive"):
        read_corpus(broken)
    text = write(tmp_path / "docs.bow", "a x:1\n")
    with pytest.raises(InputFormatError, match="docs.bow: not a tar archive .* expected a folder"):
        read_corpus(text, format="folder")
    truncated = tmp_path / "cut.tar.gz"
    truncated.write_bytes(make_tar(tmp_path / "whole.tar.gz", {"a/b/1.txt": "x " * 500}).read_bytes()[:60])
    with pytest.raises(InputFormatError, match="cut.tar.gz: (cannot read the archive|not a tar archive)"):
        read_corpus(truncated, format="folder")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputFormatError, match="no documents"):
        read_text_folder(tmp_path / "empty")


# -- dispatcher -----------------------------------------------------------------------------------------
def test_read_corpus_guesses_format(tmp_path):
    ldac = write(tmp_path / "d.dat", "# lda-c\n2 0.5 0:1 3:2\n")
    bow = write(tmp_path / "d.bow", "2 0.5 0:1\n")  # pair count differs from the first field: bow
    assert guess_format(ldac) == "ldac" and guess_format(bow) == "bow"
    assert read_corpus(ldac).labels == [("0.5",)]
    assert read_corpus(bow).labels == [("2", "0.5")]
    assert read_corpus(ldac, format="bow").labels == [("2", "0.5")]
    with pytest.raises(ValueError, match="format"):
        read_corpus(ldac, format="xml")
    with pytest.raises(ValueError, match="folder"):
        read_corpus(bow, subset="train")


def test_read_corpus_finds_voc_dat_beside_ldac_file(tmp_path):
    write(tmp_path / "voc.dat", "1 apple\n2 bread\n")
    c = read_corpus(write(tmp_path / "d.dat", "1 0.5 2:3\n"))
    assert c.vocabulary.tolist() == ["apple", "bread"] and docs_as_words(c) == [Counter(bread=3)]


# -- text preprocessing -----------------------------------------------------------------------------------
def test_strip_news_headers():
    msg = "From: a@b.c\nSubject: Re: orbits\n  and moons\nLines: 3\n\nBody text\n\nmore"
    assert strip_news_headers(msg) == "Re: orbits and moons\n\nBody text\n\nmore"
    plain = "Note: this is prose\nwithout headers\n\nBody"
    assert strip_news_headers(plain) == plain
    assert strip_news_headers("no header at all") == "no header at all"


def test_vectorizer_preprocessing_and_oov():
    vec = make_vectorizer(min_df=1)
    X = vec.fit_transform(["Subject: Rockets\n\nThe ROCKET's launch in 1993 at x2y, rocket", "launch again"])
    assert sorted(vec.get_feature_names_out()) == ["launch", "rocket", "rockets"]
    assert X.sum() == 5  # "the"/"again" are stop words, "x2y"/"1993"/"s"/"in"/"at" are not alphabetic 3+
    fixed = make_vectorizer(vocabulary=["launch"])
    texts = ["launch rocket rocket", "launch"]
    Y = fixed.fit_transform(texts)
    assert Y.sum() == 2 and count_oov_tokens(fixed, texts, Y) == 2
    assert pickle.loads(pickle.dumps(vec)).transform(["rocket"]).sum() == 1
    assert clone(vec).get_params()["preprocessor"] is vec.get_params()["preprocessor"]


# -- real data --------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_hotel_reviews(tmp_path, shared_data):
    archive = shared_data / "hotel-reviews.tar.gz"
    if not archive.is_file():
        pytest.skip(f"real data not available: {archive} is absent")
    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path, filter="data")
    folder = next(tmp_path.rglob("train_review.dat")).parent
    train = read_corpus(folder / "train_review.dat")
    assert train.n_docs == 2500 and train.n_words == 12000 and train.n_tokens == 552_258
    voc = (folder / "voc.dat").read_bytes().decode("utf-8", "backslashreplace").split()
    assert train.vocabulary[0] == voc[1] == "2-star"  # id 1 is the first word
    first = (folder / "train_review.dat").read_text().split()
    id0, count0 = map(int, first[2].split(":"))
    assert docs_as_words(train)[0][voc[2 * id0 - 1]] == count0
    assert set(train.real_labels().round(4)) == {-0.9575, -0.2644, 0.1411, 0.4288, 0.6519}
    test = read_corpus(folder / "test_review.dat", vocabulary=train.vocabulary)
    assert test.n_docs == 2500 and test.n_oov_dropped == 0 and test.n_tokens == 554_504


def test_ldac_documents_without_words_are_skipped_not_a_crash(tmp_path):
    corpus = read_ldac(write(tmp_path / "e.dat", "0 0.5\n0 0.2\n"))
    assert corpus.n_docs == 0 and corpus.n_empty_skipped == 2


def test_error_messages_show_at_most_a_short_piece_of_a_huge_token(tmp_path):
    path = write(tmp_path / "bin.bow", "a x:" + "7" * 5 + "q" * 5000 + "\n")
    with pytest.raises(InputFormatError, match=r"count '77777q+\.\.\.'") as err:
        read_bow(path)
    assert len(str(err.value)) < 300


# -- LDA-C and Reuters archives ------------------------------------------------------------------
def test_lda_c_collection_archive_and_errors(tmp_path):
    files = {"hotel/voc.dat": "1 good\n2 bad\n3 room\n", "hotel/train_review.dat": "2 0.5 1:2 3:1\n1 -0.9 2:4\n",
             "hotel/test_review.dat": "1 0.1 3:2\n"}
    archive = make_tar(tmp_path / "h.tar.gz", files)
    assert guess_format(archive) == "ldac"
    train = read_corpus(archive, subset="train")
    assert train.n_docs == 2 and list(train.vocabulary) == ["good", "bad", "room"]
    assert np.allclose(train.real_labels(), [0.5, -0.9])
    test = read_corpus(archive, subset="test", vocabulary=train.vocabulary)
    assert list(test.word_ids) == [2, 2]
    bad = make_tar(tmp_path / "bad.tar.gz", dict(files, **{"hotel/test_review.dat": "2 0.1 3:2\n"}))
    with pytest.raises(InputFormatError, match=r"bad.tar.gz:hotel/test_review.dat, line 1: N_TERMS"):
        read_corpus(bad, subset="test")


def test_reuters_sgml_parsing(tmp_path):
    def doc(newid, split, topics, body, flag="YES"):
        ds = "".join(f"<D>{t}</D>" for t in topics)
        return (f'<REUTERS TOPICS="{flag}" LEWISSPLIT="{split}" CGISPLIT="X" OLDID="1" NEWID="{newid}">\n'
                f"<TOPICS>{ds}</TOPICS>\n<TEXT><TITLE>T{newid} &amp; more</TITLE><BODY>{body}</BODY></TEXT>\n</REUTERS>\n")
    sgm = (doc(1, "TRAIN", ["grain", "wheat"], "wheat grain harvest harvest") + doc(2, "TRAIN", ["oil"], "crude oil")
           + doc(3, "TEST", ["grain"], "grain harvest") + doc(4, "TEST", ["oil", "gold"], "crude oil gold")
           + doc(5, "TRAIN", ["grain"], "skipped", flag="NO") + doc(6, "NOT-USED", ["grain"], "skipped"))
    archive = make_tar(tmp_path / "r.tar.gz", {"reuters21578/reut2-000.sgm": sgm})
    assert guess_format(archive) == "reuters"
    train = read_corpus(archive, subset="train", vectorizer=make_vectorizer(news=False, min_df=1))
    assert train.labels == [("grain",), ("oil",)]  # wheat and gold are not in both splits
    assert "harvest" in set(train.vocabulary) and "skipped" not in set(train.vocabulary)
    test = read_corpus(archive, subset="test", vocabulary=train.vocabulary)
    assert test.labels == [("grain",), ("oil",)]


def test_reuters_unprocessed_text_is_kept():
    """<TEXT TYPE="UNPROC"> documents have no TITLE or BODY: their text is the TEXT element's."""
    sgm = ('<REUTERS TOPICS="YES" LEWISSPLIT="TRAIN" CGISPLIT="X" OLDID="1" NEWID="7">\n'
           '<TOPICS><D>money-supply</D></TOPICS>\n<UNKNOWN>&#5;RM</UNKNOWN>\n'
           '<TEXT TYPE="UNPROC">&#2;\nFEDERAL RESERVE WEEKLY REPORT\n Bank borrowings...680 &amp; more\n</TEXT>\n'
           '</REUTERS>\n')
    (doc,) = parse_sgml(sgm)
    assert doc.topics == ("money-supply",)
    assert "FEDERAL RESERVE WEEKLY REPORT" in doc.text and "borrowings...680 & more" in doc.text
    assert "RM" not in doc.text  # the UNKNOWN routing block is not text


@pytest.mark.slow
def test_benchmark_archives_load(shared_data):
    hotel = read_corpus(shared_data / "hotel-reviews.tar.gz", subset="train")
    assert (hotel.n_docs, hotel.n_words) == (2500, 12000)
    assert set(np.round(hotel.real_labels(), 4)) == {-0.9575, -0.2644, 0.1411, 0.4288, 0.6519}
    texts, labels, categories, _ = modapte_subset(shared_data / "reuters21578.tar.gz", "test")
    assert (len(texts), len(categories)) == (3019, 90)
