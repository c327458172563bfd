"""The shared base of every topic-model estimator: parameters, training, inference, topics."""

from __future__ import annotations

import numbers
import os
import warnings
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

from medlda.data.corpus import Corpus, check_count_matrix, is_id_vocabulary
from medlda.data.text import is_texts, vectorizer_for
from medlda.data.tokens import is_token_lists
from medlda.engine.alpha import AlphaOptimizer
from medlda.engine.checkpoint import Checkpoints, check_run_params
from medlda.engine.local import LocalBackend
from medlda.engine.loop import Supervision, train
from medlda.engine.progress import ProgressBar, bar_layout
from medlda.engine.ray import ray_backend
from medlda.engine.warmup import warm_up
from medlda.evaluation.coherence import topic_coherence
from medlda.io.model_file import register_estimator, save_model
from medlda.models.labels import effective_jobs
from medlda.models.params import Param, check_fit_size, check_param, params_doc, validate
from medlda.models.signature import FormerName, current_names, make_init
from medlda.models.texts import no_text_hint, remember_words, text_preprocessing
from medlda.reporting.reports import Summary, model_summary
from medlda.samplers import make_sampler, resolve_sampler
from medlda.samplers.inference import cvb0_infer


def as_corpus(X, n_features: int | None = None, vocabulary: np.ndarray | None = None,
               name: str = "the model") -> Corpus:
    """X (Corpus, sparse or dense counts, lists of tokens) as a Corpus over the model's words. A
    Corpus with words of its own, given the model's ``vocabulary``, is mapped onto it by word
    (``Corpus.to_vocabulary``: unknown words dropped and counted, documents kept in order; the same
    vocabulary costs no copy), since its word ids mean nothing to the model otherwise; so are lists
    of tokens (``Corpus.from_tokens``), which for a fit bring their own words. A matrix, or a corpus
    or model without words (column numbers only), must have the model's number of words
    (``n_features``)."""
    if is_token_lists(X):
        if n_features is not None and (vocabulary is None or is_id_vocabulary(vocabulary)):
            raise ValueError(f"X is lists of tokens, but {name} was fitted on a count matrix without words: give it "
                             "counts over the same columns, or fit it on a Corpus or on lists of tokens")
        return Corpus.from_tokens(X, vocabulary)
    if (isinstance(X, Corpus) and vocabulary is not None and not is_id_vocabulary(vocabulary)
            and not is_id_vocabulary(X.vocabulary)):
        return X.to_vocabulary(vocabulary)
    corpus = X if isinstance(X, Corpus) else Corpus.from_sparse(check_count_matrix(X))
    if n_features is not None and corpus.n_words != n_features:
        raise ValueError(f"X has {corpus.n_words} features, but {name} is expecting {n_features} features as input "
                         f"(words: the columns of the count matrix it was fitted on)")
    return corpus


def poor_score_tags(tags):
    """``tags`` with the task's poor_score set (see ``TopicModel.__sklearn_tags__``)."""
    for task_tags in (tags.classifier_tags, tags.regressor_tags):
        if task_tags is not None:
            task_tags.poor_score = True
    return tags


