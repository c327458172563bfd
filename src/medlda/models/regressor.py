"""MedLDARegressor: topics learned jointly with a linear response (MedLDA regression, sLDA).

Same engine as the classifier (docs/mathematics.md §2): the loss draws its augmentation and returns kappa and w.
The chain sees the responses centred (``y_mean_``) and scaled to unit variance (``y_scale_``), so
c, epsilon and sigma2 mean the same on any scale of response; eta is mapped back to the
response's units after training. Since the topic proportions sum to one, centring is a shift of
eta: it only moves the prior's mean to the data's.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import RegressorMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, column_or_1d

from medlda.data.corpus import count_matrix_shape
from medlda.engine.loop import Supervision
from medlda.evaluation.metrics import r2
from medlda.losses import make_loss, regression_c
from medlda.models.base import TopicModel, check_sample_weight, fit_corpus, poor_score_tags
from medlda.models.params import INFERENCE, PRIOR, REGRESSOR_PARAMS, RUN, SAMPLING, declared


class MedLDARegressor(RegressorMixin, TransformerMixin, TopicModel):
    """Supervised topic model for a real response: MedLDA regression (epsilon-insensitive loss) or
    sLDA (squared loss). ``score`` is the predictive R^2."""

    parameters = declared((*PRIOR, "c", "epsilon", "sigma2", "loss", *SAMPLING, "n_gibbs", "eta_draw", "n_jobs",
                           "n_eta_avg", *INFERENCE, *RUN), REGRESSOR_PARAMS)

    def __sklearn_tags__(self):
        return poor_score_tags(super().__sklearn_tags__())

    def _make_loss(self):
        return make_loss(self.loss, self.c_, epsilon=self.epsilon)

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
        self.y_mean_, self.y_scale_ = response_scale(y)
        self.c_ = regression_c(corpus.n_tokens / corpus.n_docs) if self.c == "auto" else float(self.c)
        loss = self._make_loss()
        loss.doc_weight = weight
        targets = loss.encode((y - self.y_mean_) / self.y_scale_)
        supervision = Supervision(loss, targets, 1.0 / self.sigma2, np.zeros((1, self.n_components)),
                                  metric=lambda omega: r2(targets[:, 0], omega[:, 0]))
        rng = np.random.default_rng(self.random_state)
        _, result = self._fit_topics(corpus, supervision, rng, n_eta_keep=min(self.n_eta_avg, self.max_iter))
        self.eta_samples_ = result.eta_samples * self.y_scale_  # in the response's units
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
        return self.predict_from_topics(self._zbar(X))

    def predict_from_topics(self, zbar: np.ndarray) -> np.ndarray:
        """``predict`` from topic features already inferred (``transform``'s output)."""
        return zbar @ self.eta_[0] + self.y_mean_

    def decision_contributions(self, X) -> np.ndarray:
        """(D, K) each topic's part zbar_dk * eta_k of the prediction: rows sum to the predicted
        response minus ``y_mean_`` (``medlda.evaluation.explain``)."""
        check_is_fitted(self, "eta_samples_")
        return self.contributions_from_topics(self._zbar(X))

    def contributions_from_topics(self, zbar: np.ndarray) -> np.ndarray:
        """``decision_contributions`` from topic features already inferred."""
        return zbar * self.eta_[0]

    def class_topics(self, n: int = 3) -> dict:
        """The ``n`` topics that raise the response most ("high") and lower it most ("low")."""
        order = np.argsort(-self.eta_[0], kind="stable")
        return {"high": order[:n].tolist(), "low": order[::-1][:n].tolist()}


def response_scale(y: np.ndarray) -> tuple[float, float]:
    """(mean, standard deviation) of the responses: the chain sees (y - mean) / sd. A constant
    response has sd 1 (nothing to scale)."""
    mean = float(y.mean())
    sd = float(np.sqrt(np.mean((y - mean) ** 2)))
    return mean, sd if sd > 0 and np.isfinite(sd) else 1.0
