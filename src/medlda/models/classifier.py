"""MedLDAClassifier: topics learned jointly with a classifier (Gibbs MedLDA, gSLDA)."""

from __future__ import annotations

import numbers
import time

import numpy as np
from sklearn.base import ClassifierMixin, TransformerMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import _num_samples, check_is_fitted

from medlda.data.corpus import (
    Corpus,
    count_matrix_shape,
)
from medlda.engine.loop import Supervision
from medlda.engine.state import ChainState
from medlda.evaluation.calibration import (
    calibration_size,
    fit_proba_scale,
    log_proba_from_omega,
    proba_from_omega,
)
from medlda.evaluation.explain import toward_prediction
from medlda.evaluation.metrics import subset_accuracy
from medlda.losses import CLASSIFICATION_LOSSES, LOSSES, make_loss
from medlda.models.base import (
    RUN_PARAMS,
    TopicModel,
    check_sample_weight,
    fit_corpus,
    poor_score_tags,
)
from medlda.models.labels import codes_from_omega, label_indicator, warn_uncarried_labels
from medlda.models.ovr import fit_ovr, ovr_zbar
from medlda.models.params import check_param, params_doc

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


class MedLDAClassifier(ClassifierMixin, TransformerMixin, TopicModel):
    __doc__ = ("Supervised topic model whose topics are learned jointly with a classifier: Gibbs MedLDA\n"
               "(hinge loss) or gSLDA (logistic loss). Binary; multi-class as C tasks on shared topics\n"
               "(strategy='multitask') or C binary models with their own topics (strategy='ovr');\n"
               "multi-label when y is a 2-d label-indicator matrix (predict returns one too).\n\n"
               + params_doc("n_topics", "alpha_sum", "beta", "c", "margin", "sigma2", "positive_cost",
                            "class_weight", "loss", "strategy", "n_jobs", "n_iter", "sampler", "light_variant",
                            "phi_every", "proposal", "n_mh",
                            "n_gibbs", "eta_draw",
                            "n_eta_avg", "n_infer_burn", "n_infer_avg",
                            "trace", "random_state", "verbose", *RUN_PARAMS))

    def __sklearn_tags__(self):
        return poor_score_tags(super().__sklearn_tags__())

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
            check_param(self.c, "c", numbers.Real, 0, low_open=True)
        if self.margin != "auto":
            check_param(self.margin, "margin", numbers.Real, 0)
        check_param(self.sigma2, "sigma2", numbers.Real, 0, low_open=True)
        if self.positive_cost != "auto":
            check_param(self.positive_cost, "positive_cost", numbers.Real, 0, low_open=True)
        check_param(self.n_eta_avg, "n_eta_avg", numbers.Integral, 1)
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
        weight = self._doc_weight(check_sample_weight(sample_weight, n_docs), indicator)
        corpus, indicator, weight = fit_corpus(self, X, indicator, weight)
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

    def _fit_tasks(self, corpus: Corpus, indicator: np.ndarray, rng, weight: np.ndarray | None = None) -> ChainState:
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
