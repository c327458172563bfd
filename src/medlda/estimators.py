"""scikit-learn estimators: LDA (unsupervised) and MedLDAClassifier (supervised topics + classifier).

Thin layer: validate, turn X into a Corpus, run the training loop, keep the fitted arrays.
``__init__`` only stores parameters; everything is checked in ``fit``.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from . import training
from ._docs import params_doc
from .corpus import Corpus, check_count_matrix
from .losses import LOSSES, make_loss
from .samplers import make_sampler
from .training import SamplerState, Supervision

BINARY_MARGIN = 164.0  # c * l = 262.4 with c = 1.6: the papers' binary 20 Newsgroups setting
MULTICLASS_MARGIN = 64.0  # the authors' LightMedLDA default for multi-class (c * l = 102.4)

_COMMON = ("n_topics", "alpha_sum", "beta", "n_iter", "sampler", "light_variant", "proposal", "n_mh",
           "n_infer_burn", "n_infer_avg", "trace", "random_state", "verbose")


def _as_corpus(X, n_features: int | None = None) -> Corpus:
    """X (Corpus, sparse or dense counts) as a Corpus, checking the vocabulary size when known."""
    corpus = X if isinstance(X, Corpus) else Corpus.from_sparse(check_count_matrix(X))
    if n_features is not None and corpus.n_words != n_features:
        raise ValueError(f"X has {corpus.n_words} words (columns), the model was fitted with {n_features}")
    return corpus


def _check(value, name: str, kind, low=None, low_open=False) -> None:
    """Raise ValueError unless value is of ``kind`` and above ``low`` (strictly if low_open)."""
    ok = isinstance(value, kind) and not isinstance(value, bool)
    if ok and low is not None:
        ok = value > low if low_open else value >= low
    if not ok:
        bound = "" if low is None else f" {'>' if low_open else '>='} {low}"
        raise ValueError(f"{name} must be a {getattr(kind, '__name__', 'number')}{bound}, got {value!r}")


class _TopicModel(BaseEstimator):
    """Shared parameters, validation, training and inference of every topic-model estimator."""

    def _validate_common(self) -> None:
        _check(self.n_topics, "n_topics", numbers.Integral, 1)
        _check(self.alpha_sum, "alpha_sum", numbers.Real, 0, low_open=True)
        _check(self.beta, "beta", numbers.Real, 0, low_open=True)
        _check(self.n_iter, "n_iter", numbers.Integral, 1)
        _check(self.n_infer_burn, "n_infer_burn", numbers.Integral, 0)
        _check(self.n_infer_avg, "n_infer_avg", numbers.Integral, 1)
        _check(self.n_mh, "n_mh", numbers.Integral, 1)
        _check(getattr(self, "n_gibbs", 1), "n_gibbs", numbers.Integral, 1)
        self._sampler = self._make_sampler()

    def _make_sampler(self):
        return make_sampler(self.sampler, light_variant=self.light_variant, proposal=self.proposal,
                            n_mh=self.n_mh, n_gibbs=getattr(self, "n_gibbs", 2))

    def _alpha(self) -> np.ndarray:
        return np.full(self.n_topics, self.alpha_sum / self.n_topics)

    def _fit_topics(self, corpus: Corpus, supervision: Supervision | None, rng, n_eta_keep: int = 0):
        """Train on a corpus with no empty documents; keep topic-word counts and statistics."""
        compile_seconds = training.warm_up()
        state = SamplerState.initialize(corpus.word_ids, corpus.doc_ptr, corpus.n_words,
                                        self.n_topics, self._alpha(), self.beta, rng)
        bar = None
        if self.verbose:
            from .progress import ProgressBar
            bar = ProgressBar(self.n_iter, desc=type(self).__name__)
        try:
            result = training.train(state, supervision, n_iter=self.n_iter, n_eta_keep=n_eta_keep,
                                     rng=rng, sampler=self._sampler,
                                     measure_log_joint=bool(self.trace or self.verbose), callback=bar)
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

    def _doc_topic_counts(self, X) -> tuple[np.ndarray, np.ndarray]:
        """Averaged inferred doc-topic counts (D, K) of new documents, and their lengths."""
        check_is_fitted(self, "topic_word_counts_")
        corpus = _as_corpus(X, self.n_features_in_)
        rng = np.random.default_rng(self.random_state)
        counts = self._make_sampler().infer(corpus.word_ids, corpus.doc_ptr, self._phi_wk(), self._alpha(),
                                            self.n_infer_burn, self.n_infer_avg, rng)
        return counts, corpus.doc_lengths

    def _zbar(self, X) -> np.ndarray:
        """Inferred normalized topic counts; an empty document gets the prior mean alpha / alpha_sum."""
        counts, lengths = self._doc_topic_counts(X)
        zbar = counts / np.maximum(lengths, 1)[:, None]
        zbar[lengths == 0] = 1.0 / self.n_topics
        return zbar

    def top_words(self, n: int = 10, vocabulary=None) -> list[list[str]]:
        """The ``n`` most probable words of each topic. Words come from ``vocabulary`` (e.g. a
        pipeline's ``CountVectorizer().get_feature_names_out()``), else from the fitted Corpus,
        else word ids are given as text."""
        check_is_fitted(self, "topic_word_counts_")
        vocab = self.vocabulary_ if vocabulary is None else np.asarray(vocabulary, dtype=str)
        if vocab is not None and vocab.size != self.n_features_in_:
            raise ValueError(f"vocabulary has {vocab.size} words, the model {self.n_features_in_}")
        if vocab is None:
            vocab = np.array([str(v) for v in range(self.n_features_in_)])
        order = np.argsort(-self.topic_word_counts_, axis=1, kind="stable")[:, :n]
        return [[str(vocab[v]) for v in row] for row in order]

    def save(self, path) -> None:
        """Write the fitted model to one file (arrays + JSON metadata, no pickle), atomically."""
        from .persistence import save_model
        save_model(self, path)


def _fit_corpus(model: _TopicModel, X, y=None):
    model._fit_input = X
    corpus = _as_corpus(X)
    keep = corpus.doc_lengths > 0
    model.n_empty_skipped_ = int((~keep).sum())
    if model.n_empty_skipped_:
        corpus = corpus.subset(keep)
        if y is not None:
            y = y[keep]
    if corpus.n_docs == 0:
        raise ValueError("no non-empty documents to train on")
    return corpus, y


class LDA(TransformerMixin, _TopicModel):
    __doc__ = ("Latent Dirichlet allocation with an exact collapsed Gibbs sampler.\n\n"
               + params_doc(*_COMMON))

    def __init__(self, n_topics: int = 20, *, alpha_sum: float = 6.4, beta: float = 0.01,
                 n_iter: int = 50, sampler: str = "gibbs", light_variant: str = "partial",
                 proposal: str = "mixture", n_mh: int = 6, n_infer_burn: int = 30,
                 n_infer_avg: int = 20, trace: bool = False, random_state=None, verbose: int = 0):
        self.n_topics = n_topics
        self.alpha_sum = alpha_sum
        self.beta = beta
        self.n_iter = n_iter
        self.sampler = sampler
        self.light_variant = light_variant
        self.proposal = proposal
        self.n_mh = n_mh
        self.n_infer_burn = n_infer_burn
        self.n_infer_avg = n_infer_avg
        self.trace = trace
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y=None) -> "LDA":
        """Sample topics for the documents of X (counts matrix or Corpus)."""
        self._validate_common()
        corpus, _ = _fit_corpus(self, X)
        rng = np.random.default_rng(self.random_state)
        state, _ = self._fit_topics(corpus, None, rng)
        self._train_doc_topic = (state.n_dk + self._alpha()) / (state.doc_lengths + self.alpha_sum)[:, None]
        return self

    def transform(self, X) -> np.ndarray:
        """Inferred topic proportions theta (D, K) of new documents; rows sum to 1."""
        counts, lengths = self._doc_topic_counts(X)
        return (counts + self._alpha()) / (lengths + self.alpha_sum)[:, None]

    def perplexity(self, X) -> float:
        """Held-out perplexity by document completion (SPEC §9); lower is better."""
        check_is_fitted(self, "topic_word_counts_")
        corpus = _as_corpus(X, self.n_features_in_)
        rng = np.random.default_rng(self.random_state)
        return training.completion_perplexity(corpus.word_ids, corpus.doc_ptr, self._phi_wk(),
                                              self._alpha(), self.n_infer_burn, self.n_infer_avg, rng,
                                              self._make_sampler())

    def score(self, X, y=None) -> float:
        """Mean held-out log likelihood per token by document completion (= -log perplexity)."""
        return -float(np.log(self.perplexity(X)))


class MedLDAClassifier(ClassifierMixin, _TopicModel):
    __doc__ = ("Supervised topic model whose topics are learned jointly with a max-margin classifier\n"
               "(Gibbs MedLDA). Binary, and multi-class as T = C one-vs-all tasks on shared topics.\n\n"
               + params_doc("n_topics", "alpha_sum", "beta", "c", "margin", "sigma2", "loss",
                            "n_iter", "sampler", "light_variant", "proposal", "n_mh", "n_gibbs",
                            "n_eta_avg", "n_infer_burn", "n_infer_avg",
                            "trace", "random_state", "verbose"))

    def __init__(self, n_topics: int = 20, *, alpha_sum: float = 6.4, beta: float = 0.01,
                 c: float = 1.6, margin: float | str = "auto", sigma2: float = 1.0, loss: str = "hinge",
                 n_iter: int = 50, sampler: str = "gibbs", light_variant: str = "partial",
                 proposal: str = "mixture", n_mh: int = 6, n_gibbs: int = 2, n_eta_avg: int = 5,
                 n_infer_burn: int = 30, n_infer_avg: int = 20, trace: bool = False,
                 random_state=None, verbose: int = 0):
        self.n_topics = n_topics
        self.alpha_sum = alpha_sum
        self.beta = beta
        self.c = c
        self.margin = margin
        self.sigma2 = sigma2
        self.loss = loss
        self.n_iter = n_iter
        self.sampler = sampler
        self.light_variant = light_variant
        self.proposal = proposal
        self.n_mh = n_mh
        self.n_gibbs = n_gibbs
        self.n_eta_avg = n_eta_avg
        self.n_infer_burn = n_infer_burn
        self.n_infer_avg = n_infer_avg
        self.trace = trace
        self.random_state = random_state
        self.verbose = verbose

    def _validate(self) -> None:
        self._validate_common()
        _check(self.c, "c", numbers.Real, 0, low_open=True)
        if self.margin != "auto":
            _check(self.margin, "margin", numbers.Real, 0)
        _check(self.sigma2, "sigma2", numbers.Real, 0, low_open=True)
        _check(self.n_eta_avg, "n_eta_avg", numbers.Integral, 1)
        if self.loss not in LOSSES:
            raise ValueError(f"loss must be one of {sorted(LOSSES)}, got {self.loss!r}")

    def _label_tasks(self, y) -> np.ndarray:
        """Set classes_ and return the (D, T) 0/1 task indicator (T = 1 for two classes)."""
        y = np.asarray(y)
        if y.ndim != 1:
            raise NotImplementedError("multi-label y (an indicator matrix) is not supported yet; "
                                      "pass one label per document")
        self.classes_, codes = np.unique(y, return_inverse=True)
        if self.classes_.size < 2:
            raise ValueError(f"MedLDAClassifier needs at least two classes in y, got {self.classes_.size}")
        if self.classes_.size == 2:
            return (codes == 1)[:, None]
        return codes[:, None] == np.arange(self.classes_.size)[None, :]

    def fit(self, X, y) -> "MedLDAClassifier":
        """Learn topics and classifier jointly from documents X and labels y."""
        self._validate()
        if y is None:
            raise ValueError("MedLDAClassifier.fit needs labels y")
        y = np.asarray(y)
        if len(y) != (X.n_docs if isinstance(X, Corpus) else X.shape[0]):
            raise ValueError(f"X has {X.shape[0] if not isinstance(X, Corpus) else X.n_docs} documents "
                             f"but y has {len(y)} labels")
        corpus, y = _fit_corpus(self, X, y)
        indicator = self._label_tasks(y)
        self.margin_ = float(self.margin) if self.margin != "auto" else (
            BINARY_MARGIN if indicator.shape[1] == 1 else MULTICLASS_MARGIN)
        loss = make_loss(self.loss, self.c, self.margin_)
        targets = loss.encode(indicator)
        rng = np.random.default_rng(self.random_state)
        true_codes = self._codes(targets)
        supervision = Supervision(loss, targets, 1.0 / self.sigma2,
                                  np.zeros((targets.shape[1], self.n_topics)),
                                  metric=lambda omega: float(np.mean(self._codes(omega) == true_codes)))
        _, result = self._fit_topics(corpus, supervision, rng, n_eta_keep=min(self.n_eta_avg, self.n_iter))
        self.eta_samples_ = result.eta_samples
        self.train_accuracy_ = result.trace[-1]["train_accuracy"]
        return self

    @staticmethod
    def _codes(omega: np.ndarray) -> np.ndarray:
        """Class codes from discriminants (D, T): sign for one task, argmax for several."""
        if omega.shape[1] == 1:
            return (omega[:, 0] > 0).astype(np.int64)
        return np.argmax(omega, axis=1)

    @property
    def eta_(self) -> np.ndarray:
        """Classifier weights (T, K): the average of the kept eta samples."""
        check_is_fitted(self, "eta_samples_")
        return self.eta_samples_.mean(axis=0)

    def transform(self, X) -> np.ndarray:
        """Inferred normalized topic counts zbar (D, K) of new documents: the classifier's features."""
        return self._zbar(X)

    def decision_function(self, X) -> np.ndarray:
        """omega = eta . zbar: shape (D,) for two classes (> 0 means classes_[1]), else (D, C)."""
        check_is_fitted(self, "eta_samples_")
        omega = self._zbar(X) @ self.eta_.T
        return omega[:, 0] if omega.shape[1] == 1 else omega

    def predict(self, X) -> np.ndarray:
        """Predicted class labels."""
        omega = self.decision_function(X)
        return self.classes_[self._codes(omega.reshape(len(omega), -1))]

    def class_topics(self, n: int = 3) -> dict:
        """For each class, the ``n`` topics whose eta weighs most toward it (binary: classes_[0]
        gets the most negative weights)."""
        eta = self.eta_
        if eta.shape[0] == 1:
            order = np.argsort(-eta[0], kind="stable")
            return {self.classes_[1].item(): order[:n].tolist(), self.classes_[0].item(): order[::-1][:n].tolist()}
        return {c.item(): np.argsort(-eta[t], kind="stable")[:n].tolist() for t, c in enumerate(self.classes_)}
