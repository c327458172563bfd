"""A corpus folder (``Corpus.save_npy``'s layout: ``word_ids.npy``, ``doc_ptr.npy``,
``vocabulary.npy`` and ``corpus.json``) read without trusting it: each ``.npy`` header is checked
(one dimension, the expected dtype, no pickle, its declared size against the bytes the file holds
and against a limit) before any array is loaded or mapped, and ``corpus.json`` is checked field by
field, so that a damaged or hostile folder ends in one :class:`InputFormatError` or
:class:`LimitError`, never an allocation of what a header claims.
"""

from __future__ import annotations

import json
import os
from functools import partial
from pathlib import Path
from typing import Self, TypeGuard

import numpy as np

from medlda.data.counts import CountDocuments
from medlda.exceptions import InputFormatError
from medlda.io.atomic import atomic_write, atomic_write_text
from medlda.limits import MEMBER_BYTES, TOKENS, WORDS, Limit

NPY_FORMAT = "medlda-corpus-npy"
NPY_META = "corpus.json"


def read_npy(path: Path, dtype: str, limit: Limit, mmap: bool = False) -> np.ndarray:
    """The 1-d array of ``path`` whose dtype is ``dtype`` (a dtype string, or ``'U'``: any
    unicode), its header checked first (module docstring): its length against ``limit``, and,
    unless memory-mapped, its bytes against ``limits.MEMBER_BYTES``."""
    try:
        with open(path, "rb") as fh:
            version = np.lib.format.read_magic(fh)
            if version == (1, 0):
                shape, _, found = np.lib.format.read_array_header_1_0(fh)
            elif version in ((2, 0), (3, 0)):
                shape, _, found = np.lib.format.read_array_header_2_0(fh)
            else:
                raise ValueError(f"unknown .npy format version {version}")
            data_bytes = os.fstat(fh.fileno()).st_size - fh.tell()
    except Exception as err:  # numpy's header parser raises ValueError, SyntaxError, TokenError, ...
        raise InputFormatError(str(path), None, f"not a readable .npy array ({err})") from None
    wanted = found.kind == "U" if dtype == "U" else found == np.dtype(dtype)
    if found.hasobject or not wanted or len(shape) != 1:
        raise InputFormatError(str(path), None, f"expected a 1-d array of {'unicode' if dtype == 'U' else dtype}, "
                                                f"found shape {shape} of {found}")
    limit.check(shape[0], str(path))
    declared = shape[0] * found.itemsize
    if not mmap:
        MEMBER_BYTES.check(declared, str(path))
    if declared != data_bytes:
        raise InputFormatError(str(path), None, f"its header declares {declared:,} bytes of data (shape {shape} "
                                                f"of {found}), the file holds {data_bytes:,}")
    return np.load(path, mmap_mode="c" if mmap else None, allow_pickle=False)


