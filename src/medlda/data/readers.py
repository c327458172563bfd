"""Readers of corpus files (bag-of-words, lda-c, folders of texts); each returns a :class:`Corpus`.

Formats:

* bow: one document per line, ``LABELS word:count word:count ...``; labels comma- or
  space-separated (every token before the first one holding ``:``), or none at all in an unlabeled
  file. Words are tokens, or integer ids when every word in the file is an integer (svmlight).
* lda-c with a response: ``N_TERMS SCORE id:count ...`` plus an optional vocabulary file.
* folder: one sub-folder per label, one text file per document, as a directory or a tar archive.
* csv, tsv, jsonl: tables of raw texts, one document per row (``medlda.data.tables``).
* txt: raw text, one unlabeled document per line (only when asked for: bow files often end in .txt).

Given the training ``vocabulary``, a file is read against it: unknown words are dropped and
counted (``n_oov_dropped``), and documents left without words are skipped and counted
(``n_empty_skipped``). Malformed input raises :class:`InputFormatError` naming file and line.
"""

from __future__ import annotations

import math
import os
import tarfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Iterator, Sequence

import numpy as np

from medlda.io.atomic import atomic_write_text
from medlda.data.corpus import Corpus
from medlda.exceptions import InputFormatError, archive_error

if TYPE_CHECKING:
    from sklearn.feature_extraction.text import CountVectorizer

PathLike = str | os.PathLike
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")
_SPLIT_SUFFIXES = ("-train", "-test")
MAX_COUNT = 2**31 - 1  # larger word counts or ids mean a corrupt file (ids are int32)


# -- bag-of-words ------------------------------------------------------------------------------
def read_bow(path: PathLike, vocabulary: Sequence[str] | np.ndarray | None = None) -> Corpus:
    """Read a ``LABELS word:count ...`` file (words or integer ids), optionally against a vocabulary."""
    acc = _Pairs(str(path))
    for lineno, tokens in _data_lines(path):
        k = 0
        while k < len(tokens) and ":" not in tokens[k]:
            k += 1
        labels = tuple(lab for tok in tokens[:k] for lab in tok.split(",") if lab)
        acc.add_labels(lineno, labels)
        acc.add_pairs(lineno, tokens[k:], _split_word_pairs)
    if acc.lines and not acc.words:  # every token read as a label: not bag-of-words at all
        raise InputFormatError(str(path), None, "no word:count pair on any line (a bag-of-words line is "
                                                "'LABELS word:count ...'; if this is raw text, one document a "
                                                "line, pass --format txt; or use a .csv/.jsonl table)")
    codes, keys = acc.codes()
    counts = acc.counts_array()
    if all(key.isascii() and key.isdigit() for key in keys):
        ids, vocab = _map_ids(_raw_ids(acc, codes, keys), vocabulary)
    elif vocabulary is None:
        ids, vocab = codes, np.array(keys, dtype=str)
    else:
        index = {str(w): i for i, w in enumerate(vocabulary)}
        lookup = np.array([index.get(key, -1) for key in keys], dtype=np.int64)
        ids, vocab = lookup[codes], vocabulary
    return acc.corpus(ids, counts, vocab)


def write_bow(corpus: Corpus, path: PathLike) -> Path:
    """Write ``corpus`` as a bow file (comma-joined labels, ``word:count`` pairs), atomically."""
    vocab = [str(w) for w in corpus.vocabulary]
    bad = next((w for w in vocab if not w or len(w.split()) != 1 or w != w.strip()), None)
    if bad is not None:
        raise ValueError(f"cannot write word {bad!r}: bow words must be non-empty and hold no whitespace")
    labels = corpus.labels
    if labels is not None:
        for d, lab in enumerate(labels):
            _check_writable_labels(d, lab)
    X = corpus.to_sparse()
    lines = []
    for d in range(corpus.n_docs):
        row = slice(X.indptr[d], X.indptr[d + 1])
        pairs = " ".join(f"{vocab[v]}:{c}" for v, c in zip(X.indices[row], X.data[row]))
        line = pairs if labels is None else f"{','.join(labels[d])} {pairs}"
        if line.startswith("#"):
            raise ValueError(f"document {d}: its line would start with '#' and read back as a comment")
        lines.append(line + "\n")
    return atomic_write_text(Path(path), "".join(lines))


