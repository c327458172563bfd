"""MedLDARegressor: topics learned jointly with a linear response (MedLDA regression, sLDA).

Same engine as the classifier (docs/mathematics.md §2): the loss draws its augmentation and returns kappa and w.
The chain sees the responses centred (``y_mean_``) and scaled to unit variance (``y_scale_``), so
c, epsilon and sigma2 mean the same on any scale of response; eta is mapped back to the
response's units after training. Since the topic proportions sum to one, centring is a shift of
eta: it only moves the prior's mean to the data's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import RegressorMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, column_or_1d

from medlda.data.counts import count_matrix_shape
from medlda.evaluation.metrics import r2
from medlda.losses import make_loss, regression_c
from medlda.models.base import TopicModel
from medlda.models.chains import ChainAverage
from medlda.models.inputs import check_sample_weight, fit_corpus, poor_score_tags
from medlda.models.params import INFERENCE, PRIOR, REGRESSOR_PARAMS, RUN, SAMPLING, declared
from medlda.models.supervision import supervision_for


class MedLDARegressor(RegressorMixin, TransformerMixin, ChainAverage, TopicModel):
    """Supervised topic model whose topics are learned jointly with a linear model of a real response.

    MedLDA regression (epsilon-insensitive loss) or sLDA (squared loss) on the topic proportions
    zbar of each document (docs/mathematics.md §2). The chain sees the responses centred and
    scaled to unit variance, so c, epsilon and sigma2 mean the same on any scale of response;
    ``score`` is the predictive R^2.

    Attributes
    ----------
    eta_ : ndarray of shape (1, n_components)
        Response weights in the response's units, the average of the kept eta samples (with
        ``combine="ridge"``, the ridge regression's weights; its penalty is
        ``fit_stats_["ridge_penalty"]``): a document's prediction is eta_ . zbar + y_mean_.
    eta_samples_ : ndarray of shape (n_eta_avg, 1, n_components)
        The kept eta samples of the last iterations (``combine="ridge"``: one, the ridge weights).
    y_mean_, y_scale_ : float
        Mean and standard deviation of the training responses (a constant response: scale 1).
    c_ : float
        The regularization constant in use (``c="auto"`` resolved from the mean document length).
    train_score_ : float
        R^2 on the training documents at the last iteration (several chains: their mean).
    chains_ : list of MedLDARegressor
        With ``n_chains`` > 1: the chains, whose topics are stacked and whose predictions average
        (``combine="ridge"``: whose topics ``eta_`` weighs, not their own eta).
    topic_word_counts_, topic_word_, components_, alpha_, n_features_in_, vocabulary_, \
