"""Which supervised task a labeled corpus poses, and its targets (docs/mathematics.md §9; the measures of each
are in ``medlda.evaluation.metrics``).

- classification: one label per document;
- multi-label: any document with zero or several labels;
- regression: one label per document, all numbers, not all integers.
"""

from __future__ import annotations

import numpy as np

from medlda.data.corpus import Corpus

TASKS = ("classification", "multilabel", "regression")


def detect_task(corpus: Corpus) -> str:
    """The task of a labeled corpus (see the module docstring)."""
    labels = corpus.require_labels()
    if any(len(lab) != 1 for lab in labels):
        return "multilabel"
    values = [lab[0] for lab in labels]
    try:
        numbers = [float(v) for v in values]
    except ValueError:
        return "classification"
    if all(np.isfinite(numbers)) and any(not _is_integer_text(v) for v in values):
        return "regression"
    return "classification"


def _is_integer_text(value: str) -> bool:
    v = value.strip().lstrip("+-")
    return v.isdigit()


def _is_number_text(value: str) -> bool:
    """Whether a label reads as a finite number (a regression response)."""
    try:
        return bool(np.isfinite(float(value)))
    except ValueError:
        return False


def auto_task_warning(corpus: Corpus, task: str) -> str | None:
    """What to tell the user about the task :func:`detect_task` chose when the labels make it
    doubtful, naming the file and line of the first doubtful label and the option that forces the
    other task; None when the labels are clear. Doubtful: a few blank labels turning the data
    multi-label, a few non-integers turning classes into a regression, numbers mixed with words."""
    labels = corpus.require_labels()
    if task == "multilabel":
        return _blank_labels_warning(corpus, labels)
    if any(len(lab) != 1 for lab in labels):
        return None
    values = [lab[0] for lab in labels]
    if task == "regression":
        return _few_fractions_warning(corpus, values)
    if task == "classification":
        return _numbers_and_words_warning(corpus, values)
    return None


def _blank_labels_warning(corpus: Corpus, labels: list[tuple[str, ...]]) -> str | None:
    """Multi-label only because some documents carry no label and the others one each."""
    unlabeled = [d for d, lab in enumerate(labels) if not lab]
    if not unlabeled or any(len(lab) > 1 for lab in labels):
        return None
    count = "1 document carries" if len(unlabeled) == 1 else f"{len(unlabeled)} documents carry"
    return (f"{count} no label (first: {corpus.where(unlabeled[0])}) and the others one each: read as "
            f"multi-label data; for classification give them labels or drop them")


def _few_fractions_warning(corpus: Corpus, values: list[str]) -> str | None:
    """Regression only because a minority of otherwise integer labels are not integers (a typo?)."""
    fractions = [d for d, v in enumerate(values) if not _is_integer_text(v)]
    if 2 * len(fractions) >= len(values):
        return None
    more = f" (and {len(fractions) - 1} more)" if len(fractions) > 1 else ""
    return (f"{corpus.where(fractions[0])}: label {values[fractions[0]]!r}{more} is not an integer, unlike "
            f"{len(values) - len(fractions)} of the {len(values)} labels: read as regression data (real-valued "
            f"responses); if the labels are classes, correct it or pass --task classification")


def _numbers_and_words_warning(corpus: Corpus, values: list[str]) -> str | None:
    """Classification over labels of which some are numbers and some words (the rarer kind is doubtful)."""
    is_number = [_is_number_text(v) for v in values]
    numbers = [d for d, yes in enumerate(is_number) if yes]
    words = [d for d, yes in enumerate(is_number) if not yes]
    if not numbers or not words:
        return None
    odd, kind, others = (numbers, "a number", "words") if len(numbers) < len(words) else (words, "a word", "numbers")
    more = f" (and {len(odd) - 1} more)" if len(odd) > 1 else ""
    return (f"{corpus.where(odd[0])}: label {values[odd[0]]!r}{more} is {kind}, yet {len(values) - len(odd)} of the "
            f"{len(values)} labels are {others}: read as classification over {len(set(values))} classes; "
            f"for regression make every label a number and pass --task regression")


def label_matrix(corpus: Corpus, names: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """(D, C) 0/1 indicator of a multi-label corpus over ``names`` (default: every label seen,
    sorted), the names, and how many label occurrences outside ``names`` were dropped."""
    labels = corpus.require_labels()
    if names is None:
        names = np.array(sorted({lab for labs in labels for lab in labs}), dtype=str)
    index = {str(n): i for i, n in enumerate(names)}
    Y = np.zeros((len(labels), len(names)), dtype=np.int64)
    dropped = 0
    for d, labs in enumerate(labels):
        for lab in labs:
            if lab in index:
                Y[d, index[lab]] = 1
            else:
                dropped += 1
    return Y, np.asarray(names), dropped


def targets(corpus: Corpus, task: str, names: np.ndarray | None = None):
    """The ``y`` an estimator fits for ``task``: labels (classification), an indicator matrix
    (multi-label, over ``names`` when given), or real responses (regression)."""
    if task == "classification":
        return corpus.single_labels()
    if task == "multilabel":
        return label_matrix(corpus, names)[0]
    if task == "regression":
        return corpus.real_labels()
    raise ValueError(f"task must be one of {list(TASKS)}, got {task!r}")