def read_corpus_folder(directory, mmap: bool = False) -> dict:
    """The arguments of ``Corpus(...)`` read from a corpus folder, every value checked."""
    directory = Path(directory)
    try:
        meta = json.loads((directory / NPY_META).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        raise InputFormatError(str(directory), None, f"not a corpus folder written by Corpus.save_npy "
                                                     f"({type(exc).__name__}: {str(exc)[:200]})") from None
    if not isinstance(meta, dict) or meta.get("format") != NPY_FORMAT:
        raise InputFormatError(str(directory), None, "not a corpus folder written by Corpus.save_npy")
    word_ids = read_npy(directory / "word_ids.npy", "int32", TOKENS, mmap)
    doc_ptr = read_npy(directory / "doc_ptr.npy", "int64", TOKENS, mmap)
    n_docs, n_tokens = meta.get("n_docs"), meta.get("n_tokens")
    if not (_is_count(n_docs) and _is_count(n_tokens)) or word_ids.size != n_tokens or doc_ptr.size != n_docs + 1:
        raise InputFormatError(str(directory), None, f"array sizes disagree with {NPY_META}")
    vocabulary = read_npy(directory / "vocabulary.npy", "U", WORDS)
    labels = meta.get("labels")
    names = meta.get("doc_names")
    if labels is not None and not (isinstance(labels, list) and len(labels) == n_docs
                                   and all(isinstance(lab, list) and all(isinstance(v, str) for v in lab)
                                           for lab in labels)):
        raise InputFormatError(str(directory / NPY_META), None, "'labels' must be null or a list of n_docs "
                                                                "lists of strings")
    if names is not None and not (isinstance(names, list) and len(names) == n_docs
                                  and all(isinstance(v, str) for v in names)):
        raise InputFormatError(str(directory / NPY_META), None, "'doc_names' must be null or a list of n_docs strings")
    counts = {key: meta.get(key, 0) for key in ("n_empty_skipped", "n_oov_dropped")}
    source = meta.get("source")
    if not all(map(_is_count, counts.values())) or not (source is None or isinstance(source, str)):
        raise InputFormatError(str(directory / NPY_META), None, "'n_empty_skipped' and 'n_oov_dropped' must be "
                                                                "counts, 'source' null or a string")
    return dict(word_ids=word_ids, doc_ptr=doc_ptr, vocabulary=vocabulary,
                labels=None if labels is None else [tuple(lab) for lab in labels], **counts,
                source=source or str(directory), doc_names=names)


def _is_count(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


class CorpusFiles(CountDocuments):
    """Writing a ``Corpus`` to a folder and reading it back, memory-mapped or not (a mixin)."""

    word_ids: np.ndarray
    doc_ptr: np.ndarray
    vocabulary: np.ndarray
    labels: list[tuple[str, ...]] | None
    doc_names: list[str] | None
    source: str | None
    n_empty_skipped: int
    n_oov_dropped: int

    def save_npy(self, directory: str | os.PathLike) -> Path:
        """Write the corpus to a folder of ``.npy`` files and ``corpus.json``, each atomically; no pickle.

        ``load(directory, mmap=True)`` then reads the token arrays from disk as they are used.

        Parameters
        ----------
        directory : str or path-like
            The folder (created if needed).

        Returns
        -------
        Path
            ``directory``.

        Examples
        --------
        >>> from medlda import Corpus
        >>> corpus = Corpus.from_tokens([["apple", "pear", "apple"], ["pear", "fig"]], labels=["a", "b"])
        >>> folder = corpus.save_npy("corpus")
        >>> Corpus.load(folder, mmap=True).mmap_file.endswith("word_ids.npy")
        True
        """
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        (directory / NPY_META).unlink(missing_ok=True)  # a half-rewritten folder is never loadable
        for name, arr in (("word_ids", self.word_ids), ("doc_ptr", self.doc_ptr), ("vocabulary", self.vocabulary)):
            atomic_write(directory / f"{name}.npy", partial(np.save, arr=arr, allow_pickle=False))
        meta = {"format": NPY_FORMAT, "format_version": 1, "n_docs": self.n_docs, "n_tokens": self.n_tokens,
                "n_words": self.n_words, "source": self.source, "n_empty_skipped": self.n_empty_skipped,
                "n_oov_dropped": self.n_oov_dropped,
                "labels": None if self.labels is None else [list(lab) for lab in self.labels],
                "doc_names": self.doc_names}
        atomic_write_text(directory / NPY_META, json.dumps(meta))
        return directory

    @classmethod
    def load(cls, directory: str | os.PathLike, mmap: bool = False) -> Self:
        """Read a corpus written by ``save_npy``, its files checked first.

        Parameters
        ----------
        directory : str or path-like
            The folder.
        mmap : bool, default=False
            Memory-map the token array and the offsets (copy-on-write, never written back): a
            corpus larger than memory is paged in as the sampler reads it.

        Returns
        -------
        Corpus

        Raises
        ------
        InputFormatError
            For a damaged or foreign folder.

        Examples
        --------
        >>> from medlda import Corpus
        >>> corpus = Corpus.from_tokens([["apple", "pear", "apple"], ["pear", "fig"]], labels=["a", "b"])
        >>> Corpus.load(corpus.save_npy("corpus")).labels
        [('a',), ('b',)]
        """
        parts = read_corpus_folder(directory, mmap)
        try:
            return cls(**parts)
        except ValueError as err:
            raise InputFormatError(str(directory), None, str(err)) from None

    @property
    def mmap_file(self) -> str | None:
        """The file the token array is memory-mapped from, if it is (else None)."""
        base: object = self.word_ids
        while base is not None and not isinstance(base, np.memmap):
            base = getattr(base, "base", None)
        if not isinstance(base, np.memmap) or base.filename is None or base.size != self.word_ids.size:
            return None
        return str(base.filename)

