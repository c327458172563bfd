"""Property-based fuzzing of every reader with generated hostile input (Hypothesis, seeded): random
tokens, huge and negative numbers, ':' edge cases, NUL bytes, invalid UTF-8, odd whitespace,
long lines cut into small chunks, empty files, nested JSON, damaged archives, SGML fragments,
damaged corpus folders. Each reader returns a correct result or raises a MedLDAError whose
message is one line; never another exception. The bag-of-words and lda-c readers are compared
with a plain re-statement of their format (``oracle_bow``, ``oracle_ldac``): the same corpus, or
an error in both; the SGML parser with the regular expressions it replaces."""

from __future__ import annotations

import io
import json
import os
import re
import tarfile
import tempfile
import warnings
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import medlda.data.readers.pairs as pairs
from medlda.data.corpus import Corpus
from medlda.data.readers import read_bow, read_corpus, read_ldac, read_text_folder, read_vocab_file
from medlda.data.readers.reuters import parse_sgml
from medlda.data.text import make_vectorizer
from medlda.exceptions import MedLDAError

FUZZ = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))
SMALL = {"MEDLDA_MAX_DOC_TOKENS": "60", "MEDLDA_MAX_TOKENS": "400", "MEDLDA_MAX_WORDS": "5000",
         "MEDLDA_MAX_MEMBER_BYTES": "20000", "MEDLDA_MAX_FILES": "200"}
MAX_COUNT = 2**31 - 1


@contextmanager
def small_limits():
    """Low limits, so that a generated count or size passes them without a large allocation."""
    with mock.patch.dict(os.environ, SMALL):
        yield


def outcome(fn, *args, **kwargs):
    """``fn``'s result, or None when it raised a MedLDAError of one line; anything else fails."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs)
    except MedLDAError as err:
        assert "\n" not in str(err) and str(err), repr(str(err))
        return None


# -- generated text -------------------------------------------------------------------------------
WORDS = st.sampled_from(["a", "b", "w1", "0", "1", "7", "007", "2147483647", "2147483648", "caf\u00e9", "x:y",
                         "http://u", "#c", "é", "-1", "+3", "1_0", "\u0663", "", "\x00", "\\xff"])
COUNTS = st.sampled_from(["1", "2", "3", "0", "-1", "01", "1.5", "", "2147483647", "2147483648", "61", "+2",
                          "\u0663", "9" * 30, "x", "1e3"])
SPACES = st.sampled_from([" ", " ", " ", "\t", "  ", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u3000"])
BREAKS = st.sampled_from(["\n", "\n", "\r\n", "\n\n", "\n# comment\n", "\n   \n"])


@st.composite
def hostile_tokens(draw) -> str:
    kind = draw(st.integers(0, 9))
    if kind < 6:
        return draw(WORDS) + ":" + draw(COUNTS)
    if kind < 8:
        return draw(st.sampled_from(["pos", "neg", "a,b", "2", "0.5", "-1", "nan", "inf", "lab", "#x", ":", "::",
                                     "a:", ":1", "a::1", "a:1:2"]))
    return draw(st.text(st.characters(codec="utf-8"), min_size=1, max_size=6)).replace("\n", "")


@st.composite
def bow_lines(draw, labeled: bool, hostility: int) -> list[str]:
    """A bow line's tokens: labels (when ``labeled``) then word:count pairs of plain words, digit
    words or words holding ':'; with ``hostility`` 1 about one token in ten is hostile, with 2 all."""
    if hostility == 2:
        return draw(st.lists(hostile_tokens(), max_size=8))
    line = draw(st.lists(st.sampled_from(["pos", "neg", "a,b", "3", "x,,y"]), min_size=1, max_size=2)) if labeled else []
    words = st.sampled_from(["a", "b", "w1", "caf\u00e9", "0", "7", "12", "http://x:8", "é"])
    line += draw(st.lists(st.builds(lambda w, c: f"{w}:{c}", words, st.sampled_from(["1", "2", "3", "10"])),
                          max_size=6))
    if hostility and draw(st.integers(0, 4)) == 0:
        line.insert(draw(st.integers(0, len(line))), draw(hostile_tokens()))
    return line


@st.composite
def ldac_lines(draw, hostility: int) -> list[str]:
    """An lda-c line's tokens, N_TERMS SCORE id:count ..., ids 0-3 (others when hostile)."""
    n = draw(st.integers(0, 4))
    ids = st.sampled_from(["0", "1", "2", "3"] + (["5", "99", "007", "x", "", "2147483648", "4294967296"]
                                                  if hostility else []))
    counts = COUNTS if hostility == 2 else st.sampled_from(["1", "2", "3"])
    items = [str(n), draw(st.sampled_from(["0.5", "-1", "2", "1e-3", "1_0"]))]
    items += draw(st.lists(st.builds(lambda i, c: f"{i}:{c}", ids, counts), min_size=n, max_size=n))
    if hostility and draw(st.integers(0, 4)) == 0:
        choice = draw(st.integers(0, 2))
        if choice == 0:
            items[0] = draw(st.sampled_from([str(n + 1), "x", "-1", "9" * 40]))
        elif choice == 1:
            items[1] = draw(st.sampled_from(["nan", "inf", "1e400", "x", ""]))
        else:
            items = items[:draw(st.integers(0, len(items)))]
    return items


