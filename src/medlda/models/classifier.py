"""MedLDAClassifier: topics learned jointly with a classifier (Gibbs MedLDA, gSLDA)."""

from __future__ import annotations

import time

import numpy as np
from sklearn.base import ClassifierMixin, TransformerMixin, clone
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import _num_samples, check_is_fitted

from medlda.data.corpus import Corpus, count_matrix_shape
from medlda.engine.loop import Supervision
from medlda.engine.state import ChainState
from medlda.evaluation.calibration import calibration_size, fit_proba_scale, log_proba_from_omega, proba_from_omega
from medlda.evaluation.explain import toward_prediction
from medlda.evaluation.metrics import subset_accuracy
from medlda.losses import LOSSES, make_loss
from medlda.models.base import TopicModel, check_sample_weight, fit_corpus, poor_score_tags
from medlda.models.labels import codes_from_omega, label_indicator, warn_uncarried_labels
from medlda.models.ovr import OneVsRest, fit_ovr, ovr_seeds
from medlda.models.params import ETA, INFERENCE, PRIOR, RUN, SAMPLING, declared
from medlda.models.texts import remember_words

# what a one-vs-rest binary model does not inherit from its parent: it runs in one process, keeps no
# checkpoints, and takes its documents' weights (class weights included) as they are
_BINARY_RUN = {"strategy": "multitask", "n_jobs": 1, "verbose": 0, "class_weight": None, "checkpoint_every": 0,
               "checkpoint_path": None, "resume": False, "backend": "local"}


