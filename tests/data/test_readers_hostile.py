"""Hostile and broken inputs to the readers: each ends in a correct corpus or one clear error line
(file, line where there is one, problem) at once; size claims are checked before allocation,
folders are never left through a link, nothing is dropped without a warning counting it, and
reading a bag-of-words file holds a small multiple of the final arrays."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import tarfile
import tracemalloc
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from files import make_folder, make_tar
from medlda.cli import main
from medlda.data.corpus import Corpus
from medlda.data.readers import FilesSkippedWarning, read_bow, read_corpus, read_ldac, read_text_folder
from medlda.data.readers.reuters import parse_sgml
from medlda.exceptions import InputFormatError, LimitError


def docs_as_words(corpus: Corpus) -> list[Counter]:
    vocab = corpus.vocabulary
    return [Counter(vocab[corpus.word_ids[a:b]].tolist()) for a, b in zip(corpus.doc_ptr[:-1], corpus.doc_ptr[1:])]


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def fast(fn, *args, megabytes: float = 64.0, **kwargs):
    """``fn(*args, **kwargs)``, asserting that it allocates at most ``megabytes`` on the way
    (tracemalloc's peak): a bounded input is refused before the reader allocates what it asks for."""
    tracemalloc.start()
    try:
        return fn(*args, **kwargs)
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < megabytes * 2 ** 20, f"{peak / 2 ** 20:.0f} MB allocated"


# -- counts: per document and per corpus ---------------------------------------------------------------
def test_the_33_byte_file_asking_for_16_gib_fails_at_once_naming_file_and_line(tmp_path):
    path = tmp_path / "tiny.bow"
    path.write_bytes(b"a w1:2147483647 w2:1\n")
    with pytest.raises(LimitError) as err:
        fast(read_bow, path)
    message = str(err.value)
    assert message.startswith(f"{path}, line 1: number of tokens in one document 2,147,483,648 exceeds")
    assert "MEDLDA_MAX_DOC_TOKENS" in message and "\n" not in message
    big = write(tmp_path / "w.bow", "a w1:400000000\n")
    with pytest.raises(LimitError, match=re.escape(f"{big}, line 1:")):
        fast(read_bow, big)
    with pytest.raises(LimitError, match="line 1: number of tokens in one document"):
        fast(read_ldac, write(tmp_path / "l.dat", "1 0.5 3:400000000\n"))


def test_the_document_and_corpus_token_limits_name_the_line_that_passes_them(tmp_path, monkeypatch):
    path = write(tmp_path / "c.bow", "a x:4 y:3\nb x:2\nc y:5\n")
    monkeypatch.setenv("MEDLDA_MAX_DOC_TOKENS", "6")
    with pytest.raises(LimitError, match=re.escape(f"{path}, line 1: number of tokens in one document 7")):
        read_bow(path)
    monkeypatch.setenv("MEDLDA_MAX_DOC_TOKENS", "7")
    monkeypatch.setenv("MEDLDA_MAX_TOKENS", "10")
    with pytest.raises(LimitError, match=re.escape(f"{path}, line 3: number of tokens 14 exceeds the limit of 10")):
        read_bow(path)
    monkeypatch.setenv("MEDLDA_MAX_TOKENS", "14")
    assert read_bow(path).n_tokens == 14


def test_an_id_file_asking_for_a_huge_vocabulary_is_refused(tmp_path):
    path = write(tmp_path / "ids.svm", "1 0:1\n2 2147483646:1\n")
    with pytest.raises(LimitError, match=re.escape(f"{path}, line 2: number of words 2,147,483,647") + ".*MEDLDA_MAX_WORDS"):
        fast(read_bow, path)
    with pytest.raises(LimitError, match="line 1: number of words"):
        fast(read_ldac, write(tmp_path / "ids.dat", "1 0.5 99999999:1\n"))
    # against a vocabulary the same ids are only unknown words
    corpus = read_ldac(tmp_path / "ids.dat", vocabulary=["a", "b"])
    assert corpus.n_docs == 0 and corpus.n_oov_dropped == 1


# -- words and ids ----------------------------------------------------------------------------------
def test_numeric_words_in_a_test_file_stay_words_against_a_word_vocabulary(tmp_path):
    train = read_bow(write(tmp_path / "train.bow", "x apple:2 1999:1\ny 2001:3 pear:1\n"))
    test = read_bow(write(tmp_path / "test.bow", "x 1999:2 2001:1 0:4 1:1\n"), vocabulary=train.vocabulary)
    assert docs_as_words(test) == [Counter({"1999": 2, "2001": 1})]  # '0' and '1' are no word ids
    assert test.n_oov_dropped == 5
    ids = read_bow(write(tmp_path / "ids.svm", "x 3:2 0:1\n"))  # alone, integer words are ids
    assert ids.vocabulary.tolist() == ["0", "1", "2", "3"]


def test_lda_c_ids_are_zero_based_in_every_file_read_against_a_plain_vocabulary(tmp_path):
    voc = write(tmp_path / "vocab.txt", "a\nb\nc\n")
    train = read_ldac(write(tmp_path / "train.dat", "2 1 1:1 2:1\n"), vocab_path=voc)
    test = read_ldac(write(tmp_path / "test.dat", "2 1 0:1 1:2\n"), vocab_path=voc, vocabulary=train.vocabulary)
    assert docs_as_words(train) == [Counter(b=1, c=1)] and docs_as_words(test) == [Counter(a=1, b=2)]
    with pytest.raises(InputFormatError, match=r"test.dat, line 1: word id 3 is not in the vocabulary file"):
        read_ldac(write(tmp_path / "test.dat", "1 1 3:1\n"), vocab_path=voc)


@pytest.mark.parametrize("reader, data, line, problem", [
    (read_bow, b"a x:1\nb y:\x002\n", 2, "NUL character"),
    (read_bow, b"a x:1 y:" + b"9" * 5000 + b"\n", 1, "is not a positive integer"),
    (read_ldac, b"1 0.5 " + b"7" * 5000 + b":1\n", 1, "word id '77777"),
    (read_ldac, b"7" * 5000 + b" 0.5 1:1\n", 1, "N_TERMS"),
    (read_bow, b"a " * 100_001 + b"x:1\n", 1, "more than 100,000 labels"),
], ids=["nul", "huge-count", "huge-id", "huge-n-terms", "labels-only"])
def test_binary_and_huge_tokens_are_one_line_errors(tmp_path, reader, data, line, problem):
    path = tmp_path / "bad.dat"
    path.write_bytes(data)
    with pytest.raises(InputFormatError) as err:
        fast(reader, path)
    assert str(err.value).startswith(f"{path}, line {line}: ") and problem in str(err.value)
    assert "\n" not in str(err.value) and len(str(err.value)) < 400


def test_a_line_longer_than_a_chunk_reads_as_a_short_one(tmp_path, monkeypatch):
    import medlda.data.readers.pairs as pairs

    text = "lab " + " ".join(f"w{i % 97}:{1 + i % 5}" for i in range(3000)) + "\nz w1:1\n"
    whole = read_bow(write(tmp_path / "long.bow", text))
    monkeypatch.setattr(pairs, "CHUNK", 7)
    cut = read_bow(tmp_path / "long.bow")
    assert docs_as_words(cut) == docs_as_words(whole) and cut.labels == whole.labels == [("lab",), ("z",)]


# -- archives ---------------------------------------------------------------------------------------
def tar_with_header_only(path: Path, name: str, size: int) -> Path:
    """A .tar.gz whose member ``name`` declares ``size`` bytes and holds none (a header alone)."""
    info = tarfile.TarInfo(name)
    info.size = size
    header = info.tobuf(format=tarfile.GNU_FORMAT)
    with tarfile.open(path, "w:gz") as tar:
        tar.fileobj.write(header)
        tar.offset += len(header)
    return path


@pytest.mark.parametrize("kind, name", [("folder", "c/sport/a.txt"), ("reuters", "r/reut2-000.sgm"),
                                        ("ldac", "h/train.dat")])
def test_archive_members_declaring_huge_sizes_are_refused_before_reading(tmp_path, kind, name):
    archive = tar_with_header_only(tmp_path / "huge.tar.gz", name, 10 ** 12)
    with pytest.raises(LimitError, match=re.escape(f"{archive}:{name}: uncompressed size in bytes 1,000,000,000,000")):
        fast(read_corpus, archive, format=kind, **({"subset": "train"} if kind != "folder" else {}))


def test_archive_members_are_bounded_by_their_actual_bytes_and_their_number(tmp_path, monkeypatch):
    archive = tmp_path / "z.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        data = b"word " * 400_000  # 2 MB that compresses to a few KB
        info = tarfile.TarInfo("c/sport/a.txt")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    monkeypatch.setenv("MEDLDA_MAX_MEMBER_BYTES", str(10 ** 6))
    with pytest.raises(LimitError, match="c/sport/a.txt: uncompressed size in bytes 2,000,000 .*MEDLDA_MAX_MEMBER_BYTES"):
        fast(read_text_folder, archive)
    monkeypatch.delenv("MEDLDA_MAX_MEMBER_BYTES")
    many = make_tar(tmp_path / "many.tar.gz", {f"c/l{i % 2}/{i}.txt": "x" for i in range(12)})
    monkeypatch.setenv("MEDLDA_MAX_FILES", "10")
    with pytest.raises(LimitError, match=re.escape(f"{many}: number of files 11 exceeds the limit of 10")):
        read_text_folder(many)


def test_links_and_special_members_of_an_archive_are_counted_not_followed(tmp_path):
    archive = tmp_path / "l.tar"
    with tarfile.open(archive, "w") as tar:
        for name, text in {"c/a/1.txt": "one", "c/b/2.txt": "two", "c/b/sub/3.txt": "three"}.items():
            info = tarfile.TarInfo(name)
            info.size = len(text)
            tar.addfile(info, io.BytesIO(text.encode()))
        link = tarfile.TarInfo("c/a/evil.txt")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)
    with pytest.warns(FilesSkippedWarning, match=r"left out 1 file: 1 links in the archive \(never followed\) "
                                                 r"\(first: c/a/evil.txt\)"):
        texts, labels, names = read_text_folder(archive)
    assert (texts, labels) == (["one", "two", "three"], ["a", "b", "b"])
    assert names == ["c/a/1.txt", "c/b/2.txt", "c/b/sub/3.txt"]


