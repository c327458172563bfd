"""The lda-c format with a response: ``N_TERMS SCORE id:count ...`` lines, an optional vocabulary
file (``id word`` lines, or one word a line), and collections of them (the hotel-review layout).

Word ids follow one rule, lda-c's: they are 0-based. Without a vocabulary file id ``i`` is the
word ``"i"`` (or, against a given vocabulary, its word ``i``); with an ``id word`` file it is the
word on the line holding ``i``; with a one-word-per-line file it is the word on line ``i + 1``.
No base is guessed from the data: an id the vocabulary file lacks is an error naming the rule.
"""

from __future__ import annotations

import math
import tempfile
from itertools import repeat
from pathlib import Path, PurePosixPath
from typing import Sequence

import numpy as np

from medlda.data.corpus import Corpus
from medlda.data.readers.pairs import (
    TokenBuffer,
    data_lines,
    id_vocabulary,
    is_uint,
    positive_counts,
    read_text,
    shown,
    split_pairs,
    token_chunks,
    word_ids,
)
from medlda.data.readers.paths import PathLike, archive_members, collection_files, copy_member, existing, open_archive
from medlda.exceptions import InputFormatError, LimitError

_MISSING = -2  # an id the vocabulary file lacks


def read_ldac(
    path: PathLike,
    vocab_path: PathLike | None = None,
    vocabulary: Sequence[str] | np.ndarray | None = None,
) -> Corpus:
    """Read an lda-c file with a response (``N_TERMS SCORE id:count ...``); labels are ``(score,)``.

    Ids are 0-based (module docstring): with ``vocab_path`` they name its words, else id ``i`` is
    word ``"i"``, or position ``i`` of ``vocabulary`` when given (ids past its end are dropped and
    counted as out of vocabulary, like the words of ``vocab_path`` that ``vocabulary`` lacks).
    """
    docs = TokenBuffer(str(path))
    file_words, mapping = (None, None) if vocab_path is None else _vocab_file_mapping(vocab_path, vocabulary)
    n_known = None if vocabulary is None else len(vocabulary)
    top = (-1, 0)  # largest id and its line, for an id vocabulary
    for lineno, line in data_lines(path):
        header: list[str] = []
        n_pairs = 0
        for tokens in token_chunks(line):
            if len(header) < 2:
                take = 2 - len(header)
                header, tokens = header + tokens[:take], tokens[take:]
                if len(header) < 2:
                    continue
                _check_header(docs.path, lineno, header)
                docs.begin(lineno, (header[1],))
            if not tokens:
                continue
            n_pairs += len(tokens)
            keys, counts = split_pairs(docs.path, lineno, tokens, last=False)
            values = positive_counts(docs.path, lineno, keys, counts)
            raw = word_ids(docs.path, lineno, keys)
            if mapping is not None:
                ids = list(map(mapping.get, raw, repeat(_MISSING)))
                if _MISSING in ids:
                    raise _not_in_vocab_file(docs.path, lineno, raw[ids.index(_MISSING)], vocab_path, mapping)
            elif n_known is not None and max(raw) >= n_known:
                ids = [i if i < n_known else -1 for i in raw]
            else:
                ids = raw
                top = max(top, (max(raw), -lineno))
            docs.add(ids, values)
        if len(header) < 2:
            raise InputFormatError(docs.path, lineno, "expected 'N_TERMS SCORE id:count ...'")
        if int(header[0]) != n_pairs:
            raise InputFormatError(docs.path, lineno, f"N_TERMS is {header[0]} but the line has "
                                                      f"{n_pairs} id:count pairs")
        docs.end()
    if vocabulary is not None:
        return docs.corpus(np.asarray(vocabulary, dtype=str))
    if mapping is not None:
        return docs.corpus(file_words)
    return docs.corpus(id_vocabulary(top[0] + 1, f"{docs.path}, line {-top[1]}"))


