"""Topic coherence: how often a topic's top words occur in the same documents of a reference corpus.

Two standard measures over document co-occurrence, averaged over the pairs of a topic's top words:

- ``"npmi"`` (Bouma 2009; Aletras and Stevenson 2013; Roeder et al. 2015): normalized pointwise
  mutual information log(p(a, b) / (p(a) p(b))) / -log p(a, b), in [-1, 1]: 1 when the two words
  always occur together, 0 when independent, -1 when never together. It tracks human judgements of
  topic quality best of the document-level measures, on held-out or external documents.
- ``"umass"`` (Mimno et al. 2011): log((D(a, b) + 1) / D(a)) for each word b and each word a ranked
  above it, D counting documents; meant for the training documents. At most 0 when D(a) >= 1.

Only document frequencies enter, so one sparse product gives every pair at once. A top word that
no reference document contains has no defined value: its pairs are left out of the mean, and a
topic with no pair left gets NaN.
"""

from __future__ import annotations

import numpy as np

from medlda.data.corpus import Corpus

MEASURES = ("npmi", "umass")


def document_frequencies(docs: Corpus, word_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """For the words ``word_ids`` (U,): how many documents contain each (U,), how many contain
    each pair (U, U), and the number of documents."""
    occurs = docs.to_sparse()[:, word_ids]
    occurs.data[:] = 1  # a document counts once, however often it repeats the word
    together = (occurs.T @ occurs).toarray()
    return np.diag(together).copy(), together, docs.n_docs


def topic_coherence(top_words: np.ndarray, docs: Corpus, measure: str = "npmi") -> np.ndarray:
    """Coherence of each topic's top words in a reference corpus: how often they occur together.

    Parameters
    ----------
    top_words : array-like of shape (K, M)
        Word ids of each topic, ordered from the most probable (``top_word_ids``), M >= 2.
    docs : Corpus
        Reference documents over the same vocabulary.
    measure : {"npmi", "umass"}, default="npmi"
        ``"npmi"``: normalized pointwise mutual information of each pair, in [-1, 1] (1: always
        together, 0: independent, -1: never together), for held-out or external documents;
        ``"umass"``: log((D(a, b) + 1) / D(a)), for the training documents (module docstring).

    Returns
    -------
    ndarray of shape (K,)
        The mean over each topic's pairs; pairs with a word that no document contains are left
        out, and a topic with no pair left gets NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from medlda import Corpus
    >>> from medlda.evaluation.coherence import topic_coherence
    >>> docs = Corpus.from_tokens([["apple", "pear"], ["apple", "pear", "fig"], ["fig", "kiwi"], ["kiwi"]])
    >>> docs.vocabulary.tolist()
    ['apple', 'fig', 'kiwi', 'pear']
    >>> topic_coherence(np.array([[0, 3], [0, 1]]), docs)
    array([1., 0.])
    """
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {', '.join(MEASURES)}; got {measure!r}")
    top_words = np.asarray(top_words)
    if top_words.ndim != 2 or top_words.shape[1] < 2:
        raise ValueError(f"coherence needs at least 2 words per topic; got shape {top_words.shape}")
    if top_words.size and (top_words.min() < 0 or top_words.max() >= docs.n_words):
        raise ValueError(f"word ids must lie in [0, {docs.n_words}), the reference vocabulary")
    unique, position = np.unique(top_words, return_inverse=True)
    position = position.reshape(top_words.shape)
    df, co, n_docs = document_frequencies(docs, unique)
    n_words = top_words.shape[1]
    later, earlier = np.tril_indices(n_words, -1)  # every pair once: (b, a) with a ranked above b
    a, b = position[:, earlier], position[:, later]
    df_a, df_b, co_ab = df[a].astype(float), df[b].astype(float), co[a, b].astype(float)
    defined = (df_a > 0) & (df_b > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        if measure == "umass":
            value = np.log((co_ab + 1.0) / df_a)
        else:
            p_ab = co_ab / n_docs
            pmi = np.log(p_ab * n_docs * n_docs / (df_a * df_b))
            value = np.where(co_ab == 0, -1.0, np.where(co_ab == n_docs, 1.0, pmi / -np.log(p_ab)))
    value = np.where(defined, value, 0.0)
    n_defined = defined.sum(axis=1)
    with np.errstate(invalid="ignore"):
        return np.where(n_defined > 0, value.sum(axis=1) / n_defined, np.nan)
