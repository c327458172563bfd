"""Losses as augmentation draws (SPEC §2): each returns kappa and w of the Gaussian factor (1).

A loss only knows how to draw its augmentation given omega and what kappa and w are; the token
and classifier kernels never change per loss.
"""

from __future__ import annotations

import copy

import numpy as np

_MIN_ABS_ZETA = 1e-9  # keeps the inverse-Gaussian mean finite when a margin is met exactly


class _Weighted:
    """Per-document weights on a loss (sample weights): document d's factor is raised to the
    power s_d, i.e. its c is c s_d, as an SVM's sample weights scale its C. ``doc_weight`` is None
    (every weight 1: the papers' loss) or a (D,) array set by the estimator."""

    doc_weight: np.ndarray | None = None

    def _c(self) -> float | np.ndarray:
        """c, or (D, 1) c s_d for weighted documents."""
        return self.c if self.doc_weight is None else self.c * self.doc_weight[:, None]

    def for_docs(self, start: int, stop: int):
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


class HingeLoss(_Weighted):
    """Gibbs MedLDA: exp(-2c max(0, l - y omega)), y in {-1, +1}, IG-augmented.

    ``positive_cost`` r multiplies c on the positive examples (y = +1): their factor is
    exp(-2 c r max(0, l - omega)), the cost-sensitive hinge of imbalanced SVMs. r = 1 is the papers'
    loss; r > 1 makes missing a rare label's positive documents dearer than a false alarm.
    """

    name = "hinge"
    probabilistic = False
    task = "classification"

    def __init__(self, c: float = 1.6, margin: float = 64.0, positive_cost: float = 1.0) -> None:
        self.c = float(c)
        self.margin = float(margin)
        self.positive_cost = float(positive_cost)

    def encode(self, indicator: np.ndarray) -> np.ndarray:
        """Task targets from a (D, T) 0/1 indicator: +1 where the label is present, else -1."""
        return np.where(indicator, 1.0, -1.0)

    def draw_aux(self, omega: np.ndarray, y: np.ndarray, rng: np.random.Generator):
        """Draw xi ~ IG(1 / (c_y |l - y omega|), 1) and return (kappa, w) = (c_y y (1 + c_y l xi),
        c_y^2 xi), each shaped like omega; c_y is c, times positive_cost where y = +1."""
        c = _cost_weighted(self._c(), self.positive_cost, np.asarray(y) > 0)
        xi = _draw_ig_piece(self.margin, y, omega, c, rng)
        kappa = c * y * (1.0 + c * self.margin * xi)
        w = c * c * xi
        return kappa, w


def _cost_weighted(c: float | np.ndarray, positive_cost: float, positive: np.ndarray) -> np.ndarray | float:
    """c on negative examples, c * positive_cost on positive ones (the scalar c when that is 1)."""
    if positive_cost == 1.0:
        return c
    return np.where(positive, c * positive_cost, c)


class LogisticLoss(_Weighted):
    """gSLDA: exp(c y omega) / (1 + exp(omega))^c, y in {0, 1}, Polya-Gamma-augmented.

    ``positive_cost`` r raises the factor of each positive example (y = 1) to the power r (c r in
    place of c), a weighted likelihood; ``proba`` stays sigmoid(c omega).
    """

    name = "logistic"
    probabilistic = True
    task = "classification"

    def __init__(self, c: float = 1.0, margin: float | None = None, positive_cost: float = 1.0) -> None:
        self.c = float(c)
        self.positive_cost = float(positive_cost)

    def encode(self, indicator: np.ndarray) -> np.ndarray:
        """Task targets from a (D, T) 0/1 indicator: 1.0 where the label is present, else 0.0."""
        return np.where(indicator, 1.0, 0.0)

    def draw_aux(self, omega: np.ndarray, y: np.ndarray, rng: np.random.Generator):
        """Draw lambda ~ PG(c_y, omega) and return (kappa, w) = (c_y (y - 1/2), lambda); c_y is c,
        times positive_cost where y = 1."""
        from polyagamma import random_polyagamma

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


class SquaredLoss(_Weighted):
    """sLDA regression: exp(-c (y - omega)^2 / 2); no augmentation, kappa = c y and w = c."""

    name = "squared"
    probabilistic = False
    task = "regression"

    def __init__(self, c: float = 1.0, margin: float | None = None) -> None:
        self.c = float(c)

    def encode(self, values: np.ndarray) -> np.ndarray:
        """Task targets (D, 1) from real responses (D,) or (D, 1)."""
        return np.asarray(values, dtype=np.float64).reshape(len(values), -1)

    def draw_aux(self, omega: np.ndarray, y: np.ndarray, rng: np.random.Generator):
        """Nothing to draw: return (c y, c), each shaped like omega."""
        c = self._c()
        return c * y * np.ones_like(omega), c * np.ones_like(omega, dtype=np.float64)


class EpsilonLoss(_Weighted):
    """MedLDA regression: exp(-2c max(0, |y - omega| - epsilon)), two IG pieces."""

    name = "epsilon"
    probabilistic = False
    task = "regression"

    def __init__(self, c: float = 1.0, margin: float | None = None, epsilon: float = 1e-3) -> None:
        self.c = float(c)
        self.epsilon = float(epsilon)

    encode = SquaredLoss.encode

    def draw_aux(self, omega: np.ndarray, y: np.ndarray, rng: np.random.Generator):
        """Draw xi1 ~ IG(1/(c|y - eps - omega|), 1), xi2 ~ IG(1/(c|y + eps - omega|), 1); return
        kappa = c^2 ((y - eps) xi1 + (y + eps) xi2) and w = c^2 (xi1 + xi2)."""
        c, eps = self._c(), self.epsilon
        xi1 = _draw_ig_piece(y - eps, 1.0, omega, c, rng)
        xi2 = _draw_ig_piece(-(y + eps), -1.0, omega, c, rng)
        kappa = c * c * ((y - eps) * xi1 + (y + eps) * xi2)
        w = c * c * (xi1 + xi2)
        return kappa, w


LOSSES = {"hinge": HingeLoss, "logistic": LogisticLoss, "squared": SquaredLoss, "epsilon": EpsilonLoss}
CLASSIFICATION_LOSSES = tuple(n for n, cls in LOSSES.items() if cls.task == "classification")
REGRESSION_LOSSES = tuple(n for n, cls in LOSSES.items() if cls.task == "regression")


def make_loss(name: str, c: float, margin: float | None = None, **options):
    """The loss object for ``name`` with regularization ``c`` (``margin`` for hinge, ``epsilon``
    for the epsilon-insensitive loss, ``positive_cost`` for the classification losses)."""
    if name not in LOSSES:
        raise ValueError(f"loss must be one of {sorted(LOSSES)}, got {name!r}")
    return LOSSES[name](c=c, margin=margin, **options)