def _check_writable_labels(d: int, labels: tuple[str, ...]) -> None:
    if not labels:
        raise ValueError(f"document {d} has no labels; a labeled bow file needs labels on every line")
    for lab in labels:
        if not lab or ":" in lab or "," in lab or lab.startswith("#") or len(lab.split()) != 1 \
                or lab != lab.strip():
            raise ValueError(f"document {d}: label {lab!r} cannot be written (no ':', ',', whitespace "
                             "or leading '#')")


# -- lda-c --------------------------------------------------------------------------------------
def read_ldac(
    path: PathLike,
    vocab_path: PathLike | None = None,
    vocabulary: Sequence[str] | np.ndarray | None = None,
) -> Corpus:
    """Read an lda-c file with a response (``N_TERMS SCORE id:count ...``); labels are ``(score,)``."""
    acc = _Pairs(str(path))
    for lineno, tokens in _data_lines(path):
        _check_ldac_line(acc.path, lineno, tokens)
        acc.add_labels(lineno, (tokens[1],))
        acc.add_pairs(lineno, tokens[2:], _split_id_pairs)
    codes, keys = acc.codes()
    counts = acc.counts_array()
    raw = _raw_ids(acc, codes, keys)
    if vocab_path is None:
        ids, vocab = _map_ids(raw, vocabulary)
    else:
        index, file_vocab = _ids_through_vocab_file(acc, raw, vocab_path)
        if vocabulary is None:
            ids, vocab = index, file_vocab
        else:
            pos = {str(w): i for i, w in enumerate(vocabulary)}
            lookup = np.array([pos.get(w, -1) for w in file_vocab], dtype=np.int64)
            ids, vocab = lookup[index], vocabulary
    return acc.corpus(ids, counts, vocab)


def _check_ldac_line(path: str, lineno: int, tokens: list[str]) -> None:
    if len(tokens) < 2:
        raise InputFormatError(path, lineno, "expected 'N_TERMS SCORE id:count ...'")
    if not (tokens[0].isascii() and tokens[0].isdigit()):
        raise InputFormatError(path, lineno, f"N_TERMS {tokens[0]!r} is not a non-negative integer")
    try:
        score = float(tokens[1])
    except ValueError:
        score = math.nan
    if not math.isfinite(score):
        raise InputFormatError(path, lineno, f"score {tokens[1]!r} is not a finite number")
    if int(tokens[0]) != len(tokens) - 2:
        raise InputFormatError(path, lineno, f"N_TERMS is {tokens[0]} but the line has "
                                             f"{len(tokens) - 2} id:count pairs")


def read_vocab_file(path: PathLike) -> tuple[np.ndarray, np.ndarray | None]:
    """Words and ids of a vocabulary file: ``id word`` lines (sorted by id), or one word a line (ids None)."""
    lines = [(n, line.strip()) for n, line in enumerate(_read_text(path).split("\n"), 1)]
    while lines and not lines[-1][1]:
        lines.pop()
    rows = [line.split(None, 1) for _, line in lines]
    if rows and all(len(r) == 2 and r[0].isascii() and r[0].isdigit() for r in rows):
        ids = np.array([int(r[0]) for r in rows], dtype=np.int64)
        order = np.argsort(ids, kind="stable")
        dup = np.flatnonzero(np.diff(ids[order]) == 0)
        if dup.size:
            line = lines[order[dup[0] + 1]][0]
            raise InputFormatError(str(path), line, f"word id {ids[order[dup[0]]]} repeats")
        return np.array([rows[i][1].strip() for i in order], dtype=str), ids[order]
    blank = next((n for n, line in lines if not line), None)
    if blank is not None:
        raise InputFormatError(str(path), blank, "blank line in a one-word-per-line vocabulary file")
    return np.array([line for _, line in lines], dtype=str), None


