"""Model files: one NumPy .npz archive of arrays plus JSON metadata; no pickle, written atomically.

Loading never executes code (npy headers are read by ``numpy.lib.format``, never pickle), bounds
each member's size before inflating it, checks the format name and version, and checks every
metadata field and array (``model_schema``): dtype, shape against the parameters, range and
finiteness, before any kernel sees it.
"""

from __future__ import annotations

import json
import os
import platform
import warnings
import zipfile
from pathlib import Path
from typing import Any

import numba
import numpy as np
import sklearn
from sklearn.utils.validation import check_is_fitted

from medlda._version import __version__
from medlda.exceptions import ModelFileError
from medlda.io import model_schema as schema
from medlda.io.atomic import atomic_write
from medlda.io.model_schema import check_metadata, expected_members
from medlda.io.validate import NpzReader, Where, check_array, short
from medlda.losses import LOSSES, MULTILABEL_POSITIVE_COST

FORMAT_NAME = "medlda-model"
FORMAT_VERSION = 1
_META_KEY = schema.META_KEY
PRIOR_MASS = (1e-50, 1e50)  # the range of a learned alpha_k read


ESTIMATORS: dict[str, type] = {}  # the estimator classes a model file may name, registered by the models


def register_estimator(cls: type) -> type:
    """Let model files name ``cls`` (done for every estimator by ``medlda.models.base.TopicModel``)."""
    ESTIMATORS[cls.__name__] = cls
    return cls


def _estimator_classes() -> dict:
    return ESTIMATORS


def save_model(model: Any, path: str | os.PathLike, vectorizer: Any = None) -> None:
    """Save a fitted model, or a Pipeline of a vectorizer and a model, to one file; no pickle.

    The file is a NumPy ``.npz`` archive of arrays plus JSON metadata, written atomically. A model
    that reads raw text (fitted on texts, or through the pipeline's vectorizer, or given
    ``vectorizer``) keeps its ``make_vectorizer`` settings and words in the file, so that
    ``load_model(path).predict(texts)`` reads texts as the fit did; a vectorizer those settings
    cannot describe is refused, never pickled. The data selection the command line trained on
    (``data_selection_``), if any, is kept too.

    Parameters
    ----------
    model : LDA, MedLDAClassifier, MedLDARegressor or Pipeline
        A fitted model (any strategy), or ``make_pipeline(make_vectorizer(), model)``.
    path : str or path-like
        The file to write (``.npz``).
    vectorizer : CountVectorizer, None or False, default=None
        The text preprocessing to keep: None, the model's own (or the pipeline's); False, none.

    Raises
    ------
    TypeError
        For an object that is no medlda model or such a Pipeline.
    ValueError
        For a vectorizer that make_vectorizer's settings cannot describe.

    See Also
    --------
    load_model

    Examples
    --------
    >>> from sklearn.pipeline import make_pipeline
    >>> from medlda import MedLDAClassifier, load_model, save_model
    >>> from medlda.data.text import make_vectorizer
    >>> texts = ["printer jams again", "cannot log in to email", "printer out of toner",
    ...          "email password expired"] * 10
    >>> labels = ["hardware", "account", "hardware", "account"] * 10
    >>> pipe = make_pipeline(make_vectorizer(min_df=1), MedLDAClassifier(4, max_iter=10, random_state=0))
    >>> _ = pipe.fit(texts, labels)
    >>> save_model(pipe, "tickets.npz")
    >>> load_model("tickets.npz").predict(["my printer jams", "email password"])
    array(['hardware', 'account'], dtype='<U8')
    """
    model, vectorizer = _pipeline_parts(model, vectorizer)
    name = type(model).__name__
    if name not in _estimator_classes():
        raise TypeError(f"cannot save a {name}; expected one of {sorted(_estimator_classes())}")
    check_is_fitted(model, "topic_word_counts_")
    settings, words = model.text_preprocessing(vectorizer)
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
    if words is not None:
        arrays["vocabulary"] = np.asarray(words, dtype=str)
    if settings is not None:
        meta["vectorizer"] = settings
    if getattr(model, "data_selection_", None):
        meta["data_selection"] = model.data_selection_
    if getattr(model, "sampler_", None):
        meta["sampler"] = model.sampler_  # the sampler that trained it ("auto" resolved)
    if getattr(model, "n_mh_", None):
        meta["n_mh"] = model.n_mh_  # the light sampler's steps per token ("auto" resolved)
    if hasattr(model, "eta_samples_"):
        arrays["eta_samples"] = model.eta_samples_
    if model.optimize_alpha:  # the learned prior (one-vs-rest: the binary models', stacked)
        subs = getattr(model, "estimators_", None) or [model]
        arrays["alpha"] = np.concatenate([np.asarray(m.alpha_, np.float64) for m in subs])
    if name == "MedLDAClassifier":
        arrays["classes"] = np.asarray(model.classes_)
        meta.update(train_accuracy=model.train_accuracy_, c_=model.c_, margin_=model.margin_,
                    positive_cost_=model.positive_cost_, proba_scale_=getattr(model, "proba_scale_", None),
                    multilabel=bool(model.multilabel_), ovr=bool(getattr(model, "estimators_", None)))
        if meta["ovr"]:
            meta["ovr_models"] = [{"fit_stats": m.fit_stats_, "log_joint": m.log_joint_, "trace": m.trace_}
                                  for m in model.estimators_]
    if name == "MedLDARegressor":
        meta.update(y_mean=model.y_mean_, train_score=model.train_score_, y_scale=model.y_scale_, c_=model.c_)
    arrays[_META_KEY] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    atomic_write(path, lambda f: np.savez_compressed(f, **arrays))