@st.composite
def text_files(draw, kind: str = "bow") -> bytes:
    """A file of lines; hostile ones (about two in three) may hold invalid UTF-8, NUL bytes, stray
    BOMs and odd whitespace."""
    hostility = draw(st.integers(0, 2))
    labeled = draw(st.booleans())
    text = ""
    for _ in range(draw(st.integers(0, 6))):
        line = draw(ldac_lines(hostility) if kind == "ldac" else bow_lines(labeled, hostility))
        for token in line:
            text += token + (draw(SPACES) if hostility else " ")
        text += draw(BREAKS)
    data = text.encode("utf-8", "surrogatepass")
    if hostility and draw(st.booleans()):
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xe9", b"\x00", b"\xef\xbb\xbf"])) + data[at:]
    if draw(st.integers(0, 9)) == 0:
        data = b"\xef\xbb\xbf" + data
    return data


# -- the formats, restated plainly --------------------------------------------------------------------
def decoded_lines(data: bytes):
    text = data.decode("utf-8", "backslashreplace")
    text = text[1:] if text.startswith("\ufeff") else text
    for lineno, line in enumerate(text.split("\n"), 1):
        toks = line.split()
        if toks and not toks[0].startswith("#"):
            if "\x00" in line:
                raise ValueError
            yield lineno, toks


def is_count(text: str) -> bool:
    return text.isascii() and text.isdigit() and len(text) <= 10 and 0 < int(text) <= MAX_COUNT


def finish(docs, n_words, vocabulary_out, path):
    """(labels, tokens, line) of the kept documents, the empty and OOV counts, after the limits."""
    kept, n_empty, n_oov, total = [], 0, 0, 0
    for lineno, labels, pairs_ in docs:
        if sum(c for _, c in pairs_) > int(SMALL["MEDLDA_MAX_DOC_TOKENS"]):
            raise ValueError
        toks = [i for i, c in pairs_ if i >= 0 for _ in range(c)]
        n_oov += sum(c for i, c in pairs_ if i < 0)
        total += len(toks)
        if total > int(SMALL["MEDLDA_MAX_TOKENS"]):
            raise ValueError
        if toks:
            kept.append((labels, toks, f"line {lineno}"))
        else:
            n_empty += 1
    return kept, n_empty, n_oov, list(vocabulary_out)


def check_labels(docs):
    if not docs:
        raise ValueError
    labeled = {bool(labels) for _, labels, _ in docs}
    if len(labeled) > 1:
        raise ValueError


