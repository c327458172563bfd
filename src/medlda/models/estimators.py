"""scikit-learn estimators: LDA (unsupervised) and MedLDAClassifier (supervised topics + classifier).

Thin layer: validate, turn X into a Corpus, run the training loop, keep the fitted arrays.
``__init__`` only stores parameters; everything is checked in ``fit``.
"""

from __future__ import annotations

import numbers
import os
import time
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import _num_samples, check_is_fitted
from threadpoolctl import threadpool_limits

from medlda.engine import training
from medlda.models.params import params_doc
from medlda.samplers.blocked import BLOCK_SIMULATIONS
from medlda.evaluation.calibration import calibration_size, fit_proba_scale, log_proba_from_omega, proba_from_omega
from medlda.engine.checkpoint import RunCheckpoints, chain_arrays, check_run_params
from medlda.data.corpus import Corpus, check_count_matrix, count_matrix_shape, is_id_vocabulary
from medlda.evaluation.explain import toward_prediction
from medlda.losses import CLASSIFICATION_LOSSES, LOSSES, make_loss
from medlda.engine.perplexity import HeldoutPerplexity
from medlda.models.multiclass import (codes_from_omega, effective_jobs, fit_ovr, label_indicator, ovr_zbar, subset_accuracy,
                         warn_uncarried_labels)
from medlda.samplers import ETA_DRAWS, make_sampler
from medlda.engine.training import SamplerState, Supervision

BINARY_MARGIN = 164.0  # c * l = 262.4 with c = 1.6: the papers' binary 20 Newsgroups setting
MULTICLASS_MARGIN = 64.0  # the authors' LightMedLDA default for multi-class (c * l = 102.4)
HINGE_C = 1.6  # the authors' LightMedLDA default
LOGISTIC_BINARY_C, LOGISTIC_MULTI_C = 25.0, 204.8  # gSLDA binary; LightMedLDA KDD paper multi-task
# multi-label: c x 4 on positive examples and margin 8, picked on a validation split of Reuters-21578
# training data (README, "Multi-label data")
MULTILABEL_POSITIVE_COST = 4.0
MULTILABEL_MARGIN = 8.0
# one-vs-rest logistic: positive_cost C - 1 (balanced) up to this K, 1 above it; picked on a 20 Newsgroups
# validation split (docs/performance.md, "One-vs-rest logistic: balanced up to K = 100")
OVR_LOGISTIC_BALANCED_MAX_K = 100
STRATEGIES = ("multitask", "ovr")

_COMMON = ("n_topics", "alpha_sum", "beta", "n_iter", "sampler", "light_variant", "phi_every", "proposal", "n_mh",
           "n_infer_burn", "n_infer_avg", "trace", "random_state", "verbose",
           "checkpoint_every", "checkpoint_path", "resume", "backend", "n_workers", "ray_address")
_RUN = _COMMON[-6:]  # how a fit runs: checkpoints (medlda.engine.checkpoint), backend (medlda.engine.ray)


def _as_corpus(X, n_features: int | None = None, vocabulary: np.ndarray | None = None,
               name: str = "the model") -> Corpus:
    """X (Corpus, sparse or dense counts) as a Corpus over the model's words. A Corpus with words
    of its own, given the model's ``vocabulary``, is mapped onto it by word (``Corpus.to_vocabulary``:
    unknown words dropped and counted, documents kept in order; the same vocabulary costs no
    copy), since its word ids mean nothing to the model otherwise. A matrix, or a corpus or model
    without words (column numbers only), must have the model's number of words (``n_features``)."""
    if (isinstance(X, Corpus) and vocabulary is not None and not is_id_vocabulary(vocabulary)
            and not is_id_vocabulary(X.vocabulary)):
        return X.to_vocabulary(vocabulary)
    corpus = X if isinstance(X, Corpus) else Corpus.from_sparse(check_count_matrix(X))
    if n_features is not None and corpus.n_words != n_features:
        raise ValueError(f"X has {corpus.n_words} features, but {name} is expecting {n_features} features as input "
                         f"(words: the columns of the count matrix it was fitted on)")
    return corpus


def _check(value, name: str, kind, low=None, low_open=False) -> None:
    """Raise ValueError unless value is of ``kind`` and above ``low`` (strictly if low_open)."""
    ok = isinstance(value, kind) and not isinstance(value, bool)
    if ok and low is not None:
        ok = value > low if low_open else value >= low
    if not ok:
        bound = "" if low is None else f" {'>' if low_open else '>='} {low}"
        what = "an integer" if kind is numbers.Integral else "a number" if kind is numbers.Real else \
            f"a {getattr(kind, '__name__', 'value')}"
        raise ValueError(f"{name} must be {what}{bound}, got {value!r}")