def _pipeline_parts(model, vectorizer) -> tuple:
    """(estimator, vectorizer) of a Pipeline (its first and last steps: nothing else between them),
    or ``model`` and ``vectorizer`` as given."""
    steps = getattr(model, "steps", None)
    if steps is None:
        return model, vectorizer
    if len(steps) != 2 or vectorizer is not None:
        raise TypeError(f"a Pipeline is saved as its vectorizer and topic model, two steps, not {len(steps)}"
                        + ("; and its vectorizer is its first step, not the vectorizer argument"
                           if vectorizer is not None else ""))
    return steps[1][1], steps[0][1]


def _environment() -> dict:
    """The versions a model was fitted and saved with, for reproducing it (``medlda info``)."""
    return {"python": platform.python_version(), "numpy": np.__version__, "numba": numba.__version__,
            "scikit-learn": sklearn.__version__}


def load_model(path: str | os.PathLike) -> Any:
    """Load a model saved by ``save_model`` (or ``model.save``), checking the file first.

    Loading never executes code from the file: each array's header, dtype, shape and values and
    every metadata field are checked before the model is built.

    Parameters
    ----------
    path : str or path-like
        A model file.

    Returns
    -------
    LDA, MedLDAClassifier or MedLDARegressor
        The fitted model (a saved Pipeline gives its topic model, which reads raw texts itself
        through its ``vectorizer_``).

    Raises
    ------
    ModelFileError
        For a missing, foreign, damaged or inconsistent file.

    Examples
    --------
    >>> from medlda import MedLDARegressor, load_model
    >>> from medlda.data.synthetic import make_regression_corpus
    >>> corpus, truth = make_regression_corpus(300, 5, doc_length=30, random_state=0)
    >>> MedLDARegressor(5, max_iter=10, random_state=0).fit(corpus, truth.y).save("model.npz")
    >>> model = load_model("model.npz")
    >>> type(model).__name__, model.predict(corpus[:2]).round(2)
    ('MedLDARegressor', array([1.23, 0.93]))
    """
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
    """(metadata, arrays) of a model file, refusing foreign files, other format versions and any
    member or metadata field the format does not have; arrays are checked by ``_rebuild``."""
    if not path.is_file():
        raise ModelFileError(f"{path}: no such model file")
    if not zipfile.is_zipfile(path):  # named apart: a cut-off archive or another kind of file
        raise ModelFileError(f"{path}: not a medlda model file ({_not_zip_problem(path)})")
    where = Where(path, ModelFileError)
    with NpzReader(where, "not a medlda model file") as npz:
        if _META_KEY not in npz.keys:
            raise where.fail("not a medlda model file (no metadata)")
        meta = npz.json(_META_KEY)
        if not isinstance(meta, dict):
            raise where.fail(f"not a medlda model file (its metadata is JSON {type(meta).__name__}, not an object)")
        if meta.get("format") != FORMAT_NAME:
            raise where.fail(f"not a medlda model file (format {short(meta.get('format'))})")
        if meta.get("format_version") != FORMAT_VERSION:
            raise where.fail(f"model format version {short(meta.get('format_version'))} is not supported "
                             f"(this medlda reads version {FORMAT_VERSION})")
        check_metadata(where, meta, _estimator_classes())
        required, optional = expected_members(meta)
        if isinstance(meta.get("params"), dict) and meta["params"].get("optimize_alpha"):
            required = required | {"alpha"}  # the learned prior, there exactly when it was learned
        npz.check_keys(required, optional)
        arrays = {k: npz.array(k) for k in npz.keys if k != _META_KEY}
    return meta, arrays


def _not_zip_problem(path: Path) -> str:
    """Why a file that is no readable zip is no model: a cut-off archive (it starts like one) or another file."""
    with open(path, "rb") as fh:
        start = fh.read(4)
    return "a truncated or damaged npz archive" if start == b"PK\x03\x04" else "not an npz archive"


