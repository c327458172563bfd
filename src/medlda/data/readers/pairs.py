"""The shared parsing of bow and lda-c files: data lines, and their word:count pairs gathered flat."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import numpy as np

from medlda.data.corpus import Corpus
from medlda.data.readers.paths import PathLike
from medlda.exceptions import InputFormatError

MAX_COUNT = 2**31 - 1  # larger word counts or ids mean a corrupt file (ids are int32)


def read_text(path: PathLike) -> str:
    """The file decoded as UTF-8 (BOM dropped); invalid bytes become ``\\xNN`` escapes, since real
    vocabulary files hold truncated characters (hotel ``voc.dat`` line 2606 is ``cr\\xc3``)."""
    return Path(path).read_bytes().decode("utf-8-sig", errors="backslashreplace")


def data_lines(path: PathLike) -> Iterator[tuple[int, list[str]]]:
    """(1-based line number, whitespace tokens) of each line that is neither blank nor a ``#`` comment."""
    for lineno, line in enumerate(read_text(path).split("\n"), 1):
        tokens = line.split()
        if tokens and not tokens[0].startswith("#"):
            yield lineno, tokens


@dataclass
class Pairs:
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
            raise InputFormatError(self.path, lineno, f"{problem} in pair {shown(pairs[bad])!r} "
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
        pair = shown(self.words[i] + ":" + self.counts[i])
        raise self.error_at(i, f"count {shown(self.counts[i])!r} in pair {pair!r} is not a positive integer "
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


def shown(text: str, limit: int = 40) -> str:
    """``text`` cut to ``limit`` characters for an error message (a binary file makes huge tokens)."""
    return text if len(text) <= limit else text[:limit] + "..."


def raw_ids(acc: Pairs, codes: np.ndarray, keys: list[str]) -> np.ndarray:
    """Each pair's integer word id, every distinct id string checked to lie in [0, MAX_COUNT]."""
    for k, key in enumerate(keys):
        if not (key.isascii() and key.isdigit() and int(key) <= MAX_COUNT):
            raise acc.error_at(int(np.argmax(codes == k)),
                               f"word id {key!r} is not an integer in [0, {MAX_COUNT}]")
    return np.array([int(key) for key in keys], dtype=np.int64)[codes]


def map_ids(raw: np.ndarray, vocabulary) -> tuple[np.ndarray, np.ndarray]:
    """Integer word ids used as they are; against a vocabulary, ids past its end become -1 (OOV)."""
    if vocabulary is None:
        n_words = int(raw.max()) + 1 if raw.size else 0
        return raw, np.array([str(i) for i in range(n_words)], dtype=str)
    vocabulary = np.asarray(vocabulary, dtype=str)
    return np.where(raw < vocabulary.size, raw, -1), vocabulary
