"""LDA: unsupervised topics, with exact, blocked or light samplers."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import TransformerMixin
from sklearn.utils.validation import check_is_fitted

from medlda.data.corpus import (
    Corpus,
)
from medlda.engine.perplexity import HeldoutPerplexity, completion_perplexity
from medlda.models.base import (
    COMMON_PARAMS,
    TopicModel,
    as_corpus,
    fit_corpus,
)
from medlda.models.params import check_param, params_doc
from medlda.samplers.blocked import BLOCK_SIMULATIONS


class LDA(TransformerMixin, TopicModel):
    __doc__ = ("Latent Dirichlet allocation: exact collapsed Gibbs, blocked collapsed Gibbs (SPEC §8)\n"
               "or the light sampler. ``fit(X, heldout=X_heldout)`` also traces held-out perplexity.\n\n"
               + params_doc(*COMMON_PARAMS, "n_jobs", "block_simulation", "trace_every"))

    def __init__(self, n_topics: int = 20, *, alpha_sum: float = 6.4, beta: float = 0.01,
                 n_iter: int = 50, sampler: str = "gibbs", light_variant: str = "collapsed", phi_every: int = 1,
                 proposal: str = "mixture", n_mh: int = 6, n_jobs: int | None = None, n_infer_burn: int = 100,
                 n_infer_avg: int = 200, trace: bool = False, random_state=None, verbose: int = 0,
                 checkpoint_every: int = 0, checkpoint_path=None,
                 resume: bool = False, backend: str = "local", n_workers: int = 2, ray_address: str | None = None,
                 block_simulation: str = "nested", trace_every: int = 1):
        self.n_topics = n_topics
        self.alpha_sum = alpha_sum
        self.beta = beta
        self.n_iter = n_iter
        self.sampler = sampler
        self.light_variant = light_variant
        self.phi_every = phi_every
        self.proposal = proposal
        self.n_mh = n_mh
        self.n_jobs = n_jobs
        self.n_infer_burn = n_infer_burn
        self.n_infer_avg = n_infer_avg
        self.trace = trace
        self.random_state = random_state
        self.verbose = verbose
        self.checkpoint_every = checkpoint_every
        self.checkpoint_path = checkpoint_path
        self.resume = resume
        self.backend = backend
        self.n_workers = n_workers
        self.ray_address = ray_address
        self.block_simulation = block_simulation
        self.trace_every = trace_every

    def fit(self, X, y=None, *, heldout=None) -> "LDA":
        """Sample topics for the documents of X (counts matrix or Corpus). With ``heldout``
        (documents over the same vocabulary; a Corpus with its own words is aligned to those of a
        Corpus X by word), ``trace_`` also gets their perplexity by document
        completion every ``trace_every`` iterations (measured apart from the sampling time, with
        its own random stream: the chain is the same with or without it)."""
        if self.block_simulation not in BLOCK_SIMULATIONS:
            raise ValueError(f"block_simulation must be one of {list(BLOCK_SIMULATIONS)}, "
                             f"got {self.block_simulation!r}")
        check_param(self.trace_every, "trace_every", numbers.Integral, 1)
        self._validate_common()
        corpus, _, _ = fit_corpus(self, X)
        rng = np.random.default_rng(self.random_state)
        measure = None
        if heldout is not None:
            held = as_corpus(heldout, corpus.n_words, corpus.vocabulary if isinstance(X, Corpus) else None)
            measure = HeldoutPerplexity(held.word_ids, held.doc_ptr, self._make_sampler(), self.n_infer_burn,
                                        self.n_infer_avg, rng.spawn(1)[0])
        self._fit_topics(corpus, None, rng, measure=measure)
        return self

    def transform(self, X) -> np.ndarray:
        """Inferred topic proportions theta (D, K) of new documents; rows sum to 1."""
        counts, lengths = self._doc_topic_counts(X)
        return (counts + self._alpha()) / (lengths + self.alpha_sum)[:, None]

    def perplexity(self, X) -> float:
        """Held-out perplexity by document completion (SPEC §9); lower is better."""
        check_is_fitted(self, "topic_word_counts_")
        corpus = self._input_corpus(X)
        rng = np.random.default_rng(self.random_state)
        return completion_perplexity(corpus.word_ids, corpus.doc_ptr, self._phi_wk(),
                                              self._alpha(), self.n_infer_burn, self.n_infer_avg, rng,
                                              self._make_sampler(), self._sampler_threads())

    def score(self, X, y=None) -> float:
        """Mean held-out log likelihood per token by document completion (= -log perplexity)."""
        return -float(np.log(self.perplexity(X)))
