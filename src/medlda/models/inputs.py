"""What a fit starts from: the training corpus without empty documents, the documents' weights,
and the scikit-learn tags of a supervised estimator."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.utils.class_weight import compute_sample_weight

from medlda.data.tokens import is_token_lists
from medlda.limits import CELLS
from medlda.models.base import TopicModel, as_corpus
from medlda.models.labels import codes_from_omega
from medlda.samplers import resolve_sampler


def poor_score_tags(tags):
    """``tags`` with the task's poor_score set (see ``TopicModel.__sklearn_tags__``)."""
    for task_tags in (tags.classifier_tags, tags.regressor_tags):
        if task_tags is not None:
            task_tags.poor_score = True
    return tags


def fit_corpus(model: TopicModel, X, y=None, weight: np.ndarray | None = None):
    """The training corpus without empty documents, and y and the document weights to match.
    Skipping changes what the model is fitted on, so it warns (the count is ``n_empty_skipped_``)."""
    corpus = as_corpus(X)
    model._fit_input = corpus if is_token_lists(X) else X  # token lists bring their words, as a Corpus does
    keep = corpus.doc_lengths > 0
    model.n_empty_skipped_ = n = int((~keep).sum())
    if not keep.any():
        raise ValueError("no non-empty documents to train on")
    if n:
        warnings.warn(f"{type(model).__name__}.fit skipped {n} empty document{'s' if n != 1 else ''} (no words) "
                      f"of {corpus.n_docs}: nothing to learn from them (n_empty_skipped_)", UserWarning, stacklevel=3)
        corpus = corpus.subset(keep)
        if y is not None:
            y = y[keep]
        if weight is not None:
            weight = weight[keep]
    check_fit_size(model, corpus.n_docs, corpus.n_words, 0 if y is None else (y.shape[1] if np.ndim(y) == 2 else 1))
    return corpus, y, weight


def check_sample_weight(sample_weight, n_docs: int) -> np.ndarray | None:
    """``fit``'s sample_weight as a (D,) float array (None stays None): finite, >= 0, some > 0."""
    if sample_weight is None:
        return None
    try:
        weight = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("sample_weight must be numbers, one per document") from None
    if weight.shape != (n_docs,):
        raise ValueError(f"sample_weight must have one weight per document: X has {n_docs} documents, "
                         f"sample_weight has shape {weight.shape}")
    if not np.all(np.isfinite(weight)) or np.any(weight < 0) or not np.any(weight > 0):
        raise ValueError("sample_weight must be finite and non-negative, and not all zero")
    return weight


def class_doc_weight(model: Any, sample_weight: np.ndarray | None, indicator: np.ndarray) -> np.ndarray | None:
    """Each document's weight for a classifier's fit: ``sample_weight`` times the weight of its
    class under ``model.class_weight`` (None: all 1), labels given as the 0/1 ``indicator``."""
    if model.class_weight is None:
        return sample_weight
    if model.multilabel_:
        raise ValueError("class_weight is for single-label data; for the rare labels of "
                         "multi-label data use positive_cost")
    labels = model.classes_[codes_from_omega(indicator.astype(np.float64) - 0.5, False)]
    if isinstance(model.class_weight, dict):
        unknown = [k for k in model.class_weight if k not in set(model.classes_.tolist())]
        if unknown:
            raise ValueError(f"class_weight names classes not in y: {unknown} (classes: {model.classes_.tolist()})")
        values = np.array(list(model.class_weight.values()), dtype=np.float64)
        if not np.all(np.isfinite(values)) or np.any(values < 0):
            raise ValueError(f"class_weight values must be finite and non-negative, got {model.class_weight!r}")
    by_class = compute_sample_weight(model.class_weight, labels)
    if not np.any(by_class > 0):
        raise ValueError("class_weight gives every training document weight 0")
    return by_class if sample_weight is None else by_class * sample_weight


def check_fit_size(model, n_docs: int, n_words: int, n_tasks: int = 0) -> None:
    """Raise LimitError, before a fit allocates them, when an array the fit needs would hold more
    cells than ``medlda.limits.CELLS`` allows: the topic-word counts (n_chains x n_components x
    n_words), the document-topic counts (n_docs x n_components) and, where eta is drawn exactly (sampler 'gibbs',
    eta_draw='exact', the Ray backend), its statistics (tasks x n_components x n_components; one task
    per one-vs-rest model). A large n_components is a valid integer that no machine can fit."""
    name, k = type(model).__name__, int(model.n_components)
    chains = int(getattr(model, "n_chains", 1))  # several chains: their topics stacked
    of_chains = f" and n_chains={chains}" if chains > 1 else ""
    CELLS.check(chains * k * int(n_words), f"{name} with n_components={k}{of_chains} on {int(n_words):,} words "
                                           "(topics x words)")
    CELLS.check(int(n_docs) * k, f"{name} with n_components={k} on {int(n_docs):,} documents (documents x topics)")
    exact = (resolve_sampler(model.sampler, k, n_tasks) == "gibbs" or getattr(model, "eta_draw", "auto") == "exact"
             or getattr(model, "backend", "local") == "ray")
    if n_tasks and exact:
        tasks = 1 if getattr(model, "strategy", "multitask") == "ovr" else int(n_tasks)
        CELLS.check(tasks * k * k, f"{name} with n_components={k} and {tasks} task{'s' * (tasks != 1)} "
                                          "(the exact eta draw's tasks x topics x topics statistics)")
