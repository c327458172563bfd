"""The bag-of-words format: one document a line, ``LABELS word:count word:count ...``.

Labels are comma- or space-separated (every token before the first one holding ``:``), or absent
on every line of an unlabeled file. Words are tokens, or integer ids when every word in the file
is an integer (svmlight).
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from medlda.data.corpus import Corpus
from medlda.data.readers.pairs import Pairs, data_lines, map_ids, raw_ids
from medlda.data.readers.paths import PathLike
from medlda.exceptions import InputFormatError
from medlda.io.atomic import atomic_write_text


def read_bow(path: PathLike, vocabulary: Sequence[str] | np.ndarray | None = None) -> Corpus:
    """Read a ``LABELS word:count ...`` file (words or integer ids), optionally against a vocabulary."""
    acc = Pairs(str(path))
    for lineno, tokens in data_lines(path):
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
        ids, vocab = map_ids(raw_ids(acc, codes, keys), vocabulary)
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


def _split_word_pairs(pairs: list[str]) -> tuple[list[str], list[str], int | None]:
    """Words and counts of ``word:count`` pairs (split at the last ':'); index of a bad pair or None."""
    split = [p.rpartition(":") for p in pairs]
    words = [s[0] for s in split]
    return words, [s[2] for s in split], (words.index("") if "" in words else None)