def _ids_through_vocab_file(acc: _Pairs, raw: np.ndarray, vocab_path: PathLike) -> tuple[np.ndarray, ...]:
    """Positions in the vocabulary file of the data's word ids, and the file's words.

    Ids are those of ``id word`` lines, or line numbers of a one-word-per-line file, 1-based when no
    id is 0 and the largest id equals the number of words, else 0-based (the lda-c convention).
    """
    words, file_ids = read_vocab_file(vocab_path)
    if file_ids is None:
        base = 1 if raw.size and raw.min() >= 1 and raw.max() == words.size else 0
        index = raw - base
        missing = np.flatnonzero(index >= words.size)
    else:
        index = np.minimum(np.searchsorted(file_ids, raw), max(file_ids.size - 1, 0))
        missing = np.flatnonzero(file_ids[index] != raw) if file_ids.size else np.arange(raw.size)
    if missing.size:
        i = int(missing[0])
        raise acc.error_at(i, f"word id {raw[i]} is not in the vocabulary file {vocab_path} "
                              f"({words.size} words)")
    return index, words


# -- shared parsing -----------------------------------------------------------------------------
def _read_text(path: PathLike) -> str:
    """The file decoded as UTF-8 (BOM dropped); invalid bytes become ``\\xNN`` escapes, since real
    vocabulary files hold truncated characters (hotel ``voc.dat`` line 2606 is ``cr\\xc3``)."""
    return Path(path).read_bytes().decode("utf-8-sig", errors="backslashreplace")


def _data_lines(path: PathLike) -> Iterator[tuple[int, list[str]]]:
    """(1-based line number, whitespace tokens) of each line that is neither blank nor a ``#`` comment."""
    for lineno, line in enumerate(_read_text(path).split("\n"), 1):
        tokens = line.split()
        if tokens and not tokens[0].startswith("#"):
            yield lineno, tokens


def _split_word_pairs(pairs: list[str]) -> tuple[list[str], list[str], int | None]:
    """Words and counts of ``word:count`` pairs (split at the last ':'); index of a bad pair or None."""
    split = [p.rpartition(":") for p in pairs]
    words = [s[0] for s in split]
    return words, [s[2] for s in split], (words.index("") if "" in words else None)


def _split_id_pairs(pairs: list[str]) -> tuple[list[str], list[str], int | None]:
    """Ids and counts of ``id:count`` pairs; index of a bad pair or None."""
    split = [p.partition(":") for p in pairs]
    ids = [s[0] for s in split]
    seps = [s[1] for s in split]
    bad = ids.index("") if "" in ids else (seps.index("") if "" in seps else None)
    return ids, [s[2] for s in split], bad


