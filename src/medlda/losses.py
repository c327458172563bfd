"""Losses as augmentation draws (docs/mathematics.md §2): each returns kappa and w of the Gaussian factor (1).

A loss knows how to draw its augmentation given omega, how to encode labels as task targets, and
its own defaults (c, margin, positive cost). The token and eta kernels never change per loss.
Every subclass that names itself is registered in ``LOSSES``: a new loss is one class here (or
anywhere), and the estimators, the model files and the command line find it by name.
"""

from __future__ import annotations

import copy
from typing import ClassVar

import numpy as np
from polyagamma import random_polyagamma

LOSSES: dict[str, type[Loss]] = {}
_MIN_ABS_ZETA = 1e-9  # keeps the inverse-Gaussian mean finite when a margin is met exactly

HINGE_C = 1.6  # the authors' LightMedLDA default
LOGISTIC_BINARY_C, LOGISTIC_MULTI_C = 25.0, 204.8  # gSLDA binary; LightMedLDA KDD paper, several tasks
# regression, on responses scaled to unit variance: c per token of the mean document, picked on a
# hotel reviews validation split (docs/benchmarks.md)
REGRESSION_C_PER_TOKEN = 0.32
BINARY_MARGIN = 164.0  # c * l = 262.4 with c = 1.6: the papers' binary 20 Newsgroups setting
MULTICLASS_MARGIN = 64.0  # the authors' LightMedLDA default for several classes (c * l = 102.4)
MULTILABEL_MARGIN = 8.0  # picked on a Reuters-21578 validation split: 64 leaves most rare labels unpredicted
MULTILABEL_POSITIVE_COST = 4.0  # the same validation: the plain loss never predicts most rare labels
OVR_LOGISTIC_BALANCED_MAX_K = 100  # one-vs-rest logistic: balanced positive cost up to this K


