"""Documents as lists of tokens, each document a list of word strings already split (the form
gensim and tomotopy take), and the message for inputs that are no form of documents."""

from __future__ import annotations

from typing import Sequence

import numpy as np

DOCUMENT_FORMS = ("a document-term count matrix (documents x words: a NumPy array or a scipy.sparse matrix), a "
                  "Corpus, lists of tokens (one list of word strings per document), or raw texts through a "
                  "vectorizer (make_pipeline(medlda.data.text.make_vectorizer(), estimator))")


def is_token_lists(X, allow_empty: bool = False) -> bool:
    """Whether ``X`` is documents as lists of tokens: a list or tuple of lists or tuples of
    strings, at least one token in all (``allow_empty``: or none)."""
    if not isinstance(X, (list, tuple)) or not all(isinstance(doc, (list, tuple)) for doc in X):
        return False
    return (allow_empty or any(X)) and all(isinstance(word, str) for doc in X for word in doc)


def token_arrays(docs: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
    """(tokens, doc_ptr): every token of ``docs`` in one str array, document ``d``'s at
    ``tokens[doc_ptr[d]:doc_ptr[d + 1]]``."""
    if not is_token_lists(docs, allow_empty=True):
        raise ValueError(not_documents(docs))
    lengths = np.fromiter((len(doc) for doc in docs), dtype=np.int64, count=len(docs))
    tokens = np.array([word for doc in docs for word in doc], dtype=str)
    return tokens, np.concatenate(([0], np.cumsum(lengths)))


def not_documents(X) -> str:
    """Why ``X`` cannot be read as documents, and the forms that can."""
    if _is_bag_of_words(X):
        return ("X looks like gensim's bag-of-words (each document a list of (word id, count) pairs): turn it into "
                "a count matrix first, e.g. gensim.matutils.corpus2csc(X).T, or give the documents' tokens; "
                f"medlda reads {DOCUMENT_FORMS}")
    return f"X is not documents in a form medlda reads ({type(X).__name__}); give {DOCUMENT_FORMS}"


def _is_bag_of_words(X) -> bool:
    try:
        pairs = [pair for doc in X for pair in doc]
    except TypeError:
        return False
    return bool(pairs) and all(isinstance(p, (list, tuple)) and len(p) == 2 and not isinstance(p[0], str)
                               for p in pairs[:100])
