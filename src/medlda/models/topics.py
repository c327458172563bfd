"""Reading a fitted model's topics: their word distributions, top words, names and coherence.

``TopicWords`` is a mixin of every topic-model estimator (``medlda.models.base.TopicModel``); it
reads only the fitted topic-word counts, the vocabulary and the prior ``beta``.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils.validation import check_is_fitted

from medlda.data.corpus import Corpus
from medlda.evaluation.coherence import topic_coherence
from medlda.models.params import check_param


class TopicWords:
    """The topic-reading methods of a fitted topic model (a mixin of ``TopicModel``)."""

    n_components: int
    beta: float
    topic_word_counts_: np.ndarray
    n_features_in_: int
    vocabulary_: np.ndarray | None

    def _input_corpus(self, X: object) -> Corpus:
        raise NotImplementedError

    @property
    def topic_word_(self) -> np.ndarray:
        """Topic-word distributions phi (K, V): (n_kw + beta) / (n_k + V beta); rows sum to 1."""
        check_is_fitted(self, "topic_word_counts_")
        counts = self.topic_word_counts_
        return (counts + self.beta) / (counts.sum(axis=1, keepdims=True) + counts.shape[1] * self.beta)

    @property
    def components_(self) -> np.ndarray:
        """Topic-word pseudo-counts n_kw + beta (K, V), as scikit-learn's LDA names them."""
        check_is_fitted(self, "topic_word_counts_")
        return self.topic_word_counts_ + self.beta

    def get_feature_names_out(self, input_features: object = None) -> np.ndarray:
        """Names of ``transform``'s columns: the estimator's name and the topic number.

        As scikit-learn's decompositions name theirs ("lda0", "lda1", ...; one-vs-rest:
        "medldaclassifier_<class>_<k>"), so that pipelines, ``ColumnTransformer`` and
        ``set_output(transform="pandas")`` label the topics.

        Parameters
        ----------
        input_features : object, optional
            Ignored (scikit-learn's signature): topics are named by number, not by word.

        Returns
        -------
        ndarray of str objects
            One name per column of ``transform``.

        Examples
        --------
        >>> from medlda import LDA
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, _ = make_supervised_corpus(300, 5, doc_length=30, random_state=0)
        >>> LDA(5, max_iter=10, random_state=0).fit(corpus).get_feature_names_out()
        array(['lda0', 'lda1', 'lda2', 'lda3', 'lda4'], dtype=object)
        """
        check_is_fitted(self, "n_features_in_")
        prefix = type(self).__name__.lower()
        subs = getattr(self, "estimators_", None)
        if subs:
            classes = getattr(self, "classes_")
            return np.array([f"{prefix}_{c}_{k}" for c in classes for k in range(self.n_components)], dtype=object)
        chains = getattr(self, "chains_", None)
        if chains:
            return np.array([f"{prefix}_chain{s}_{k}" for s in range(len(chains)) for k in range(self.n_components)],
                            dtype=object)
        return np.array([f"{prefix}{k}" for k in range(self.n_components)], dtype=object)

    def top_words(self, n: int = 10, vocabulary: object = None,
                  relevance: float = 1.0) -> list[list[tuple[str, float]]]:
        """The ``n`` top words of each topic, with their probability in the topic.

        Pairs (word, phi_kw) as gensim's ``show_topic`` gives them, the most probable first, or,
        with ``relevance`` < 1, the most relevant first (see ``top_word_ids``). Only words the
        topic holds tokens of are listed: an empty topic gives none.

        Parameters
        ----------
        n : int, default=10
            Words per topic.
        vocabulary : sequence of str, optional
            The words of the model's columns (e.g. a ``CountVectorizer``'s
            ``get_feature_names_out()``); default: the words the model was fitted on (a Corpus,
            lists of tokens or texts), else the column numbers as text.
        relevance : float, default=1.0
            LDAvis's lambda in [0, 1] (``top_word_ids``).

        Returns
        -------
        list of list of (str, float)
            Row k: topic k's words and their probabilities.

        See Also
        --------
        top_word_ids, words_of

        Examples
        --------
        >>> from medlda import LDA
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, _ = make_supervised_corpus(300, 5, doc_length=30, random_state=0)
        >>> lda = LDA(5, max_iter=10, random_state=0).fit(corpus)
        >>> [(word, round(p, 3)) for word, p in lda.top_words(3)[0]]
        [('t0_9', 0.149), ('t0_16', 0.089), ('t0_10', 0.082)]
        """
        ids = self.top_word_ids(n, relevance)
        weights = np.take_along_axis(self.topic_word_, ids, axis=1)
        held = np.take_along_axis(self.topic_word_counts_, ids, axis=1) > 0
        return [list(zip(words, row[keep].tolist()))
                for words, row, keep in zip(self.words_of(ids, vocabulary), weights, held)]

    def words_of(self, ids: np.ndarray, vocabulary: object = None) -> list[list[str]]:
        """The words of each topic's row of word ids (``top_word_ids``: row k is topic k).

        A word the topic holds no token of is left out, so an empty topic has no words rather
        than the prior's filler.

        Parameters
        ----------
        ids : ndarray of shape (K, n)
            Word ids, one row per topic.
        vocabulary : sequence of str, optional
            As in ``top_words``.

        Returns
        -------
        list of list of str
            Row k: the words of ``ids[k]``.

        Raises
        ------
        ValueError
            If ``vocabulary`` does not have the model's number of words.

        Examples
        --------
        >>> from medlda import LDA
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, _ = make_supervised_corpus(300, 5, doc_length=30, random_state=0)
        >>> lda = LDA(5, max_iter=10, random_state=0).fit(corpus)
        >>> lda.words_of(lda.top_word_ids(3))[:2]
        [['t0_9', 't0_16', 't0_10'], ['t1_18', 't1_28', 't1_20']]
        """
        vocab = self.vocabulary_ if vocabulary is None else np.asarray(vocabulary, dtype=str)
        if vocab is not None and vocab.size != self.n_features_in_:
            raise ValueError(f"vocabulary has {vocab.size} words, the model {self.n_features_in_}")
        if vocab is None:
            vocab = np.array([str(v) for v in range(self.n_features_in_)])
        counts = self.topic_word_counts_
        return [[str(vocab[v]) for v in row if counts[k, v] > 0] for k, row in enumerate(ids)]

    def top_word_ids(self, n: int = 10, relevance: float = 1.0) -> np.ndarray:
        """Word ids of each topic's ``n`` top words, the first first.

        ``relevance`` is LDAvis's lambda (Sievert and Shirley 2014): words are ranked by
        lambda log phi_kw + (1 - lambda) log(phi_kw / p_w), p_w = sum_k p(k) phi_kw the word's
        probability in the whole corpus. 1 ranks by probability; lower values favour words
        frequent in the topic and rare elsewhere (the paper's users preferred about 0.6), which
        pushes back words that every topic holds.

        Parameters
        ----------
        n : int, default=10
            Words per topic.
        relevance : float, default=1.0
            lambda, in [0, 1].

        Returns
        -------
        ndarray of shape (K, n)
            Word ids (columns of the count matrix).

        Raises
        ------
        ValueError
            If ``n`` < 1 or ``relevance`` is outside [0, 1].

        Examples
        --------
        >>> from medlda import LDA
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, _ = make_supervised_corpus(300, 5, doc_length=30, random_state=0)
        >>> lda = LDA(5, max_iter=10, random_state=0).fit(corpus)
        >>> lda.top_word_ids(4, relevance=0.6).shape
        (5, 4)
        """
        check_is_fitted(self, "topic_word_counts_")
        check_param(n, "n (words per topic)", numbers.Integral, 1)
        if not (isinstance(relevance, numbers.Real) and not isinstance(relevance, bool) and 0 <= relevance <= 1):
            raise ValueError(f"relevance must be a number in [0, 1], got {relevance!r}")
        if relevance == 1:
            return np.argsort(-self.topic_word_counts_, axis=1, kind="stable")[:, :n]
        log_phi = np.log(self.topic_word_)
        share = self.topic_word_counts_.sum(axis=1) / max(self.topic_word_counts_.sum(), 1)
        log_p = np.log(share @ self.topic_word_)
        score = relevance * log_phi + (1 - relevance) * (log_phi - log_p)
        return np.argsort(-score, axis=1, kind="stable")[:, :n]

    def coherence(self, X: object, measure: str = "npmi", n_words: int = 10, relevance: float = 1.0) -> np.ndarray:
        """Coherence of each topic's top words in the documents X.

        Parameters
        ----------
        X : Corpus, count matrix or lists of tokens
            Reference documents over the fitted words (a Corpus with words of its own is aligned
            to them by word): held-out or external ones for ``"npmi"``, the training documents
            for ``"umass"``.
        measure : {"npmi", "umass"}, default="npmi"
            ``"npmi"`` is in [-1, 1], higher is better; see
            ``medlda.evaluation.coherence.topic_coherence``.
        n_words : int, default=10
            Top words per topic (``top_word_ids``).
        relevance : float, default=1.0
            How the top words are ranked (``top_word_ids``).

        Returns
        -------
        ndarray of shape (K,)
            One value per topic; NaN for a topic none of whose words occur in X.

        Examples
        --------
        >>> from medlda import LDA
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, _ = make_supervised_corpus(300, 5, doc_length=30, random_state=0)
        >>> lda = LDA(5, max_iter=10, random_state=0).fit(corpus)
        >>> lda.coherence(corpus, n_words=5).round(2)
        array([0.45, 0.45, 0.41, 0.42, 0.24])
        """
        return topic_coherence(self.top_word_ids(n_words, relevance), self._input_corpus(X), measure)
