"""A fitted classifier's decisions from topic features: discriminants, labels, probabilities,
each topic's part of a decision, and the topics that weigh most toward each class.

``ClassDecisions`` is a mixin of ``MedLDAClassifier``: each method reads only the fitted weights
(``eta_``), the classes and the probability scale, so the report, the plots and the command line
infer a document's topics once and derive all of these from them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from medlda.evaluation.calibration import proba_from_omega
from medlda.evaluation.explain import toward_prediction
from medlda.models.labels import codes_from_omega


class ClassDecisions:
    """Decisions of a fitted classifier from its topic features (a mixin of ``MedLDAClassifier``)."""

    classes_: np.ndarray
    multilabel_: bool
    eta_samples_: np.ndarray
    c_: float

    @property
    def eta_(self) -> np.ndarray:
        """Classifier weights (T, K): the average of the kept eta samples."""
        check_is_fitted(self, "eta_samples_")
        return self.eta_samples_.mean(axis=0)

    def _codes(self, omega: np.ndarray) -> np.ndarray:
        """Class codes (or a 0/1 indicator for multi-label) from discriminants (D, T)."""
        return codes_from_omega(omega, getattr(self, "multilabel_", False))

    def _proba_scale(self) -> float:
        """s of sigmoid(s omega); a model fitted without calibration uses the loss's own c."""
        return getattr(self, "proba_scale_", self.c_)

    def decision_from_topics(self, zbar: np.ndarray) -> np.ndarray:
        """``decision_function`` from topic features already inferred (``transform``'s output).

        Parameters
        ----------
        zbar : ndarray of shape (n_docs, n_topics)
            Topic features of the documents.

        Returns
        -------
        ndarray of shape (n_docs,) or (n_docs, n_classes)
            omega = zbar eta^T, one column for two classes.

        Examples
        --------
        >>> from medlda import MedLDAClassifier
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, truth = make_supervised_corpus(300, 5, doc_length=30, n_classes=3, random_state=0)
        >>> clf = MedLDAClassifier(5, max_iter=10, loss="logistic", random_state=0).fit(corpus, truth.y)
        >>> zbar = clf.transform(corpus[:4])
        >>> bool((clf.decision_from_topics(zbar) == clf.decision_function(corpus[:4])).all())
        True
        """
        omega = zbar @ self.eta_.T
        return omega[:, 0] if omega.shape[1] == 1 and not self.multilabel_ else omega

    def labels_from_decision(self, omega: np.ndarray) -> np.ndarray:
        """``predict`` from discriminants already computed (``decision_function``'s output).

        Parameters
        ----------
        omega : ndarray of shape (n_docs,) or (n_docs, n_classes)
            Discriminants.

        Returns
        -------
        ndarray of shape (n_docs,) or (n_docs, n_classes)
            Class labels; a multi-label model's 0/1 indicator matrix.

        Examples
        --------
        >>> from medlda import MedLDAClassifier
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, truth = make_supervised_corpus(300, 5, doc_length=30, n_classes=3, random_state=0)
        >>> clf = MedLDAClassifier(5, max_iter=10, loss="logistic", random_state=0).fit(corpus, truth.y)
        >>> clf.labels_from_decision(clf.decision_function(corpus[:4]))
        array([0, 0, 0, 0])
        """
        codes = self._codes(omega.reshape(len(omega), -1))
        return codes if self.multilabel_ else self.classes_[codes]

    def proba_from_decision(self, omega: np.ndarray) -> np.ndarray:
        """``predict_proba`` from discriminants already computed (``decision_function``'s output).

        Parameters
        ----------
        omega : ndarray of shape (n_docs,) or (n_docs, n_classes)
            Discriminants.

        Returns
        -------
        ndarray of shape (n_docs, n_classes)
            Class probabilities, as ``predict_proba`` gives them.

        Examples
        --------
        >>> from medlda import MedLDAClassifier
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, truth = make_supervised_corpus(300, 5, doc_length=30, n_classes=3, random_state=0)
        >>> clf = MedLDAClassifier(5, max_iter=10, loss="logistic", random_state=0).fit(corpus, truth.y)
        >>> clf.proba_from_decision(clf.decision_function(corpus[:2])).round(2)
        array([[0.66, 0.02, 0.32],
               [0.96, 0.02, 0.02]])
        """
        return proba_from_omega(omega, self._proba_scale(), self.multilabel_)

    def label_index(self, label: Any) -> int | None:
        """The task (row of ``eta_``) that ``decision_contributions`` splits for ``label``.

        Parameters
        ----------
        label : class label or None
            One of ``classes_`` (compared as text); None: toward each document's prediction.

        Returns
        -------
        int or None
            The index of ``label`` in ``classes_``; None for ``label=None``.

        Raises
        ------
        ValueError
            If ``label`` is not a class, or is None for a multi-label model (which decides each
            label apart).

        Examples
        --------
        >>> from medlda import MedLDAClassifier
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, truth = make_supervised_corpus(300, 5, doc_length=30, n_classes=3, random_state=0)
        >>> clf = MedLDAClassifier(5, max_iter=10, loss="logistic", random_state=0).fit(corpus, truth.y)
        >>> clf.label_index(2), clf.label_index(None)
        (2, None)
        """
        if label is None:
            if self.multilabel_:
                raise ValueError("a multi-label model decides each label apart: pass label=, one of classes_")
            return None
        names = [str(c) for c in self.classes_]
        if str(label) not in names:
            raise ValueError(f"label {label!r} is not one of the model's classes {names}")
        return names.index(str(label))

    def contributions_from_topics(self, zbar: np.ndarray, task: int | None = None) -> np.ndarray:
        """``decision_contributions`` from topic features already inferred.

        Parameters
        ----------
        zbar : ndarray of shape (n_docs, n_topics)
            Topic features (``transform``'s output).
        task : int or None, default=None
            ``label_index``'s task; None: toward each document's prediction.

        Returns
        -------
        ndarray of shape (n_docs, n_topics)
            Each topic's part of the decision.

        Examples
        --------
        >>> from medlda import MedLDAClassifier
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, truth = make_supervised_corpus(300, 5, doc_length=30, n_classes=3, random_state=0)
        >>> clf = MedLDAClassifier(5, max_iter=10, loss="logistic", random_state=0).fit(corpus, truth.y)
        >>> parts = clf.contributions_from_topics(clf.transform(corpus[:2]), clf.label_index(1))
        >>> parts.shape
        (2, 5)
        """
        eta = self.eta_
        if task is None:
            return toward_prediction(zbar, eta, zbar @ eta.T)
        if eta.shape[0] == 1 and not self.multilabel_:  # binary: omega > 0 means classes_[1]
            return zbar * (eta[0] if task == 1 else -eta[0])
        return zbar * eta[task]

    def class_topics(self, n: int = 3) -> dict:
        """For each class, the ``n`` topics whose weight eta favours it most.

        Parameters
        ----------
        n : int, default=3
            Topics per class.

        Returns
        -------
        dict
            Class label -> topic numbers, the strongest first (two classes: ``classes_[0]`` gets
            the most negative weights of the one task).

        Examples
        --------
        >>> from medlda import MedLDAClassifier
        >>> from medlda.data.synthetic import make_supervised_corpus
        >>> corpus, truth = make_supervised_corpus(300, 5, doc_length=30, n_classes=3, random_state=0)
        >>> clf = MedLDAClassifier(5, max_iter=10, loss="logistic", random_state=0).fit(corpus, truth.y)
        >>> clf.class_topics(2)
        {0: [0, 1], 1: [3, 1], 2: [2, 4]}
        """
        eta = self.eta_
        if eta.shape[0] == 1 and not self.multilabel_:
            order = np.argsort(-eta[0], kind="stable")
            return {self.classes_[1].item(): order[:n].tolist(), self.classes_[0].item(): order[::-1][:n].tolist()}
        return {c.item(): np.argsort(-eta[t], kind="stable")[:n].tolist() for t, c in enumerate(self.classes_)}