class MedLDAClassifier(ClassifierMixin, TransformerMixin, TopicModel):
    """Supervised topic model whose topics are learned jointly with a classifier: Gibbs MedLDA
    (hinge loss) or gSLDA (logistic loss). Binary; multi-class as C tasks on shared topics
    (strategy='multitask') or C binary models with their own topics (strategy='ovr');
    multi-label when y is a 2-d label-indicator matrix (predict returns one too)."""

    parameters = declared((*PRIOR, "c", "margin", "sigma2", "positive_cost", "class_weight", "loss", "strategy",
                           "n_jobs", *SAMPLING, *ETA, *INFERENCE, *RUN))

    def __sklearn_tags__(self):
        return poor_score_tags(super().__sklearn_tags__())

    def fit(self, X, y, sample_weight=None) -> MedLDAClassifier:
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
        weight = self._doc_weight(check_sample_weight(sample_weight, n_docs), indicator)
        corpus, indicator, weight = fit_corpus(self, X, indicator, weight)
        if self.multilabel_:
            warn_uncarried_labels(self.classes_, indicator)
        self._resolve_loss(indicator.shape[1])
        self.__dict__.pop("estimators_", None)
        if self.strategy == "ovr" and indicator.shape[1] > 1:
            self._fit_one_vs_rest(corpus, indicator, weight)
        else:
            self._fit_tasks(corpus, indicator, np.random.default_rng(self.random_state), weight)
        self._fit_proba_scale(corpus, indicator)
        return self

    def _resolve_loss(self, n_tasks: int) -> None:
        """``c_``, ``margin_`` and ``positive_cost_``: the parameters, or the loss's defaults for them."""
        loss = LOSSES[self.loss]
        multilabel = self.multilabel_
        self.c_ = loss.default_c(n_tasks) if self.c == "auto" else float(self.c)
        self.margin_ = loss.default_margin(n_tasks, multilabel) if self.margin == "auto" else float(self.margin)
        self.positive_cost_ = (loss.default_positive_cost(n_tasks, multilabel, self.strategy == "ovr", self.n_components)
                               if self.positive_cost == "auto" else float(self.positive_cost))

    def _fit_one_vs_rest(self, corpus: Corpus, indicator: np.ndarray, weight: np.ndarray | None) -> None:
        """C binary models, each on its own topics, presented as one stacked model."""
        fitted = fit_ovr(self._binary_template(), _fit_binary, corpus, indicator, weight,
                         ovr_seeds(self.random_state, indicator.shape[1]), self.n_jobs, self.backend,
                         self.n_workers, self.ray_address)
        self._take_one_vs_rest(fitted)
        self.sampler_ = self.estimators_[0].sampler_
        self.fit_stats_ = fitted.fit_stats
        self.n_iter_ = self.max_iter
        self.n_features_in_ = corpus.n_words
        remember_words(self, corpus, self._fit_input)
        for sub in self.estimators_:
            sub.vocabulary_ = self.vocabulary_
        self.log_joint_ = fitted.log_joint
        self.trace_ = []
        truth = indicator.astype(np.int64) if self.multilabel_ else self._codes(indicator.astype(float))
        self.train_accuracy_ = subset_accuracy(codes_from_omega(fitted.train_omega, self.multilabel_), truth)

    def _take_one_vs_rest(self, fitted: OneVsRest) -> None:
        """The binary models and their stacked view: topics (C*K, V), block-diagonal eta samples."""
        self.estimators_ = fitted.estimators
        self.topic_word_counts_ = fitted.topic_word_counts
        self.eta_samples_ = fitted.eta_samples
        self._phi_cache = None

    def _binary_template(self) -> MedLDAClassifier:
        """An unfitted binary model of one-vs-rest: these parameters with c, margin and
        positive_cost resolved, one process, no checkpoints of its own."""
        return clone(self).set_params(c=self.c_, margin=self.margin_, positive_cost=self.positive_cost_,
                                      **_BINARY_RUN)

    def rebuild_one_vs_rest(self) -> None:
        """``estimators_`` from the stacked topics and eta of a model read from a file."""
        fitted = OneVsRest.from_stacked(self._binary_template(), self.topic_word_counts_, self.eta_samples_,
                                        ovr_seeds(self.random_state, self.eta_samples_.shape[1]))
        for sub in fitted.estimators:
            sub.n_features_in_, sub.vocabulary_, sub.n_iter_ = self.n_features_in_, self.vocabulary_, self.n_iter_
            sub.classes_, sub.multilabel_ = np.array([0, 1]), False
            sub.c_, sub.margin_, sub.positive_cost_ = self.c_, self.margin_, self.positive_cost_
        self._take_one_vs_rest(fitted)

    def _fit_proba_scale(self, corpus: Corpus, indicator: np.ndarray) -> None:
        """``proba_scale_``, the s of predict_proba's sigmoid(s omega), fitted by maximum likelihood
        on some training documents (``calibration_size``) inferred as new ones: sigmoid(c omega)
        itself is far overconfident. A loss without probabilities has none."""
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

    def _fit_tasks(self, corpus: Corpus, indicator: np.ndarray, rng, weight: np.ndarray | None = None) -> ChainState:
        """Multi-task training on one shared set of topics, each document's c times its
        ``weight`` (None: 1); returns the final sampler state."""
        loss = make_loss(self.loss, self.c_, self.margin_, positive_cost=self.positive_cost_)
        loss.doc_weight = weight
        targets = loss.encode(indicator)
        truth = self._codes(indicator.astype(np.float64) - 0.5)
        supervision = Supervision(loss, targets, 1.0 / self.sigma2,
                                  np.zeros((targets.shape[1], self.n_components)),
                                  metric=lambda omega: subset_accuracy(self._codes(omega), truth))
        state, result = self._fit_topics(corpus, supervision, rng, n_eta_keep=min(self.n_eta_avg, self.max_iter))
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
        (ovr: the C binary models' zbar side by side, (D, C*K))."""
        if getattr(self, "estimators_", None):
            check_is_fitted(self, "eta_samples_")
            corpus = self._input_corpus(X)  # aligned once here, not in each binary model
            return OneVsRest.topics_of(self.estimators_, corpus, self.n_jobs)
        return self._zbar(X)

    def decision_function(self, X) -> np.ndarray:
        """omega = eta . zbar: shape (D,) for two classes (> 0 means classes_[1]), else (D, C)."""
        check_is_fitted(self, "eta_samples_")
        return self.decision_from_topics(self.transform(X))

    def decision_from_topics(self, zbar: np.ndarray) -> np.ndarray:
        """``decision_function`` from topic features already inferred (``transform``'s output)."""
        omega = zbar @ self.eta_.T
        return omega[:, 0] if omega.shape[1] == 1 and not self.multilabel_ else omega

    def decision_contributions(self, X, label=None) -> np.ndarray:
        """(D, K) each topic's part zbar_dk * eta_tk of the decision (ovr: of the C * K stacked
        topics); each row sums to the decision it splits. ``label=None``: toward the predicted
        class, i.e. |omega| for two classes and, for several, the margin over the runner-up: the
        topics that made this class win. ``label``: that class's omega (a multi-label model
        decides each label apart and needs one)."""
        check_is_fitted(self, "eta_samples_")
        task = self.label_index(label)  # checked before the inference
        return self.contributions_from_topics(self.transform(X), task)

    def label_index(self, label) -> int | None:
        """The task of ``label`` for ``decision_contributions`` (None: toward the prediction)."""
        if label is None:
            if self.multilabel_:
                raise ValueError("a multi-label model decides each label apart: pass label=, one of classes_")
            return None
        names = [str(c) for c in self.classes_]
        if str(label) not in names:
            raise ValueError(f"label {label!r} is not one of the model's classes {names}")
        return names.index(str(label))

    def contributions_from_topics(self, zbar: np.ndarray, task: int | None = None) -> np.ndarray:
        """``decision_contributions`` from topic features already inferred; ``task`` from
        ``label_index``."""
        eta = self.eta_
        if task is None:
            return toward_prediction(zbar, eta, zbar @ eta.T)
        if eta.shape[0] == 1 and not self.multilabel_:  # binary: omega > 0 means classes_[1]
            return zbar * (eta[0] if task == 1 else -eta[0])
        return zbar * eta[task]

    def predict(self, X) -> np.ndarray:
        """Predicted class labels (multi-label: a 0/1 indicator matrix (D, C))."""
        return self.labels_from_decision(self.decision_function(X))

    def labels_from_decision(self, omega: np.ndarray) -> np.ndarray:
        """``predict`` from discriminants already computed (``decision_function``'s output)."""
        codes = self._codes(omega.reshape(len(omega), -1))
        return codes if self.multilabel_ else self.classes_[codes]

    def _has_proba(self) -> bool:
        if LOSSES[self.loss].probabilistic:
            return True
        raise AttributeError(f"predict_proba is available only for a probabilistic loss "
                             f"('logistic'); this model uses loss={self.loss!r}")

    @available_if(_has_proba)
    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities sigmoid(s omega), s = ``proba_scale_`` (fitted on training
        documents): (D, 2) binary; (D, C) normalized over classes for multi-class; (D, C) per-label
        probabilities for multi-label."""
        return self.proba_from_decision(self.decision_function(X))

    @available_if(_has_proba)
    def predict_log_proba(self, X) -> np.ndarray:
        """The logarithms of ``predict_proba``, computed in log space (finite where it rounds to 0)."""
        return log_proba_from_omega(self.decision_function(X), self._proba_scale(), self.multilabel_)

    def proba_from_decision(self, omega: np.ndarray) -> np.ndarray:
        """``predict_proba`` from discriminants already computed (``decision_function``'s output)."""
        return proba_from_omega(omega, self._proba_scale(), self.multilabel_)

    def _proba_scale(self) -> float:
        """s of sigmoid(s omega); a model fitted without calibration uses the loss's own c."""
        return getattr(self, "proba_scale_", self.c_)

    def class_topics(self, n: int = 3) -> dict:
        """For each class, the ``n`` topics whose eta weighs most toward it (binary: classes_[0]
        gets the most negative weights)."""
        eta = self.eta_
        if eta.shape[0] == 1 and not self.multilabel_:
            order = np.argsort(-eta[0], kind="stable")
            return {self.classes_[1].item(): order[:n].tolist(), self.classes_[0].item(): order[::-1][:n].tolist()}
        return {c.item(): np.argsort(-eta[t], kind="stable")[:n].tolist() for t, c in enumerate(self.classes_)}


def _fit_binary(model: MedLDAClassifier, corpus: Corpus, column: np.ndarray, seed: int,
                weight: np.ndarray | None = None) -> tuple[MedLDAClassifier, np.ndarray]:
    """Fit one binary model of one-vs-rest (an unfitted ``_binary_template``) on the 0/1 ``column``
    with the documents' ``weight``; return it, without its sampler, and its training discriminants."""
    model.set_params(random_state=seed)
    model._validate()
    model._fit_input = corpus
    model.classes_, model.multilabel_ = np.array([0, 1]), False
    model._resolve_loss(1)
    state = model._fit_tasks(corpus, column[:, None], np.random.default_rng(seed), weight)
    omega = state.zbar() @ model.eta_.T
    del model._fit_input, model._sampler
    return model, omega[:, 0]
