"""Corpus: CSR-style token arrays plus vocabulary and labels, the one input every sampler reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np
import scipy.sparse as sp

from medlda.data.corpus_files import NPY_META as NPY_META  # the folder layout, as the command line names it
from medlda.data.corpus_files import CorpusFiles
from medlda.data.corpus_labels import CorpusLabels, as_label_tuples
from medlda.data.counts import check_count_matrix
from medlda.data.splits import holdout_indices
from medlda.data.text import count_oov_tokens, make_vectorizer, vectorizer_for
from medlda.data.tokens import token_arrays


@dataclass
class Corpus(CorpusLabels, CorpusFiles):
    """Documents as flat token arrays, with their words and labels: what every estimator reads.

    ``word_ids[doc_ptr[d]:doc_ptr[d + 1]]`` are the word ids of document ``d``, ``vocabulary[v]``
    the word with id ``v``. A Corpus is built from counts, texts or tokens (``from_sparse``,
    ``from_texts``, ``from_tokens``), read from files (``medlda.read_corpus``), or memory-mapped
    (``save_npy`` and ``load``); it indexes by document as scikit-learn's splitters expect.

    Parameters
    ----------
    word_ids : array-like of int
        The tokens' word ids, document after document (stored as int32).
    doc_ptr : array-like of int
        Offsets, of length n_docs + 1, from 0 to len(word_ids).
    vocabulary : array-like of str
        The words, by id.
    labels : list of tuple of str, optional
        Each document's labels: one for single-label data, several for multi-label data, a number
        written as text for regression; None for unlabeled data.
    n_empty_skipped, n_oov_dropped : int, default=0
        Documents without words, and tokens of unknown words, that the reader left out.
    source : str, optional
        Where the documents came from (a file name), for messages.
    doc_names : list of str, optional
        Each document's name in its source (e.g. "line 3"), for messages.
    vectorizer : CountVectorizer, optional
        The vectorizer that turned raw texts into these counts; a model fitted on the corpus
        keeps it to read new texts the same way.

    Attributes
    ----------
    n_docs, n_words, n_tokens : int
        Documents, vocabulary size V and tokens.
    doc_lengths : ndarray of shape (n_docs,)
        Tokens per document.
    shape : tuple of int
        (n_docs, n_words), as the count matrix's.
    mmap_file : str or None
        The file the token array is memory-mapped from (``load(mmap=True)``), if it is.

    Examples
    --------
        >>> from medlda import Corpus
        >>> corpus = Corpus.from_tokens([["apple", "pear", "apple"], ["pear", "fig"]], labels=["a", "b"])
        >>> corpus.n_docs, corpus.vocabulary.tolist(), corpus.doc_lengths.tolist()
        (2, ['apple', 'fig', 'pear'], [3, 2])
        >>> corpus[1:].labels
        [('b',)]
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
        X: Any,
        vocabulary: Sequence[str] | np.ndarray | None = None,
        labels: Sequence | None = None,
        source: str | None = None,
    ) -> "Corpus":
        """A corpus of a document-term count matrix (scipy.sparse or dense, non-negative integers).

        Parameters
        ----------
        X : sparse matrix or array-like of shape (n_docs, n_words)
            Word counts.
        vocabulary : sequence of str, optional
            The words of the columns; default: the column numbers as text.
        labels : sequence, optional
            One label, or a sequence of labels, per document.
        source : str, optional
            Where the counts came from, for messages.

        Returns
        -------
        Corpus

        Examples
        --------
        >>> from medlda import Corpus
        >>> Corpus.from_sparse([[2, 0, 1], [0, 3, 0]], vocabulary=["a", "b", "c"]).word_ids
        array([0, 0, 2, 1, 1, 1], dtype=int32)
        """
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
                   labels=as_label_tuples(labels, n_docs), source=source)

    @classmethod
    def from_texts(cls, texts: Iterable[str], labels: Sequence | None = None, vectorizer: Any = None,
                   vocabulary: Sequence[str] | np.ndarray | None = None) -> "Corpus":
        """A corpus of raw texts, tokenized and counted by ``vectorizer``.

        Parameters
        ----------
        texts : iterable of str
            The documents.
        labels : sequence, optional
            One label, or a sequence of labels, per text.
        vectorizer : CountVectorizer, optional
            Default: ``medlda.data.text.make_vectorizer()``, the news preprocessing; it is fitted
            on ``texts``, and the corpus's words are those it keeps.
        vocabulary : sequence of str, optional
            Count against these words instead (e.g. a fitted model's ``vocabulary_``), with a copy
            of ``vectorizer``'s preprocessing: other tokens are dropped and counted
            (``n_oov_dropped``), and every text stays a document, empty or not.

        Returns
        -------
        Corpus

        Examples
        --------
        >>> from medlda import Corpus
        >>> from medlda.data.text import make_vectorizer
        >>> texts = ["the cat sat on the mat", "dogs chase cats"]
        >>> Corpus.from_texts(texts, vectorizer=make_vectorizer(min_df=1)).vocabulary.tolist()
        ['cat', 'cats', 'chase', 'dogs', 'mat', 'sat']
        >>> Corpus.from_texts(texts, vocabulary=["cat", "dogs", "mat"]).n_oov_dropped
        3
        """
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
    def from_tokens(cls, docs: Sequence[Sequence[str]], vocabulary: Sequence[str] | np.ndarray | None = None,
                    labels: Sequence | None = None) -> "Corpus":
        """A corpus of documents given as lists of tokens (words already split).

        Each document's tokens are ordered by word id: the corpus is the one its count matrix gives.

        Parameters
        ----------
        docs : sequence of sequence of str
            The documents' tokens.
        vocabulary : sequence of str, optional
            The words (e.g. a fitted model's ``vocabulary_``): tokens it lacks are dropped and
            counted, as ``to_vocabulary`` does. Default: the documents' own words, sorted.
        labels : sequence, optional
            One label, or a sequence of labels, per document.

        Returns
        -------
        Corpus

        Examples
        --------
        >>> from medlda import Corpus
        >>> corpus = Corpus.from_tokens([["apple", "pear", "apple"], ["pear", "fig"]], labels=["a", "b"])
        >>> corpus.word_ids, corpus.doc_ptr
        (array([0, 0, 2, 1, 2], dtype=int32), array([0, 3, 5]))
        """
        tokens, doc_ptr = token_arrays(docs)
        words, ids = np.unique(tokens, return_inverse=True)
        ids = ids[np.lexsort((ids, np.repeat(np.arange(doc_ptr.size - 1), np.diff(doc_ptr))))]
        corpus = cls(ids, doc_ptr, words, as_label_tuples(labels, doc_ptr.size - 1))
        return corpus if vocabulary is None else corpus.to_vocabulary(vocabulary)

    def to_sparse(self) -> sp.csr_matrix:
        """The document-term count matrix.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_docs, n_words)
            int64 counts.

        Examples
        --------
        >>> from medlda import Corpus
        >>> corpus = Corpus.from_tokens([["apple", "pear", "apple"], ["pear", "fig"]], labels=["a", "b"])
        >>> corpus.to_sparse().toarray()
        array([[2, 0, 1],
               [0, 1, 1]])
        """
        doc_of_token = np.repeat(np.arange(self.n_docs), self.doc_lengths)
        X = sp.csr_matrix(
            (np.ones(self.n_tokens, dtype=np.int64), (doc_of_token, self.word_ids)),
            shape=(self.n_docs, self.n_words),
        )
        X.sum_duplicates()
        return X

    def subset(self, docs: np.ndarray | Sequence[int]) -> "Corpus":
        """The documents at the given indices (or boolean mask), in that order; also ``corpus[docs]``.

        Parameters
        ----------
        docs : array-like of int or bool
            Document indices, or a mask of length n_docs.

        Returns
        -------
        Corpus
            Over the same vocabulary.

        Examples
        --------
        >>> from medlda import Corpus
        >>> corpus = Corpus.from_tokens([["apple", "pear", "apple"], ["pear", "fig"]], labels=["a", "b"])
        >>> corpus.subset([1, 0]).labels
        [('b',), ('a',)]
        """
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
        """The same documents, in the same order, over another ``vocabulary``.

        Each token's word gets its id there by word string; tokens whose word it lacks are dropped
        and added to ``n_oov_dropped``. A document left without words is kept (a model gives it
        the prior), so that predictions stay one per document. Tokens come out sorted by their new
        id, so the same documents over the same words give the same draws of a seeded model,
        whatever the order of the vocabulary; the same vocabulary returns this corpus itself.

        Parameters
        ----------
        vocabulary : sequence of str
            The words, e.g. a fitted model's ``vocabulary_``.

        Returns
        -------
        Corpus

        Examples
        --------
        >>> from medlda import Corpus
        >>> corpus = Corpus.from_tokens([["apple", "pear", "apple"], ["pear", "fig"]], labels=["a", "b"])
        >>> other = corpus.to_vocabulary(["pear", "plum"])
        >>> other.word_ids, other.n_oov_dropped
        (array([0, 0], dtype=int32), 3)
        """
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

    def holdout(self, n_test: int, random_state: int | np.random.Generator | None = None,
                stratify: bool = True) -> tuple[Corpus, Corpus]:
        """Set ``n_test`` random documents aside: (train, test), each in the corpus's order.

        Parameters
        ----------
        n_test : int
            Documents in the test part.
        random_state : int, Generator or None
            Seed of the draw.
        stratify : bool, default=True
            Keep each label's share in both parts (labeled corpora).

        Returns
        -------
        train, test : Corpus

        Examples
        --------
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, _ = make_supervised_corpus(300, 5, doc_length=30, random_state=0)
        >>> train, test = corpus.holdout(50, random_state=0)
        >>> train.n_docs, test.n_docs
        (250, 50)
        """
        kept, held = holdout_indices(self.labels if stratify else None, self.n_docs, n_test, random_state)
        return self.subset(kept), self.subset(held)


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
