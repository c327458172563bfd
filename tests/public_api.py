"""The public API as the tests see it: what the API reference documents (docs/api), each object by
its dotted path, and the public methods of its classes (tests/docs/test_docstrings.py checks their
docstrings, tests/test_typing.py their annotations)."""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Callable

PUBLIC = [
    "medlda.LDA", "medlda.MedLDAClassifier", "medlda.MedLDARegressor", "medlda.Corpus",
    "medlda.read_corpus", "medlda.load_model", "medlda.save_model",
    "medlda.data.datasets.load_20newsgroups", "medlda.data.datasets.data_home",
    "medlda.data.text.make_vectorizer",
    "medlda.data.synthetic.make_supervised_corpus", "medlda.data.synthetic.make_multilabel_corpus",
    "medlda.data.synthetic.make_regression_corpus",
    "medlda.evaluation.coherence.topic_coherence", "medlda.evaluation.explain.top_topics",
    "medlda.reporting.plots.plot_trace", "medlda.reporting.plots.plot_topics",
    "medlda.reporting.plots.plot_class_topics", "medlda.reporting.plots.plot_explanation",
    "medlda.reporting.plots.plot_topic_map", "medlda.reporting.plots.plot_confusion",
    "medlda.reporting.plots.plot_predictions", "medlda.reporting.plots.save_figure",
    "medlda.reporting.html.write_report",
    "medlda.exceptions.MedLDAError", "medlda.exceptions.InputFormatError", "medlda.exceptions.ModelFileError",
    "medlda.exceptions.LimitError",
]

# public methods that the model-file reader and the composite models call, not users: numpydoc sections, no Examples
HOOKS = {"rebuild_one_vs_rest", "rebuild_chains", "release_fit_state", "restore_vectorizer"}


def resolve(path: str) -> Any:
    """The object at a dotted path, e.g. ``medlda.data.text.make_vectorizer``."""
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def public_methods(cls: type) -> dict[str, Callable]:
    """The public methods of ``cls`` defined in medlda (its own or a medlda base class's)."""
    out = {}
    for name in dir(cls):
        raw = inspect.getattr_static(cls, name)
        if name.startswith("_") or isinstance(raw, property):
            continue
        if isinstance(raw, (staticmethod, classmethod)):
            func = raw.__func__
        else:
            func = getattr(raw, "fn", raw)  # scikit-learn's available_if keeps the method as fn
        if inspect.isfunction(func) and func.__module__.startswith("medlda"):
            out[name] = func
    return out


def public_objects() -> list[tuple[str, Any, bool]]:
    """(name, object, needs Examples) of every public object and public method."""
    out = []
    for path in PUBLIC:
        obj = resolve(path)
        out.append((path, obj, True))
        if inspect.isclass(obj) and not issubclass(obj, Exception):
            out += [(f"{path}.{name}", func, name not in HOOKS) for name, func in sorted(public_methods(obj).items())]
    return out