def _check_header(path: str, lineno: int, tokens: list[str]) -> None:
    if not is_uint(tokens[0]):
        raise InputFormatError(path, lineno, f"N_TERMS {shown(tokens[0])!r} is not a non-negative integer")
    try:
        score = float(tokens[1])
    except ValueError:
        score = math.nan
    if not math.isfinite(score):
        raise InputFormatError(path, lineno, f"score {shown(tokens[1])!r} is not a finite number")


def read_vocab_file(path: PathLike) -> tuple[np.ndarray, np.ndarray | None]:
    """Words and ids of a vocabulary file: ``id word`` lines (sorted by id), or one word a line (ids None)."""
    lines = [(n, line.strip()) for n, line in enumerate(read_text(path).split("\n"), 1)]
    while lines and not lines[-1][1]:
        lines.pop()
    nul = next((n for n, line in lines if "\x00" in line), None)
    if nul is not None:
        raise InputFormatError(str(path), nul, "holds a NUL character: a binary file, not text")
    rows = [line.split(None, 1) for _, line in lines]
    if rows and all(len(r) == 2 and is_uint(r[0]) for r in rows):
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


def _vocab_file_mapping(vocab_path: PathLike, vocabulary) -> tuple[np.ndarray, dict[int, int]]:
    """The vocabulary file's words, and each of its ids to its word's id: the word's position in
    the file's words, or in ``vocabulary`` when given (-1 for a word ``vocabulary`` lacks)."""
    words, file_ids = read_vocab_file(vocab_path)
    if file_ids is None:
        file_ids = np.arange(words.size)
    if vocabulary is None:
        target = np.arange(words.size)
    else:
        pos = {str(w): i for i, w in enumerate(vocabulary)}
        target = np.array([pos.get(str(w), -1) for w in words], dtype=np.int64)
    return words, dict(zip(file_ids.tolist(), target.tolist()))


def _not_in_vocab_file(path: str, lineno: int, word_id: int, vocab_path, mapping: dict) -> InputFormatError:
    return InputFormatError(path, lineno, f"word id {word_id} is not in the vocabulary file {vocab_path} "
                                          f"({len(mapping)} words; ids are 0-based: an 'id word' line gives "
                                          "its id, a one-word-per-line file gives line i + 1 the id i)")


def read_ldac_collection(path: PathLike, subset: str = "train",
                         vocabulary: Sequence[str] | np.ndarray | None = None) -> Corpus:
    """The ``subset`` half of a folder or tar archive of lda-c files: ``voc.dat`` plus one ``.dat``
    file whose name holds ``train`` and one holding ``test`` (the hotel-review layout)."""
    path = existing(path)
    if subset not in ("train", "test"):
        raise ValueError(f"subset must be 'train' or 'test' for an lda-c collection, not {subset!r}")
    names = collection_files(path)
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
    with tempfile.TemporaryDirectory(prefix="medlda-") as tmp, open_archive(path) as tar:
        local = {}
        for member in archive_members(tar, path):
            if member.isfile() and member.name in (vocab[0], data[0]):
                local[member.name] = copy_member(tar, member, path, Path(tmp) / PurePosixPath(member.name).name)
        try:
            corpus = read_ldac(local[data[0]], local[vocab[0]], vocabulary)
        except InputFormatError as err:  # name the file inside the archive, not the temporary copy
            where = f"{path}:{data[0]}" if str(local[data[0]]) == err.path else f"{path}:{vocab[0]}"
            raise InputFormatError(where, err.line, err.problem) from None
        except LimitError as err:
            raise LimitError(str(err).replace(str(local[data[0]]), f"{path}:{data[0]}")) from None
    corpus.source = f"{path}:{data[0]}"
    return corpus


def looks_like_ldac(tokens: list[str]) -> bool:
    """Whether a data line's tokens read as lda-c: N_TERMS, a number, then N_TERMS id:count pairs."""
    if len(tokens) < 2 or not is_uint(tokens[0]):
        return False
    try:
        float(tokens[1])
    except ValueError:
        return False
    pairs = tokens[2:]
    return int(tokens[0]) == len(pairs) and all(p.partition(":")[0].isdigit() and ":" in p for p in pairs)
