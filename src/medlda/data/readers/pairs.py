"""The shared parsing of bow and lda-c files: data lines streamed from the file, their ``key:count``
pairs checked a piece of a line at a time, and every kept token's word id appended to one growing
int32 buffer (:class:`TokenBuffer`), so that reading holds the final arrays and a line, not a
Python object per pair.

Bounds, checked as the file is read and named with its line: a count is a positive integer of at
most ``MAX_COUNT``; a document's tokens at most ``limits.DOC_TOKENS``, the corpus' kept tokens at
most ``limits.TOKENS``.
"""

from __future__ import annotations

import re
from array import array
from pathlib import Path
from typing import Iterator

import numpy as np

from medlda.data.corpus import Corpus
from medlda.data.readers.paths import PathLike
from medlda.exceptions import InputFormatError
from medlda.limits import DOC_TOKENS, TOKENS, WORDS

MAX_COUNT = 2**31 - 1  # larger word counts or ids mean a corrupt file (ids are int32)
MAX_DIGITS = len(str(MAX_COUNT))
CHUNK = 1 << 20  # characters of a line split into tokens at a time
_SPACE = re.compile(r"\s")
_FIRST = re.compile(r"\s*(\S)")


def read_text(path: PathLike) -> str:
    """The file decoded as UTF-8 (BOM dropped); invalid bytes become ``\\xNN`` escapes, since real
    vocabulary files hold truncated characters (hotel ``voc.dat`` line 2606 is ``cr\\xc3``)."""
    return Path(path).read_bytes().decode("utf-8-sig", errors="backslashreplace")


def data_lines(path: PathLike) -> Iterator[tuple[int, str]]:
    """(1-based line number, line) of each line that is neither blank nor a ``#`` comment, read
    one at a time (UTF-8, invalid bytes as ``\\xNN`` escapes; lines end at ``\\n`` only). A NUL
    character is refused: it marks a binary file, and NumPy's strings would drop it from a word."""
    with open(path, encoding="utf-8-sig", errors="backslashreplace", newline="\n") as fh:
        for lineno, line in enumerate(fh, 1):
            first = _FIRST.match(line)
            if first is None or first.group(1) == "#":
                continue
            if "\x00" in line:
                raise InputFormatError(str(path), lineno, "holds a NUL character: a binary file, not text")
            yield lineno, line


def token_chunks(line: str, size: int | None = None) -> Iterator[list[str]]:
    """The whitespace tokens of ``line``, in lists of those starting within about ``size``
    (default ``CHUNK``) characters (a token is never cut): a long line is never split whole."""
    size = size or CHUNK
    start, end_of_line = 0, len(line)
    while start < end_of_line:
        end = start + size
        if end < end_of_line:
            space = _SPACE.search(line, end)
            end = space.start() if space else end_of_line
        else:
            end = end_of_line
        tokens = line[start:end].split()
        if tokens:
            yield tokens
        start = end


def shown(text: str, limit: int = 40) -> str:
    """``text`` cut to ``limit`` characters for an error message (a binary file makes huge tokens)."""
    return text if len(text) <= limit else text[:limit] + "..."


def split_pairs(path: str, lineno: int, pairs: list[str], last: bool) -> tuple[list[str], list[str]]:
    """Keys and counts of ``key:count`` tokens, split at the last ':' (bow words may hold ':')
    or the first (lda-c ids); a token without ':' or with an empty key is an error."""
    flat = ":".join(pairs).split(":")
    if len(flat) == 2 * len(pairs) and not [p for p in pairs if ":" not in p]:  # one ':' in each
        keys, counts = flat[0::2], flat[1::2]
    else:
        split = [p.rpartition(":") if last else p.partition(":") for p in pairs]
        keys, counts = [s[0] for s in split], [s[2] for s in split]
        bad = next((p for p, s in zip(pairs, split) if not s[1]), None)
        if bad is not None:
            raise InputFormatError(path, lineno, f"missing ':' in pair {shown(bad)!r} (expected word:count)")
    if "" in keys:
        raise InputFormatError(path, lineno, f"empty word in pair {shown(pairs[keys.index('')])!r} "
                                             "(expected word:count)")
    return keys, counts


def positive_counts(path: str, lineno: int, keys: list[str], counts: list[str]) -> list[int]:
    """The counts, each a positive integer of at most ``MAX_COUNT``, else the error naming the
    first bad pair."""
    digits = "".join(counts)
    if digits.isascii() and digits.isdigit():  # so int() fails only on '' or thousands of digits
        try:
            values = list(map(int, counts))
        except ValueError:
            values = None
        if values is not None and min(values) > 0 and max(values) <= MAX_COUNT:
            return values
    i = next(i for i, c in enumerate(counts) if not is_uint(c) or not 0 < int(c) <= MAX_COUNT)
    raise InputFormatError(path, lineno, f"count {shown(counts[i])!r} in pair {shown(keys[i] + ':' + counts[i])!r} "
                                         f"is not a positive integer (at most {MAX_COUNT})")


def is_uint(text: str) -> bool:
    """Whether ``text`` is ASCII digits short enough to be a count or an id (int() never sees more)."""
    return text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS


def word_ids(path: str, lineno: int, ids: list[str]) -> list[int]:
    """Integer word ids, each in [0, ``MAX_COUNT``], else the error naming the first bad one."""
    digits = "".join(ids)
    if digits.isascii() and digits.isdigit():
        try:
            values = list(map(int, ids))
        except ValueError:
            values = None
        if values is not None and max(values) <= MAX_COUNT:
            return values
    bad = next(i for i in ids if not is_uint(i) or int(i) > MAX_COUNT)
    raise InputFormatError(path, lineno, f"word id {shown(bad)!r} is not an integer in [0, {MAX_COUNT}]")


