"""MedLDARegressor: topics learned jointly with a linear response (MedLDA regression, sLDA).

Same engine as the classifier (SPEC §2): the loss draws its augmentation and returns kappa and w.
Responses are centered before training (``y_mean_``); since the topic proportions sum to one, that
is a shift of eta, so it only moves the prior's mean to the data's.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import RegressorMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, column_or_1d

from medlda.data.corpus import count_matrix_shape
from medlda.engine.loop import Supervision
from medlda.evaluation.metrics import r2
from medlda.losses import REGRESSION_LOSSES, make_loss
from medlda.models.base import (
    RUN_PARAMS,
    TopicModel,
    check_sample_weight,
    fit_corpus,
    poor_score_tags,
)
from medlda.models.params import check_param, params_doc

REGRESSION_C = 4.0  # measured on the hotel reviews (see the c parameter's documentation)


class MedLDARegressor(RegressorMixin, TransformerMixin, TopicModel):
    __doc__ = ("Supervised topic model for a real response: MedLDA regression (epsilon-insensitive\n"
               "loss) or sLDA (squared loss). ``score`` is the predictive R^2.\n\n"
               + params_doc("n_topics", "alpha_sum", "beta", "c_regression", "epsilon", "sigma2",
                            "loss_regression", "n_iter", "sampler", "light_variant", "phi_every", "proposal", "n_mh",
                            "n_gibbs", "eta_draw", "n_jobs", "n_eta_avg", "n_infer_burn", "n_infer_avg", "trace",
                            "random_state", "verbose", *RUN_PARAMS))

    def __sklearn_tags__(self):
        return poor_score_tags(super().__sklearn_tags__())

    def __init__(self, n_topics: int = 20, *, alpha_sum: float = 6.4, beta: float = 0.01,
                 c: float = REGRESSION_C, epsilon: float = 1e-3, sigma2: float = 1.0,
                 loss: str = "epsilon", n_iter: int = 50, sampler: str = "gibbs",
                 light_variant: str = "collapsed", phi_every: int = 1, proposal: str = "mixture", n_mh: int = 6,
                 n_gibbs: int = 2, eta_draw: str = "auto", n_jobs: int | None = None, n_eta_avg: int = 5,
                 n_infer_burn: int = 100, n_infer_avg: int = 200,
                 trace: bool = False, random_state=None, verbose: int = 0, checkpoint_every: int = 0,
                 checkpoint_path=None, resume: bool = False, backend: str = "local", n_workers: int = 2,
                 ray_address: str | None = None):
        self.n_topics = n_topics
        self.alpha_sum = alpha_sum
        self.beta = beta
        self.c = c
        self.epsilon = epsilon
        self.sigma2 = sigma2
        self.loss = loss
        self.n_iter = n_iter
        self.sampler = sampler
        self.light_variant = light_variant
        self.phi_every = phi_every
        self.proposal = proposal
        self.n_mh = n_mh
        self.n_gibbs = n_gibbs
        self.eta_draw = eta_draw
        self.n_jobs = n_jobs
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
        check_param(self.c, "c", numbers.Real, 0, low_open=True)
        check_param(self.epsilon, "epsilon", numbers.Real, 0)
        check_param(self.sigma2, "sigma2", numbers.Real, 0, low_open=True)
        check_param(self.n_eta_avg, "n_eta_avg", numbers.Integral, 1)
        if self.loss not in REGRESSION_LOSSES:
            raise ValueError(f"loss must be one of {list(REGRESSION_LOSSES)} for regression, got {self.loss!r}")

    def _make_loss(self):
        options = {"epsilon": self.epsilon} if self.loss == "epsilon" else {}
        return make_loss(self.loss, self.c, **options)

    def fit(self, X, y, sample_weight=None) -> "MedLDARegressor":
        """Learn topics and the response's linear model jointly from documents X and responses y;
        ``sample_weight`` (D,) scales each document's c."""
        self._validate()
        if y is None:
            raise ValueError("MedLDARegressor requires y to be passed, but the target y is None (one response "
                             "per document)")
        try:
            y = np.asarray(y, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError("MedLDARegressor needs numeric responses y (class labels: use MedLDAClassifier)") from None
        n_docs = count_matrix_shape(X)[0]
        if y.ndim == 2 and y.shape[1] == 1:  # a column vector, raveled with a warning as scikit-learn does
            y = column_or_1d(y, warn=True)
        if y.ndim != 1 or y.shape[0] != n_docs:
            raise ValueError(f"y must be 1-d with one response per document: X has {n_docs} documents, "
                             f"y has shape {y.shape}")
        if not np.all(np.isfinite(y)):
            raise ValueError("y contains NaN or infinite responses")
        corpus, y, weight = fit_corpus(self, X, y, check_sample_weight(sample_weight, n_docs))
        self.y_mean_ = float(y.mean())
        loss = self._make_loss()
        loss.doc_weight = weight
        targets = loss.encode(y - self.y_mean_)
        supervision = Supervision(loss, targets, 1.0 / self.sigma2, np.zeros((1, self.n_topics)),
                                  metric=lambda omega: r2(targets[:, 0], omega[:, 0]))
        rng = np.random.default_rng(self.random_state)
        _, result = self._fit_topics(corpus, supervision, rng, n_eta_keep=min(self.n_eta_avg, self.n_iter))
        self.eta_samples_ = result.eta_samples
        self.train_score_ = result.trace[-1]["train_accuracy"]
        return self

    @property
    def eta_(self) -> np.ndarray:
        """Response weights (1, K): the average of the kept eta samples."""
        check_is_fitted(self, "eta_samples_")
        return self.eta_samples_.mean(axis=0)

    def transform(self, X) -> np.ndarray:
        """Inferred normalized topic counts zbar (D, K) of new documents: the regression's features."""
        return self._zbar(X)

    def predict(self, X) -> np.ndarray:
        """Predicted responses eta . zbar + y_mean_."""
        check_is_fitted(self, "eta_samples_")
        return self._predict_from(self._zbar(X))

    def _predict_from(self, zbar: np.ndarray) -> np.ndarray:
        return zbar @ self.eta_[0] + self.y_mean_

    def decision_contributions(self, X) -> np.ndarray:
        """(D, K) each topic's part zbar_dk * eta_k of the prediction: rows sum to the predicted
        response minus ``y_mean_`` (``medlda.evaluation.explain``)."""
        check_is_fitted(self, "eta_samples_")
        return self._contributions_from(self._zbar(X))

    def _contributions_from(self, zbar: np.ndarray) -> np.ndarray:
        return zbar * self.eta_[0]

    def class_topics(self, n: int = 3) -> dict:
        """The ``n`` topics that raise the response most ("high") and lower it most ("low")."""
        order = np.argsort(-self.eta_[0], kind="stable")
        return {"high": order[:n].tolist(), "low": order[::-1][:n].tolist()}
