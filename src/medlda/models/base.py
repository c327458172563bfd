"""The shared base of every topic-model estimator: parameters, training, inference, topics."""

from __future__ import annotations

import inspect
import os
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

from medlda.data.corpus import Corpus, is_id_vocabulary
from medlda.data.counts import check_count_matrix
from medlda.data.text import is_texts, vectorizer_for
from medlda.data.tokens import is_token_lists
from medlda.engine.alpha import AlphaOptimizer
from medlda.engine.checkpoint import Checkpoints, check_run_params
from medlda.engine.local import LocalBackend
from medlda.engine.loop import Supervision, train
from medlda.engine.progress import ProgressBar, bar_layout
from medlda.engine.ray import ray_backend
from medlda.engine.warmup import warm_up
from medlda.io.model_file import register_estimator, save_model
from medlda.models.chains import chain_topics, check_chains
from medlda.models.labels import effective_jobs
from medlda.models.params import Param, params_doc, validate
from medlda.models.signature import FormerName, current_names, make_init
from medlda.models.texts import no_text_hint, remember_words, text_preprocessing
from medlda.models.topics import TopicWords
from medlda.reporting.reports import Summary, model_summary
from medlda.samplers import make_sampler, resolve_sampler, resolve_steps
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


def with_parameters(doc: str | None, parameters: str) -> str:
    """The class docstring ``doc``, its indentation removed, with the numpydoc block ``parameters``
    put before its first section (numpydoc's order: summary, description, Parameters, Attributes, ...)."""
    lines = inspect.cleandoc(doc or "").splitlines()
    for i in range(1, len(lines) - 1):
        heading, rule = lines[i].strip(), lines[i + 1].strip()
        if heading and rule == "-" * len(heading) and not lines[i - 1].strip():
            return "\n".join(lines[:i] + parameters.splitlines() + [""] + lines[i:])
    return "\n".join(lines).rstrip() + "\n\n" + parameters