vectorizer_, sampler_, n_mh_, n_iter_, trace_, log_joint_, fit_stats_, n_empty_skipped_
        As in ``LDA``.

    See Also
    --------
    MedLDAClassifier : topics learned jointly with a classifier.

    Examples
    --------
    >>> from medlda import MedLDARegressor
    >>> from medlda.data.synthetic import make_regression_corpus
    >>> corpus, _ = make_regression_corpus(300, 5, doc_length=30, random_state=0)
    >>> train, test = corpus.holdout(100, random_state=0)
    >>> reg = MedLDARegressor(n_components=5, max_iter=10, random_state=0)
    >>> round(reg.fit(train, train.real_labels()).score(test, test.real_labels()), 2)
    0.88
    """

    parameters = declared((*PRIOR, "c", "epsilon", "sigma2", "background_topics", "loss", *SAMPLING, "n_gibbs",
                           "eta_draw", "n_jobs", "n_chains", "combine", "n_eta_avg", *INFERENCE, *RUN),
                          REGRESSOR_PARAMS)

    def __sklearn_tags__(self):
        return poor_score_tags(super().__sklearn_tags__())

    def _make_loss(self):
        return make_loss(self.loss, self.c_, epsilon=self.epsilon)

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> MedLDARegressor:
        """Learn topics and the response's linear model jointly from documents X and responses y.

        Parameters
        ----------
        X : Corpus, count matrix of shape (n_docs, n_words), lists of tokens
            Training documents. Empty documents are skipped with a warning (``n_empty_skipped_``).
        y : array-like of shape (n_docs,)
            Real responses, finite.
        sample_weight : array-like of shape (n_docs,), optional
            Scales each document's c.

        Returns
        -------
        self
            The fitted model.

        Examples
        --------
        >>> from medlda import MedLDARegressor
        >>> from medlda.data.synthetic import make_regression_corpus
        >>> corpus, truth = make_regression_corpus(300, 5, doc_length=30, random_state=0)
        >>> reg = MedLDARegressor(5, max_iter=10, random_state=0).fit(corpus, truth.y)
        >>> reg.eta_.round(2)
        array([[ 1.72, -0.94, -0.04, -1.34,  0.46]])
        """
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
        if self.n_chains > 1:
            self._fit_chains(corpus, y, weight)
            self.train_score_ = float(np.mean([m.train_score_ for m in self.chains_]))
        else:
            loss = self._make_loss()
            loss.doc_weight = weight
            targets = loss.encode((y - self.y_mean_) / self.y_scale_)
            supervision = supervision_for(self, loss, targets, lambda omega: r2(targets[:, 0], omega[:, 0]))
            rng = np.random.default_rng(self.random_state)
            _, result = self._fit_topics(corpus, supervision, rng, n_eta_keep=min(self.n_eta_avg, self.max_iter))
            self.eta_samples_ = result.eta_samples * self.y_scale_  # in the response's units
            self.train_score_ = result.trace[-1]["train_accuracy"]
        if self.combine == "ridge":
            self._weigh_by_ridge(corpus, y, weight, self.y_mean_)
        return self

    @property
    def eta_(self) -> np.ndarray:
        """Response weights (1, K), in the response's units: the average of the kept eta samples."""
        check_is_fitted(self, "eta_samples_")
        return self.eta_samples_.mean(axis=0)

    def transform(self, X: Any) -> np.ndarray:
        """Inferred topic features zbar of new documents: the regression's inputs.

        Parameters
        ----------
        X : Corpus, count matrix or lists of tokens (texts, for a model fitted on texts)
            Documents over the fitted words.

        Returns
        -------
        ndarray of shape (n_docs, n_components)
            Normalized topic counts; rows sum to 1.

        Examples
        --------
        >>> from medlda import MedLDARegressor
        >>> from medlda.data.synthetic import make_regression_corpus
        >>> corpus, truth = make_regression_corpus(300, 5, doc_length=30, random_state=0)
        >>> reg = MedLDARegressor(5, max_iter=10, random_state=0).fit(corpus, truth.y)
        >>> reg.transform(corpus[:1]).round(2)
        array([[0.53, 0.08, 0.  , 0.04, 0.35]])
        """
        return self._zbar(X)

    def predict(self, X: Any) -> np.ndarray:
        """Predicted responses eta . zbar + ``y_mean_`` of new documents.

        Parameters
        ----------
        X : Corpus, count matrix or lists of tokens
            Documents over the fitted words.

        Returns
        -------
        ndarray of shape (n_docs,)
            Predicted responses.

        Examples
        --------
        >>> from medlda import MedLDARegressor
        >>> from medlda.data.synthetic import make_regression_corpus
        >>> corpus, truth = make_regression_corpus(300, 5, doc_length=30, random_state=0)
        >>> reg = MedLDARegressor(5, max_iter=10, random_state=0).fit(corpus, truth.y)
        >>> reg.predict(corpus[:3]).round(2), truth.y[:3].round(2)
        (array([1.23, 0.93, 0.95]), array([1.47, 1.12, 1.13]))
        """
        check_is_fitted(self, "eta_samples_")
        return self.predict_from_topics(self._zbar(X))

    def predict_from_topics(self, zbar: np.ndarray) -> np.ndarray:
        """``predict`` from topic features already inferred (``transform``'s output).

        Parameters
        ----------
        zbar : ndarray of shape (n_docs, n_components)
            Topic features.

        Returns
        -------
        ndarray of shape (n_docs,)
            Predicted responses.

        Examples
        --------
        >>> from medlda import MedLDARegressor
        >>> from medlda.data.synthetic import make_regression_corpus
        >>> corpus, truth = make_regression_corpus(300, 5, doc_length=30, random_state=0)
        >>> reg = MedLDARegressor(5, max_iter=10, random_state=0).fit(corpus, truth.y)
        >>> reg.predict_from_topics(reg.transform(corpus[:3])).round(2)
        array([1.23, 0.93, 0.95])
        """
        return zbar @ self.eta_[0] + self.y_mean_

    def decision_contributions(self, X: Any) -> np.ndarray:
        """Why each document got its prediction: each topic's part zbar_dk eta_k of it.

        Parameters
        ----------
        X : Corpus, count matrix or lists of tokens
            Documents over the fitted words.

        Returns
        -------
        ndarray of shape (n_docs, n_components)
            Rows sum to the predicted response minus ``y_mean_``.

        Examples
        --------
        >>> from medlda import MedLDARegressor
        >>> from medlda.data.synthetic import make_regression_corpus
        >>> corpus, truth = make_regression_corpus(300, 5, doc_length=30, random_state=0)
        >>> reg = MedLDARegressor(5, max_iter=10, random_state=0).fit(corpus, truth.y)
        >>> reg.decision_contributions(corpus[:1]).round(2)
        array([[ 0.91, -0.07, -0.  , -0.05,  0.16]])
        """
        check_is_fitted(self, "eta_samples_")
        return self.contributions_from_topics(self._zbar(X))

    def contributions_from_topics(self, zbar: np.ndarray) -> np.ndarray:
        """``decision_contributions`` from topic features already inferred.

        Parameters
        ----------
        zbar : ndarray of shape (n_docs, n_components)
            Topic features (``transform``'s output).

        Returns
        -------
        ndarray of shape (n_docs, n_components)
            Each topic's part of the prediction.

        Examples
        --------
        >>> from medlda import MedLDARegressor
        >>> from medlda.data.synthetic import make_regression_corpus
        >>> corpus, truth = make_regression_corpus(300, 5, doc_length=30, random_state=0)
        >>> reg = MedLDARegressor(5, max_iter=10, random_state=0).fit(corpus, truth.y)
        >>> reg.contributions_from_topics(reg.transform(corpus[:1])).round(2)
        array([[ 0.91, -0.07, -0.  , -0.05,  0.16]])
        """
        return zbar * self.eta_[0]

    def class_topics(self, n: int = 3) -> dict:
        """The ``n`` topics that raise the response most and the ``n`` that lower it most.

        Parameters
        ----------
        n : int, default=3
            Topics of each side.

        Returns
        -------
        dict
            ``{"high": [...], "low": [...]}``, topic numbers, the strongest first.

        Examples
        --------
        >>> from medlda import MedLDARegressor
        >>> from medlda.data.synthetic import make_regression_corpus
        >>> corpus, truth = make_regression_corpus(300, 5, doc_length=30, random_state=0)
        >>> reg = MedLDARegressor(5, max_iter=10, random_state=0).fit(corpus, truth.y)
        >>> reg.class_topics(2)
        {'high': [0, 4], 'low': [3, 1]}
        """
        order = np.argsort(-self.eta_[0], kind="stable")
        return {"high": order[:n].tolist(), "low": order[::-1][:n].tolist()}


def response_scale(y: np.ndarray) -> tuple[float, float]:
    """(mean, standard deviation) of the responses: the chain sees (y - mean) / sd. A constant
    response has sd 1 (nothing to scale)."""
    mean = float(y.mean())
    sd = float(np.sqrt(np.mean((y - mean) ** 2)))
    return mean, sd if sd > 0 and np.isfinite(sd) else 1.0
