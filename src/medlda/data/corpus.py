"""Corpus: CSR-style token arrays plus vocabulary and labels, the one input every sampler reads."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
import scipy.sparse as sp

from medlda.data.corpus_files import NPY_FORMAT, NPY_META, read_corpus_folder
from medlda.data.splits import holdout_indices
from medlda.data.text import count_oov_tokens, make_vectorizer, vectorizer_for
from medlda.data.tokens import is_token_lists, not_documents, token_arrays
from medlda.exceptions import InputFormatError
from medlda.io.atomic import atomic_write, atomic_write_text


@dataclass
class Corpus:
    """Documents as flat token arrays.

    ``word_ids[doc_ptr[d]:doc_ptr[d + 1]]`` are the (int32) word ids of document ``d``;
    ``vocabulary[v]`` is the word with id ``v``. ``labels[d]`` is the tuple of label strings of
    document ``d`` (one for single-label data, several for multi-label data, a number written
    as text for regression) or ``labels`` is None for unlabeled data. ``n_empty_skipped`` and
    ``n_oov_dropped`` count what the reader left out, so callers can report it. ``vectorizer``:
    the CountVectorizer that turned raw texts into these counts, if they were texts (a model fitted
    on the corpus keeps it, to read new texts the same way).
    """

    word_ids: np.ndarray
    doc_ptr: np.ndarray
    vocabulary: np.ndarray
    labels: list[tuple[str, ...]] | None = None
    n_empty_skipped: int = 0
    n_oov_dropped: int = 0
    source: str | None = None
    doc_names: list[str] | None = field(default=None, repr=False)
    vectorizer: object | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.word_ids = np.ascontiguousarray(self.word_ids, dtype=np.int32)
        self.doc_ptr = np.ascontiguousarray(self.doc_ptr, dtype=np.int64)
        self.vocabulary = np.asarray(self.vocabulary, dtype=str)
        if self.doc_ptr.ndim != 1 or self.doc_ptr.size < 1 or self.doc_ptr[0] != 0:
            raise ValueError("doc_ptr must be a 1-d offset array starting at 0")
        if self.doc_ptr[-1] != self.word_ids.size or np.any(np.diff(self.doc_ptr) < 0):
            raise ValueError("doc_ptr must be non-decreasing and end at len(word_ids)")
        if self.word_ids.size and (self.word_ids.min() < 0 or self.word_ids.max() >= self.n_words):
            raise ValueError("word ids must lie in [0, len(vocabulary))")
        if self.labels is not None and len(self.labels) != self.n_docs:
            raise ValueError(f"{len(self.labels)} label entries for {self.n_docs} documents")

    # -- sizes -------------------------------------------------------------------------------
    @property
    def n_docs(self) -> int:
        return int(self.doc_ptr.size - 1)

    @property
    def n_words(self) -> int:
        """Vocabulary size V."""
        return int(self.vocabulary.size)

    @property
    def n_tokens(self) -> int:
        return int(self.word_ids.size)

    @property
    def doc_lengths(self) -> np.ndarray:
        return np.diff(self.doc_ptr)

    def __len__(self) -> int:
        return self.n_docs

    @property
    def shape(self) -> tuple[int, int]:
        """(documents, words), as the count matrix's: with ``__getitem__`` it lets scikit-learn's
        splitters (cross_val_score, train_test_split, GridSearchCV, CalibratedClassifierCV) take
        a Corpus as they take a matrix."""
        return self.n_docs, self.n_words

    def __getitem__(self, docs) -> "Corpus":
        """The documents at ``docs`` (a slice, indices or a boolean mask; one index: a corpus of
        that document), as ``subset``: rows, the way scikit-learn indexes X (also ``X[rows, ...]``
        and ``X[rows, :]``; words cannot be selected)."""
        if isinstance(docs, tuple):
            if len(docs) != 2 or not (docs[1] is Ellipsis or docs[1] == slice(None)):
                raise IndexError("a Corpus is indexed by documents only (corpus[rows] or corpus[rows, :])")
            docs = docs[0]
        if isinstance(docs, slice):
            docs = np.arange(self.n_docs)[docs]
        elif np.ndim(docs) == 0:
            docs = [docs]
        return self.subset(docs)

    # -- conversions -------------------------------------------------------------------------
    @classmethod
    def from_sparse(
        cls,
        X,
        vocabulary: Sequence[str] | None = None,
        labels: Sequence | None = None,
        source: str | None = None,
    ) -> "Corpus":
        """Build from a document-term count matrix (scipy.sparse or dense, non-negative integers)."""
        counts = check_count_matrix(X)
        n_docs, n_words = counts.shape
        if vocabulary is None:
            vocabulary = np.array([str(v) for v in range(n_words)])
        elif len(vocabulary) != n_words:
            raise ValueError(f"vocabulary has {len(vocabulary)} words, matrix has {n_words} columns")
        word_ids = np.repeat(counts.indices.astype(np.int32), counts.data.astype(np.int64))
        token_ends = np.concatenate(([0], np.cumsum(counts.data, dtype=np.int64)))
        doc_ptr = token_ends[counts.indptr]
        return cls(word_ids, doc_ptr, np.asarray(vocabulary, dtype=str),
                   labels=_as_label_tuples(labels, n_docs), source=source)

    @classmethod
    def from_texts(cls, texts: Iterable[str], labels: Sequence | None = None, vectorizer=None,
                   vocabulary: Sequence[str] | np.ndarray | None = None) -> "Corpus":
        """Tokenize raw texts with ``vectorizer`` (default: ``make_vectorizer()``, the news
        preprocessing), fitting it, and build a corpus over the words it keeps. Given a
        ``vocabulary`` (e.g. a fitted model's ``vocabulary_``), the texts are counted against it
        instead, with a copy of ``vectorizer``'s preprocessing: column v is word v, other tokens
        are dropped and counted (``n_oov_dropped``), and every text stays a document, empty or not."""
        texts = list(texts)
        if vocabulary is not None:
            vectorizer = vectorizer_for(vocabulary, vectorizer=vectorizer)
        elif vectorizer is None:
            vectorizer = make_vectorizer()
        X = vectorizer.fit_transform(texts)
        corpus = cls.from_sparse(X, vectorizer.get_feature_names_out(), labels=labels)
        corpus.vectorizer = vectorizer
        if vocabulary is not None:
            corpus.n_oov_dropped = count_oov_tokens(vectorizer, texts, X)
        return corpus

    @classmethod
    def from_tokens(cls, docs: Sequence[Sequence[str]], vocabulary: Sequence[str] | None = None,
                    labels: Sequence | None = None) -> "Corpus":
        """Build from documents as lists of tokens (word strings already split). The words are the
        documents' own, sorted, or ``vocabulary``'s (e.g. a fitted model's ``vocabulary_``: tokens
        it lacks are dropped, as ``to_vocabulary`` drops them); each document's tokens are ordered
        by word id, so the corpus is the one its count matrix gives."""
        tokens, doc_ptr = token_arrays(docs)
        words, ids = np.unique(tokens, return_inverse=True)
        ids = ids[np.lexsort((ids, np.repeat(np.arange(doc_ptr.size - 1), np.diff(doc_ptr))))]
        corpus = cls(ids, doc_ptr, words, _as_label_tuples(labels, doc_ptr.size - 1))
        return corpus if vocabulary is None else corpus.to_vocabulary(vocabulary)

    def to_sparse(self) -> sp.csr_matrix:
        """The document-term count matrix (D x V, CSR, int64 counts)."""
        doc_of_token = np.repeat(np.arange(self.n_docs), self.doc_lengths)
        X = sp.csr_matrix(
            (np.ones(self.n_tokens, dtype=np.int64), (doc_of_token, self.word_ids)),
            shape=(self.n_docs, self.n_words),
        )
        X.sum_duplicates()
        return X

    def subset(self, docs: np.ndarray | Sequence[int]) -> "Corpus":
        """The documents with the given indices (or boolean mask), in that order."""
        docs = np.arange(self.n_docs)[np.asarray(docs)]
        lengths = self.doc_lengths[docs]
        doc_ptr = np.concatenate(([0], np.cumsum(lengths)))
        starts = self.doc_ptr[docs]
        token_index = np.repeat(starts - doc_ptr[:-1], lengths) + np.arange(doc_ptr[-1])
        labels = None if self.labels is None else [self.labels[d] for d in docs]
        names = None if self.doc_names is None else [self.doc_names[d] for d in docs]
        return Corpus(self.word_ids[token_index], doc_ptr, self.vocabulary, labels,
                      source=self.source, doc_names=names, vectorizer=self.vectorizer)

    def to_vocabulary(self, vocabulary: Sequence[str] | np.ndarray) -> "Corpus":
        """The same documents, in the same order, over another ``vocabulary`` (e.g. a fitted model's
        ``vocabulary_``): each token's word gets its id there by word string, and tokens whose word
        it lacks are dropped and added to ``n_oov_dropped``, as a reader given a fixed vocabulary
        does. Unlike a reader, a document left without words is kept (a model gives it the prior),
        so that predictions stay one per document. Each document's tokens come out sorted by their
        new id, as ``from_sparse`` orders them: the same documents over the same words give the same
        corpus, and so the same draws of a seeded model, whatever the order of their vocabulary.
        The same vocabulary returns this corpus itself, uncopied (a memory-mapped corpus stays mapped)."""
        vocabulary = np.asarray(vocabulary, dtype=str)
        if vocabulary is self.vocabulary or np.array_equal(vocabulary, self.vocabulary):
            return self
        ids = vocabulary_lookup(self.vocabulary, vocabulary)[self.word_ids]
        known = ids >= 0
        kept_before = np.concatenate(([0], np.cumsum(known, dtype=np.int64)))  # kept tokens before each token
        doc_ptr = kept_before[self.doc_ptr]
        ids = ids[known]
        ids = ids[np.lexsort((ids, np.repeat(np.arange(self.n_docs), np.diff(doc_ptr))))]
        return Corpus(ids, doc_ptr, vocabulary, self.labels,
                      n_empty_skipped=self.n_empty_skipped,
                      n_oov_dropped=self.n_oov_dropped + int(known.size - np.count_nonzero(known)),
                      source=self.source, doc_names=self.doc_names, vectorizer=self.vectorizer)

    def holdout(self, n_test: int, random_state=None, stratify: bool = True) -> tuple["Corpus", "Corpus"]:
        """(train, test): ``n_test`` random documents set aside, in file order (``holdout_indices``)."""
        kept, held = holdout_indices(self.labels if stratify else None, self.n_docs, n_test, random_state)
        return self.subset(kept), self.subset(held)

    # -- files (memory-mapped corpora) --------------------------------------------------------
    def save_npy(self, directory) -> Path:
        """Write the corpus to ``directory`` as ``word_ids.npy``, ``doc_ptr.npy``, ``vocabulary.npy``
        and ``corpus.json`` (labels, names, counts), each file atomically and the JSON last; no pickle.
        :meth:`load` with ``mmap=True`` then reads the token arrays from disk as they are used."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        (directory / NPY_META).unlink(missing_ok=True)  # a half-rewritten folder is never loadable
        for name, arr in (("word_ids", self.word_ids), ("doc_ptr", self.doc_ptr), ("vocabulary", self.vocabulary)):
            atomic_write(directory / f"{name}.npy", lambda f, a=arr: np.save(f, a, allow_pickle=False))
        meta = {"format": NPY_FORMAT, "format_version": 1, "n_docs": self.n_docs, "n_tokens": self.n_tokens,
                "n_words": self.n_words, "source": self.source, "n_empty_skipped": self.n_empty_skipped,
                "n_oov_dropped": self.n_oov_dropped,
                "labels": None if self.labels is None else [list(lab) for lab in self.labels],
                "doc_names": self.doc_names}
        atomic_write_text(directory / NPY_META, json.dumps(meta))
        return directory

    @classmethod
    def load(cls, directory, mmap: bool = False) -> "Corpus":
        """Read a corpus written by :meth:`save_npy`. With ``mmap=True`` the int32 token array and
        the offsets are memory-mapped (copy-on-write, never written back): a corpus larger than
        memory is paged in as the sampler reads it, and the kernels take the arrays as they are."""
        parts = read_corpus_folder(directory, mmap)
        try:
            return cls(**parts)
        except ValueError as err:
            raise InputFormatError(str(directory), None, str(err)) from None

    @property
    def mmap_file(self) -> str | None:
        """The file the token array is memory-mapped from, if it is (else None)."""
        base = self.word_ids
        while base is not None and not isinstance(base, np.memmap):
            base = getattr(base, "base", None)
        if base is None or getattr(base, "filename", None) is None or base.size != self.word_ids.size:
            return None
        return str(base.filename)

    # -- labels ------------------------------------------------------------------------------
    def single_labels(self) -> np.ndarray:
        """One label per document, as integers when every label is an integer, else strings."""
        labels = self.require_labels()
        bad = [d for d, lab in enumerate(labels) if len(lab) != 1]
        if bad:
            raise ValueError(
                f"{len(bad)} documents do not carry exactly one label (first: {self.where(bad[0])}, with "
                f"{len(labels[bad[0]])}); single-label training needs one label per document"
            )
        return parse_label_values([lab[0] for lab in labels])

    def multi_labels(self) -> list[tuple[str, ...]]:
        """The label tuples of every document (multi-label data)."""
        return list(self.require_labels())

    def real_labels(self) -> np.ndarray:
        """One real-valued response per document (regression)."""
        labels = self.require_labels()
        out = np.empty(len(labels))
        for d, lab in enumerate(labels):
            try:
                if len(lab) != 1:
                    raise ValueError
                out[d] = float(lab[0])
            except ValueError:
                raise ValueError(f"{self.where(d)}: response {' '.join(lab)!r} is not one real number") from None
        return out

    def where(self, d: int) -> str:
        """Document d for a message: its file and name ('line N', its file in a folder) when known."""
        if self.doc_names is None:
            return f"document {d}" + (f" of {self.source}" if self.source else "")
        return f"{self.source}, {self.doc_names[d]}" if self.source else self.doc_names[d]

    def require_labels(self) -> list[tuple[str, ...]]:
        """The label tuples of every document; ValueError for an unlabeled corpus."""
        if self.labels is None:
            raise ValueError(f"corpus {self.source or ''} has no labels".replace("  ", " "))
        return self.labels


def vocabulary_lookup(words: Sequence[str] | np.ndarray, vocabulary: Sequence[str] | np.ndarray) -> np.ndarray:
    """The (int32) id in ``vocabulary`` of each of ``words``, -1 for a word it does not hold: how
    word ids of one vocabulary map to another's (vectorized, for vocabularies of 10^5+ words)."""
    words, vocabulary = np.asarray(words, dtype=str), np.asarray(vocabulary, dtype=str)
    if vocabulary.size == 0:
        return np.full(words.size, -1, dtype=np.int32)
    order = np.argsort(vocabulary, kind="stable")
    pos = np.minimum(np.searchsorted(vocabulary[order], words), vocabulary.size - 1)
    return np.where(vocabulary[order][pos] == words, order[pos], -1).astype(np.int32)


def is_id_vocabulary(vocabulary: np.ndarray) -> bool:
    """Whether ``vocabulary`` is the stand-in of a corpus built without words ("0", "1", ...,
    ``Corpus.from_sparse`` without a vocabulary): its words are column numbers, not words."""
    vocabulary = np.asarray(vocabulary, dtype=str)
    n = vocabulary.size
    if n and (vocabulary[0] != "0" or vocabulary[-1] != str(n - 1)):
        return False
    return bool(np.array_equal(vocabulary, np.arange(n).astype(str)))


def parse_label_values(values: Sequence[str]) -> np.ndarray:
    """Label strings as an int array when all are integers ("+1", "-1", "3"), else a str array."""
    try:
        return np.array([int(v) for v in values], dtype=np.int64)
    except ValueError:
        return np.array(values, dtype=str)


MAX_TOKENS = 2**31 - 1  # tokens of one corpus: more means X is not raw counts, or needs sharding

TEXT_NOT_COUNTS = ("X holds text, not word counts: turn texts into counts first, e.g. "
                   "make_pipeline(medlda.data.text.make_vectorizer(), MedLDAClassifier(...)), or Corpus.from_texts(texts) "
                   "(new texts for a fitted model: Corpus.from_texts(texts, vocabulary=model.vocabulary_))")


def count_matrix_shape(X) -> tuple[int, int]:
    """(documents, words) of a count matrix, Corpus or 2-d array, refusing text and other shapes
    by name (cheap: no conversion of a sparse matrix or a Corpus); lists of tokens have their
    distinct words."""
    if isinstance(X, Corpus):
        return X.n_docs, X.n_words
    if sp.issparse(X):
        return X.shape
    if is_token_lists(X):
        return len(X), len({word for doc in X for word in doc})
    try:
        arr = np.asarray(X)
    except ValueError:  # rows of unequal lengths
        raise ValueError(not_documents(X)) from None
    if arr.dtype.kind in "USO" and any(isinstance(v, (str, bytes)) for v in arr.ravel()[:100]):
        raise ValueError(TEXT_NOT_COUNTS)
    if arr.ndim != 2:
        one = " (one document: Reshape your data with X.reshape(1, -1))" if arr.ndim == 1 else ""
        raise ValueError(not_documents(X) if arr.ndim > 2 else
                         f"expected a 2-d document-term count matrix (documents x words), got shape {arr.shape}{one}")
    if arr.shape[0] == 0:  # scikit-learn's wording, which its estimator checks look for
        raise ValueError(f"Found array with 0 sample(s) (shape={arr.shape}) while a minimum of 1 is required: "
                         "the document-term matrix has no documents (rows)")
    if arr.shape[1] == 0:
        raise ValueError(f"Found array with 0 feature(s) (shape={arr.shape}) while a minimum of 1 is required: "
                         "the document-term matrix has no words (columns)")
    return arr.shape


def check_count_matrix(X) -> sp.csr_matrix:
    """Validate a document-term count matrix and return it as CSR with summed duplicates."""
    if isinstance(X, Corpus):
        return X.to_sparse()
    count_matrix_shape(X)
    dense = None if sp.issparse(X) else np.asarray(X)
    if np.iscomplexobj(X.data if sp.issparse(X) else dense):
        raise ValueError("Complex data not supported: a document-term matrix holds integer word counts")
    if dense is not None and dense.dtype == object:  # numbers in an object array (e.g. from pandas)
        dense = dense.astype(np.float64)
    counts = sp.csr_matrix(X, copy=True) if dense is None else sp.csr_matrix(dense)
    counts.sum_duplicates()
    counts.eliminate_zeros()
    data = counts.data
    if data.size:
        if not np.all(np.isfinite(data)):
            raise ValueError("document-term matrix contains NaN or infinite values")
        if data.min() < 0:
            raise ValueError("Negative values in data: the document-term matrix holds negative counts")
        if not np.all(data == np.round(data)):
            raise ValueError("document-term matrix must hold integer word counts")
        total = float(data.sum())
        if total > MAX_TOKENS:
            raise ValueError(f"document-term matrix holds {total:.4g} tokens (the sum of its counts), more than one "
                             f"corpus can ({MAX_TOKENS}): is it raw word counts?")
    counts.data = data.astype(np.int64)
    return counts


def _as_label_tuples(labels, n_docs: int) -> list[tuple[str, ...]] | None:
    if labels is None:
        return None
    if len(labels) != n_docs:
        raise ValueError(f"{len(labels)} labels for {n_docs} documents")
    out = []
    for lab in labels:
        if isinstance(lab, (tuple, list, set, frozenset)):
            out.append(tuple(str(x) for x in lab))
        else:
            out.append((str(lab),))
    return out
