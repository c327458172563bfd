"""What a model file holds (``model_file``): the metadata fields and archive members of each
estimator's file, the rules its parameters follow, and its arrays checked against the metadata
(K topics, V words, T tasks), so that a model read from a file holds only values its kernels and
reports can take. Every refusal is one line naming the file (``validate.Where``)."""

from __future__ import annotations

import math
import re

import numpy as np

from medlda.exceptions import LimitError
from medlda.io.validate import (
    ETA_LIMIT,
    FLAG,
    INT32_MAX,
    NUMBER,
    OBJECT,
    ROWS,
    TEXT,
    Field,
    Where,
    check_array,
    check_fields,
    integer,
    is_number,
    real,
    short,
)
from medlda.limits import FILES, SWEEPS, WORDS

META_KEY = "__metadata__"
LARGEST = 2 ** 53  # the largest parameter value read (beyond it, sums with counts leave int64 and exact floats)
SEED = integer(0, 2 ** 128)
SWEEP_COUNT = Field(lambda v: integer(1).test(v) and v <= SWEEPS.value, "an integer >= 1 within the sweeps' limit")
VERSION = Field(lambda v: isinstance(v, str) and re.fullmatch(r"[\w.+-]{1,40}", v) is not None, "a version")
STRINGS = Field(lambda v: isinstance(v, dict) and all(isinstance(x, str) and len(x) <= 100 and x.isprintable()
                                                      for x in v.values()),
                "an object of one-line strings")
OVR_MODEL = {"fit_stats": OBJECT, "log_joint": NUMBER.or_none(), "trace": ROWS}
OVR_MODELS = Field(lambda v: isinstance(v, list) and all(isinstance(m, dict) and set(m) == set(OVR_MODEL)
                                                         and all(OVR_MODEL[k].test(m[k]) for k in m) for m in v),
                   "a list of objects with fit_stats, log_joint and trace")
COMMON = {"format": TEXT, "format_version": integer(), "medlda_version": VERSION, "estimator": TEXT,
          "params": OBJECT, "fit_stats": OBJECT, "trace": ROWS, "log_joint": NUMBER.or_none(),
          "n_empty_skipped": integer(0)}
NAME_CHARS = 1000  # the longest word, category or column name read


def names(unique: bool) -> Field:
    """A list of non-empty strings of at most NAME_CHARS characters (``unique``: each once)."""
    def test(v) -> bool:
        return (isinstance(v, list) and all(isinstance(x, str) and 0 < len(x) <= NAME_CHARS for x in v)
                and (not unique or len(set(v)) == len(v)))
    return Field(test, f"a list of{' distinct' if unique else ''} non-empty strings of at most {NAME_CHARS} characters")


NAME = Field(lambda v: isinstance(v, str) and 0 < len(v) <= NAME_CHARS, f"a non-empty string of at most {NAME_CHARS} "
             "characters")
DOCUMENT_FREQUENCY = Field(lambda v: (isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= LARGEST)
                           or (isinstance(v, float) and 0 < v <= 1),
                           "a number of documents (an integer >= 1) or a fraction of them in (0, 1]")
# make_vectorizer's settings (medlda.data.text.SETTINGS): how raw text became the model's words;
# those a file may leave out (medlda.data.text.OMITTED_SETTINGS says what that means)
VECTORIZER_OPTIONAL = {"quotes": FLAG}
VECTORIZER = {"news": FLAG, "min_df": DOCUMENT_FREQUENCY, "max_df": DOCUMENT_FREQUENCY,
              "max_features": integer(1, LARGEST).or_none(),
              "stop_words": Field(lambda v: v is None or v == "english" or names(False).test(v),
                                  "'english', null or a list of words")}
DATA_FORMATS = ("bow", "ldac", "folder", "reuters", "csv", "tsv", "jsonl", "txt")  # the readers' formats
# what the command line read the training data as: its format, folder categories and table columns
DATA_SELECTION = {"format": Field(lambda v: v in DATA_FORMATS, f"one of {', '.join(DATA_FORMATS)}").or_none(),
                  "categories": names(True).or_none(), "label_column": NAME.or_none(),
                  "text_column": NAME.or_none()}
# sampler, n_mh: the fitted sampler_ and n_mh_ (params say "auto" when they were chosen)
COMMON_OPTIONAL = {"environment": STRINGS, "vectorizer": OBJECT, "data_selection": OBJECT,
                   "sampler": NAME, "n_mh": SWEEP_COUNT}
# per estimator: (required fields, optional fields, required members, optional members); an
# estimator not named here is read as LDA is
FORMATS: dict[str, tuple[dict, dict, set, set]] = {
    "LDA": ({}, {}, {"topic_word_counts"}, {"vocabulary"}),
    "MedLDAClassifier": (
        {"train_accuracy": NUMBER.or_none(), "multilabel": FLAG, "ovr": FLAG},
        {"c_": real(0, open_low=True), "margin_": real(0), "positive_cost_": real(0, open_low=True),
         "proba_scale_": real().or_none(), "ovr_models": OVR_MODELS},
        {"topic_word_counts", "eta_samples", "classes"}, {"vocabulary"}),
    "MedLDARegressor": ({"y_mean": real(), "train_score": NUMBER.or_none()},
                        {"y_scale": real(0, open_low=True), "c_": real(0, open_low=True)},
                        {"topic_word_counts", "eta_samples"}, {"vocabulary"}),
}
FIT_STATS = {"train_seconds": NUMBER, "compile_seconds": NUMBER, "tokens_per_second": NUMBER,
             "n_tokens": integer(0), "n_docs": integer(0), "label_column": TEXT.or_none(),
             "resumed_from_iteration": integer(0)}