@dataclass
class _Pairs:
    """The word:count pairs of a file as flat string lists, with each document's line and labels."""

    path: str
    words: list[str] = field(default_factory=list)
    counts: list[str] = field(default_factory=list)
    n_pairs: list[int] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    labels: list[tuple[str, ...]] = field(default_factory=list)
    labeled_line: int | None = None
    unlabeled_line: int | None = None

    def add_labels(self, lineno: int, labels: tuple[str, ...]) -> None:
        if labels:
            self.labeled_line = self.labeled_line or lineno
        else:
            self.unlabeled_line = self.unlabeled_line or lineno
        if self.labeled_line and self.unlabeled_line:
            raise InputFormatError(self.path, max(self.labeled_line, self.unlabeled_line),
                                   f"line {self.labeled_line} has labels but line {self.unlabeled_line} "
                                   "has none; label every document or none")
        self.labels.append(labels)
        self.lines.append(lineno)

    def add_pairs(self, lineno: int, pairs: list[str], split) -> None:
        words, counts, bad = split(pairs)
        if bad is not None:
            problem = "missing ':'" if ":" not in pairs[bad] else "empty word"
            raise InputFormatError(self.path, lineno, f"{problem} in pair {_shown(pairs[bad])!r} "
                                                      "(expected word:count)")
        self.words.extend(words)
        self.counts.extend(counts)
        self.n_pairs.append(len(pairs))

    def codes(self) -> tuple[np.ndarray, list[str]]:
        """Each pair's index into the distinct words (in order of first appearance), and those words."""
        if not self.lines:
            raise InputFormatError(self.path, None, "no documents (the file is empty)")
        index: dict[str, int] = dict.fromkeys(self.words)  # type: ignore[arg-type]
        for i, word in enumerate(index):
            index[word] = i
        codes = np.fromiter(map(index.__getitem__, self.words), dtype=np.int64, count=len(self.words))
        return codes, list(index)

    def counts_array(self) -> np.ndarray:
        """The counts as int64, each checked to be a positive integer of at most ``MAX_COUNT``."""
        if not self.counts:  # documents with labels and no words
            return np.zeros(0, np.int64)
        digits = "".join(self.counts)
        short = max(map(len, self.counts), default=0) <= 18  # fits int64
        if short and "" not in self.counts and digits.isascii() and digits.isdigit():
            counts = np.fromiter(map(int, self.counts), dtype=np.int64, count=len(self.counts))
            if not np.any((counts <= 0) | (counts > MAX_COUNT)):
                return counts
        i = next(i for i, c in enumerate(self.counts)
                 if not (c.isascii() and c.isdigit() and 0 < int(c) <= MAX_COUNT))
        pair = _shown(self.words[i] + ":" + self.counts[i])
        raise self.error_at(i, f"count {_shown(self.counts[i])!r} in pair {pair!r} is not a positive integer "
                               f"(at most {MAX_COUNT})")

    def error_at(self, pair: int, problem: str) -> InputFormatError:
        doc = int(np.searchsorted(np.cumsum(self.n_pairs), pair, side="right"))
        return InputFormatError(self.path, self.lines[doc], problem)

    def corpus(self, ids: np.ndarray, counts: np.ndarray, vocabulary) -> Corpus:
        """Build the corpus from each pair's word id (-1: out of vocabulary, dropped and counted)."""
        n_pairs = np.asarray(self.n_pairs, dtype=np.int64)
        doc_of_pair = np.repeat(np.arange(n_pairs.size), n_pairs)
        known = ids >= 0
        doc_len = np.zeros(n_pairs.size, dtype=np.int64)
        np.add.at(doc_len, doc_of_pair[known], counts[known])
        keep = doc_len > 0
        labels = [self.labels[d] for d in np.flatnonzero(keep)] if self.labeled_line else None
        return Corpus(
            np.repeat(ids[known], counts[known]),
            np.concatenate(([0], np.cumsum(doc_len[keep]))),
            np.asarray(vocabulary, dtype=str),
            labels,
            n_empty_skipped=int(np.count_nonzero(~keep)),
            n_oov_dropped=int(counts[~known].sum()),
            source=self.path,
            doc_names=[f"line {self.lines[d]}" for d in np.flatnonzero(keep)],
        )


def _shown(text: str, limit: int = 40) -> str:
    """``text`` cut to ``limit`` characters for an error message (a binary file makes huge tokens)."""
    return text if len(text) <= limit else text[:limit] + "..."


def _raw_ids(acc: _Pairs, codes: np.ndarray, keys: list[str]) -> np.ndarray:
    """Each pair's integer word id, every distinct id string checked to lie in [0, MAX_COUNT]."""
    for k, key in enumerate(keys):
        if not (key.isascii() and key.isdigit() and int(key) <= MAX_COUNT):
            raise acc.error_at(int(np.argmax(codes == k)),
                               f"word id {key!r} is not an integer in [0, {MAX_COUNT}]")
    return np.array([int(key) for key in keys], dtype=np.int64)[codes]


def _map_ids(raw: np.ndarray, vocabulary) -> tuple[np.ndarray, np.ndarray]:
    """Integer word ids used as they are; against a vocabulary, ids past its end become -1 (OOV)."""
    if vocabulary is None:
        n_words = int(raw.max()) + 1 if raw.size else 0
        return raw, np.array([str(i) for i in range(n_words)], dtype=str)
    vocabulary = np.asarray(vocabulary, dtype=str)
    return np.where(raw < vocabulary.size, raw, -1), vocabulary