def _poor_score(tags):
    """``tags`` with the task's poor_score set (see ``_TopicModel.__sklearn_tags__``)."""
    for task_tags in (tags.classifier_tags, tags.regressor_tags):
        if task_tags is not None:
            task_tags.poor_score = True
    return tags


class _TopicModel(BaseEstimator):
    """Shared parameters, validation, training and inference of every topic-model estimator."""

    def __sklearn_tags__(self):
        """scikit-learn >= 1.6 tags: non-negative (count) input, sparse matrices accepted; a poor
        score on scikit-learn's toy data (blobs of two or three features: a vocabulary of two or
        three words leaves a topic model little to find). The classifier and regressor mixins
        set their task's tags after this runs, so ``_poor_score`` marks them there."""
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        tags.input_tags.sparse = True
        return tags

    def _validate_common(self) -> None:
        _check(self.n_topics, "n_topics", numbers.Integral, 1)
        _check(self.alpha_sum, "alpha_sum", numbers.Real, 0, low_open=True)
        _check(self.beta, "beta", numbers.Real, 0, low_open=True)
        _check(self.n_iter, "n_iter", numbers.Integral, 1)
        _check(self.n_infer_burn, "n_infer_burn", numbers.Integral, 0)
        _check(self.n_infer_avg, "n_infer_avg", numbers.Integral, 1)
        _check(self.n_mh, "n_mh", numbers.Integral, 1)
        _check(self.phi_every, "phi_every", numbers.Integral, 1)
        _check(getattr(self, "n_gibbs", 1), "n_gibbs", numbers.Integral, 1)
        if getattr(self, "eta_draw", "auto") not in ETA_DRAWS:
            raise ValueError(f"eta_draw must be one of {list(ETA_DRAWS)}, got {self.eta_draw!r}")
        check_run_params(self)
        self._sampler = self._make_sampler()

    def _make_sampler(self):
        return make_sampler(self.sampler, light_variant=self.light_variant, proposal=self.proposal,
                            n_mh=self.n_mh, n_gibbs=getattr(self, "n_gibbs", 2),
                            eta_draw=getattr(self, "eta_draw", "auto"), n_jobs=self._sampler_threads(),
                            block_simulation=getattr(self, "block_simulation", "nested"), phi_every=self.phi_every)

    def _sampler_threads(self) -> int:
        """Threads of the light sampler: n_jobs as joblib reads it (None: 1, -1: every core); one
        inside one-vs-rest, whose binary models already run in parallel processes."""
        if getattr(self, "strategy", "multitask") == "ovr":
            return 1
        return effective_jobs(getattr(self, "n_jobs", None), os.cpu_count() or 1)

    def _alpha(self) -> np.ndarray:
        return np.full(self.n_topics, self.alpha_sum / self.n_topics)

    def _fit_topics(self, corpus: Corpus, supervision: Supervision | None, rng, n_eta_keep: int = 0,
                    measure=None):
        """Train on a corpus with no empty documents; keep topic-word counts and statistics.
        ``measure(state)`` adds entries to the trace (e.g. held-out perplexity)."""
        if supervision is not None and not getattr(self._sampler, "supports_supervision", True):
            raise ValueError(f"sampler={self.sampler!r} is for unsupervised LDA only; "
                             f"{type(self).__name__} needs sampler='gibbs' or 'light'")
        if measure is not None and getattr(self, "backend", "local") != "local":
            raise NotImplementedError("held-out perplexity traces need backend='local'")
        compile_seconds = training.warm_up(self._sampler, 0 if supervision is None else supervision.targets.shape[1])
        run = RunCheckpoints.for_model(self, corpus.word_ids, corpus.doc_ptr, corpus.n_words,
                                       supervision, n_eta_keep)
        bar = None
        if self.verbose:
            from medlda.engine.progress import ProgressBar
            bar = ProgressBar(self.n_iter, desc=type(self).__name__)
        # BLAS (the exact eta draws) gets the estimator's threads and no more: left at every core,
        # OpenBLAS threads spin on a core another process holds (the Gram matrix of 40 topics over
        # 2,044 documents: 55 ms on 2 threads beside a busy core, 0.24 ms on one)
        try:
            with threadpool_limits(self._sampler_threads(), user_api="blas"):
                if getattr(self, "backend", "local") == "ray":
                    from medlda.engine.ray import train_ray
                    state, result = train_ray(self, corpus, supervision, rng, n_eta_keep, run, callback=bar)
                else:
                    state = SamplerState.initialize(corpus.word_ids, corpus.doc_ptr, corpus.n_words,
                                                    self.n_topics, self._alpha(), self.beta, rng)
                    run.restore(state, supervision, rng, self._sampler)
                    callback = run.callback(lambda: (state.z, state.streams, [], chain_arrays(self._sampler, state)),
                                            supervision, rng, then=bar)
                    result = training.train(state, supervision, n_iter=self.n_iter, n_eta_keep=n_eta_keep,
                                             rng=rng, sampler=self._sampler,
                                             measure_log_joint=bool(self.trace or self.verbose), callback=callback,
                                             start_iteration=run.start, kept_eta=run.kept_eta, measure=measure,
                                             measure_every=getattr(self, "trace_every", 1))
                run.finish(result)
        finally:
            if bar is not None:
                bar.close()
        self.topic_word_counts_ = np.ascontiguousarray(state.n_wk.T)
        self.n_features_in_ = corpus.n_words
        self.vocabulary_ = corpus.vocabulary if isinstance(self._fit_input, Corpus) else None
        self.trace_ = result.trace
        self.log_joint_ = state.log_joint()
        self.fit_stats_ = {
            "train_seconds": result.seconds,
            "compile_seconds": compile_seconds,
            "n_tokens": corpus.n_tokens,
            "n_docs": corpus.n_docs,
            "tokens_per_second": corpus.n_tokens * self.n_iter / max(result.seconds, 1e-12),
            **getattr(result, "run_stats", {}),
        }
        self._phi_cache = None
        return state, result

    @property
    def topic_word_(self) -> np.ndarray:
        """Point estimate phi (K, V): (n_kw + beta) / (n_k + V beta)."""
        check_is_fitted(self, "topic_word_counts_")
        counts = self.topic_word_counts_
        return (counts + self.beta) / (counts.sum(axis=1, keepdims=True) + counts.shape[1] * self.beta)

    @property
    def components_(self) -> np.ndarray:
        """Topic-word pseudo-counts n_kw + beta (K, V), as scikit-learn's LDA names them."""
        check_is_fitted(self, "topic_word_counts_")
        return self.topic_word_counts_ + self.beta

    def _phi_wk(self) -> np.ndarray:
        if getattr(self, "_phi_cache", None) is None:
            self._phi_cache = np.ascontiguousarray(self.topic_word_.T)
        return self._phi_cache

    def _input_corpus(self, X) -> Corpus:
        """New documents X as a Corpus over the fitted words (``_as_corpus``: a Corpus with a
        vocabulary is aligned to ``vocabulary_`` by word, anything else must match in size)."""
        return _as_corpus(X, self.n_features_in_, getattr(self, "vocabulary_", None), type(self).__name__)

    def _doc_topic_counts(self, X) -> tuple[np.ndarray, np.ndarray]:
        """Averaged inferred doc-topic counts (D, K) of new documents, and their lengths; each
        document's draws are seeded by random_state and its own words, so its result does not
        depend on the other documents of X or its place among them."""
        check_is_fitted(self, "topic_word_counts_")
        corpus = self._input_corpus(X)
        rng = np.random.default_rng(self.random_state)
        bar = None
        if self.verbose:
            from tqdm.auto import tqdm
            bar = tqdm(total=corpus.n_docs, desc="inference", unit="doc", dynamic_ncols=True)
        try:
            counts = self._make_sampler().infer(corpus.word_ids, corpus.doc_ptr, self._phi_wk(), self._alpha(),
                                                self.n_infer_burn, self.n_infer_avg, rng, self._sampler_threads(),
                                                progress=None if bar is None else bar.update, doc_seeded=True)
        finally:
            if bar is not None:
                bar.close()
        return counts, corpus.doc_lengths

    def _zbar(self, X) -> np.ndarray:
        """Inferred normalized topic counts; an empty document gets the prior mean alpha / alpha_sum."""
        counts, lengths = self._doc_topic_counts(X)
        zbar = counts / np.maximum(lengths, 1)[:, None]
        zbar[lengths == 0] = 1.0 / self.n_topics
        return zbar

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """Names of ``transform``'s columns, prefixed by the estimator's name as scikit-learn's
        decompositions do ("lda0", "lda1", ...; one-vs-rest: "medldaclassifier_<class>_<k>"), so
        pipelines, ``ColumnTransformer`` and ``set_output(transform="pandas")`` label topics.
        ``input_features`` (the words) is not needed: topics are named by number."""
        check_is_fitted(self, "n_features_in_")
        prefix = type(self).__name__.lower()
        subs = getattr(self, "estimators_", None)
        if subs:
            return np.array([f"{prefix}_{c}_{k}" for c in self.classes_ for k in range(self.n_topics)], dtype=object)
        return np.array([f"{prefix}{k}" for k in range(self.n_topics)], dtype=object)

    def top_words(self, n: int = 10, vocabulary=None, relevance: float = 1.0) -> list[list[str]]:
        """The ``n`` most probable words of each topic (``relevance`` < 1: the most relevant, see
        ``top_word_ids``). Words come from ``vocabulary`` (e.g. a pipeline's
        ``CountVectorizer().get_feature_names_out()``), else from the fitted Corpus, else word ids
        are given as text."""
        return self._words_of(self.top_word_ids(n, relevance), vocabulary)

    def _words_of(self, ids: np.ndarray, vocabulary=None) -> list[list[str]]:
        """Rows of word ids (``top_word_ids``) as words of ``vocabulary``, else of the fitted
        Corpus, else the ids as text."""
        vocab = self.vocabulary_ if vocabulary is None else np.asarray(vocabulary, dtype=str)
        if vocab is not None and vocab.size != self.n_features_in_:
            raise ValueError(f"vocabulary has {vocab.size} words, the model {self.n_features_in_}")
        if vocab is None:
            vocab = np.array([str(v) for v in range(self.n_features_in_)])
        return [[str(vocab[v]) for v in row] for row in ids]

    def top_word_ids(self, n: int = 10, relevance: float = 1.0) -> np.ndarray:
        """(K, n) word ids of each topic's ``n`` top words, the first first. ``relevance`` is
        LDAvis's lambda (Sievert and Shirley 2014): words ranked by
        lambda log phi_kw + (1 - lambda) log(phi_kw / p_w), p_w = sum_k p(k) phi_kw the word's
        probability in the whole corpus. 1 ranks by probability; lower values favour words
        frequent in the topic and rare elsewhere (the paper's users preferred about 0.6), which
        pushes back words every topic holds."""
        check_is_fitted(self, "topic_word_counts_")
        _check(n, "n (words per topic)", numbers.Integral, 1)
        if not (isinstance(relevance, numbers.Real) and not isinstance(relevance, bool) and 0 <= relevance <= 1):
            raise ValueError(f"relevance must be a number in [0, 1], got {relevance!r}")
        if relevance == 1:
            return np.argsort(-self.topic_word_counts_, axis=1, kind="stable")[:, :n]
        log_phi = np.log(self.topic_word_)
        share = self.topic_word_counts_.sum(axis=1) / max(self.topic_word_counts_.sum(), 1)
        log_p = np.log(share @ self.topic_word_)
        score = relevance * log_phi + (1 - relevance) * (log_phi - log_p)
        return np.argsort(-score, axis=1, kind="stable")[:, :n]

    def coherence(self, X, measure: str = "npmi", n_words: int = 10, relevance: float = 1.0) -> np.ndarray:
        """Coherence (K,) of each topic's ``n_words`` top words (``top_word_ids``) in the documents
        X (same vocabulary as the fit; a Corpus with its own words is aligned by word): ``"npmi"``
        (in [-1, 1], higher is better; held-out or external documents) or ``"umass"`` (the training
        documents). See ``medlda.evaluation.coherence``."""
        from medlda.evaluation.coherence import topic_coherence
        return topic_coherence(self.top_word_ids(n_words, relevance), self._input_corpus(X), measure)

    def save(self, path) -> None:
        """Write the fitted model to one file (arrays + JSON metadata, no pickle), atomically."""
        from medlda.io.model_file import save_model
        save_model(self, path)