# -- folders ----------------------------------------------------------------------------------------
def test_a_folder_is_never_left_through_a_link_and_nothing_is_dropped_silently(tmp_path):
    outside = make_folder(tmp_path / "outside", {"secret.txt": "secret words", "labels/x.txt": "far away"})
    root = make_folder(tmp_path / "corpus", {"sport/a.txt": "goal", "sport/deep/er/b.txt": "match",
                                             "politics/c.txt": "vote", "README": "about"})
    (root / "sport" / "leak.txt").symlink_to(outside / "secret.txt")
    (root / "stolen").symlink_to(outside / "labels")
    (root / "politics" / "again.txt").symlink_to(root / "sport" / "a.txt")  # inside: read like a copy
    (root / "alias").symlink_to(root / "politics")  # inside: a label folder like a copy
    (root / "sport" / "loop").symlink_to(root)  # back to a folder holding it
    os.mkfifo(root / "sport" / "pipe")  # never opened (reading it would wait forever)
    with pytest.warns(FilesSkippedWarning) as caught:
        texts, labels, names = fast(read_text_folder, root)
    assert "secret words" not in texts and "far away" not in texts
    assert names == ["alias/again.txt", "alias/c.txt", "politics/again.txt", "politics/c.txt",
                     "sport/a.txt", "sport/deep/er/b.txt"]
    assert labels == ["alias", "alias", "politics", "politics", "sport", "sport"]
    (message,) = [str(w.message) for w in caught]
    assert message.startswith(f"{root}: left out 5 files: ") and "\n" not in message
    for part in ("2 symbolic links leading outside the folder (never followed) (first: stolen)",
                 "1 symbolic links to a folder holding them (first: sport/loop)",
                 "1 special files (not regular files: never opened) (first: sport/pipe)",
                 "1 files outside a label folder (first: README)"):
        assert part in message