def _rebuild(path: Path, meta: dict, arrays: dict):
    """The estimator of checked metadata (``_read_archive``), its arrays checked against it."""
    where = Where(path, ModelFileError)
    if meta.get("medlda_version") != __version__:
        warnings.warn(f"{path} was saved by medlda {meta['medlda_version']}, this is {__version__}",
                      stacklevel=3)
    model = schema.new_model(where, _estimator_classes()[meta["estimator"]], meta["params"])
    labels = None
    if meta["estimator"] == "MedLDAClassifier":
        labels = schema.classes(where, arrays["classes"], meta["multilabel"])
    n_sets = labels.size if labels is not None and meta.get("ovr") else 1  # one-vs-rest: C topic sets stacked
    n_sets *= getattr(model, "n_chains", 1)  # several chains: their topic sets stacked
    K = model.n_components * n_sets
    counts = schema.topic_word_counts(where, arrays["topic_word_counts"], K)
    model.topic_word_counts_ = counts
    model.alpha_ = (learned_alpha(where, arrays["alpha"], K) if model.optimize_alpha
                    else np.full(K, model.alpha_sum / model.n_components))
    model.n_features_in_ = counts.shape[1]
    model.n_iter_ = model.max_iter  # every fit runs all its iterations
    model.vocabulary_ = schema.vocabulary(where, arrays.get("vocabulary"), counts.shape[1])
    model.restore_vectorizer(meta.get("vectorizer"))
    model.data_selection_ = meta.get("data_selection")
    model.sampler_ = meta.get("sampler", model.sampler)
    model.fit_stats_ = meta["fit_stats"]
    model.trace_ = meta["trace"]
    model.log_joint_ = meta["log_joint"]
    model.n_empty_skipped_ = meta["n_empty_skipped"]
    if labels is not None:  # a MedLDAClassifier
        _rebuild_classifier(where, model, meta, arrays["eta_samples"], labels, K)
    elif meta["estimator"] == "MedLDARegressor":
        model.eta_samples_ = schema.eta_samples(where, arrays["eta_samples"], 1, K)
        model.y_mean_ = float(meta["y_mean"])
        model.y_scale_ = float(meta.get("y_scale", 1.0))  # files without it were fitted on unscaled responses
        model.c_ = meta.get("c_", model.c)
        if model.c_ == "auto":
            raise where.fail("inconsistent model file: a MedLDARegressor with c 'auto' needs c_ (the c it used)")
        model.train_score_ = meta["train_score"]
    model.n_mh_ = meta.get("n_mh", model.n_mh)  # files without it name their steps in params
    if model.n_mh_ == "auto":
        raise where.fail("inconsistent model file: n_mh 'auto' needs n_mh in the metadata (the steps it ran)")
    if getattr(model, "n_chains", 1) > 1:
        model.rebuild_chains()
    return model


def learned_alpha(where: Where, values: np.ndarray, n_topics: int) -> np.ndarray:
    """A learned doc-topic prior (K,) as a model file or checkpoint keeps it: finite float64 in
    [1e-50, 1e50], the range of a Dirichlet prior's mass (positive and normal)."""
    return check_array(where, "alpha", values, kinds="f", shape=(n_topics,), low=PRIOR_MASS[0], high=PRIOR_MASS[1],
                       dtype=np.float64)


def _rebuild_classifier(where: Where, model, meta: dict, eta: np.ndarray, labels: np.ndarray, K: int) -> None:
    """Fitted state of a MedLDAClassifier; one-vs-rest sub-models are rebuilt from the stacked view."""
    multilabel = meta["multilabel"]
    T = labels.size if multilabel or labels.size > 2 else 1
    if meta["ovr"] and model.n_chains > 1:
        raise where.fail("inconsistent model file: one-vs-rest with several chains (n_chains)")
    if meta["ovr"] and (model.strategy != "ovr" or T != labels.size or len(meta["ovr_models"]) != labels.size):
        raise where.fail(f"inconsistent model file: one-vs-rest needs strategy 'ovr', more than two classes (or "
                         f"multi-label data) and one entry of ovr_models per class ({labels.size})")
    model.eta_samples_ = schema.eta_samples(where, eta, T, K)
    model.classes_ = labels
    model.multilabel_ = multilabel
    model.train_accuracy_ = meta["train_accuracy"]
    loss = LOSSES[model.loss]
    model.c_ = meta["c_"] if "c_" in meta else loss.default_c(T) if model.c == "auto" else float(model.c)
    model.margin_ = (meta["margin_"] if "margin_" in meta
                     else loss.default_margin(T, multilabel) if model.margin == "auto" else float(model.margin))
    # a file without positive_cost_ was trained with 1 (4 for multi-label data)
    model.positive_cost_ = meta.get("positive_cost_", MULTILABEL_POSITIVE_COST if multilabel else 1.0)
    if meta.get("proba_scale_") is not None:  # a file without it: predict_proba uses c_
        model.proba_scale_ = float(meta["proba_scale_"])
    if meta["ovr"]:
        model.rebuild_one_vs_rest()
        n_topics = model.n_components
        for t, (sub, info) in enumerate(zip(model.estimators_, meta["ovr_models"])):
            sub.fit_stats_, sub.log_joint_, sub.trace_ = info["fit_stats"], info["log_joint"], info["trace"]
            sub.alpha_ = np.ascontiguousarray(model.alpha_[t * n_topics:(t + 1) * n_topics])