def oracle_bow(data: bytes, vocabulary=None):
    """The bow format: the corpus as (kept documents, empty, OOV, vocabulary), or None for an error."""
    try:
        docs, keys = [], {}
        for lineno, toks in decoded_lines(data):
            k = next((i for i, t in enumerate(toks) if ":" in t), len(toks))
            labels = tuple(lab for t in toks[:k] for lab in t.split(",") if lab)
            pairs_ = []
            for p in toks[k:]:
                word, sep, count = p.rpartition(":")
                if not sep or not word or not is_count(count):
                    raise ValueError
                pairs_.append((keys.setdefault(word, len(keys)), int(count)))
            docs.append((lineno, labels, pairs_))
        check_labels(docs)
        if not any(p for _, _, p in docs):
            raise ValueError
        if vocabulary is not None:
            index = {w: i for i, w in enumerate(vocabulary)}
            code_to_id = {c: index.get(w, -1) for w, c in keys.items()}
            out = vocabulary
        elif all(w.isascii() and w.isdigit() for w in keys):
            if not all(len(w) <= 10 and int(w) <= MAX_COUNT for w in keys):
                raise ValueError
            code_to_id = {c: int(w) for w, c in keys.items()}
            n = max(code_to_id.values()) + 1
            if n > int(SMALL["MEDLDA_MAX_WORDS"]):
                raise ValueError
            out = [str(i) for i in range(n)]
        else:
            code_to_id, out = {c: c for c in keys.values()}, list(keys)
        docs = [(line, labels, [(code_to_id[c], n) for c, n in p]) for line, labels, p in docs]
        return finish(docs, len(out), out, None)
    except ValueError:
        return None


def oracle_ldac(data: bytes, vocab_words=None, vocabulary=None):
    """The lda-c format (ids 0-based; ``vocab_words``: a one-word-per-line vocabulary file's words)."""
    try:
        docs, top = [], -1
        for lineno, toks in decoded_lines(data):
            if len(toks) < 2 or not (toks[0].isascii() and toks[0].isdigit() and len(toks[0]) <= 10):
                raise ValueError
            try:
                score = float(toks[1])
            except ValueError:
                score = float("nan")
            if not np.isfinite(score):
                raise ValueError
            pairs_ = []
            for p in toks[2:]:
                key, sep, count = p.partition(":")
                if not sep or not key or not is_count(count):
                    raise ValueError
                if not (key.isascii() and key.isdigit() and len(key) <= 10 and int(key) <= MAX_COUNT):
                    raise ValueError
                i = int(key)
                if vocab_words is not None:
                    if i >= len(vocab_words):
                        raise ValueError
                    if vocabulary is not None:
                        i = {w: j for j, w in enumerate(vocabulary)}.get(vocab_words[i], -1)
                elif vocabulary is not None:
                    i = i if i < len(vocabulary) else -1
                else:
                    top = max(top, i)
                pairs_.append((i, int(count)))
            if int(toks[0]) != len(toks) - 2:
                raise ValueError
            docs.append((lineno, (toks[1],), pairs_))
        if not docs:
            raise ValueError
        if vocabulary is not None:
            out = vocabulary
        elif vocab_words is not None:
            out = vocab_words
        else:
            if top + 1 > int(SMALL["MEDLDA_MAX_WORDS"]):
                raise ValueError
            out = [str(i) for i in range(top + 1)]
        return finish(docs, len(out), out, None)
    except ValueError:
        return None


def as_expected(corpus: Corpus):
    """A corpus in the oracles' terms."""
    docs = [(corpus.labels[d] if corpus.labels is not None else (),
             corpus.word_ids[corpus.doc_ptr[d]:corpus.doc_ptr[d + 1]].tolist(), corpus.doc_names[d])
            for d in range(corpus.n_docs)]
    return docs, corpus.n_empty_skipped, corpus.n_oov_dropped, corpus.vocabulary.tolist()


