"""Seeded random splits of a corpus' documents: held-out test and validation parts."""

from __future__ import annotations

from typing import Sequence

import numpy as np
from sklearn.model_selection import train_test_split


def holdout_indices(labels: Sequence[tuple[str, ...]] | None, n_docs: int, n_test: int,
                    random_state=None) -> tuple[np.ndarray, np.ndarray]:
    """Sorted (training, test) document indices, ``n_test`` of them test, drawn at random (seeded).

    With one label per document, a class of a single document stays in training (a test label
    the model never saw cannot be scored) and the split is stratified by class among the others
    when every class can have a document on each side; multi-label or unlabeled data: a plain draw.
    """
    if not 1 <= n_test < n_docs:
        raise ValueError(f"cannot hold out {n_test} of {n_docs} documents: both parts need a document")
    docs, classes = np.arange(n_docs), None
    if labels is not None and all(len(lab) == 1 for lab in labels):
        classes = np.array([lab[0] for lab in labels])
        names, counts = np.unique(classes, return_counts=True)
        rest = docs[np.isin(classes, names[counts >= 2])]
        if n_test < rest.size:  # single-document classes stay in training
            docs, classes = rest, classes[rest]
        counts = np.unique(classes, return_counts=True)[1]
        if counts.min() < 2 or n_test < counts.size or docs.size - n_test < counts.size:
            classes = None  # too few documents to stratify
    kept, held = train_test_split(docs, test_size=n_test, random_state=random_state, stratify=classes)
    kept = np.union1d(kept, np.setdiff1d(np.arange(n_docs), docs))
    return np.sort(kept), np.sort(held)
