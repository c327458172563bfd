"""LDA: unsupervised topics, with exact, blocked or light samplers."""

from __future__ import annotations

import numpy as np
from sklearn.base import TransformerMixin
from sklearn.utils.validation import check_is_fitted

from medlda.data.corpus import Corpus
from medlda.engine.perplexity import HeldoutPerplexity, completion_perplexity
from medlda.models.base import TopicModel, as_corpus, fit_corpus
from medlda.models.params import INFERENCE, PRIOR, RUN, SAMPLING, declared


class LDA(TransformerMixin, TopicModel):
    """Latent Dirichlet allocation: exact collapsed Gibbs, blocked collapsed Gibbs (docs/mathematics.md §8) or the
    light sampler. ``fit(X, heldout=X_heldout)`` also traces held-out perplexity."""

    parameters = declared((*PRIOR, *SAMPLING, "n_jobs", *INFERENCE, *RUN, "block_simulation", "trace_every"))

    def fit(self, X, y=None, *, heldout=None) -> "LDA":
        """Sample topics for the documents of X (counts matrix or Corpus). With ``heldout``
        (documents over the same vocabulary; a Corpus with its own words is aligned to those of a
        Corpus X by word), ``trace_`` also gets their perplexity by document
        completion every ``trace_every`` iterations (measured apart from the sampling time, with
        its own random stream: the chain is the same with or without it)."""
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

    def transform(self, X) -> np.ndarray:
        """Inferred topic proportions theta (D, K) of new documents; rows sum to 1."""
        counts, lengths = self._doc_topic_counts(X)
        return (counts + self._alpha()) / (lengths + self._alpha_total())[:, None]

    def perplexity(self, X) -> float:
        """Held-out perplexity by document completion (docs/mathematics.md §9); lower is better."""
        check_is_fitted(self, "topic_word_counts_")
        corpus = self._input_corpus(X)
        rng = np.random.default_rng(self.random_state)
        return completion_perplexity(corpus.word_ids, corpus.doc_ptr, self._phi_wk(),
                                              self._alpha(), self.n_infer_burn, self.n_infer_avg, rng,
                                              self._make_sampler(), self._sampler_threads())

    def score(self, X, y=None) -> float:
        """Mean held-out log likelihood per token by document completion (= -log perplexity)."""
        return -float(np.log(self.perplexity(X)))