def same(corpus, expected) -> bool:
    if corpus is None or expected is None:
        return corpus is None and expected is None
    return as_expected(corpus) == expected


def write(folder: str, name: str, data: bytes) -> Path:
    path = Path(folder) / name
    path.write_bytes(data)
    return path


# -- bag-of-words and lda-c ---------------------------------------------------------------------------
@FUZZ
@given(text_files(), st.sampled_from([None, ["a", "w1", "0", "7", "caf\u00e9"]]), st.sampled_from([3, 17, 1 << 20]))
def test_bow_reads_what_the_format_says_or_fails_in_one_line(data, vocabulary, chunk):
    with tempfile.TemporaryDirectory() as tmp, small_limits(), mock.patch.object(pairs, "CHUNK", chunk):
        path = write(tmp, "f.bow", data)
        corpus = outcome(read_bow, path, vocabulary)
        expected = oracle_bow(data, vocabulary)
        assert same(corpus, expected), (data, as_expected(corpus) if corpus else None, expected)


@FUZZ
@given(text_files("ldac"), st.sampled_from(["none", "file", "file+vocabulary", "vocabulary"]),
       st.sampled_from([5, 1 << 20]))
def test_ldac_reads_what_the_format_says_or_fails_in_one_line(data, vocab, chunk):
    words = ["w0", "w1", "w2", "w3"]
    vocabulary = ["w2", "w0", "zz"] if "vocabulary" in vocab else None
    with tempfile.TemporaryDirectory() as tmp, small_limits(), mock.patch.object(pairs, "CHUNK", chunk):
        path = write(tmp, "f.dat", data)
        voc = write(tmp, "voc.txt", "\n".join(words).encode()) if "file" in vocab else None
        corpus = outcome(read_ldac, path, voc, vocabulary)
        expected = oracle_ldac(data, words if voc else None, vocabulary)
        assert same(corpus, expected), (data, as_expected(corpus) if corpus else None, expected)


@settings(FUZZ, max_examples=80)
@given(st.binary(max_size=300) | text_files() | text_files("ldac"))
def test_vocabulary_files_and_guessed_formats_never_fail_otherwise(data):
    with tempfile.TemporaryDirectory() as tmp, small_limits():
        outcome(read_vocab_file, write(tmp, "voc.dat", data))
        for name in ("f.txt", "f.dat"):
            outcome(read_corpus, write(tmp, name, data))


# -- raw text and tables ----------------------------------------------------------------------------
JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                                       max_size=3), max_leaves=8)


@st.composite
def jsonl_files(draw) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.integers(0, 11))
        if kind == 0:
            depth = draw(st.sampled_from([10, 5000, 100_000]))
            lines.append('{"text": ' + "[" * depth + "]" * depth + "}")
        elif kind == 1:
            lines.append(json.dumps(draw(JSON_VALUES)))
        elif kind == 2:
            lines.append('{"text": ' + "9" * draw(st.sampled_from([5, 5000])) + ', "label": "a"}')
        else:
            row = {"text": draw(st.sampled_from(["good words here", "other words there", "", 3, None])),
                   "label": draw(st.sampled_from(["a", "b", "a,b", ["a", "b"], True, None, 3, 1.5]))}
            if kind == 3:
                row[draw(st.sampled_from(["text", "label"]))] = draw(JSON_VALUES)
            lines.append(json.dumps(row))
    data = "\n".join(lines).encode()
    if draw(st.booleans()):
        data += draw(st.sampled_from([b"\xff", b"{\x00}", b"{", b"\n\n"]))
    return data


@FUZZ
@given(jsonl_files())
def test_jsonl_tables_never_fail_otherwise(data):
    with tempfile.TemporaryDirectory() as tmp, small_limits():
        outcome(read_corpus, write(tmp, "t.jsonl", data), vectorizer=make_vectorizer(min_df=1))