def check_metadata(where: Where, meta: dict, estimators: dict) -> None:
    """Refuse metadata of an unknown estimator, missing or unexpected fields, or fields of the
    wrong type (the format name and version are checked before)."""
    name = meta.get("estimator")
    if not isinstance(name, str) or name not in estimators:
        raise where.fail(f"unknown estimator {short(name)}; expected one of {sorted(estimators)}")
    required, optional, _, _ = FORMATS.get(name, FORMATS["LDA"])
    check_fields(where, "metadata", meta, {**COMMON, **required}, {**COMMON_OPTIONAL, **optional})
    stats = meta["fit_stats"]
    for key, rule in FIT_STATS.items():
        if key in stats and not rule.test(stats[key]):
            raise where.fail(f"metadata: fit_stats {key} should be {rule.phrase}, not {short(stats[key])}")
    if "vectorizer" in meta:
        settings = check_fields(where, "metadata: vectorizer", meta["vectorizer"], VECTORIZER,
                                VECTORIZER_OPTIONAL)
        if isinstance(settings["stop_words"], list):
            WORDS.check(len(settings["stop_words"]), f"{where.path}: metadata: vectorizer stop_words")
    if "data_selection" in meta:
        selection = check_fields(where, "metadata: data_selection", meta["data_selection"], DATA_SELECTION)
        if selection["categories"] is not None:
            FILES.check(len(selection["categories"]), f"{where.path}: metadata: data_selection categories")
    if name == "MedLDAClassifier" and meta["ovr"] != ("ovr_models" in meta):
        raise where.fail("metadata: ovr_models should be there exactly when ovr is true")


def expected_members(meta: dict) -> tuple[set, set]:
    """(required, optional) archive members of a file with metadata ``meta``: the vocabulary is
    required where the metadata keeps the text preprocessing that counts texts over it."""
    _, _, required, optional = FORMATS.get(meta["estimator"], FORMATS["LDA"])
    if "vectorizer" in meta:
        required = required | {"vocabulary"}
    return required | {META_KEY}, optional


def new_model(where: Where, cls: type, params: dict):
    """An estimator of ``cls`` with the file's parameters, each checked by its declaration, numbers
    finite and at most 2^53 in size, the seed an integer in [0, 2^128], and sweeps within
    ``limits.SWEEPS``. A parameter under its former name (``Param.former``) is read as its current one."""
    params = _current_names(where, cls, params)
    try:
        model = cls(**params)
    except TypeError as exc:
        raise where.fail(f"params do not fit {cls.__name__} ({exc})") from None
    for name, param in getattr(cls, "parameters", {}).items():
        value = getattr(model, name)
        try:
            param.check(value)
        except LimitError as exc:
            raise LimitError(f"{where.path}: params: {exc}") from None
        except ValueError as exc:
            raise where.fail(f"params: {exc}") from None
        if name != "random_state" and is_number(value) and not (math.isfinite(value) and abs(value) <= LARGEST):
            raise where.fail(f"params: {name} must be finite and at most 2^53 in size, got {short(value)}")
    seed = model.random_state
    if seed is not None and not SEED.test(seed):
        raise where.fail(f"params: random_state should be null or {SEED.phrase}, not {short(seed)}")
    SWEEPS.check(model.max_iter, f"{where.path}: params max_iter")
    SWEEPS.check(model.n_infer_burn + model.n_infer_avg, f"{where.path}: params n_infer_burn + n_infer_avg")
    return model


def _current_names(where: Where, cls: type, params: dict) -> dict:
    """``params`` with each former name (``Param.former``) replaced by its current one."""
    former = {p.former: name for name, p in getattr(cls, "parameters", {}).items() if getattr(p, "former", None)}
    out = {former.get(k, k): v for k, v in params.items()}
    if len(out) < len(params):
        both = sorted(k for k in params if k in former and former[k] in params)
        raise where.fail(f"params name {both[0]!r} and {former[both[0]]!r}, two names of the same parameter")
    return out


def topic_word_counts(where: Where, counts: np.ndarray, n_topics: int) -> np.ndarray:
    """(K, V) int32 whole counts >= 0 of a model with K = ``n_topics`` (all topic sets)."""
    counts = check_array(where, "topic_word_counts", counts, kinds="iuf", shape=(n_topics, "V"), integral=True,
                         low=0, high=INT32_MAX, dtype=np.int32)
    if counts.shape[1] == 0:
        raise where.fail("topic_word_counts should hold at least one word")
    return counts


def vocabulary(where: Where, vocab: np.ndarray | None, n_words: int) -> np.ndarray | None:
    """The words (V,), each once, or None."""
    if vocab is None:
        return None
    if vocab.shape != (n_words,):
        raise where.fail(f"inconsistent model file: vocabulary should hold {n_words} words, not shape {vocab.shape}")
    return check_array(where, "vocabulary", vocab, kinds="U", shape=(n_words,), unique=True)


def eta_samples(where: Where, eta: np.ndarray, n_tasks: int, n_topics: int) -> np.ndarray:
    """(S, T, K) finite float64 of at most ``ETA_LIMIT`` in size, with S >= 1."""
    eta = check_array(where, "eta_samples", eta, kinds="f", shape=("S", n_tasks, n_topics), low=-ETA_LIMIT,
                      high=ETA_LIMIT, dtype=np.float64)
    if eta.shape[0] == 0:
        raise where.fail("eta_samples should hold at least one sample")
    return eta


def classes(where: Where, labels: np.ndarray, multilabel: bool) -> np.ndarray:
    """The class labels (C,), each once, at least two (one for multi-label data)."""
    labels = check_array(where, "classes", labels, kinds="biufU", ndim=1, finite=True, unique=True)
    least = 1 if multilabel else 2
    if labels.size < least:
        raise where.fail(f"classes should hold at least {least}, not {labels.size}")
    return labels

