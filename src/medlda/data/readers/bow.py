"""The bag-of-words format: one document a line, ``LABELS word:count word:count ...``.

Labels are comma- or space-separated (every token before the first one holding ``:``), or absent
on every line of an unlabeled file. Against a given vocabulary every word is looked up as written
(a word of digits stays a word). Without one, the words are tokens, or integer ids when every word
in the file is an integer (svmlight).
"""

from __future__ import annotations

from itertools import repeat
from pathlib import Path
from typing import Sequence

import numpy as np

from medlda.data.corpus import Corpus
from medlda.data.readers.pairs import (
    MAX_COUNT,
    TokenBuffer,
    data_lines,
    id_vocabulary,
    is_uint,
    positive_counts,
    shown,
    split_pairs,
    token_chunks,
)
from medlda.data.readers.paths import PathLike
from medlda.exceptions import InputFormatError
from medlda.io.atomic import atomic_write_text

MAX_LABELS = 100_000  # label tokens before a line's first pair: more is raw text, not bag-of-words
_NOT_BOW = ("(a bag-of-words line is 'LABELS word:count ...'; if this is raw text, one document a line, "
            "pass --format txt; or use a .csv/.jsonl table)")


def read_bow(path: PathLike, vocabulary: Sequence[str] | np.ndarray | None = None) -> Corpus:
    """Read a ``LABELS word:count ...`` file, optionally against a vocabulary.

    Against ``vocabulary`` each word is looked up as written: a word of digits is a word, never an
    id; unknown words are dropped and counted (``n_oov_dropped``). Without one, a file whose words
    are all integers is an id file: word ``"7"`` is id 7, over the vocabulary ``"0"`` .. the
    largest id; any other file's vocabulary is its words in order of first appearance. The file is
    read a line at a time into one int32 token buffer (see :mod:`medlda.data.readers.pairs`).
    """
    docs = TokenBuffer(str(path))
    index: dict[str, int] = {} if vocabulary is None else {str(w): i for i, w in enumerate(vocabulary)}
    for lineno, line in data_lines(path):
        label_tokens: list[str] = []
        started = False
        for tokens in token_chunks(line):
            if not started:
                k = next((i for i, t in enumerate(tokens) if ":" in t), len(tokens))
                label_tokens += tokens[:k]
                if len(label_tokens) > MAX_LABELS:
                    raise InputFormatError(docs.path, lineno, f"more than {MAX_LABELS:,} labels before the first "
                                                              f"word:count pair {_NOT_BOW}")
                if k == len(tokens):
                    continue
                docs.begin(lineno, _labels(label_tokens))
                started, tokens = True, tokens[k:]
            words, counts = split_pairs(docs.path, lineno, tokens, last=True)
            values = positive_counts(docs.path, lineno, words, counts)
            ids = list(map(index.get, words, repeat(-1)))
            if vocabulary is None and -1 in ids:
                _add_new_words(index, words, ids)
            docs.add(ids, values)
        if not started:
            docs.begin(lineno, _labels(label_tokens))
        docs.end()
    if not docs.n_docs:
        raise InputFormatError(docs.path, None, "no documents (the file is empty)")
    if not docs.n_pairs:  # every token read as a label: not bag-of-words at all
        raise InputFormatError(docs.path, None, f"no word:count pair on any line {_NOT_BOW}")
    if vocabulary is not None:
        return docs.corpus(np.asarray(vocabulary, dtype=str))
    keys = list(index)
    if all(key.isascii() and key.isdigit() for key in keys):
        return docs.corpus(_ids_as_given(docs, keys))
    return docs.corpus(np.array(keys, dtype=str))


def _add_new_words(index: dict[str, int], words: list[str], ids: list[int]) -> None:
    """Give the words not seen before (id -1 in ``ids``) the next ids, in place."""
    k = ids.index(-1)
    for _ in range(ids.count(-1)):
        k = ids.index(-1, k)
        ids[k] = index.setdefault(words[k], len(index))


def _labels(tokens: list[str]) -> tuple[str, ...]:
    return tuple(lab for tok in tokens for lab in tok.split(",") if lab)


def _ids_as_given(docs: TokenBuffer, keys: list[str]) -> np.ndarray:
    """Turn the buffer's codes (positions in ``keys``) into the integer ids the keys spell, in
    place, and return the id vocabulary; an id past ``MAX_COUNT`` is an error at its first line."""
    tokens = docs.token_ids()
    bad = next((k for k, key in enumerate(keys) if not (is_uint(key) and int(key) <= MAX_COUNT)), None)
    if bad is not None:
        line = docs.line_of_token(int(np.argmax(tokens == bad)))
        raise InputFormatError(docs.path, line, f"word id {shown(keys[bad])!r} is not an integer in [0, {MAX_COUNT}]")
    ids = np.array([int(key) for key in keys], dtype=np.int64)
    top = int(np.argmax(ids))
    vocabulary = id_vocabulary(int(ids[top]) + 1, f"{docs.path}, line {docs.line_of_token(int(np.argmax(tokens == top)))}")
    step = 1 << 22
    for start in range(0, tokens.size, step):
        tokens[start:start + step] = ids[tokens[start:start + step]]
    return vocabulary


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