@FUZZ
@given(st.sampled_from(["text,label", "text", "label,text", "body,label", "text,text", '"te\nxt",label', '"a\rb"']),
       st.lists(st.lists(st.sampled_from(["", "a,b", '"good, words"', '"open', '""', "x", "caf\u00e9", "\x00", "\r",
                                          "good words", "more good words", "\t"]), min_size=1, max_size=3),
                max_size=6),
       st.sampled_from([b"", b"", b"\xff", b"\x00"]), st.sampled_from(["t.csv", "t.tsv", "t.txt"]))
def test_csv_tsv_and_txt_never_fail_otherwise(header, rows, junk, name):
    sep = "\t" if name.endswith(".tsv") else ","
    text = header.replace(",", sep) + "\n" + "".join(sep.join(row) + "\n" for row in rows)
    fmt = {"format": "txt"} if name.endswith(".txt") else {}
    with tempfile.TemporaryDirectory() as tmp, small_limits():
        outcome(read_corpus, write(tmp, name, text.encode() + junk), vectorizer=make_vectorizer(min_df=1), **fmt)


# -- folders, archives, SGML ----------------------------------------------------------------------------
NAMES = st.sampled_from(["a", "b", "x-train", "x-test", ".hidden", "__MACOSX", "caf\u00e9", "d.txt", "1", "e f",
                         "reut2-000.sgm", "voc.dat", "train.dat"])


@st.composite
def file_trees(draw) -> dict[str, bytes]:
    tree = {}
    for _ in range(draw(st.integers(0, 6))):
        parts = draw(st.lists(NAMES, min_size=1, max_size=4))
        tree["/".join(parts)] = draw(st.sampled_from([b"goal match", b"", b"caf\xe9 \x00 words", b"vote vote"]))
    return tree


def make_tree(root: Path, tree: dict[str, bytes]) -> None:
    for name, data in tree.items():
        path = root / name
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        except (FileExistsError, NotADirectoryError, IsADirectoryError):
            pass  # a name used both as a file and a folder: the first one stays


