"""Model files: one NumPy .npz archive of arrays plus JSON metadata; no pickle, written atomically.

Loading never executes code (``allow_pickle=False``), checks the format name and version, and
checks that the arrays' shapes agree with the stored parameters.
"""

from __future__ import annotations

import json
import platform
import warnings
import zipfile
from pathlib import Path

import numba
import numpy as np
import sklearn
from sklearn.utils.validation import check_is_fitted

from medlda._version import __version__
from medlda.exceptions import ModelFileError
from medlda.io.atomic import atomic_write
from medlda.losses import LOSSES, MULTILABEL_POSITIVE_COST

FORMAT_NAME = "medlda-model"
FORMAT_VERSION = 1
_META_KEY = "__metadata__"


ESTIMATORS: dict[str, type] = {}  # the estimator classes a model file may name, registered by the models


def register_estimator(cls: type) -> type:
    """Let model files name ``cls`` (done for every estimator by ``medlda.models.base.TopicModel``)."""
    ESTIMATORS[cls.__name__] = cls
    return cls


def _estimator_classes() -> dict:
    return ESTIMATORS


def save_model(model, path) -> None:
    """Save a fitted LDA, MedLDAClassifier (any strategy) or MedLDARegressor to ``path``."""
    name = type(model).__name__
    if name not in _estimator_classes():
        raise TypeError(f"cannot save a {name}; expected one of {sorted(_estimator_classes())}")
    check_is_fitted(model, "topic_word_counts_")
    arrays = {"topic_word_counts": model.topic_word_counts_}
    meta = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "medlda_version": __version__,
        "environment": _environment(),
        "estimator": name,
        "params": model.get_params(),
        "fit_stats": getattr(model, "fit_stats_", {}),
        "trace": getattr(model, "trace_", []),
        "log_joint": getattr(model, "log_joint_", None),
        "n_empty_skipped": getattr(model, "n_empty_skipped_", 0),
    }
    if model.vocabulary_ is not None:
        arrays["vocabulary"] = np.asarray(model.vocabulary_, dtype=str)
    if hasattr(model, "eta_samples_"):
        arrays["eta_samples"] = model.eta_samples_
    if name == "MedLDAClassifier":
        arrays["classes"] = np.asarray(model.classes_)
        meta.update(train_accuracy=model.train_accuracy_, c_=model.c_, margin_=model.margin_,
                    positive_cost_=model.positive_cost_, proba_scale_=getattr(model, "proba_scale_", None),
                    multilabel=bool(model.multilabel_), ovr=bool(getattr(model, "estimators_", None)))
        if meta["ovr"]:
            meta["ovr_models"] = [{"fit_stats": m.fit_stats_, "log_joint": m.log_joint_, "trace": m.trace_}
                                  for m in model.estimators_]
    if name == "MedLDARegressor":
        meta.update(y_mean=model.y_mean_, train_score=model.train_score_)
    arrays[_META_KEY] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    atomic_write(path, lambda f: np.savez_compressed(f, **arrays))


def _environment() -> dict:
    """The versions a model was fitted and saved with, for reproducing it (``medlda info``)."""
    return {"python": platform.python_version(), "numpy": np.__version__, "numba": numba.__version__,
            "scikit-learn": sklearn.__version__}


def load_model(path):
    """Load a model saved by :func:`save_model`; refuses foreign or inconsistent files."""
    path = Path(path)
    meta, arrays = _read_archive(path)
    return _rebuild(path, meta, arrays)  # called here, so that its version warning names the caller's line


def load_with_metadata(path) -> tuple:
    """(model, metadata): :func:`load_model`'s model and the JSON metadata its file carries (format,
    the medlda and library versions that saved it, estimator, parameters, fit statistics, ...),
    from one read of the file."""
    path = Path(path)
    meta, arrays = _read_archive(path)
    return _rebuild(path, meta, arrays), meta