class Loss:
    """The supervision's factor psi(y | omega) as an augmentation: (kappa, w) of its Gaussian.

    Subclasses set ``name`` (registers them), ``task`` ("classification" or "regression") and
    ``probabilistic`` (whether ``predict_proba`` applies), and implement ``encode`` and
    ``draw_aux``. ``doc_weight`` (None, or (D,) per-document weights s_d set by the estimator)
    raises document d's factor to the power s_d, i.e. its c becomes c s_d.
    """

    name: ClassVar[str]
    task: ClassVar[str] = "classification"
    probabilistic: ClassVar[bool] = False
    doc_weight: np.ndarray | None = None

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "name" in cls.__dict__:
            LOSSES[cls.name] = cls

    def __init__(self, c: float = 1.0, margin: float | None = None, positive_cost: float = 1.0,
                 epsilon: float = 1e-3) -> None:
        self.c = float(c)
        self.margin = None if margin is None else float(margin)
        self.positive_cost = float(positive_cost)
        self.epsilon = float(epsilon)

    def encode(self, labels: np.ndarray) -> np.ndarray:
        """Task targets (D, T) from a (D, T) 0/1 indicator (classification) or responses (regression)."""
        raise NotImplementedError

    def draw_aux(self, omega: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """(kappa, w), each shaped like omega (D, T), drawn given the discriminants and targets."""
        raise NotImplementedError

    @classmethod
    def default_c(cls, n_tasks: int) -> float:
        """c when the estimator says 'auto'."""
        return 1.0

    @classmethod
    def default_margin(cls, n_tasks: int, multilabel: bool) -> float:
        """The hinge margin l when the estimator says 'auto': the papers' binary and multi-class
        settings, and for multi-label data the one picked on a Reuters validation split."""
        if multilabel:
            return MULTILABEL_MARGIN
        return BINARY_MARGIN if n_tasks == 1 else MULTICLASS_MARGIN

    @classmethod
    def default_positive_cost(cls, n_tasks: int, multilabel: bool, one_vs_rest: bool, n_topics: int) -> float:
        """positive_cost when the estimator says 'auto': 4 for multi-label data; C - 1 for
        one-vs-rest on C > 2 classes, so each binary model weighs its class's documents as much as
        all the others'; else 1 (the papers' loss)."""
        if multilabel:
            return MULTILABEL_POSITIVE_COST
        if not one_vs_rest or n_tasks == 1:
            return 1.0
        return float(n_tasks - 1)

    def _c(self) -> float | np.ndarray:
        """c, or (D, 1) c s_d for weighted documents."""
        return self.c if self.doc_weight is None else self.c * self.doc_weight[:, None]

    def for_docs(self, start: int, stop: int) -> Loss:
        """This loss for documents [start, stop) only (a data-parallel shard)."""
        if self.doc_weight is None:
            return self
        shard = copy.copy(self)
        shard.doc_weight = self.doc_weight[start:stop]
        return shard


def _draw_ig_piece(a: np.ndarray, s: np.ndarray | float, omega: np.ndarray, c: float | np.ndarray,
                   rng: np.random.Generator) -> np.ndarray:
    """xi ~ IG(1 / (c |a - s omega|), 1): the augmentation of exp(-2c max(0, a - s omega))."""
    zeta = np.maximum(np.abs(a - s * omega) * c, _MIN_ABS_ZETA)
    return rng.wald(1.0 / zeta, 1.0)


def _cost_weighted(c: float | np.ndarray, positive_cost: float, positive: np.ndarray) -> np.ndarray | float:
    """c on negative examples, c * positive_cost on positive ones (the scalar c when that is 1)."""
    if positive_cost == 1.0:
        return c
    return np.where(positive, c * positive_cost, c)


class HingeLoss(Loss):
    """Gibbs MedLDA: exp(-2c max(0, l - y omega)), y in {-1, +1}, IG-augmented.

    ``positive_cost`` r multiplies c on the positive examples (y = +1): their factor is
    exp(-2 c r max(0, l - omega)), the cost-sensitive hinge of imbalanced SVMs. r = 1 is the papers'
    loss; r > 1 makes missing a rare label's positive documents dearer than a false alarm.
    """

    name = "hinge"

    def __init__(self, c: float = 1.6, margin: float | None = 64.0, positive_cost: float = 1.0,
                 epsilon: float = 1e-3) -> None:
        super().__init__(c, MULTICLASS_MARGIN if margin is None else margin, positive_cost, epsilon)

    @classmethod
    def default_c(cls, n_tasks: int) -> float:
        return HINGE_C

    def encode(self, indicator: np.ndarray) -> np.ndarray:
        """+1 where the label is present, else -1."""
        return np.where(indicator, 1.0, -1.0)

    def draw_aux(self, omega: np.ndarray, y: np.ndarray, rng: np.random.Generator):
        """xi ~ IG(1 / (c_y |l - y omega|), 1); (kappa, w) = (c_y y (1 + c_y l xi), c_y^2 xi), with
        c_y = c, times positive_cost where y = +1."""
        c = _cost_weighted(self._c(), self.positive_cost, np.asarray(y) > 0)
        xi = _draw_ig_piece(self.margin, y, omega, c, rng)
        kappa = c * y * (1.0 + c * self.margin * xi)
        w = c * c * xi
        return kappa, w


class LogisticLoss(Loss):
    """gSLDA: exp(c y omega) / (1 + exp(omega))^c, y in {0, 1}, Polya-Gamma-augmented.

    ``positive_cost`` r raises the factor of each positive example (y = 1) to the power r (c r in
    place of c), a weighted likelihood; ``proba`` stays sigmoid(c omega).
    """

    name = "logistic"
    probabilistic = True

    @classmethod
    def default_c(cls, n_tasks: int) -> float:
        return LOGISTIC_BINARY_C if n_tasks == 1 else LOGISTIC_MULTI_C

    @classmethod
    def default_positive_cost(cls, n_tasks: int, multilabel: bool, one_vs_rest: bool, n_topics: int) -> float:
        """As for every loss, but 1 for one-vs-rest above OVR_LOGISTIC_BALANCED_MAX_K topics,
        where balancing cost accuracy on a 20 Newsgroups validation split."""
        if one_vs_rest and not multilabel and n_topics > OVR_LOGISTIC_BALANCED_MAX_K:
            return 1.0
        return super().default_positive_cost(n_tasks, multilabel, one_vs_rest, n_topics)

    def encode(self, indicator: np.ndarray) -> np.ndarray:
        """1.0 where the label is present, else 0.0."""
        return np.where(indicator, 1.0, 0.0)

    def draw_aux(self, omega: np.ndarray, y: np.ndarray, rng: np.random.Generator):
        """lambda ~ PG(c_y, omega); (kappa, w) = (c_y (y - 1/2), lambda), with c_y = c, times
        positive_cost where y = 1."""
        omega = np.asarray(omega, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        c = _cost_weighted(self._c(), self.positive_cost, y > 0.5)
        if np.ndim(c):  # per-document or per-example h, one for each draw
            c = np.ascontiguousarray(np.broadcast_to(c, omega.shape))
        if np.ndim(c) and not np.all(c > 0):  # weight 0: PG(0, omega) is the point mass at 0
            w = np.zeros(omega.shape)
            drawn = c > 0
            w[drawn] = random_polyagamma(c[drawn], omega[drawn], random_state=rng)
        else:
            w = np.asarray(random_polyagamma(c, omega, random_state=rng), dtype=np.float64).reshape(omega.shape)
        kappa = c * (y - 0.5) * np.ones_like(omega)
        return kappa, w

    def proba(self, omega: np.ndarray) -> np.ndarray:
        """p(y = 1 | omega) = sigmoid(c omega): the normalized factor exp(c y omega) / (1 + e^omega)^c."""
        return 0.5 * (1.0 + np.tanh(0.5 * self.c * np.asarray(omega)))


class RegressionLoss(Loss):
    """A loss on a real response: targets are the responses as one column."""

    task = "regression"

    def encode(self, values: np.ndarray) -> np.ndarray:
        """Task targets (D, 1) from real responses (D,) or (D, 1)."""
        return np.asarray(values, dtype=np.float64).reshape(len(values), -1)


class SquaredLoss(RegressionLoss):
    """sLDA regression: exp(-c (y - omega)^2 / 2); no augmentation, kappa = c y and w = c."""

    name = "squared"

    def draw_aux(self, omega: np.ndarray, y: np.ndarray, rng: np.random.Generator):
        """Nothing to draw: (c y, c), each shaped like omega."""
        c = self._c()
        return c * y * np.ones_like(omega), c * np.ones_like(omega, dtype=np.float64)


class EpsilonLoss(RegressionLoss):
    """MedLDA regression: exp(-2c max(0, |y - omega| - epsilon)), two IG pieces."""

    name = "epsilon"

    def draw_aux(self, omega: np.ndarray, y: np.ndarray, rng: np.random.Generator):
        """xi1 ~ IG(1/(c|y - eps - omega|), 1), xi2 ~ IG(1/(c|y + eps - omega|), 1); kappa =
        c^2 ((y - eps) xi1 + (y + eps) xi2) and w = c^2 (xi1 + xi2)."""
        c, eps = self._c(), self.epsilon
        xi1 = _draw_ig_piece(y - eps, 1.0, omega, c, rng)
        xi2 = _draw_ig_piece(-(y + eps), -1.0, omega, c, rng)
        kappa = c * c * ((y - eps) * xi1 + (y + eps) * xi2)
        w = c * c * (xi1 + xi2)
        return kappa, w


def regression_c(mean_doc_length: float) -> float:
    """c of a regression loss when the estimator says 'auto': ``REGRESSION_C_PER_TOKEN`` times the
    training documents' mean length. A token's topic draw feels the response through omega, in
    which the token weighs 1 / N_d, so c proportional to the length keeps the response's pull on
    each token the same for short and long documents."""
    return REGRESSION_C_PER_TOKEN * float(mean_doc_length)


def losses_for(task: str) -> tuple[str, ...]:
    """The registered losses of ``task`` ("classification" or "regression"), by name."""
    return tuple(name for name, cls in LOSSES.items() if cls.task == task)


def make_loss(name: str, c: float, margin: float | None = None, **options) -> Loss:
    """The loss ``name`` with regularization ``c`` (``margin`` for hinge, ``epsilon`` for the
    epsilon-insensitive loss, ``positive_cost`` for the classification losses)."""
    if name not in LOSSES:
        raise ValueError(f"loss must be one of {sorted(LOSSES)}, got {name!r}")
    return LOSSES[name](c=c, margin=margin, **options)