# -- raw text, one document a line ---------------------------------------------------------------
def read_text_lines(path: PathLike) -> tuple[list[str], list[str]]:
    """Texts and names ('line N') of a UTF-8 file holding one raw-text document per line; a blank
    line is an empty document (skipped and counted later), the newline ending the file is none."""
    raw = Path(path).read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = raw[:err.start].count(b"\n") + 1
        raise InputFormatError(str(path), line, f"not UTF-8 text (byte {err.start}: {err.reason}); "
                                                "save it as UTF-8") from None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if not lines:
        raise InputFormatError(str(path), None, "no documents (the file is empty)")
    return [line.rstrip("\r") for line in lines], [f"line {n}" for n in range(1, len(lines) + 1)]


# -- folders of text files ----------------------------------------------------------------------
def read_text_folder(
    path: PathLike,
    subset: str | None = None,
    categories: Sequence[str] | None = None,
) -> tuple[list[str], list[str], list[str]]:
    """Texts (Latin-1), labels (sub-folder names) and names (paths inside ``path``) of a folder corpus.

    ``path`` is a directory or a tar archive (read without extracting). With ``X-train``/``X-test``
    sub-folders (20news-bydate layout) ``subset`` must be ``"train"``, ``"test"`` or ``"all"``.
    """
    path = _existing(path)
    if subset not in (None, "train", "test", "all"):
        raise ValueError(f"subset must be 'train', 'test', 'all' or None, not {subset!r}")
    if path.is_dir():
        files = {p.relative_to(path).parts: p for p in sorted(path.rglob("*")) if p.is_file()}
        docs = _select_documents(list(files), subset, categories, path)
        texts = [files[parts].read_bytes().decode("latin-1") for _, _, parts in docs]
    else:
        texts, docs = _read_archive_documents(path, subset, categories)
    return texts, [label for label, _, _ in docs], ["/".join(parts) for _, _, parts in docs]


def _read_archive_documents(path: Path, subset, categories) -> tuple[list[str], list]:
    """Select documents from a tar archive's member names, then read them in archive order."""
    try:
        with tarfile.open(path, "r:*") as tar:
            members = {PurePosixPath(m.name).parts: m for m in tar.getmembers() if m.isfile()}
            docs = _select_documents(list(members), subset, categories, path)
            data = {}
            for parts in sorted((parts for _, _, parts in docs), key=lambda p: members[p].offset):
                data[parts] = tar.extractfile(members[parts]).read()
    except (tarfile.TarError, EOFError, zlib.error, OSError) as err:
        if isinstance(err, (FileNotFoundError, PermissionError)):
            raise
        raise archive_error(path, err) from err
    return [data[parts].decode("latin-1") for _, _, parts in docs], docs


def _select_documents(files: list[tuple[str, ...]], subset, categories, where: Path) -> list:
    """(label, file name, path parts) of the documents to read, sorted by label then file name."""
    files = [p for p in files if not any(part.startswith(".") or part == "__MACOSX" for part in p)]
    depth, top = _common_top(files, where.name)
    rel = [(p[depth:], p) for p in files]
    splits = sorted({r[0] for r, _ in rel if len(r) == 3 and r[0].endswith(_SPLIT_SUFFIXES)})
    if splits:
        if subset is None:
            raise ValueError(f"{where} holds {' and '.join(splits)}: choose subset='train', 'test' or 'all'")
        wanted = splits if subset == "all" else [s for s in splits if s.endswith("-" + subset)]
        if not wanted:
            raise ValueError(f"{where} has no '-{subset}' folder (found {', '.join(splits)})")
        docs = [(r[1], r[2], p) for r, p in rel if len(r) == 3 and r[0] in wanted]
    else:
        if subset in ("train", "test") and not top.endswith("-" + subset):
            raise ValueError(f"{where} has no '-train'/'-test' sub-folders, "
                             f"so subset={subset!r} does not apply")
        docs = [(r[0], r[1], p) for r, p in rel if len(r) == 2]
    if not docs:
        raise InputFormatError(str(where), None, "no documents found: expected one sub-folder per label, "
                                                 "each holding one text file per document")
    return sorted(_filter_categories(docs, categories, where))