def _read_archive(path: Path) -> tuple[dict, dict]:
    """(metadata, arrays) of a model file, refusing foreign files and other format versions."""
    if not path.is_file():
        raise ModelFileError(f"{path}: no such model file")
    if not zipfile.is_zipfile(path):  # else np.load would try pickle and advise allow_pickle
        raise ModelFileError(f"{path}: not a medlda model file ({_not_zip_problem(path)})")
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {k: archive[k] for k in archive.files}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
        raise ModelFileError(f"{path}: not a medlda model file ({_load_problem(exc)})") from None
    if not isinstance(arrays, dict) or _META_KEY not in arrays:
        raise ModelFileError(f"{path}: not a medlda model file (no metadata)")
    try:
        meta = json.loads(arrays.pop(_META_KEY).tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFileError(f"{path}: corrupt metadata ({exc})") from None
    if meta.get("format") != FORMAT_NAME:
        raise ModelFileError(f"{path}: not a medlda model file (format {meta.get('format')!r})")
    if meta.get("format_version") != FORMAT_VERSION:
        raise ModelFileError(f"{path}: model format version {meta.get('format_version')!r} is not "
                             f"supported (this medlda reads version {FORMAT_VERSION})")
    return meta, arrays


def _not_zip_problem(path: Path) -> str:
    """Why a file that is no readable zip is no model: a cut-off archive (it starts like one) or another file."""
    with open(path, "rb") as fh:
        start = fh.read(4)
    return "a truncated or damaged npz archive" if start == b"PK\x03\x04" else "not an npz archive"


def _load_problem(exc: Exception) -> str:
    """Why NumPy could not read an npz archive, in words that never invite unsafe (pickle) loading."""
    if "pickle" in str(exc):
        return "it holds Python objects, which medlda models never do; refused without unpickling"
    if isinstance(exc, zipfile.BadZipFile):
        return f"a damaged or truncated npz archive: {exc}"
    return f"{exc.__class__.__name__}: {exc}"


def _rebuild(path: Path, meta: dict, arrays: dict):
    classes = _estimator_classes()
    if meta.get("estimator") not in classes:
        raise ModelFileError(f"{path}: unknown estimator {meta.get('estimator')!r}")
    if meta.get("medlda_version") != __version__:
        warnings.warn(f"{path} was saved by medlda {meta.get('medlda_version')}, this is {__version__}",
                      stacklevel=3)
    model = classes[meta["estimator"]](**meta["params"])
    counts = arrays.get("topic_word_counts")
    cls = arrays.get("classes")
    n_sets = cls.size if meta.get("ovr") and cls is not None else 1  # one-vs-rest: C topic sets stacked
    K = model.n_topics * n_sets
    _expect(path, counts is not None and counts.ndim == 2 and counts.shape[0] == K,
            f"topic_word_counts should be ({K}, V)")
    model.topic_word_counts_ = counts.astype(np.int32)
    model.n_features_in_ = counts.shape[1]
    vocab = arrays.get("vocabulary")
    _expect(path, vocab is None or vocab.shape == (counts.shape[1],),
            f"vocabulary should hold {counts.shape[1]} words")
    model.vocabulary_ = vocab
    model.fit_stats_ = meta.get("fit_stats", {})
    model.trace_ = meta.get("trace", [])
    model.log_joint_ = meta.get("log_joint")
    model.n_empty_skipped_ = meta.get("n_empty_skipped", 0)
    if meta["estimator"] == "MedLDAClassifier":
        _rebuild_classifier(path, model, meta, arrays, K)
    elif meta["estimator"] == "MedLDARegressor":
        eta = arrays.get("eta_samples")
        _expect(path, eta is not None and eta.ndim == 3 and eta.shape[1:] == (1, K),
                f"eta_samples should be (S, 1, {K})")
        _expect(path, isinstance(meta.get("y_mean"), (int, float)), "y_mean missing")
        model.eta_samples_ = eta
        model.y_mean_ = float(meta["y_mean"])
        model.train_score_ = meta.get("train_score")
    return model


def _rebuild_classifier(path: Path, model, meta: dict, arrays: dict, K: int) -> None:
    """Fitted state of a MedLDAClassifier; one-vs-rest sub-models are rebuilt from the stacked view."""
    eta, cls = arrays.get("eta_samples"), arrays.get("classes")
    multilabel = bool(meta.get("multilabel", False))
    _expect(path, cls is not None and cls.ndim == 1 and cls.size >= (1 if multilabel else 2), "classes missing")
    T = cls.size if multilabel or cls.size > 2 else 1
    _expect(path, eta is not None and eta.ndim == 3 and eta.shape[1:] == (T, K),
            f"eta_samples should be (S, {T}, {K})")
    model.eta_samples_ = eta
    model.classes_ = cls
    model.multilabel_ = multilabel
    model.train_accuracy_ = meta.get("train_accuracy")
    loss = LOSSES[model.loss]
    model.c_ = meta["c_"] if "c_" in meta else loss.default_c(T) if model.c == "auto" else float(model.c)
    model.margin_ = (meta["margin_"] if "margin_" in meta
                     else loss.default_margin(T, multilabel) if model.margin == "auto" else float(model.margin))
    # a file without positive_cost_ was trained with 1 (4 for multi-label data)
    model.positive_cost_ = meta.get("positive_cost_", MULTILABEL_POSITIVE_COST if multilabel else 1.0)
    if meta.get("proba_scale_") is not None:  # a file without it: predict_proba uses c_
        model.proba_scale_ = float(meta["proba_scale_"])
    if meta.get("ovr"):
        model.rebuild_one_vs_rest()
        for sub, info in zip(model.estimators_, meta.get("ovr_models", [])):
            sub.fit_stats_, sub.log_joint_, sub.trace_ = info["fit_stats"], info["log_joint"], info["trace"]


def _expect(path: Path, ok: bool, what: str) -> None:
    if not ok:
        raise ModelFileError(f"{path}: inconsistent model file: {what}")