class TokenBuffer:
    """A file's documents as they are read: each kept token's word id in one growing int32 buffer,
    each kept document's end, line and labels (equal label tuples shared). Pairs wait in a small
    batch (``BATCH`` of them) that is turned into tokens at once. A document whose tokens are all
    out of vocabulary, or that has none, is skipped and counted."""

    BATCH = 1 << 16

    def __init__(self, path: str) -> None:
        self.path = path
        self.tokens = array("i")
        self.ends = array("q")
        self.lines = array("q")
        self.labels: list[tuple[str, ...]] = []
        self.n_docs = self.n_pairs = self.n_empty = self.n_oov = 0
        self.labeled_line: int | None = None
        self.unlabeled_line: int | None = None
        self._shared: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._ids: list[int] = []
        self._counts: list[int] = []
        self._docs: list[tuple[int, tuple[str, ...], int]] = []  # (line, labels, pairs) of the batch
        self._line = self._doc_tokens = self._doc_pairs = 0
        self._doc_labels: tuple[str, ...] = ()
        self._doc_limit = DOC_TOKENS.value

    def begin(self, lineno: int, labels: tuple[str, ...]) -> None:
        """Start the document of line ``lineno``; every document has labels or none has."""
        if labels:
            self.labeled_line = self.labeled_line or lineno
        else:
            self.unlabeled_line = self.unlabeled_line or lineno
        if self.labeled_line and self.unlabeled_line:
            raise InputFormatError(self.path, max(self.labeled_line, self.unlabeled_line),
                                   f"line {self.labeled_line} has labels but line {self.unlabeled_line} "
                                   "has none; label every document or none")
        self._line, self._doc_tokens, self._doc_pairs = lineno, 0, 0
        self._doc_labels = self._shared.setdefault(labels, labels)
        self.n_docs += 1

    def add(self, ids: list[int], counts: list[int]) -> None:
        """Append pairs of the current document: word ids (-1: out of vocabulary, dropped and
        counted) and their positive counts."""
        self._doc_tokens += sum(counts)
        if self._doc_tokens > self._doc_limit:
            DOC_TOKENS.check(self._doc_tokens, f"{self.path}, line {self._line}")
        self._ids += ids
        self._counts += counts
        self._doc_pairs += len(ids)

    def end(self) -> None:
        """Close the current document (kept if it holds a token, else counted as empty)."""
        self._docs.append((self._line, self._doc_labels, self._doc_pairs))
        self.n_pairs += self._doc_pairs
        if len(self._ids) >= self.BATCH:
            self._flush()

    def _flush(self) -> None:
        """Turn the batch's pairs into tokens, appended to the buffer; record its kept documents."""
        ids = np.array(self._ids, dtype=np.int32)
        counts = np.array(self._counts, dtype=np.intp)
        known = ids >= 0
        if not known.all():
            self.n_oov += int(counts[~known].sum())
            counts = np.where(known, counts, 0)
        n_pairs = np.fromiter((d[2] for d in self._docs), dtype=np.int64, count=len(self._docs))
        before = np.concatenate(([0], np.cumsum(counts)))
        pair_ends = np.cumsum(n_pairs)
        kept = before[pair_ends] - before[pair_ends - n_pairs]
        total = len(self.tokens) + np.cumsum(kept)
        if total.size and total[-1] > TOKENS.value:
            over = int(np.argmax(total > TOKENS.value))
            TOKENS.check(int(total[over]), f"{self.path}, line {self._docs[over][0]}")
        self.tokens.frombytes(np.repeat(ids, counts).view(np.uint8))
        keep = np.flatnonzero(kept > 0)
        self.ends.frombytes(total[keep].astype(np.int64).view(np.uint8))
        self.lines.extend(self._docs[d][0] for d in keep.tolist())
        self.labels.extend(self._docs[d][1] for d in keep.tolist())
        self.n_empty += len(self._docs) - keep.size
        self._ids, self._counts, self._docs = [], [], []

    def token_ids(self) -> np.ndarray:
        """The int32 word ids read so far, a view of the buffer (no copy)."""
        self._flush()
        return np.frombuffer(self.tokens, dtype=np.int32) if len(self.tokens) else np.zeros(0, np.int32)

    def line_of_token(self, position: int) -> int:
        """The line of the document holding token ``position``."""
        return int(self.lines[int(np.searchsorted(np.frombuffer(self.ends, np.int64), position, side="right"))])

    def corpus(self, vocabulary: np.ndarray) -> Corpus:
        """The corpus of the kept documents over ``vocabulary``; a file without data lines is an error."""
        if not self.n_docs:
            raise InputFormatError(self.path, None, "no documents (the file is empty)")
        word_ids = self.token_ids()
        ends = np.frombuffer(self.ends, np.int64) if len(self.ends) else np.zeros(0, np.int64)
        return Corpus(
            word_ids,
            np.concatenate(([0], ends)),
            np.asarray(vocabulary, dtype=str),
            self.labels if self.labeled_line else None,
            n_empty_skipped=self.n_empty,
            n_oov_dropped=self.n_oov,
            source=self.path,
            doc_names=[f"line {n}" for n in self.lines],
        )


def id_vocabulary(n_words: int, source: str) -> np.ndarray:
    """The stand-in vocabulary of an id file: "0", "1", ..., ``n_words - 1`` (as narrow strings),
    its size checked against the ``WORDS`` limit (``source``: where the largest id is)."""
    WORDS.check(n_words, source)
    return np.arange(n_words).astype(f"U{len(str(max(n_words - 1, 0)))}")
