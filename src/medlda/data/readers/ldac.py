"""The lda-c format with a response: ``N_TERMS SCORE id:count ...`` lines, an optional vocabulary
file (``id word`` lines, or one word a line), and collections of them (the hotel-review layout)."""

from __future__ import annotations

import math
import tarfile
import tempfile
from pathlib import Path, PurePosixPath
from typing import Sequence

import numpy as np

from medlda.data.corpus import Corpus
from medlda.data.readers.pairs import Pairs, data_lines, map_ids, raw_ids, read_text
from medlda.data.readers.paths import PathLike, collection_files, existing
from medlda.exceptions import InputFormatError


def read_ldac(
    path: PathLike,
    vocab_path: PathLike | None = None,
    vocabulary: Sequence[str] | np.ndarray | None = None,
) -> Corpus:
    """Read an lda-c file with a response (``N_TERMS SCORE id:count ...``); labels are ``(score,)``."""
    acc = Pairs(str(path))
    for lineno, tokens in data_lines(path):
        _check_ldac_line(acc.path, lineno, tokens)
        acc.add_labels(lineno, (tokens[1],))
        acc.add_pairs(lineno, tokens[2:], _split_id_pairs)
    codes, keys = acc.codes()
    counts = acc.counts_array()
    raw = raw_ids(acc, codes, keys)
    if vocab_path is None:
        ids, vocab = map_ids(raw, vocabulary)
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
    lines = [(n, line.strip()) for n, line in enumerate(read_text(path).split("\n"), 1)]
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


def _ids_through_vocab_file(acc: Pairs, raw: np.ndarray, vocab_path: PathLike) -> tuple[np.ndarray, ...]:
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


def _split_id_pairs(pairs: list[str]) -> tuple[list[str], list[str], int | None]:
    """Ids and counts of ``id:count`` pairs; index of a bad pair or None."""
    split = [p.partition(":") for p in pairs]
    ids = [s[0] for s in split]
    seps = [s[1] for s in split]
    bad = ids.index("") if "" in ids else (seps.index("") if "" in seps else None)
    return ids, [s[2] for s in split], bad


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


def looks_like_ldac(tokens: list[str]) -> bool:
    """Whether a data line's tokens read as lda-c: N_TERMS, a number, then N_TERMS id:count pairs."""
    if len(tokens) < 2 or not (tokens[0].isascii() and tokens[0].isdigit()):
        return False
    try:
        float(tokens[1])
    except ValueError:
        return False
    pairs = tokens[2:]
    return int(tokens[0]) == len(pairs) and all(p.partition(":")[0].isdigit() and ":" in p for p in pairs)
