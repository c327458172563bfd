"""Corpus readers, one module per format, behind one dispatcher (:func:`read_corpus`); each returns a
:class:`Corpus`.

Formats:

* bow: ``LABELS word:count ...`` a line (:mod:`~medlda.data.readers.bow`);
* ldac: lda-c with a response, ``N_TERMS SCORE id:count ...``, and an optional vocabulary file
  (:mod:`~medlda.data.readers.ldac`);
* folder: one sub-folder per label, one text file per document, as a directory or a tar archive
  (:mod:`~medlda.data.readers.folder`);
* reuters: Reuters-21578's SGML files, the ModApte split (:mod:`~medlda.data.readers.reuters`);
* csv, tsv, jsonl: tables of raw texts, one document per row (:mod:`~medlda.data.readers.tables`);
* txt: raw text, one unlabeled document per line (only when asked for: bow files often end in .txt).

Given the training ``vocabulary``, a file is read against it: unknown words are dropped and
counted (``n_oov_dropped``), and documents left without words are skipped and counted
(``n_empty_skipped``). Malformed input raises :class:`InputFormatError` naming file and line;
an input asking for more than a bound of :mod:`medlda.limits` raises :class:`LimitError` naming the
bound and its environment variable. Files of a folder or archive that are no documents are counted
in a :class:`FilesSkippedWarning`.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Sequence

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer

from medlda.data.corpus import Corpus
from medlda.data.readers.bow import read_bow, write_bow
from medlda.data.readers.folder import folder_splits, read_text_folder
from medlda.data.readers.ldac import looks_like_ldac, read_ldac, read_ldac_collection, read_vocab_file
from medlda.data.readers.paths import FilesSkippedWarning, PathLike, collection_files, existing, is_collection
from medlda.data.readers.reuters import SGML_NAME, modapte_subset
from medlda.data.readers.tables import TABLE_FORMATS, read_table, table_format
from medlda.data.readers.texts import read_text_lines, texts_to_corpus
from medlda.exceptions import InputFormatError

FORMATS = ("bow", "ldac", "folder", "reuters", "csv", "tsv", "jsonl", "txt")

__all__ = ["FORMATS", "TABLE_FORMATS", "FilesSkippedWarning", "folder_splits", "guess_format", "is_collection", "read_bow",
           "read_corpus", "read_ldac", "read_ldac_collection", "read_text_folder", "read_text_lines",
           "read_vocab_file", "write_bow"]


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
    """Read a corpus from a file, folder or archive in any supported format.

    Given the training ``vocabulary``, a file is read against it: unknown words are dropped and
    counted (``n_oov_dropped``), and documents left without words are skipped and counted
    (``n_empty_skipped``).

    Parameters
    ----------
    path : str or path-like
        The file, folder or archive.
    format : {"auto", "bow", "ldac", "folder", "reuters", "csv", "tsv", "jsonl", "txt"}, default="auto"
        ``"auto"`` guesses from the path and first line (never ``"txt"``: bow files often end in
        .txt). bow: ``LABELS word:count ...`` a line; ldac: lda-c with a response (a ``voc.dat``
        beside the file is its vocabulary when ``vocab_path`` is not given; a folder or archive
        of lda-c files gives its ``subset`` half); folder: one sub-folder per label, one text file
        per document; reuters: Reuters-21578's SGML files, the ModApte ``subset``, labels
        restricted to the 90 categories; csv, tsv, jsonl: tables of raw texts, one document a row;
        txt: raw text, one unlabeled document per line.
    subset : {"train", "test"}, optional
        The half of a collection (20 Newsgroups folder, Reuters, lda-c folder) to read.
    categories : sequence of str, optional
        The label folders to read (folder format).
    vocabulary : sequence of str, optional
        Read against these words (e.g. a fitted model's ``vocabulary_``).
    vocab_path : str or path-like, optional
        An lda-c vocabulary file, one word a line.
    vectorizer : CountVectorizer, optional
        How folder, table, txt and Reuters texts become counts; default
        ``medlda.data.text.make_vectorizer()`` (the headers, quotes and signatures of news
        messages are stripped from folder texts).
    text_column : str, default="text"
        A table's text column.
    label_column : str, optional
        A table's label column; default: "label" if present.

    Returns
    -------
    Corpus

    Raises
    ------
    InputFormatError
        For malformed input, naming the file and line.
    LimitError
        For an input larger than a bound of ``medlda.limits``, naming the bound and its
        environment variable.

    Examples
    --------
    >>> from pathlib import Path
    >>> from medlda import read_corpus
    >>> rows = ["text,label", "printer jams again,hardware", "cannot log in to email,account",
    ...         "screen flickers,hardware"]
    >>> _ = Path("tickets.csv").write_text("\\n".join(rows))
    >>> from medlda.data.text import make_vectorizer
    >>> corpus = read_corpus("tickets.csv", vectorizer=make_vectorizer(min_df=1))
    >>> corpus.n_docs, corpus.single_labels().tolist()
    (3, ['hardware', 'account', 'hardware'])
    """
    path = existing(path)
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
        return texts_to_corpus(texts, labels, names, path, vocabulary, vectorizer, news=False)
    if format == "txt":
        texts, names = read_text_lines(path)
        return texts_to_corpus(texts, None, names, path, vocabulary, vectorizer, news=False)
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


def _read_reuters_corpus(path: Path, subset: str, vocabulary, vectorizer) -> Corpus:
    """Reuters-21578 ModApte as a multi-label corpus (title and body, the standard preprocessing
    without e-mail header stripping)."""
    texts, labels, _, ids = modapte_subset(path, subset)
    return texts_to_corpus(texts, labels, [f"NEWID={i}" for i in ids], path, vocabulary, vectorizer, news=False)


def _read_folder_corpus(path: Path, subset, categories, vocabulary, vectorizer) -> Corpus:
    """Tokenize a folder corpus; fit the vocabulary unless one is given (then count what it drops)."""
    texts, labels, names = read_text_folder(path, subset, categories)
    return texts_to_corpus(texts, labels, names, path, vocabulary, vectorizer, news=True)


def guess_format(path: PathLike) -> str:
    """The format ``read_corpus`` would pick: for a directory or tar archive reuters (``reut2-NNN.sgm``
    files), ldac (a ``voc.dat`` and ``.dat`` files), else folder; for a file ldac (first data line
    ``N SCORE id:count ...`` with N pairs), bow where a line of the first ``TEXT_PROBE_LINES``
    holds a ``word:count`` pair, else txt (raw text a line, whatever the file's suffix: bag-of-words
    files often end in .txt too); a file ending in .csv, .tsv (.tab) or .jsonl (.ndjson) is that
    table."""
    path = Path(path)
    table = table_format(path) if path.is_file() else None
    if table:
        return table
    if is_collection(path):
        names = [PurePosixPath(n).name for n in collection_files(path)]
        if any(SGML_NAME.search(n) for n in names):
            return "reuters"
        if "voc.dat" in names and any(n.endswith(".dat") and "train" in n for n in names):
            return "ldac"
        return "folder"
    seen = 0
    with open(path, encoding="utf-8-sig", errors="backslashreplace") as fh:
        for line in fh:
            tokens = line.split()
            if not tokens or tokens[0].startswith("#"):
                continue
            if seen == 0 and looks_like_ldac(tokens):
                return "ldac"
            if any(_is_pair(token) for token in tokens[1:]):
                return "bow"
            seen += 1
            if seen == TEXT_PROBE_LINES:
                break
    return "txt" if seen else "bow"


TEXT_PROBE_LINES = 100  # lines ``guess_format`` reads for a word:count pair before it calls a file text


def _is_pair(token: str) -> bool:
    """Whether ``token`` is a bag-of-words ``word:count`` pair (a count of digits after the last colon)."""
    word, colon, count = token.rpartition(":")
    return bool(colon and word and count.isdigit())