def _fit_corpus(model: _TopicModel, X, y=None, weight: np.ndarray | None = None):
    """The training corpus without empty documents, and y and the document weights to match.
    Skipping changes what the model is fitted on, so it warns (the count is ``n_empty_skipped_``)."""
    model._fit_input = X
    corpus = _as_corpus(X)
    keep = corpus.doc_lengths > 0
    model.n_empty_skipped_ = n = int((~keep).sum())
    if not keep.any():
        raise ValueError("no non-empty documents to train on")
    if n:
        warnings.warn(f"{type(model).__name__}.fit skipped {n} empty document{'s' if n != 1 else ''} (no words) "
                      f"of {corpus.n_docs}: nothing to learn from them (n_empty_skipped_)", UserWarning, stacklevel=3)
        corpus = corpus.subset(keep)
        if y is not None:
            y = y[keep]
        if weight is not None:
            weight = weight[keep]
    return corpus, y, weight


def _sample_weight(sample_weight, n_docs: int) -> np.ndarray | None:
    """``fit``'s sample_weight as a (D,) float array (None stays None): finite, >= 0, some > 0."""
    if sample_weight is None:
        return None
    try:
        weight = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("sample_weight must be numbers, one per document") from None
    if weight.shape != (n_docs,):
        raise ValueError(f"sample_weight must have one weight per document: X has {n_docs} documents, "
                         f"sample_weight has shape {weight.shape}")
    if not np.all(np.isfinite(weight)) or np.any(weight < 0) or not np.any(weight > 0):
        raise ValueError("sample_weight must be finite and non-negative, and not all zero")
    return weight


