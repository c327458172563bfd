"""MedLDAClassifier: topics learned jointly with a classifier (Gibbs MedLDA, gSLDA)."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from sklearn.base import ClassifierMixin, TransformerMixin, clone
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import _num_samples, check_is_fitted

from medlda.data.corpus import Corpus
from medlda.data.counts import count_matrix_shape
from medlda.engine.state import ChainState
from medlda.evaluation.calibration import calibration_size, fit_proba_scale, log_proba_from_omega
from medlda.evaluation.metrics import subset_accuracy
from medlda.losses import LOSSES, make_loss
from medlda.models.base import TopicModel
from medlda.models.chains import ChainAverage
from medlda.models.decisions import ClassDecisions
from medlda.models.inputs import check_sample_weight, class_doc_weight, fit_corpus, poor_score_tags
from medlda.models.labels import codes_from_omega, label_indicator, labels_of, warn_uncarried_labels
from medlda.models.ovr import OneVsRest, fit_ovr, ovr_seeds
from medlda.models.params import ETA, INFERENCE, PRIOR, RUN, SAMPLING, declared
from medlda.models.supervision import supervision_for
from medlda.models.texts import remember_words

# what a one-vs-rest binary model does not inherit: one process, no checkpoints, its documents' weights as given
_BINARY_RUN = {"strategy": "multitask", "n_jobs": 1, "verbose": 0, "class_weight": None, "checkpoint_every": 0,
               "checkpoint_path": None, "resume": False, "backend": "local"}


class MedLDAClassifier(ClassifierMixin, TransformerMixin, ClassDecisions, ChainAverage, TopicModel):
    """Supervised topic model whose topics are learned jointly with a classifier.

    Gibbs MedLDA (hinge loss, a max-margin classifier) or gSLDA (logistic loss, with
    probabilities) on the topic proportions zbar of each document (docs/mathematics.md §2).
    Binary; multi-class as C tasks on shared topics (``strategy="multitask"``) or C binary models
    with topics of their own (``strategy="ovr"``); multi-label when y is a 2-d label-indicator
    matrix (``predict`` then returns one too).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels (multi-label: the labels, in the indicator's column order).
    multilabel_ : bool
        Whether y was a label-indicator matrix.
    eta_ : ndarray of shape (n_tasks, n_components)
        Classifier weights, the average of the kept eta samples (``combine="ridge"``: the ridge
        regression's): one task for two classes, else one per class (one-vs-rest: block-diagonal,
        (n_classes, n_classes * n_components)).
    eta_samples_ : ndarray of shape (n_eta_avg, n_tasks, n_components)
        The kept eta samples of the last iterations (``combine="ridge"``: one, the ridge weights).
    c_, margin_, positive_cost_ : float
        The regularization constant, margin and cost of a missed positive label (``"auto"`` resolved).
    proba_scale_ : float
        s of ``predict_proba``'s sigmoid(s omega), fitted on training documents (logistic loss).
    train_accuracy_ : float
        Accuracy (multi-label: subset accuracy) on the training documents at the last iteration.
    estimators_ : list of MedLDAClassifier
        With ``strategy="ovr"`` and more than two classes: the binary models.
    chains_ : list of MedLDAClassifier
        With ``n_chains`` > 1: the chains, whose topics are stacked and whose discriminants average
        (``combine="ridge"``: whose topics ``eta_`` weighs, not their own eta).
    topic_word_counts_, topic_word_, components_, alpha_, n_features_in_, vocabulary_, \
vectorizer_, sampler_, n_mh_, n_iter_, trace_, log_joint_, fit_stats_, n_empty_skipped_
        As in ``LDA`` (one-vs-rest: the binary models' topics stacked, n_classes * n_components).

    See Also
    --------
    LDA : topics without labels.
    MedLDARegressor : topics learned jointly with a real response.

    Examples
    --------
    >>> from medlda import MedLDAClassifier
    >>> from medlda.data.synthetic import make_supervised_corpus
    >>> corpus, truth = make_supervised_corpus(300, 5, doc_length=30, n_classes=3, random_state=0)
    >>> train, test = corpus.holdout(100, random_state=0)
    >>> clf = MedLDAClassifier(n_components=5, max_iter=10, random_state=0)
    >>> clf.fit(train, train.single_labels()).predict(test[:5])
    array([1, 2, 0, 2, 0])
    >>> round(clf.score(test, test.single_labels()), 2)
    0.87
    """

    parameters = declared((*PRIOR, "c", "margin", "sigma2", "background_topics", "positive_cost", "class_weight",
                           "loss", "strategy", "n_jobs", "n_chains", "combine", *SAMPLING, *ETA, *INFERENCE, *RUN))

    def __sklearn_tags__(self):
        return poor_score_tags(super().__sklearn_tags__())

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> MedLDAClassifier:
        """Learn topics and classifier jointly from documents X and labels y.

        Parameters
        ----------
        X : Corpus, count matrix of shape (n_docs, n_words), lists of tokens
            Training documents. Empty documents are skipped with a warning (``n_empty_skipped_``).
        y : array-like of shape (n_docs,) or (n_docs, n_labels)
            Class labels, or a 0/1 label-indicator matrix for multi-label data (a dense (D, 1)
            column is 1-d labels, as in scikit-learn).
        sample_weight : array-like of shape (n_docs,), optional
            Scales each document's c (with ``class_weight``, their product).

        Returns
        -------
        self
            The fitted model.

        Examples
        --------
        >>> from medlda import MedLDAClassifier
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, truth = make_supervised_corpus(300, 5, doc_length=30, n_classes=3, random_state=0)
        >>> clf = MedLDAClassifier(5, max_iter=10, random_state=0).fit(corpus, truth.y)
        >>> clf.classes_, clf.sampler_
        (array([0, 1, 2]), 'gibbs')
        """
        self._validate()
        if y is None:
            raise ValueError("MedLDAClassifier requires y to be passed, but the target y is None (labels per document)")
        n_docs, n_labels = count_matrix_shape(X)[0], _num_samples(y)
        if n_labels != n_docs:
            raise ValueError(f"X has {n_docs} documents but y has {n_labels} labels")
        self.classes_, indicator, self.multilabel_ = label_indicator(y)
        weight = class_doc_weight(self, check_sample_weight(sample_weight, n_docs), indicator)
        corpus, indicator, weight = fit_corpus(self, X, indicator, weight)
        if self.multilabel_:
            warn_uncarried_labels(self.classes_, indicator)
        self._resolve_loss(indicator.shape[1])
        if self.strategy == "ovr" and indicator.shape[1] > 1:
            self._fit_one_vs_rest(corpus, indicator, weight)
        elif self.n_chains > 1:
            self._fit_chains(corpus, labels_of(self.classes_, indicator, self.multilabel_), weight)
            self.train_accuracy_ = float(np.mean([m.train_accuracy_ for m in self.chains_]))
        else:
            self._fit_tasks(corpus, indicator, np.random.default_rng(self.random_state), weight)
        if self.combine == "ridge":  # each task's indicator as +1 / -1
            self._weigh_by_ridge(corpus, 2.0 * indicator - 1.0, weight)
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
        self.sampler_, self.n_mh_ = self.estimators_[0].sampler_, self.estimators_[0].n_mh_
        self.fit_stats_ = fitted.fit_stats
        self.n_iter_ = self.max_iter
        self.n_features_in_ = corpus.n_words
        remember_words(self, corpus, self._fit_input)
        for sub in self.estimators_:
            sub.vocabulary_ = self.vocabulary_
        self.log_joint_ = fitted.log_joint
        self.trace_ = []
        truth = indicator.astype(np.int64) if self.multilabel_ else self._codes(indicator.astype(float))
        assert fitted.train_omega is not None  # fit_ovr gives the training discriminants
        self.train_accuracy_ = subset_accuracy(codes_from_omega(fitted.train_omega, self.multilabel_), truth)

    def _take_one_vs_rest(self, fitted: OneVsRest) -> None:
        """The binary models and their stacked view: topics (C*K, V), block-diagonal eta samples."""
        self.estimators_ = fitted.estimators
        self.topic_word_counts_, self.eta_samples_ = fitted.topic_word_counts, fitted.eta_samples
        self._phi_cache = None

    def _binary_template(self) -> MedLDAClassifier:
        """An unfitted binary model of one-vs-rest: these parameters with c, margin and
        positive_cost resolved, one process, no checkpoints of its own."""
        return clone(self).set_params(c=self.c_, margin=self.margin_, positive_cost=self.positive_cost_,
                                      **_BINARY_RUN)

    def rebuild_one_vs_rest(self) -> None:
        """Rebuild ``estimators_`` from the stacked topics and eta of a model read from a file."""
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
        n = calibration_size(corpus.n_docs, len(getattr(self, "estimators_", None) or getattr(self, "chains_", None)
                                                or [self]))
        if n < corpus.n_docs:
            docs = np.sort(np.random.default_rng(self.random_state).choice(docs, n, replace=False))
        omega = self.decision_function(corpus.subset(docs))
        truth = self._codes(indicator[docs].astype(np.float64) - 0.5)
        self.proba_scale_ = fit_proba_scale(omega, truth, self.multilabel_)
        self.fit_stats_["calibration_seconds"] = time.perf_counter() - tic

    def _fit_tasks(self, corpus: Corpus, indicator: np.ndarray, rng, weight: np.ndarray | None = None) -> ChainState:
        """Multi-task training on one shared set of topics, each document's c times its
        ``weight`` (None: 1); returns the final sampler state."""
        loss = make_loss(self.loss, self.c_, self.margin_, positive_cost=self.positive_cost_)
        loss.doc_weight = weight
        targets = loss.encode(indicator)
        truth = self._codes(indicator.astype(np.float64) - 0.5)
        supervision = supervision_for(self, loss, targets, lambda omega: subset_accuracy(self._codes(omega), truth))
        state, result = self._fit_topics(corpus, supervision, rng, n_eta_keep=min(self.n_eta_avg, self.max_iter))
        self.eta_samples_ = result.eta_samples
        self.train_accuracy_ = result.trace[-1]["train_accuracy"]
        return state

    def transform(self, X: Any) -> np.ndarray:
        """Inferred topic features zbar of new documents: the classifier's inputs.

        Parameters
        ----------
        X : Corpus, count matrix or lists of tokens (texts, for a model fitted on texts)
            Documents over the fitted words.

        Returns
        -------
        ndarray of shape (n_docs, n_components)
            Normalized topic counts (rows sum to 1); one-vs-rest: the binary models' side by side,
            (n_docs, n_classes * n_components).

        Examples
        --------
        >>> from medlda import MedLDAClassifier
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, truth = make_supervised_corpus(300, 5, doc_length=30, n_classes=3, random_state=0)
        >>> clf = MedLDAClassifier(5, max_iter=10, loss="logistic", random_state=0).fit(corpus, truth.y)
        >>> clf.transform(corpus[:1]).round(2)
        array([[0.54, 0.02, 0.04, 0.04, 0.35]])
        """
        return self._zbar(X)

    def decision_function(self, X: Any) -> np.ndarray:
        """Discriminants omega = eta zbar of new documents.

        Parameters
        ----------
        X : Corpus, count matrix or lists of tokens
            Documents over the fitted words.

        Returns
        -------
        ndarray of shape (n_docs,) or (n_docs, n_classes)
            (n_docs,) for two classes (> 0 means ``classes_[1]``); else one column per class.

        Examples
        --------
        >>> from medlda import MedLDAClassifier
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, truth = make_supervised_corpus(300, 5, doc_length=30, n_classes=3, random_state=0)
        >>> clf = MedLDAClassifier(5, max_iter=10, loss="logistic", random_state=0).fit(corpus, truth.y)
        >>> clf.decision_function(corpus[:1]).round(1)
        array([[ 0.5, -3.7, -0.7]])
        """
        check_is_fitted(self, "eta_samples_")
        return self.decision_from_topics(self.transform(X))

    def decision_contributions(self, X: Any, label: Any = None) -> np.ndarray:
        """Why each document got its decision: each topic's part zbar_dk eta_tk of it.

        Parameters
        ----------
        X : Corpus, count matrix or lists of tokens
            Documents over the fitted words.
        label : class label, optional
            Split that class's omega. None: the decision toward the predicted class, i.e. |omega|
            for two classes and, for several, the margin over the runner-up (the topics that made
            this class win). A multi-label model decides each label apart and needs one.

        Returns
        -------
        ndarray of shape (n_docs, n_components)
            Rows sum to the decision they split (one-vs-rest: over the stacked topics).

        Examples
        --------
        >>> from medlda import MedLDAClassifier
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, truth = make_supervised_corpus(300, 5, doc_length=30, n_classes=3, random_state=0)
        >>> clf = MedLDAClassifier(5, max_iter=10, loss="logistic", random_state=0).fit(corpus, truth.y)
        >>> clf.decision_contributions(corpus[:1]).round(2)
        array([[ 4.44, -0.04, -0.37,  0.  , -2.84]])
        """
        check_is_fitted(self, "eta_samples_")
        task = self.label_index(label)  # checked before the inference
        return self.contributions_from_topics(self.transform(X), task)

    def predict(self, X: Any) -> np.ndarray:
        """Predicted class labels of new documents.

        Parameters
        ----------
        X : Corpus, count matrix or lists of tokens
            Documents over the fitted words.

        Returns
        -------
        ndarray of shape (n_docs,) or (n_docs, n_classes)
            Labels from ``classes_``; a multi-label model's 0/1 indicator matrix.

        Examples
        --------
        >>> from medlda import MedLDAClassifier
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, truth = make_supervised_corpus(300, 5, doc_length=30, n_classes=3, random_state=0)
        >>> clf = MedLDAClassifier(5, max_iter=10, loss="logistic", random_state=0).fit(corpus, truth.y)
        >>> clf.predict(corpus[:5]), truth.y[:5]
        (array([0, 0, 0, 0, 1]), array([0, 0, 0, 0, 1]))
        """
        return self.labels_from_decision(self.decision_function(X))

    def _has_proba(self) -> bool:
        if LOSSES[self.loss].probabilistic:
            return True
        raise AttributeError(f"predict_proba is available only for a probabilistic loss "
                             f"('logistic'); this model uses loss={self.loss!r}")

    @available_if(_has_proba)
    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities of new documents: sigmoid(s omega), s = ``proba_scale_`` (logistic loss).

        Parameters
        ----------
        X : Corpus, count matrix or lists of tokens
            Documents over the fitted words.

        Returns
        -------
        ndarray of shape (n_docs, n_classes)
            Two classes: (1 - p, p); several: normalized over the classes; multi-label: each
            label's own probability.

        Examples
        --------
        >>> from medlda import MedLDAClassifier
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, truth = make_supervised_corpus(300, 5, doc_length=30, n_classes=3, random_state=0)
        >>> clf = MedLDAClassifier(5, max_iter=10, loss="logistic", random_state=0).fit(corpus, truth.y)
        >>> clf.predict_proba(corpus[:1]).round(2)
        array([[0.66, 0.02, 0.32]])
        """
        return self.proba_from_decision(self.decision_function(X))

    @available_if(_has_proba)
    def predict_log_proba(self, X: Any) -> np.ndarray:
        """The logarithms of ``predict_proba``, computed in log space (finite where it rounds to 0).

        Parameters
        ----------
        X : Corpus, count matrix or lists of tokens
            Documents over the fitted words.

        Returns
        -------
        ndarray of shape (n_docs, n_classes)
            Log probabilities.

        Examples
        --------
        >>> from medlda import MedLDAClassifier
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, truth = make_supervised_corpus(300, 5, doc_length=30, n_classes=3, random_state=0)
        >>> clf = MedLDAClassifier(5, max_iter=10, loss="logistic", random_state=0).fit(corpus, truth.y)
        >>> clf.predict_log_proba(corpus[:1]).round(2)
        array([[-0.42, -4.  , -1.13]])
        """
        return log_proba_from_omega(self.decision_function(X), self._proba_scale(), self.multilabel_)


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