def _common_top(files: list[tuple[str, ...]], top: str) -> tuple[int, str]:
    """How many single wrapping folders (``archive/…``) to skip, and the name of the innermost one."""
    depth = 0
    while True:
        deeper = [p for p in files if len(p) > depth + 1]
        firsts = {p[depth] for p in deeper}
        if len(firsts) != 1 or any(len(p) < depth + 3 for p in deeper):
            return depth, top
        (first,) = firsts
        if first.endswith(_SPLIT_SUFFIXES):
            return depth, top
        depth, top = depth + 1, first


def _filter_categories(docs: list, categories, where: Path) -> list:
    if categories is None:
        return docs
    if isinstance(categories, str):
        categories = [categories]
    available = sorted({label for label, _, _ in docs})
    unknown = sorted(set(categories) - set(available))
    if unknown:
        raise ValueError(f"unknown categories {unknown} in {where}; available: {', '.join(available)}")
    wanted = set(categories)
    return [d for d in docs if d[0] in wanted]


# -- dispatcher ---------------------------------------------------------------------------------
def read_corpus(
    path: PathLike,
    *,
    format: str = "auto",
    subset: str | None = None,
    categories: Sequence[str] | None = None,
    vocabulary: Sequence[str] | np.ndarray | None = None,
    vocab_path: PathLike | None = None,
    vectorizer: CountVectorizer | None = None,
    text_column: str = "text",
    label_column: str | None = None,
) -> Corpus:
    """Read a corpus in any supported format (``format="auto"`` guesses it from the path and first line).

    For lda-c files without ``vocab_path``, a ``voc.dat`` beside the file is used when present; a
    folder or tar archive of lda-c files (``voc.dat`` and one ``*train*.dat`` / ``*test*.dat``
    each, like the hotel reviews) gives its ``subset`` half. ``reuters`` is Reuters-21578's SGML
    files (folder or archive): the ModApte ``subset``, labels restricted to the 90 categories.
    ``csv``, ``tsv`` and ``jsonl`` are tables of raw texts (:mod:`medlda.data.tables`), one document per
    row: its text in ``text_column``, its labels in ``label_column`` (default: 'label' if present).
    ``txt`` is raw text, one unlabeled document per line (never guessed: bow files often end in .txt).
    Folder, table, txt and Reuters texts go through ``vectorizer`` (default
    :func:`medlda.data.text.make_vectorizer`; news headers are stripped from folder and Reuters texts).
    """
    from medlda.data.tables import TABLE_FORMATS, read_table

    path = _existing(path)
    if format == "auto":
        format = guess_format(path)
    if format not in FORMATS:
        raise ValueError(f"format must be 'auto' or one of {', '.join(map(repr, FORMATS))}, not {format!r}")
    collection = format == "reuters" or (format == "ldac" and is_collection(path))
    if format != "folder" and (categories is not None
                               or (vectorizer is not None and format not in ("reuters", "txt", *TABLE_FORMATS))
                               or (subset is not None and not collection)):
        raise ValueError("subset, categories and vectorizer apply only to folder corpora (subset also "
                         "to Reuters and lda-c collections, vectorizer to Reuters, tables and txt)")
    if format != "ldac" and vocab_path is not None:
        raise ValueError("vocab_path applies only to lda-c files")
    if format not in TABLE_FORMATS and (text_column != "text" or label_column is not None):
        raise ValueError("text_column and label_column apply only to tables (csv, tsv, jsonl)")
    if format in TABLE_FORMATS:
        texts, labels, names = read_table(path, format, text_column, label_column)
        if not texts:
            raise InputFormatError(str(path), None, "no data rows: the table holds only its header")
        return _texts_to_corpus(texts, labels, names, path, vocabulary, vectorizer, news=False)
    if format == "txt":
        texts, names = read_text_lines(path)
        return _texts_to_corpus(texts, None, names, path, vocabulary, vectorizer, news=False)
    if format == "bow":
        return read_bow(path, vocabulary)
    if format == "reuters":
        return _read_reuters_corpus(path, subset or "train", vocabulary, vectorizer)
    if format == "ldac" and collection:
        return read_ldac_collection(path, subset or "train", vocabulary)
    if format == "ldac":
        if vocab_path is None and (path.parent / "voc.dat").is_file():
            vocab_path = path.parent / "voc.dat"
        return read_ldac(path, vocab_path, vocabulary)
    return _read_folder_corpus(path, subset, categories, vocabulary, vectorizer)


