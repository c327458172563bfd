"""LDA: unsupervised topics, with exact, blocked or light samplers."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import TransformerMixin
from sklearn.utils.validation import check_is_fitted

from medlda.data.corpus import Corpus
from medlda.engine.perplexity import HeldoutPerplexity, completion_perplexity
from medlda.models.base import TopicModel, as_corpus
from medlda.models.inputs import fit_corpus
from medlda.models.params import INFERENCE, PRIOR, RUN, SAMPLING, declared


class LDA(TransformerMixin, TopicModel):
    """Latent Dirichlet allocation: topics of documents without labels.

    Fitted by exact collapsed Gibbs sampling, blocked collapsed Gibbs sampling
    (docs/mathematics.md §8) or the light sampler (Metropolis-Hastings, O(1) per token).
    ``fit(X, heldout=X_heldout)`` also traces held-out perplexity; ``transform`` gives the topic
    proportions of new documents, so an LDA is a step of a scikit-learn Pipeline.

    Attributes
    ----------
    topic_word_counts_ : ndarray of shape (n_components, n_features)
        Tokens of each word assigned to each topic at the end of the chain.
    topic_word_ : ndarray of shape (n_components, n_features)
        Topic-word distributions phi, (n_kw + beta) / (n_k + V beta); rows sum to 1.
    components_ : ndarray of shape (n_components, n_features)
        Topic-word pseudo-counts n_kw + beta, as scikit-learn's LatentDirichletAllocation names them.
    alpha_ : ndarray of shape (n_components,)
        The document-topic prior that inference uses (learned when ``optimize_alpha``).
    n_features_in_ : int
        Number of words (columns) seen in fit.
    vocabulary_ : ndarray of str or None
        The words of the columns, when fit was given them (a Corpus, lists of tokens or texts).
    vectorizer_ : CountVectorizer or None
        How raw texts become counts, for a model fitted on texts (``Corpus.from_texts``).
    sampler_ : str
        The sampler that ran (``sampler="auto"`` resolved).
    n_mh_ : int
        The light sampler's MH steps per token for this model (``n_mh="auto"`` resolved).
    n_iter_ : int
        Iterations run (all of ``max_iter``).
    trace_ : list of dict
        Per measured iteration: "iteration", "seconds", and "log_joint" (with ``trace`` or
        ``verbose``) or "perplexity" (with ``heldout``).
    log_joint_ : float
        log p(W, Z) of the final state.
    fit_stats_ : dict
        Timings and sizes of the fit ("train_seconds", "compile_seconds", "tokens_per_second", ...).
    n_empty_skipped_ : int
        Training documents without words, left out of the fit.

    See Also
    --------
    MedLDAClassifier : topics learned jointly with a classifier.
    MedLDARegressor : topics learned jointly with a linear response.

    Examples
    --------
    >>> from medlda import LDA
    >>> from medlda.data.synthetic import make_supervised_corpus
    >>> corpus, _ = make_supervised_corpus(300, 5, doc_length=30, random_state=0)
    >>> lda = LDA(n_components=5, max_iter=10, random_state=0).fit(corpus)
    >>> lda.topic_word_.shape
    (5, 150)
    >>> lda.transform(corpus[:2]).round(2)
    array([[0.45, 0.36, 0.05, 0.08, 0.07],
           [0.34, 0.06, 0.2 , 0.08, 0.33]])
    """

    parameters = declared((*PRIOR, *SAMPLING, "n_jobs", *INFERENCE, *RUN, "block_simulation", "trace_every"))

    def fit(self, X: Any, y: Any = None, *, heldout: Any = None) -> LDA:
        """Sample topics for the documents of X.

        Parameters
        ----------
        X : Corpus, count matrix of shape (n_docs, n_words) or lists of tokens
            Training documents. Empty documents are skipped with a warning.
        y : ignored
            Not used (scikit-learn's signature: a Pipeline passes its y to every step).
        heldout : Corpus, count matrix or lists of tokens, optional
            Documents over the same words (a Corpus with its own words is aligned to those of a
            Corpus X by word): ``trace_`` also gets their perplexity by document completion every
            ``trace_every`` iterations, measured apart from the sampling time with a random stream
            of its own, so the chain is the same with or without it.

        Returns
        -------
        self
            The fitted model.

        Examples
        --------
        >>> from medlda import LDA
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, _ = make_supervised_corpus(300, 5, doc_length=30, random_state=0)
        >>> train, test = corpus.holdout(50, random_state=0)
        >>> lda = LDA(5, max_iter=10, random_state=0, trace_every=5).fit(train, heldout=test)
        >>> [row["iteration"] for row in lda.trace_ if "perplexity" in row]
        [5, 10]
        """
        self._validate()
        corpus, _, _ = fit_corpus(self, X)
        rng = np.random.default_rng(self.random_state)
        measure = None
        if heldout is not None:
            words = corpus.vocabulary if isinstance(self._fit_input, Corpus) else None
            held = as_corpus(heldout, corpus.n_words, words)
            measure = HeldoutPerplexity(held.word_ids, held.doc_ptr, self._make_sampler(), self.n_infer_burn,
                                        self.n_infer_avg, rng.spawn(1)[0])
        self._fit_topics(corpus, None, rng, measure=measure)
        return self

    def transform(self, X: Any) -> np.ndarray:
        """Inferred topic proportions theta of new documents.

        Each document is inferred on its own (Gibbs with its draws seeded by ``random_state`` and
        its words, or CVB0 with ``inference="cvb0"``): its row does not depend on the others.

        Parameters
        ----------
        X : Corpus, count matrix or lists of tokens (texts, for a model fitted on texts)
            Documents over the fitted words.

        Returns
        -------
        ndarray of shape (n_docs, n_components)
            (n_dk + alpha_k) / (N_d + sum(alpha)); rows sum to 1.

        Examples
        --------
        >>> from medlda import LDA
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, _ = make_supervised_corpus(300, 5, doc_length=30, random_state=0)
        >>> theta = LDA(5, max_iter=10, random_state=0).fit(corpus).transform(corpus[:3])
        >>> theta.shape, theta.sum(axis=1).round(6).tolist()
        ((3, 5), [1.0, 1.0, 1.0])
        """
        counts, lengths = self._doc_topic_counts(X)
        return (counts + self._alpha()) / (lengths + self._alpha_total())[:, None]

    def perplexity(self, X: Any) -> float:
        """Held-out perplexity by document completion (docs/mathematics.md §9); lower is better.

        Parameters
        ----------
        X : Corpus, count matrix or lists of tokens
            Held-out documents over the fitted words.

        Returns
        -------
        float
            exp(-mean log likelihood per token of each document's second half, given its first).

        Examples
        --------
        >>> from medlda import LDA
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, _ = make_supervised_corpus(300, 5, doc_length=30, random_state=0)
        >>> train, test = corpus.holdout(50, random_state=0)
        >>> lda = LDA(5, max_iter=10, random_state=0).fit(train)
        >>> 1 < lda.perplexity(test) < train.n_words
        True
        """
        check_is_fitted(self, "topic_word_counts_")
        corpus = self._input_corpus(X)
        rng = np.random.default_rng(self.random_state)
        return completion_perplexity(corpus.word_ids, corpus.doc_ptr, self._phi_wk(),
                                              self._alpha(), self.n_infer_burn, self.n_infer_avg, rng,
                                              self._make_sampler(), self._sampler_threads())

    def score(self, X: Any, y: Any = None) -> float:
        """Mean held-out log likelihood per token by document completion: -log ``perplexity``.

        Parameters
        ----------
        X : Corpus, count matrix or lists of tokens
            Held-out documents over the fitted words.
        y : ignored
            Not used (scikit-learn's signature).

        Returns
        -------
        float
            Higher is better, as scikit-learn's model selection expects.

        Examples
        --------
        >>> import numpy as np
        >>> from medlda import LDA
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, _ = make_supervised_corpus(300, 5, doc_length=30, random_state=0)
        >>> lda = LDA(5, max_iter=10, random_state=0).fit(corpus)
        >>> bool(np.isclose(lda.score(corpus), -np.log(lda.perplexity(corpus))))
        True
        """
        return -float(np.log(self.perplexity(X)))