class TopicModel(TopicWords, BaseEstimator):
    """Shared parameters, validation, training and inference of every topic-model estimator.

    A subclass declares its parameters once, as ``parameters`` (``medlda.models.params``): its
    ``__init__`` (assign-only, keyword-only after n_components), the Parameters section of its
    docstring, its validation in ``fit`` and its command-line flags follow from them. A former
    parameter name (``Param.former``) is still accepted by ``__init__``, ``set_params`` and as an
    attribute, with a FutureWarning (``medlda.models.signature``).
    """

    parameters: ClassVar[dict[str, Param]] = {}
    _phi_cache: np.ndarray | None

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "parameters" in cls.__dict__:
            setattr(cls, "__init__", make_init(cls.parameters))
            for param in cls.parameters.values():
                if param.former:
                    setattr(cls, param.former, FormerName(param.former, param.name))
            cls.__doc__ = with_parameters(cls.__doc__, params_doc(cls.parameters))
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

    def set_params(self, **params: Any) -> TopicModel:
        """Set parameters, as scikit-learn's ``set_params``; a former name sets its current one.

        Parameters
        ----------
        **params
            Parameter values by name (a former name gives a FutureWarning).

        Returns
        -------
        self
            The estimator.

        Examples
        --------
        >>> from medlda import LDA
        >>> LDA(5).set_params(max_iter=20).max_iter
        20
        """
        return super().set_params(**current_names(type(self).__name__, params, self.parameters))

    def _validate(self) -> None:
        """Check every declared parameter and how the fit runs; build the sampler."""
        validate(self, self.parameters)
        check_run_params(self)
        check_chains(self)
        self.__dict__.pop("chains_", None)
        self.__dict__.pop("estimators_", None)
        self._sampler = self._make_sampler()

    def _make_sampler(self, n_tasks: int = 0):
        """The sampler of ``sampler``, "auto" resolved for ``n_tasks`` tasks (``choose_sampler``)."""
        return make_sampler(resolve_sampler(self.sampler, self.n_components, n_tasks),
                            light_variant=self.light_variant, proposal=self.proposal,
                            n_mh=self._steps(n_tasks), n_gibbs=getattr(self, "n_gibbs", 2),
                            eta_draw=getattr(self, "eta_draw", "auto"), n_jobs=self._sampler_threads(),
                            block_simulation=getattr(self, "block_simulation", "nested"), phi_every=self.phi_every)

    def _steps(self, n_tasks: int) -> int:
        """Light's MH steps per token for ``n_tasks`` tasks (``n_mh`` "auto" resolved)."""
        return resolve_steps(self.n_mh, n_tasks, getattr(self, "multilabel_", False))

    def _sampler_threads(self) -> int:
        """Threads of a chain (light's sweeps, the aux draws): n_jobs as joblib reads it (None: 1,
        -1: every core); one inside one-vs-rest, whose binary models already run in parallel."""
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
        self.sampler_, self.n_mh_ = sampler.name, self._steps(n_tasks)  # "auto" resolved
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
                                     snapshot=checkpoints.loaded, checkpoint=checkpoints.written) as on_ray:
                        # RayBackend has no set_alpha, which train calls only for optimize_alpha (refused above)
                        result = train(on_ray, supervision,  # type: ignore[arg-type]
                                       progress=checkpoints.resume(rng, supervision), **loop)
                        state = on_ray.chain()
                else:
                    backend = LocalBackend.initialize(*chain, rng, checkpoints.loaded, self._sampler_threads())
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

    def _phi_wk(self) -> np.ndarray:
        cache = getattr(self, "_phi_cache", None)
        if cache is None:
            cache = self._phi_cache = np.ascontiguousarray(self.topic_word_.T)
        return cache

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

    def text_preprocessing(self, vectorizer: Any = None) -> tuple[dict | None, np.ndarray | None]:
        """How raw text becomes this model's words, as a model file keeps it.

        Parameters
        ----------
        vectorizer : CountVectorizer, None or False, default=None
            The vectorizer to describe: None, the model's own ``vectorizer_`` (None for a model
            fitted on counts); False, none.

        Returns
        -------
        settings : dict or None
            The ``medlda.data.text.make_vectorizer`` keywords of ``vectorizer``.
        words : ndarray of str or None
            The words of the model's columns.

        Raises
        ------
        ValueError
            For a vectorizer that make_vectorizer's settings cannot describe, or whose words are not
            the model's.

        Examples
        --------
        >>> from medlda import LDA
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, _ = make_supervised_corpus(300, 5, doc_length=30, random_state=0)
        >>> settings, words = LDA(5, max_iter=5, random_state=0).fit(corpus).text_preprocessing()
        >>> settings is None, words[:3].tolist()
        (True, ['t0_0', 't0_1', 't0_2'])
        """
        check_is_fitted(self, "topic_word_counts_")
        return text_preprocessing(self, getattr(self, "vectorizer_", None) if vectorizer is None else vectorizer)

    def restore_vectorizer(self, settings: dict | None) -> None:
        """Set ``vectorizer_`` from the make_vectorizer ``settings`` that a model file keeps.

        Parameters
        ----------
        settings : dict or None
            ``text_preprocessing``'s settings, over ``vocabulary_``; None: no text preprocessing.
        """
        if settings is None:
            self.vectorizer_ = None
        elif self.vocabulary_ is None:
            raise ValueError("text preprocessing needs the model's words (vocabulary_)")
        else:
            self.vectorizer_ = vectorizer_for(self.vocabulary_, settings)

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

    def release_fit_state(self) -> None:
        """Drop what only the fit needed (the sampler's tables, the training input): a sub-model kept
        by a composite holds its topics and eta only."""
        self.__dict__.pop("_sampler", None)
        self.__dict__.pop("_fit_input", None)

    def _zbar(self, X) -> np.ndarray:
        """Inferred normalized topic counts; an empty document gets the prior mean alpha / sum(alpha);
        several chains, or one-vs-rest: each sub-model's, side by side (the documents aligned once, here)."""
        subs = getattr(self, "chains_", None) or getattr(self, "estimators_", None)
        if subs:
            return chain_topics(subs, self._input_corpus(X), getattr(self, "n_jobs", None))
        counts, lengths = self._doc_topic_counts(X)
        zbar = counts / np.maximum(lengths, 1)[:, None]
        if self.optimize_alpha:
            zbar[lengths == 0] = self._alpha() / self._alpha_total()
        else:
            zbar[lengths == 0] = 1.0 / self.n_components
        return zbar

    def summary(self) -> Summary:
        """What this fitted model is, in words, as ``medlda info`` says it of a saved one.

        Estimator and task, topics and words, what it was trained on and how, training accuracy,
        c and the margin explained, and every parameter.

        Returns
        -------
        Summary
            A dict of those fields (the keys of ``medlda info --json``) that prints, and shows in
            a notebook, as that text.

        Examples
        --------
        >>> from medlda import MedLDAClassifier
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, truth = make_supervised_corpus(300, 5, doc_length=30, random_state=0)
        >>> summary = MedLDAClassifier(5, max_iter=10, random_state=0).fit(corpus, truth.y).summary()
        >>> summary["estimator"]
        'MedLDAClassifier'
        """
        check_is_fitted(self, "topic_word_counts_")
        return model_summary(self)

    def save(self, path: str | os.PathLike, vectorizer: Any = None) -> None:
        """Write the fitted model to one file, atomically: arrays and JSON metadata, no pickle.

        The file keeps the model's text preprocessing (``text_preprocessing``), so that the loaded
        model predicts raw texts. A Pipeline ``(make_vectorizer(), model)`` is saved by
        ``medlda.save_model``.

        Parameters
        ----------
        path : str or path-like
            The model file to write (``.npz``).
        vectorizer : CountVectorizer, None or False, default=None
            The text preprocessing to keep: None, the model's own ``vectorizer_``; False, none.

        Raises
        ------
        ValueError
            For a vectorizer that make_vectorizer's settings cannot describe.

        See Also
        --------
        medlda.load_model

        Examples
        --------
        >>> import os, tempfile
        >>> from medlda import LDA, load_model
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, _ = make_supervised_corpus(300, 5, doc_length=30, random_state=0)
        >>> lda = LDA(5, max_iter=5, random_state=0).fit(corpus)
        >>> path = os.path.join(tempfile.mkdtemp(), "topics.npz")
        >>> lda.save(path)
        >>> bool((load_model(path).transform(corpus[:2]) == lda.transform(corpus[:2])).all())
        True
        """
        save_model(self, path, vectorizer=vectorizer)