FORMATS = ("bow", "ldac", "folder", "reuters", "csv", "tsv", "jsonl", "txt")


def _read_reuters_corpus(path: Path, subset: str, vocabulary, vectorizer) -> Corpus:
    """Reuters-21578 ModApte as a multi-label corpus (title and body, the standard preprocessing
    without e-mail header stripping)."""
    from medlda.data.reuters import modapte_subset

    texts, labels, _, ids = modapte_subset(path, subset)
    return _texts_to_corpus(texts, labels, [f"NEWID={i}" for i in ids], path, vocabulary, vectorizer, news=False)


def read_ldac_collection(path: PathLike, subset: str = "train",
                         vocabulary: Sequence[str] | np.ndarray | None = None) -> Corpus:
    """The ``subset`` half of a folder or tar archive of lda-c files: ``voc.dat`` plus one ``.dat``
    file whose name holds ``train`` and one holding ``test`` (the hotel-review layout)."""
    import tempfile

    path = _existing(path)
    if subset not in ("train", "test"):
        raise ValueError(f"subset must be 'train' or 'test' for an lda-c collection, not {subset!r}")
    names = _collection_files(path)
    vocab = [n for n in names if PurePosixPath(n).name == "voc.dat"]
    data = [n for n in names if PurePosixPath(n).suffix == ".dat" and subset in PurePosixPath(n).name
            and n not in vocab]
    if len(vocab) != 1 or len(data) != 1:
        raise InputFormatError(str(path), None, f"expected one voc.dat and one *{subset}*.dat lda-c file, "
                                                f"found {len(vocab)} and {len(data)}")
    if path.is_dir():
        corpus = read_ldac(path / data[0], path / vocab[0], vocabulary)
        corpus.source = str(path / data[0])
        return corpus
    with tempfile.TemporaryDirectory(prefix="medlda-") as tmp, tarfile.open(path, "r:*") as tar:
        local = {}
        for name in (vocab[0], data[0]):
            local[name] = Path(tmp) / PurePosixPath(name).name
            local[name].write_bytes(tar.extractfile(name).read())
        try:
            corpus = read_ldac(local[data[0]], local[vocab[0]], vocabulary)
        except InputFormatError as err:  # name the file inside the archive, not the temporary copy
            where = f"{path}:{data[0]}" if str(local[data[0]]) == err.path else f"{path}:{vocab[0]}"
            raise InputFormatError(where, err.line, err.problem) from None
    corpus.source = f"{path}:{data[0]}"
    return corpus


def is_collection(path: PathLike) -> bool:
    """Whether ``path`` is a directory or a tar archive (a collection of files)."""
    path = Path(path)
    return path.is_dir() or path.name.lower().endswith(ARCHIVE_SUFFIXES)


def _collection_files(path: Path) -> list[str]:
    """Relative names (directory) or member names (archive) of the files of a collection."""
    if path.is_dir():
        return sorted(str(p.relative_to(path)) for p in path.rglob("*") if p.is_file())
    try:
        with tarfile.open(path, "r:*") as tar:
            return [m.name for m in tar.getmembers() if m.isfile()]
    except (tarfile.TarError, EOFError, zlib.error) as err:
        raise archive_error(path, err) from err


def _read_folder_corpus(path: Path, subset, categories, vocabulary, vectorizer) -> Corpus:
    """Tokenize a folder corpus; fit the vocabulary unless one is given (then count what it drops)."""
    texts, labels, names = read_text_folder(path, subset, categories)
    return _texts_to_corpus(texts, labels, names, path, vocabulary, vectorizer, news=True)


