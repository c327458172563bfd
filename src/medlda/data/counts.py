"""Document-term count matrices: their shape and their checks, for every input that a model or a
corpus takes as counts (a ``Corpus``, a sparse or dense matrix, lists of tokens)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from medlda.data.tokens import is_token_lists, not_documents


class CountDocuments:
    """What the checks need of a ``Corpus`` (its base class): its shape and its count matrix."""

    @property
    def n_docs(self) -> int:
        raise NotImplementedError

    @property
    def n_words(self) -> int:
        raise NotImplementedError

    @property
    def n_tokens(self) -> int:
        raise NotImplementedError

    def to_sparse(self) -> sp.csr_matrix:
        raise NotImplementedError


MAX_TOKENS = 2**31 - 1  # tokens of one corpus: more means X is not raw counts, or needs sharding

TEXT_NOT_COUNTS = ("X holds text, not word counts: turn texts into counts first, e.g. "
                   "make_pipeline(medlda.data.text.make_vectorizer(), MedLDAClassifier(...)), or Corpus.from_texts(texts) "
                   "(new texts for a fitted model: Corpus.from_texts(texts, vocabulary=model.vocabulary_))")


def count_matrix_shape(X) -> tuple[int, int]:
    """(documents, words) of a count matrix, Corpus or 2-d array, refusing text and other shapes
    by name (cheap: no conversion of a sparse matrix or a Corpus); lists of tokens have their
    distinct words."""
    if isinstance(X, CountDocuments):
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
    if isinstance(X, CountDocuments):
        return X.to_sparse()
    count_matrix_shape(X)
    dense = None if sp.issparse(X) else np.asarray(X)
    if np.iscomplexobj(X.data if dense is None else dense):
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