class LDA(TransformerMixin, _TopicModel):
    __doc__ = ("Latent Dirichlet allocation: exact collapsed Gibbs, blocked collapsed Gibbs (SPEC §8)\n"
               "or the light sampler. ``fit(X, heldout=X_heldout)`` also traces held-out perplexity.\n\n"
               + params_doc(*_COMMON, "n_jobs", "block_simulation", "trace_every"))

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
        _check(self.trace_every, "trace_every", numbers.Integral, 1)
        self._validate_common()
        corpus, _, _ = _fit_corpus(self, X)
        rng = np.random.default_rng(self.random_state)
        measure = None
        if heldout is not None:
            held = _as_corpus(heldout, corpus.n_words, corpus.vocabulary if isinstance(X, Corpus) else None)
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
        return training.completion_perplexity(corpus.word_ids, corpus.doc_ptr, self._phi_wk(),
                                              self._alpha(), self.n_infer_burn, self.n_infer_avg, rng,
                                              self._make_sampler(), self._sampler_threads())

    def score(self, X, y=None) -> float:
        """Mean held-out log likelihood per token by document completion (= -log perplexity)."""
        return -float(np.log(self.perplexity(X)))


class MedLDAClassifier(ClassifierMixin, TransformerMixin, _TopicModel):
    __doc__ = ("Supervised topic model whose topics are learned jointly with a classifier: Gibbs MedLDA\n"
               "(hinge loss) or gSLDA (logistic loss). Binary; multi-class as C tasks on shared topics\n"
               "(strategy='multitask') or C binary models with their own topics (strategy='ovr');\n"
               "multi-label when y is a 2-d label-indicator matrix (predict returns one too).\n\n"
               + params_doc("n_topics", "alpha_sum", "beta", "c", "margin", "sigma2", "positive_cost",
                            "class_weight", "loss", "strategy", "n_jobs", "n_iter", "sampler", "light_variant",
                            "phi_every", "proposal", "n_mh",
                            "n_gibbs", "eta_draw",
                            "n_eta_avg", "n_infer_burn", "n_infer_avg",
                            "trace", "random_state", "verbose", *_RUN))

    def __sklearn_tags__(self):
        return _poor_score(super().__sklearn_tags__())

    def __init__(self, n_topics: int = 20, *, alpha_sum: float = 6.4, beta: float = 0.01,
                 c: float | str = "auto", margin: float | str = "auto", sigma2: float = 1.0,
                 positive_cost: float | str = "auto", class_weight: str | None = None, loss: str = "hinge",
                 strategy: str = "multitask",
                 n_jobs: int | None = None, n_iter: int = 50, sampler: str = "gibbs",
                 light_variant: str = "collapsed", phi_every: int = 1,
                 proposal: str = "mixture", n_mh: int = 6, n_gibbs: int = 2, eta_draw: str = "auto",
                 n_eta_avg: int = 5,
                 n_infer_burn: int = 100, n_infer_avg: int = 200, trace: bool = False,
                 random_state=None, verbose: int = 0, checkpoint_every: int = 0, checkpoint_path=None,
                 resume: bool = False, backend: str = "local", n_workers: int = 2, ray_address: str | None = None):
        self.n_topics = n_topics
        self.alpha_sum = alpha_sum
        self.beta = beta
        self.c = c
        self.margin = margin
        self.sigma2 = sigma2
        self.positive_cost = positive_cost
        self.class_weight = class_weight
        self.loss = loss
        self.strategy = strategy
        self.n_jobs = n_jobs
        self.n_iter = n_iter
        self.sampler = sampler
        self.light_variant = light_variant
        self.phi_every = phi_every
        self.proposal = proposal
        self.n_mh = n_mh
        self.n_gibbs = n_gibbs
        self.eta_draw = eta_draw
        self.n_eta_avg = n_eta_avg
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

    def _validate(self) -> None:
        self._validate_common()
        if self.c != "auto":
            _check(self.c, "c", numbers.Real, 0, low_open=True)
        if self.margin != "auto":
            _check(self.margin, "margin", numbers.Real, 0)
        _check(self.sigma2, "sigma2", numbers.Real, 0, low_open=True)
        if self.positive_cost != "auto":
            _check(self.positive_cost, "positive_cost", numbers.Real, 0, low_open=True)
        _check(self.n_eta_avg, "n_eta_avg", numbers.Integral, 1)
        if self.loss not in CLASSIFICATION_LOSSES:
            raise ValueError(f"loss must be one of {list(CLASSIFICATION_LOSSES)} for classification, "
                             f"got {self.loss!r} (regression losses are for MedLDARegressor)")
        if self.strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {list(STRATEGIES)}, got {self.strategy!r}")
        if not (self.class_weight is None or self.class_weight == "balanced" or isinstance(self.class_weight, dict)):
            raise ValueError(f"class_weight must be None, 'balanced' or a dict {{class: weight}}, "
                             f"got {self.class_weight!r}")
        if self.n_jobs is not None and (not isinstance(self.n_jobs, numbers.Integral) or self.n_jobs == 0):
            raise ValueError(f"n_jobs must be None or a non-zero integer, got {self.n_jobs!r}")

    def _resolved_c(self, n_tasks: int) -> float:
        """c, or the papers' setting: hinge 1.6; logistic 25 (binary, gSLDA) or 204.8 (multi-task)."""
        if self.c != "auto":
            return float(self.c)
        if self.loss == "logistic":
            return LOGISTIC_BINARY_C if n_tasks == 1 else LOGISTIC_MULTI_C
        return HINGE_C

    def _resolved_positive_cost(self, n_tasks: int, multilabel: bool) -> float:
        """positive_cost, or by default: 4 for multi-label data; C - 1 for one-vs-rest on C > 2
        classes, so each binary model weighs its class's documents as much as the C - 1 others'
        (for the logistic loss only up to OVR_LOGISTIC_BALANCED_MAX_K topics, where validation
        favoured it); else 1 (the papers' loss)."""
        if self.positive_cost != "auto":
            return float(self.positive_cost)
        if multilabel:
            return MULTILABEL_POSITIVE_COST
        if self.strategy != "ovr" or n_tasks == 1:
            return 1.0
        if self.loss == "logistic" and self.n_topics > OVR_LOGISTIC_BALANCED_MAX_K:
            return 1.0
        return float(n_tasks - 1)

    def _resolved_margin(self, n_tasks: int, multilabel: bool = False) -> float:
        """margin, or by default the papers' binary and multi-class settings, and for multi-label
        data the margin picked on a Reuters validation split."""
        if self.margin != "auto":
            return float(self.margin)
        if multilabel:
            return MULTILABEL_MARGIN
        return BINARY_MARGIN if n_tasks == 1 else MULTICLASS_MARGIN

    def fit(self, X, y, sample_weight=None) -> "MedLDAClassifier":
        """Learn topics and classifier jointly from documents X and labels y (1-d, or a 2-d
        label-indicator matrix for multi-label data; a dense (D, 1) column is 1-d labels, as in
        scikit-learn); ``sample_weight`` (D,) scales each document's c (with ``class_weight``,
        their product). Empty documents are skipped with a warning (``n_empty_skipped_``)."""
        self._validate()
        if y is None:
            raise ValueError("MedLDAClassifier requires y to be passed, but the target y is None (one label per "
                             "document)")
        n_docs, n_labels = count_matrix_shape(X)[0], _num_samples(y)
        if n_labels != n_docs:
            raise ValueError(f"X has {n_docs} documents but y has {n_labels} labels")
        self.classes_, indicator, self.multilabel_ = label_indicator(y)
        weight = self._doc_weight(_sample_weight(sample_weight, n_docs), indicator)
        corpus, indicator, weight = _fit_corpus(self, X, indicator, weight)
        if self.multilabel_:
            warn_uncarried_labels(self.classes_, indicator)
        n_tasks = indicator.shape[1]
        self.c_, self.margin_ = self._resolved_c(n_tasks), self._resolved_margin(n_tasks, self.multilabel_)
        self.positive_cost_ = self._resolved_positive_cost(n_tasks, self.multilabel_)
        if self.strategy == "ovr" and n_tasks > 1:
            self.estimators_ = None
            fit_ovr(self, corpus, indicator, weight)
        else:
            self.__dict__.pop("estimators_", None)
            self._fit_tasks(corpus, indicator, np.random.default_rng(self.random_state), weight)
        self._fit_proba_scale(corpus, indicator)
        return self

    def _fit_proba_scale(self, corpus: Corpus, indicator: np.ndarray) -> None:
        """``proba_scale_``, the s of predict_proba's sigmoid(s omega), fitted by maximum likelihood on
        some training documents (``calibration_size``) inferred as new ones (``medlda.evaluation.calibration``:
        sigmoid(c omega) itself is far overconfident); a loss without probabilities has none."""
        self.__dict__.pop("proba_scale_", None)
        if not LOSSES[self.loss].probabilistic:
            return
        tic = time.perf_counter()
        docs = np.arange(corpus.n_docs)
        n = calibration_size(corpus.n_docs, len(getattr(self, "estimators_", None) or [self]))
        if n < corpus.n_docs:
            docs = np.sort(np.random.default_rng(self.random_state).choice(docs, n, replace=False))
        omega = self.decision_function(corpus.subset(docs))
        truth = self._codes(indicator[docs].astype(np.float64) - 0.5)
        self.proba_scale_ = fit_proba_scale(omega, truth, self.multilabel_)
        self.fit_stats_["calibration_seconds"] = time.perf_counter() - tic

    def _doc_weight(self, sample_weight: np.ndarray | None, indicator: np.ndarray) -> np.ndarray | None:
        """Each document's weight: sample_weight times the class weight (None: all 1)."""
        if self.class_weight is None:
            return sample_weight
        if self.multilabel_:
            raise ValueError("class_weight is for single-label data; for the rare labels of "
                             "multi-label data use positive_cost")
        from sklearn.utils.class_weight import compute_sample_weight

        labels = self.classes_[self._codes(indicator.astype(np.float64) - 0.5)]
        if isinstance(self.class_weight, dict):
            unknown = [k for k in self.class_weight if k not in set(self.classes_.tolist())]
            if unknown:
                raise ValueError(f"class_weight names classes not in y: {unknown} (classes: {self.classes_.tolist()})")
            values = np.array(list(self.class_weight.values()), dtype=np.float64)
            if not np.all(np.isfinite(values)) or np.any(values < 0):
                raise ValueError(f"class_weight values must be finite and non-negative, got {self.class_weight!r}")
        by_class = compute_sample_weight(self.class_weight, labels)
        if not np.any(by_class > 0):
            raise ValueError("class_weight gives every training document weight 0")
        return by_class if sample_weight is None else by_class * sample_weight

    def _fit_tasks(self, corpus: Corpus, indicator: np.ndarray, rng, weight: np.ndarray | None = None) -> SamplerState:
        """Multi-task training on one shared set of topics, each document's c times its
        ``weight`` (None: 1); returns the final sampler state."""
        loss = make_loss(self.loss, self.c_, self.margin_, positive_cost=self.positive_cost_)
        loss.doc_weight = weight
        targets = loss.encode(indicator)
        truth = self._codes(indicator.astype(np.float64) - 0.5)
        supervision = Supervision(loss, targets, 1.0 / self.sigma2,
                                  np.zeros((targets.shape[1], self.n_topics)),
                                  metric=lambda omega: subset_accuracy(self._codes(omega), truth))
        state, result = self._fit_topics(corpus, supervision, rng, n_eta_keep=min(self.n_eta_avg, self.n_iter))
        self.eta_samples_ = result.eta_samples
        self.train_accuracy_ = result.trace[-1]["train_accuracy"]
        return state

    def _codes(self, omega: np.ndarray) -> np.ndarray:
        """Class codes (or a 0/1 indicator for multi-label) from discriminants (D, T)."""
        return codes_from_omega(omega, getattr(self, "multilabel_", False))

    @property
    def eta_(self) -> np.ndarray:
        """Classifier weights (T, K): the average of the kept eta samples (ovr: block-diagonal
        (C, C*K) over the stacked topics of the C binary models)."""
        check_is_fitted(self, "eta_samples_")
        return self.eta_samples_.mean(axis=0)

    def transform(self, X) -> np.ndarray:
        """Inferred normalized topic counts zbar (D, K) of new documents: the classifier's features
        (ovr: the C sub-models' zbar side by side, (D, C*K))."""
        if getattr(self, "estimators_", None):
            check_is_fitted(self, "eta_samples_")
            return ovr_zbar(self, self._input_corpus(X))  # aligned once here, not in each binary model
        return self._zbar(X)

    def decision_function(self, X) -> np.ndarray:
        """omega = eta . zbar: shape (D,) for two classes (> 0 means classes_[1]), else (D, C)."""
        check_is_fitted(self, "eta_samples_")
        return self._decision_from(self.transform(X))

    def _decision_from(self, zbar: np.ndarray) -> np.ndarray:
        omega = zbar @ self.eta_.T
        return omega[:, 0] if omega.shape[1] == 1 and not self.multilabel_ else omega

    def decision_contributions(self, X, label=None) -> np.ndarray:
        """(D, K) each topic's part zbar_dk * eta_tk of the decision (ovr: of the C * K stacked
        topics); each row sums to the decision it splits (``medlda.evaluation.explain``). ``label=None``:
        toward the predicted class, i.e. |omega| for two classes and, for several, the margin over
        the runner-up: the topics that made this class win. ``label``: that class's omega (a
        multi-label model decides each label apart and needs one)."""
        check_is_fitted(self, "eta_samples_")
        task = self._label_task(label)  # checked before the inference
        return self._contributions_from(self.transform(X), task)

    def _label_task(self, label) -> int | None:
        """The task index of ``label`` for ``decision_contributions`` (None: toward the prediction)."""
        if label is None:
            if self.multilabel_:
                raise ValueError("a multi-label model decides each label apart: pass label=, one of classes_")
            return None
        names = [str(c) for c in self.classes_]
        if str(label) not in names:
            raise ValueError(f"label {label!r} is not one of the model's classes {names}")
        return names.index(str(label))

    def _contributions_from(self, zbar: np.ndarray, task: int | None = None) -> np.ndarray:
        eta = self.eta_
        if task is None:
            return toward_prediction(zbar, eta, zbar @ eta.T)
        if eta.shape[0] == 1 and not self.multilabel_:  # binary: omega > 0 means classes_[1]
            return zbar * (eta[0] if task == 1 else -eta[0])
        return zbar * eta[task]

    def predict(self, X) -> np.ndarray:
        """Predicted class labels (multi-label: a 0/1 indicator matrix (D, C))."""
        return self._labels_from(self.decision_function(X))

    def _labels_from(self, omega: np.ndarray) -> np.ndarray:
        codes = self._codes(omega.reshape(len(omega), -1))
        return codes if self.multilabel_ else self.classes_[codes]

    def _has_proba(self) -> bool:
        if LOSSES[self.loss].probabilistic:
            return True
        raise AttributeError(f"predict_proba is available only for a probabilistic loss "
                             f"('logistic'); this model uses loss={self.loss!r}")

    @available_if(_has_proba)
    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities sigmoid(s omega), s = ``proba_scale_`` (fitted on training documents,
        ``medlda.evaluation.calibration``): (D, 2) binary; (D, C) normalized over classes for multi-class;
        (D, C) per-label probabilities for multi-label."""
        return self._proba_from(self.decision_function(X))

    @available_if(_has_proba)
    def predict_log_proba(self, X) -> np.ndarray:
        """The logarithms of ``predict_proba``, computed in log space (finite where it rounds to 0)."""
        return log_proba_from_omega(self.decision_function(X), self._proba_scale(), self.multilabel_)

    def _proba_from(self, omega: np.ndarray) -> np.ndarray:
        return proba_from_omega(omega, self._proba_scale(), self.multilabel_)

    def _proba_scale(self) -> float:
        """s of sigmoid(s omega); model files from before it was fitted give the loss's own c."""
        return getattr(self, "proba_scale_", self.c_)

    def class_topics(self, n: int = 3) -> dict:
        """For each class, the ``n`` topics whose eta weighs most toward it (binary: classes_[0]
        gets the most negative weights)."""
        eta = self.eta_
        if eta.shape[0] == 1 and not self.multilabel_:
            order = np.argsort(-eta[0], kind="stable")
            return {self.classes_[1].item(): order[:n].tolist(), self.classes_[0].item(): order[::-1][:n].tolist()}
        return {c.item(): np.argsort(-eta[t], kind="stable")[:n].tolist() for t, c in enumerate(self.classes_)}