def _texts_to_corpus(texts, labels, names, path: Path, vocabulary, vectorizer, news: bool) -> Corpus:
    """Vectorize raw texts (the papers' preprocessing unless a vectorizer is given) into a Corpus
    without empty documents; with a fixed vocabulary, count the tokens it drops."""
    from sklearn.base import clone

    from medlda.data.text import count_oov_tokens, make_vectorizer

    rules = ""
    if vectorizer is None:
        vectorizer = make_vectorizer(news=news, vocabulary=vocabulary)
        rules = " (words of 3+ letters in at least 3 documents, stop words removed)"
    else:
        vectorizer = clone(vectorizer)
        if vocabulary is not None:
            vectorizer.set_params(vocabulary=[str(w) for w in vocabulary])
    try:
        X = vectorizer.fit_transform(texts).tocsr()
    except ValueError as err:  # scikit-learn's words for an empty vocabulary, without the file
        raise InputFormatError(str(path), None, f"no words left in its {len(texts)} documents after "
                                                f"preprocessing{rules}: {err}") from None
    n_oov = 0 if vocabulary is None else count_oov_tokens(vectorizer, texts, X)
    keep = np.flatnonzero(np.asarray(X.sum(axis=1)).ravel() > 0)
    corpus = Corpus.from_sparse(X[keep], vectorizer.get_feature_names_out(),
                                labels=None if labels is None else [labels[d] for d in keep], source=str(path))
    corpus.n_empty_skipped = len(texts) - keep.size
    corpus.n_oov_dropped = n_oov
    corpus.doc_names = [names[d] for d in keep]
    return corpus


def write_lines(path: PathLike, lines: Sequence[str]) -> Path:
    """Write one string per line, atomically (e.g. predicted labels)."""
    return atomic_write_text(Path(path), "".join(f"{line}\n" for line in lines))


def folder_splits(path: PathLike) -> list[str]:
    """The halves ('train', 'test') a folder corpus offers in the 20news-bydate layout, else []."""
    path = _existing(path)
    if path.is_dir():
        files = [p.relative_to(path).parts for p in path.rglob("*") if p.is_file()]
    else:
        try:
            with tarfile.open(path, "r:*") as tar:
                files = [PurePosixPath(m.name).parts for m in tar.getmembers() if m.isfile()]
        except (tarfile.TarError, EOFError, zlib.error) as err:
            raise archive_error(path, err) from err
    depth, _ = _common_top(files, path.name)
    tops = {p[depth] for p in files if len(p) == depth + 3}
    return sorted(s for s in ("train", "test") if any(t.endswith("-" + s) for t in tops))


def guess_format(path: PathLike) -> str:
    """The format ``read_corpus`` would pick: for a directory or tar archive reuters (``reut2-NNN.sgm``
    files), ldac (a ``voc.dat`` and ``.dat`` files), else folder; for a file ldac (first data line
    ``N SCORE id:count ...`` with N pairs), else bow; a file ending in .csv, .tsv (.tab) or .jsonl
    (.ndjson) is that table. Never txt (raw text a line): a .txt file is as often bag-of-words."""
    from medlda.data.tables import table_format

    path = Path(path)
    table = table_format(path) if path.is_file() else None
    if table:
        return table
    if is_collection(path):
        names = [PurePosixPath(n).name for n in _collection_files(path)]
        from medlda.data.reuters import SGML_NAME
        if any(SGML_NAME.search(n) for n in names):
            return "reuters"
        if "voc.dat" in names and any(n.endswith(".dat") and "train" in n for n in names):
            return "ldac"
        return "folder"
    with open(path, encoding="utf-8-sig", errors="backslashreplace") as fh:
        for line in fh:
            tokens = line.split()
            if tokens and not tokens[0].startswith("#"):
                return "ldac" if _looks_like_ldac(tokens) else "bow"
    return "bow"


def _looks_like_ldac(tokens: list[str]) -> bool:
    if len(tokens) < 2 or not (tokens[0].isascii() and tokens[0].isdigit()):
        return False
    try:
        float(tokens[1])
    except ValueError:
        return False
    pairs = tokens[2:]
    return int(tokens[0]) == len(pairs) and all(p.partition(":")[0].isdigit() and ":" in p for p in pairs)


def _existing(path: PathLike) -> Path:
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file or directory: {path}")
    return path
