"""The tie between a supervised estimator's topics and its labels, as the engine takes it: the
loss, the task targets, the prior on eta and which topics carry classifier weights."""

from __future__ import annotations

from typing import Callable

import numpy as np

from medlda.engine.loop import Supervision


def supervision_for(model, loss, targets: np.ndarray, metric: Callable[[np.ndarray], float]) -> Supervision:
    """``Supervision`` of ``model`` (a MedLDAClassifier or MedLDARegressor) for ``targets``
    (D, T): eta starts at 0 with prior precision 1 / sigma2, and the last ``background_topics``
    of its topics keep no weight (refused unless at least one topic is left with one)."""
    n_topics, background = model.n_components, model.background_topics
    if background >= n_topics:
        raise ValueError(f"background_topics={background} leaves no topic of n_components={n_topics} with a "
                         f"classifier weight: it must be below n_components")
    return Supervision(loss, targets, 1.0 / model.sigma2, np.zeros((targets.shape[1], n_topics)), metric=metric,
                       n_supervised=n_topics - background if background else None)
