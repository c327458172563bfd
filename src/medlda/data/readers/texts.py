"""Raw texts into a :class:`Corpus`: the txt format (one document a line) and the vectorizing every
text format (txt, folders, tables, Reuters) goes through."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from sklearn.base import clone

from medlda.data.corpus import Corpus
from medlda.data.readers.paths import PathLike, utf8_error
from medlda.data.text import count_oov_tokens, make_vectorizer
from medlda.exceptions import InputFormatError


def read_text_lines(path: PathLike) -> tuple[list[str], list[str]]:
    """Texts and names ('line N') of a UTF-8 file holding one raw-text document per line; a blank
    line is an empty document (skipped and counted later), the newline ending the file is none."""
    try:
        with open(path, encoding="utf-8-sig", newline="\n") as fh:
            lines = [line.rstrip("\n").rstrip("\r") for line in fh]
    except UnicodeDecodeError:
        line, offset, reason = utf8_error(path)
        raise InputFormatError(str(path), line, f"not UTF-8 text (byte {offset}: {reason}); "
                                                "save it as UTF-8") from None
    if not lines:
        raise InputFormatError(str(path), None, "no documents (the file is empty)")
    return lines, [f"line {n}" for n in range(1, len(lines) + 1)]


def texts_to_corpus(texts, labels, names, path: Path, vocabulary, vectorizer, news: bool) -> Corpus:
    """Vectorize raw texts (``make_vectorizer(news=news)``'s preprocessing, which strips headers,
    quotes and signatures of news messages, unless a vectorizer is given) into a Corpus without
    empty documents; with a fixed vocabulary, count the tokens it drops."""
    rules = ""
    if vectorizer is None:
        vectorizer = make_vectorizer(news=news, vocabulary=vocabulary)
        rules = " (words of 3+ letters in at least 3 documents, stop words removed)"
    else:
        vectorizer = clone(vectorizer)
        if vocabulary is not None:
            vectorizer.set_params(vocabulary=[str(w) for w in vocabulary])
    try:
        X = vectorizer.fit_transform(texts).tocsr()
    except ValueError as err:  # scikit-learn's words for an empty vocabulary, without the file
        raise InputFormatError(str(path), None, f"no words left in its {len(texts)} documents after "
                                                f"preprocessing{rules}: {err}") from None
    n_oov = 0 if vocabulary is None else count_oov_tokens(vectorizer, texts, X)
    keep = np.flatnonzero(np.asarray(X.sum(axis=1)).ravel() > 0)
    corpus = Corpus.from_sparse(X[keep], vectorizer.get_feature_names_out(),
                                labels=None if labels is None else [labels[d] for d in keep], source=str(path))
    corpus.n_empty_skipped = len(texts) - keep.size
    corpus.n_oov_dropped = n_oov
    corpus.vectorizer = vectorizer  # kept by a model fitted on the corpus, to read new texts the same way
    corpus.doc_names = [names[d] for d in keep]
    return corpus