@settings(FUZZ, max_examples=60)
@given(file_trees(), st.sampled_from([None, "train", "all"]), st.integers(0, 3))
def test_folders_and_damaged_archives_never_fail_otherwise(tree, subset, damage):
    with tempfile.TemporaryDirectory() as tmp, small_limits():
        root = Path(tmp) / "corpus"
        root.mkdir()
        make_tree(root, tree)
        outcome(read_text_folder, root, subset)
        archive = Path(tmp) / "c.tar.gz"
        with tarfile.open(archive, "w:gz") as tar:
            tar.add(root, arcname="corpus")
        data = bytearray(archive.read_bytes())
        if damage == 1:  # a byte changed
            data[len(data) // 2] ^= 0x5A
        elif damage == 2:  # cut short
            data = data[: len(data) // 2]
        archive.write_bytes(bytes(data))
        outcome(read_text_folder, archive, subset)
        for fmt in ("reuters", "ldac"):
            outcome(read_corpus, archive, format=fmt, subset="train")


@FUZZ
@given(st.binary(min_size=1, max_size=64), st.integers(0, 511))
def test_tar_headers_with_random_bytes_never_fail_otherwise(noise, at):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        info = tarfile.TarInfo("c/a/1.txt")
        info.size = 5
        tar.addfile(info, io.BytesIO(b"words"))
    data = bytearray(buffer.getvalue())
    data[at:at + len(noise)] = noise
    with tempfile.TemporaryDirectory() as tmp, small_limits():
        outcome(read_text_folder, write(tmp, "c.tar", bytes(data)))


_DOC = re.compile(r"<REUTERS\b([^>]*)>(.*?)</REUTERS>", re.S)
_ATTR = re.compile(r'(\w+)="([^"]*)"')
_TOPICS, _D = re.compile(r"<TOPICS>(.*?)</TOPICS>", re.S), re.compile(r"<D>(.*?)</D>", re.S)
_TITLE, _BODY = re.compile(r"<TITLE>(.*?)</TITLE>", re.S), re.compile(r"<BODY>(.*?)</BODY>", re.S)
_TEXT, _TAG = re.compile(r"<TEXT\b[^>]*>(.*?)</TEXT>", re.S), re.compile(r"<[^>]*>")


def regex_sgml(text: str):
    """The ModApte candidates as the regular expressions find them: (newid, split, topics, text)."""
    import html
    docs = []
    for match in _DOC.finditer(text):
        attrs = dict(_ATTR.findall(match.group(1)))
        if attrs.get("TOPICS") != "YES" or attrs.get("LEWISSPLIT") not in ("TRAIN", "TEST"):
            continue
        newid = attrs.get("NEWID", "")
        if not (newid.isascii() and newid.isdigit()):
            return None
        body = match.group(2)
        topics = _TOPICS.search(body)
        cats = tuple(d.strip() for d in _D.findall(topics.group(1))) if topics else ()
        parts = [html.unescape(m.group(1)) for m in (_TITLE.search(body), _BODY.search(body)) if m]
        if not parts:
            whole = _TEXT.search(body)
            parts = [html.unescape(_TAG.sub(" ", whole.group(1)))] if whole else []
        docs.append((int(newid), "train" if attrs["LEWISSPLIT"] == "TRAIN" else "test", cats, "\n".join(parts)))
    return docs


SGML = st.sampled_from(['<REUTERS TOPICS="YES" LEWISSPLIT="TRAIN" NEWID="1">', '<REUTERS TOPICS="YES" '
                        'LEWISSPLIT="TEST" NEWID="22" OLDID="5">', "<REUTERS>", "<REUTERSX>", "</REUTERS>",
                        "<TOPICS>", "</TOPICS>", "<D>", "</D>", "grain", "<TITLE>", "</TITLE>", "<BODY>", "</BODY>",
                        '<TEXT TYPE="UNPROC">', "<TEXT>", "</TEXT>", "<", ">", "&amp;", "\n", " x ", '"',
                        'NEWID="abc"', "<TEXTS>", "<D>oil</D>", "xTOPICS=\"YES\""])


@FUZZ
@given(st.lists(SGML, max_size=30))
def test_sgml_parses_as_the_regular_expressions_do(pieces):
    text = "".join(pieces)
    found = outcome(parse_sgml, text)
    expected = regex_sgml(text)
    assert (None if found is None else [(d.newid, d.split, d.topics, d.text) for d in found]) == expected


# -- corpus folders ---------------------------------------------------------------------------------
@settings(FUZZ, max_examples=50)
@given(st.sampled_from(["word_ids.npy", "doc_ptr.npy", "vocabulary.npy", "corpus.json"]),
       st.integers(0, 400), st.binary(min_size=1, max_size=8), st.booleans(), st.booleans())
def test_damaged_corpus_folders_never_fail_otherwise(name, at, noise, cut, mmap):
    corpus = Corpus(np.array([0, 1, 1, 2], np.int32), np.array([0, 3, 4]), ["a", "b", "c"], [("x",), ("y", "z")],
                    doc_names=["line 1", "line 2"])
    with tempfile.TemporaryDirectory() as tmp, small_limits():
        folder = corpus.save_npy(Path(tmp) / "c")
        data = bytearray((folder / name).read_bytes())
        at %= len(data)
        data = data[:at] if cut else data[:at] + noise + data[at + len(noise):]
        (folder / name).write_bytes(bytes(data))
        loaded = outcome(Corpus.load, folder, mmap=mmap)
        if loaded is not None:
            assert loaded.word_ids.max(initial=-1) < loaded.n_words and loaded.doc_ptr[-1] == loaded.n_tokens
