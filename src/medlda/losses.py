"""Losses as augmentation draws (SPEC §2): each returns kappa and w of the Gaussian factor (1).

A loss only knows how to draw its augmentation given omega and what kappa and w are; the token
and classifier kernels never change per loss.
"""

from __future__ import annotations

import numpy as np

_MIN_ABS_ZETA = 1e-9  # keeps the inverse-Gaussian mean finite when a margin is met exactly


class HingeLoss:
    """Gibbs MedLDA: exp(-2c max(0, l - y omega)), y in {-1, +1}, IG-augmented."""

    name = "hinge"
    probabilistic = False

    def __init__(self, c: float = 1.6, margin: float = 64.0) -> None:
        self.c = float(c)
        self.margin = float(margin)

    def encode(self, indicator: np.ndarray) -> np.ndarray:
        """Task targets from a (D, T) 0/1 indicator: +1 where the label is present, else -1."""
        return np.where(indicator, 1.0, -1.0)

    def draw_aux(self, omega: np.ndarray, y: np.ndarray, rng: np.random.Generator):
        """Draw xi ~ IG(1 / (c |l - y omega|), 1) and return (kappa, w), each shaped like omega."""
        c = self.c
        zeta = np.maximum(np.abs(self.margin - y * omega) * c, _MIN_ABS_ZETA)
        xi = rng.wald(1.0 / zeta, 1.0)
        kappa = c * y * (1.0 + c * self.margin * xi)
        w = c * c * xi
        return kappa, w


LOSSES = {"hinge": HingeLoss}


def make_loss(name: str, c: float, margin: float):
    """The loss object for ``name`` with regularization ``c`` and ``margin``."""
    if name not in LOSSES:
        raise ValueError(f"loss must be one of {sorted(LOSSES)}, got {name!r}")
    return LOSSES[name](c=c, margin=margin)