class TopicModel(BaseEstimator):
    """Shared parameters, validation, training and inference of every topic-model estimator.

    A subclass declares its parameters once, as ``parameters`` (``medlda.models.params``): its
    ``__init__`` (assign-only, keyword-only after n_components), the Parameters section of its
    docstring, its validation in ``fit`` and its command-line flags follow from them. A former
    parameter name (``Param.former``) is still accepted by ``__init__``, ``set_params`` and as an
    attribute, with a FutureWarning (``medlda.models.signature``).
    """

    parameters: ClassVar[dict[str, Param]] = {}

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "parameters" in cls.__dict__:
            cls.__init__ = make_init(cls.parameters)
            for param in cls.parameters.values():
                if param.former:
                    setattr(cls, param.former, FormerName(param.former, param.name))
            cls.__doc__ = (cls.__doc__ or "").rstrip() + "\n\n" + params_doc(cls.parameters)
            register_estimator(cls)

    def __sklearn_tags__(self):
        """scikit-learn >= 1.6 tags: non-negative (count) input, sparse matrices accepted; a poor
        score on scikit-learn's toy data (blobs of two or three features: a vocabulary of two or
        three words leaves a topic model little to find). The classifier and regressor mixins
        set their task's tags after this runs, so ``poor_score_tags`` marks them there."""
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        tags.input_tags.sparse = True
        return tags

    def set_params(self, **params):
        """Set parameters (scikit-learn's ``set_params``); a former name sets its current one, with
        a FutureWarning."""
        return super().set_params(**current_names(type(self).__name__, params, self.parameters))

    def _validate(self) -> None:
        """Check every declared parameter and how the fit runs; build the sampler."""
        validate(self, self.parameters)
        check_run_params(self)
        self._sampler = self._make_sampler()

    def _make_sampler(self, n_tasks: int = 0):
        """The sampler of ``sampler``, "auto" resolved for ``n_tasks`` tasks (``choose_sampler``)."""
        return make_sampler(resolve_sampler(self.sampler, self.n_components, n_tasks),
                            light_variant=self.light_variant, proposal=self.proposal,
                            n_mh=self.n_mh, n_gibbs=getattr(self, "n_gibbs", 2),
                            eta_draw=getattr(self, "eta_draw", "auto"), n_jobs=self._sampler_threads(),
                            block_simulation=getattr(self, "block_simulation", "nested"), phi_every=self.phi_every)

    def _sampler_threads(self) -> int:
        """Threads of the light sampler: n_jobs as joblib reads it (None: 1, -1: every core); one
        inside one-vs-rest, whose binary models already run in parallel processes."""
        if getattr(self, "strategy", "multitask") == "ovr":
            return 1
        return effective_jobs(getattr(self, "n_jobs", None), os.cpu_count() or 1)

    def _prior_alpha(self) -> np.ndarray:
        """The doc-topic prior a fit starts from: alpha_sum / K per topic."""
        return np.full(self.n_components, self.alpha_sum / self.n_components)

    def _alpha(self) -> np.ndarray:
        """The doc-topic prior of inference: the fitted ``alpha_`` (before a fit, the prior)."""
        fitted = getattr(self, "alpha_", None)
        return self._prior_alpha() if fitted is None else fitted

    def _alpha_total(self) -> float:
        """sum_k alpha_k of ``_alpha``: alpha_sum itself while the prior is symmetric."""
        fitted = getattr(self, "alpha_", None)
        return float(fitted.sum()) if fitted is not None and self.optimize_alpha else self.alpha_sum

    def _fit_topics(self, corpus: Corpus, supervision: Supervision | None, rng, n_eta_keep: int = 0,
                    measure=None):
        """Train on a corpus with no empty documents; keep topic-word counts and statistics.
        ``measure(state)`` adds entries to the trace (e.g. held-out perplexity)."""
        n_tasks = 0 if supervision is None else supervision.targets.shape[1]
        sampler = self._sampler = self._make_sampler(n_tasks)
        self.sampler_ = sampler.name  # the resolved sampler (``sampler`` may be "auto")
        if supervision is not None and not sampler.supports_supervision:
            raise ValueError(f"sampler={self.sampler!r} is for unsupervised LDA only; "
                             f"{type(self).__name__} needs sampler='gibbs' or 'light'")
        backend_name = getattr(self, "backend", "local")
        if measure is not None and backend_name != "local":
            raise NotImplementedError("held-out perplexity traces need backend='local'")
        if self.optimize_alpha and backend_name != "local":
            raise NotImplementedError("optimize_alpha (a learned prior) needs backend='local'")
        compile_seconds = warm_up(sampler, n_tasks, (corpus.n_docs, corpus.n_tokens, self.n_components),
                                  inference=measure is not None)
        checkpoints = Checkpoints.for_model(self, corpus.word_ids, corpus.doc_ptr, corpus.n_words, supervision)
        bar = ProgressBar(self.max_iter, desc=type(self).__name__) if self.verbose else None
        callbacks = [c for c in (checkpoints if checkpoints.every else None, bar) if c is not None]
        chain = (corpus.word_ids, corpus.doc_ptr, corpus.n_words, self.n_components, self._prior_alpha(), self.beta,
                 sampler)
        loop = dict(n_iter=self.max_iter, n_eta_keep=n_eta_keep, rng=rng, measure=measure,
                    measure_log_joint=bool(self.trace or self.verbose), measure_every=getattr(self, "trace_every", 1),
                    callbacks=callbacks, alpha_optimizer=AlphaOptimizer() if self.optimize_alpha else None)
        # BLAS (the exact eta draws) gets the estimator's threads and no more: left at every core,
        # OpenBLAS threads spin on cores that other processes hold
        try:
            with threadpool_limits(self._sampler_threads(), user_api="blas"):
                if backend_name == "ray":
                    with ray_backend(*chain, supervision, rng, n_workers=self.n_workers,
                                     address=getattr(self, "ray_address", None), mmap_file=corpus.mmap_file,
                                     snapshot=checkpoints.loaded, checkpoint=checkpoints.written) as backend:
                        result = train(backend, supervision, progress=checkpoints.resume(rng, supervision), **loop)
                        state = backend.chain()
                else:
                    backend = LocalBackend.initialize(*chain, rng, checkpoints.loaded)
                    result = train(backend, supervision, progress=checkpoints.resume(rng, supervision), **loop)
                    state = backend.chain()
        finally:
            if bar is not None:
                bar.close()
        self.topic_word_counts_ = np.ascontiguousarray(state.n_wk.T)
        self.alpha_ = np.array(state.alpha, dtype=np.float64)
        self.n_features_in_ = corpus.n_words
        remember_words(self, corpus, self._fit_input)
        self.trace_ = result.trace
        self.n_iter_ = self.max_iter  # scikit-learn's name for the iterations run: no test stops a chain early
        self.log_joint_ = state.log_joint()
        self.fit_stats_ = {
            "train_seconds": result.seconds,
            "compile_seconds": compile_seconds,
            "n_tokens": corpus.n_tokens,
            "n_docs": corpus.n_docs,
            "tokens_per_second": corpus.n_tokens * self.max_iter / max(result.seconds, 1e-12),
            **result.stats,
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
        """New documents X as a Corpus over the fitted words (``as_corpus``: a Corpus with a
        vocabulary is aligned to ``vocabulary_`` by word, anything else must match in size); raw
        texts through ``vectorizer_``, for a model fitted on texts."""
        if is_texts(X):
            vectorizer = getattr(self, "vectorizer_", None)
            if vectorizer is None:
                raise ValueError(no_text_hint(self))
            return Corpus.from_texts(X, vocabulary=self.vocabulary_, vectorizer=vectorizer)
        return as_corpus(X, self.n_features_in_, getattr(self, "vocabulary_", None), type(self).__name__)

    def text_preprocessing(self, vectorizer=None) -> tuple[dict | None, np.ndarray | None]:
        """(settings, words) that a model file keeps of how raw text becomes this model's words:
        the ``medlda.data.text.make_vectorizer`` keywords of ``vectorizer`` (default: the model's
        own ``vectorizer_``, None for a model fitted on counts; False: none) and the words of its
        columns. ValueError for a vectorizer that make_vectorizer's settings cannot describe, or
        whose words are not the model's."""
        check_is_fitted(self, "topic_word_counts_")
        return text_preprocessing(self, getattr(self, "vectorizer_", None) if vectorizer is None else vectorizer)

    def restore_vectorizer(self, settings: dict | None) -> None:
        """``vectorizer_`` from the make_vectorizer ``settings`` a model file keeps, over
        ``vocabulary_`` (None: a model without text preprocessing)."""
        self.vectorizer_ = None if settings is None else vectorizer_for(self.vocabulary_, settings)

    def _doc_topic_counts(self, X) -> tuple[np.ndarray, np.ndarray]:
        """Inferred doc-topic counts (D, K) of new documents (``inference``), and their lengths; a
        document's result does not depend on the other documents of X or its place among them
        (Gibbs seeds each document's draws by random_state and its own words)."""
        check_is_fitted(self, "topic_word_counts_")
        corpus = self._input_corpus(X)
        bar = None
        if self.verbose:
            bar = tqdm(total=corpus.n_docs, desc="inference", unit="doc", **bar_layout())
        progress = None if bar is None else bar.update
        try:
            if self.inference == "cvb0":
                counts = cvb0_infer(corpus.word_ids, corpus.doc_ptr, self._phi_wk(), self._alpha(),
                                    self._sampler_threads(), progress=progress)
            else:
                counts = self._make_sampler().infer(corpus.word_ids, corpus.doc_ptr, self._phi_wk(), self._alpha(),
                                                    self.n_infer_burn, self.n_infer_avg,
                                                    np.random.default_rng(self.random_state), self._sampler_threads(),
                                                    progress=progress, doc_seeded=True)
        finally:
            if bar is not None:
                bar.close()
        return counts, corpus.doc_lengths

    def _zbar(self, X) -> np.ndarray:
        """Inferred normalized topic counts; an empty document gets the prior mean alpha / sum(alpha)."""
        counts, lengths = self._doc_topic_counts(X)
        zbar = counts / np.maximum(lengths, 1)[:, None]
        if self.optimize_alpha:
            zbar[lengths == 0] = self._alpha() / self._alpha_total()
        else:
            zbar[lengths == 0] = 1.0 / self.n_components
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
            return np.array([f"{prefix}_{c}_{k}" for c in self.classes_ for k in range(self.n_components)], dtype=object)
        return np.array([f"{prefix}{k}" for k in range(self.n_components)], dtype=object)

    def top_words(self, n: int = 10, vocabulary=None, relevance: float = 1.0) -> list[list[tuple[str, float]]]:
        """The ``n`` most probable words of each topic as (word, weight) pairs, the weight the word's
        probability in the topic, phi_kw (``topic_word_``), as gensim's ``show_topic`` gives them;
        ``relevance`` < 1 picks and orders the most relevant instead (see ``top_word_ids``), still
        weighed by probability. Words come from ``vocabulary`` (e.g. a pipeline's
        ``CountVectorizer().get_feature_names_out()``), else from the words the model was fitted on
        (a Corpus, lists of tokens), else word ids are given as text. Only words the topic holds
        tokens of: an empty topic gives none. For words alone: ``words_of(top_word_ids(n))``."""
        ids = self.top_word_ids(n, relevance)
        weights = np.take_along_axis(self.topic_word_, ids, axis=1)
        held = np.take_along_axis(self.topic_word_counts_, ids, axis=1) > 0
        return [list(zip(words, row[keep].tolist()))
                for words, row, keep in zip(self.words_of(ids, vocabulary), weights, held)]

    def words_of(self, ids: np.ndarray, vocabulary=None) -> list[list[str]]:
        """Each topic's row of word ids (``top_word_ids``: row k is topic k) as words of
        ``vocabulary``, else of the fitted Corpus, else the ids as text. A word the topic holds no
        token of is left out, so an empty topic has no words rather than the prior's filler."""
        vocab = self.vocabulary_ if vocabulary is None else np.asarray(vocabulary, dtype=str)
        if vocab is not None and vocab.size != self.n_features_in_:
            raise ValueError(f"vocabulary has {vocab.size} words, the model {self.n_features_in_}")
        if vocab is None:
            vocab = np.array([str(v) for v in range(self.n_features_in_)])
        counts = self.topic_word_counts_
        return [[str(vocab[v]) for v in row if counts[k, v] > 0] for k, row in enumerate(ids)]

    def top_word_ids(self, n: int = 10, relevance: float = 1.0) -> np.ndarray:
        """(K, n) word ids of each topic's ``n`` top words, the first first. ``relevance`` is
        LDAvis's lambda (Sievert and Shirley 2014): words ranked by
        lambda log phi_kw + (1 - lambda) log(phi_kw / p_w), p_w = sum_k p(k) phi_kw the word's
        probability in the whole corpus. 1 ranks by probability; lower values favour words
        frequent in the topic and rare elsewhere (the paper's users preferred about 0.6), which
        pushes back words every topic holds."""
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

    def coherence(self, X, measure: str = "npmi", n_words: int = 10, relevance: float = 1.0) -> np.ndarray:
        """Coherence (K,) of each topic's ``n_words`` top words (``top_word_ids``) in the documents
        X (same vocabulary as the fit; a Corpus with its own words is aligned by word): ``"npmi"``
        (in [-1, 1], higher is better; held-out or external documents) or ``"umass"`` (the training
        documents). See ``medlda.evaluation.coherence``."""
        return topic_coherence(self.top_word_ids(n_words, relevance), self._input_corpus(X), measure)

    def summary(self) -> Summary:
        """What this fitted model is, in words, as ``medlda info`` says it of a saved one: estimator
        and task, topics and words, what it was trained on and how, training accuracy, c and the
        margin explained, and every parameter. A dict of those fields (the keys of ``medlda info
        --json``) that prints, and shows in a notebook, as that text."""
        check_is_fitted(self, "topic_word_counts_")
        return model_summary(self)

    def save(self, path, vectorizer=None) -> None:
        """Write the fitted model to one file (arrays + JSON metadata, no pickle), atomically, with
        its text preprocessing (``text_preprocessing``: the make_vectorizer settings and words of
        ``vectorizer``, default the model's own ``vectorizer_``; False: none), so that the loaded
        model predicts raw texts. A vectorizer make_vectorizer cannot describe is refused
        (ValueError); a Pipeline (make_vectorizer(), model) is saved by ``medlda.save_model``."""
        save_model(self, path, vectorizer=vectorizer)


def fit_corpus(model: TopicModel, X, y=None, weight: np.ndarray | None = None):
    """The training corpus without empty documents, and y and the document weights to match.
    Skipping changes what the model is fitted on, so it warns (the count is ``n_empty_skipped_``)."""
    corpus = as_corpus(X)
    model._fit_input = corpus if is_token_lists(X) else X  # token lists bring their words, as a Corpus does
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
    check_fit_size(model, corpus.n_docs, corpus.n_words, 0 if y is None else (y.shape[1] if np.ndim(y) == 2 else 1))
    return corpus, y, weight


def check_sample_weight(sample_weight, n_docs: int) -> np.ndarray | None:
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