def test_latin1_folder_names_become_text(tmp_path):
    root = tmp_path / "c"
    os.makedirs(os.fsencode(root) + b"/caf\xe9")
    os.makedirs(root / "plain")
    (Path(os.fsdecode(os.fsencode(root) + b"/caf\xe9")) / "d\xe9j\xe0.txt").write_bytes(b"espresso")
    (root / "plain" / "1.txt").write_bytes(b"water")
    texts, labels, names = read_text_folder(root)
    assert labels == ["caf\xe9", "plain"] and names[0].startswith("caf\xe9/")
    for text in (*labels, *names):
        text.encode("utf-8")  # printable and writable


# -- tables, SGML and corpus folders -------------------------------------------------------------------
def test_jsonl_nested_100000_deep_is_one_line_naming_the_line(tmp_path):
    path = write(tmp_path / "deep.jsonl", '{"text": "fine"}\n{"text": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    with pytest.raises(InputFormatError, match=re.escape(f"{path}, line 2: ") + "not JSON .* nested too deeply"):
        fast(read_corpus, path)


def test_a_table_that_is_not_utf8_names_the_line_of_the_first_bad_byte(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(b"text,label\nfine,a\n" + b"ok,b\n" * 100_000 + b"caf\xe9,c\n")
    with pytest.raises(InputFormatError, match=re.escape(f"{path}, line 100003: not UTF-8 text (byte 500021")):
        read_corpus(path)


@pytest.mark.parametrize("sgml", [
    "<REUTERS >" * 200_000,
    '<REUTERS ' + "a" * 1_000_000 + ">",
    '<REUTERS TOPICS="YES" LEWISSPLIT="TRAIN" NEWID="1"><TOPICS>' + "<D>" * 100_000 + "</TOPICS><TEXT>"
    + "<" * 1_000_000 + "</TEXT></REUTERS>",
], ids=["unclosed-documents", "long-attribute-word", "unclosed-tags"])
def test_sgml_is_parsed_in_linear_time(sgml):
    """Inputs on which a quadratic parse takes hours: a guard of a minute only catches that."""
    signal.signal(signal.SIGALRM, lambda *_: pytest.fail("the SGML parse did not end within 60 s"))
    signal.alarm(60)
    try:
        parse_sgml(sgml)
    finally:
        signal.alarm(0)


def test_an_npy_header_claiming_10_12_elements_is_refused_at_once(tmp_path):
    corpus = Corpus(np.array([0, 1, 1], np.int32), np.array([0, 3]), ["a", "b"], [("x",)])
    folder = corpus.save_npy(tmp_path / "c")
    raw = (folder / "word_ids.npy").read_bytes()
    (folder / "word_ids.npy").write_bytes(raw.replace(b"(3,)", b"(1000000000000,)"))
    for mmap in (False, True):
        with pytest.raises(LimitError, match=r"word_ids.npy: number of tokens 1,000,000,000,000"):
            fast(Corpus.load, folder, mmap=mmap)
    (folder / "word_ids.npy").write_bytes(raw[:-4])
    with pytest.raises(InputFormatError, match=r"declares 12 bytes of data .* the file holds 8"):
        Corpus.load(folder, mmap=True)
    (folder / "word_ids.npy").write_bytes(raw)
    meta = json.loads((folder / "corpus.json").read_text())
    (folder / "corpus.json").write_text(json.dumps(dict(meta, labels=[[{"no": 1}]])))
    with pytest.raises(InputFormatError, match="'labels' must be"):
        Corpus.load(folder)


def test_the_command_line_says_a_limit_in_one_line(tmp_path, capsys):
    path = tmp_path / "tiny.bow"
    path.write_bytes(b"a w1:2147483647 w2:1\n")
    assert main(["train", "--train", str(path), "--out", str(tmp_path / "m.npz")]) == 2
    err = "".join(line for line in capsys.readouterr().err.splitlines(True) if not line.endswith(" ...\n"))  # stages
    assert err.count("\n") == 1 and err.startswith(f"medlda: error: {path}, line 1: number of tokens")


# -- memory -----------------------------------------------------------------------------------------
@pytest.mark.slow
def test_reading_a_bow_file_holds_a_small_multiple_of_the_final_arrays(tmp_path):
    """100,000 documents of 20 pairs (counts 1-2: about as many pairs as tokens, the hardest case
    for a reader keeping pairs), read in a fresh process: its maximum resident size grows by at
    most 3x the final token arrays plus 16 MB (the documents' names 'line N', their labels, the
    vocabulary, a batch of pairs). A reader keeping a Python string per pair fails it."""
    rng = np.random.default_rng(0)
    n_docs, n_pairs = 100_000, 20
    words = rng.integers(0, 5000, size=(n_docs, n_pairs)).tolist()
    counts = rng.integers(1, 3, size=(n_docs, n_pairs)).tolist()
    with open(tmp_path / "big.bow", "w") as fh:
        for d in range(n_docs):
            fh.write(f"c{d % 7} " + " ".join(f"w{w}:{c}" for w, c in zip(words[d], counts[d])) + "\n")
    script = ("import resource, sys\n"
              "from medlda.data.readers import read_bow\n"
              "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
              "c = read_bow(sys.argv[1])\n"
              "grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) * 1024\n"
              "print(grown, c.word_ids.nbytes + c.doc_ptr.nbytes, c.n_docs, c.n_tokens)\n")
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path / "big.bow")], capture_output=True,
                         text=True, check=True).stdout.split()
    grown, final, docs, tokens = map(int, out)
    assert (docs, tokens) == (n_docs, sum(map(sum, counts)))
    assert grown < 3 * final + 16 * 2**20, (grown, final)
