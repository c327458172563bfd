"""Readable reports of a fitted model: top words per topic, the topics that weigh most per class,
explanations, a saved model's summary, and an evaluation's measures, as text or JSON-ready data."""

from __future__ import annotations

import numpy as np

from medlda.evaluation.explain import top_topics
from medlda.evaluation.scoring import model_task

EMPTY_SHARE = 1e-5  # a topic holding less of the training tokens shows filler words: reported "(empty)"


def topic_shares(model) -> np.ndarray:
    """Each topic's share (K,) of the training tokens: a supervised model often leaves many topics
    small, and those are the least readable."""
    sizes = model.topic_word_counts_.sum(axis=1)
    return sizes / max(sizes.sum(), 1)


def empty_topics(model) -> np.ndarray:
    """Whether each topic (K,) is empty: (nearly) no training token, so its "top words" are ties
    broken alphabetically, not words of the topic."""
    return topic_shares(model) < EMPTY_SHARE


def background_mask(model) -> np.ndarray:
    """Whether each topic (K,) is a background topic: the last ``background_topics`` of each block
    of ``n_components`` (several chains or one-vs-rest models lay their blocks side by side).
    They carry no classifier weight, so they explain no class."""
    n_all, k = model.topic_word_counts_.shape[0], model.n_components
    b = getattr(model, "background_topics", 0)
    return np.arange(n_all) % k >= k - b if b else np.zeros(n_all, bool)


def topic_words(model, n_words: int = 10, relevance: float = 1.0, vocabulary=None) -> list[list[str]]:
    """Each topic's ``n_words`` top words (``model.top_word_ids``), none for an empty topic: its
    "top words" are filler (``empty_topics``), shown nowhere."""
    words = model.words_of(model.top_word_ids(n_words, relevance), vocabulary)
    return [[] if empty else list(w) for w, empty in zip(words, empty_topics(model))]


def topic_lines(model, n_words: int = 10, coherence: tuple[str, np.ndarray] | None = None,
                order=None, relevance: float = 1.0) -> list[str]:
    """One line per topic: its index, its share of the training tokens, its coherence if given
    as (measure, values), and its ``n_words`` top words (``model.top_word_ids``: the most
    probable, or by ``relevance``); topics in ``order`` (ids), else by id. An empty topic says
    "(empty)" instead of its filler words, a background topic says so (``background_mask``)."""
    width = len(str(model.n_components - 1))
    words = topic_words(model, n_words, relevance)
    shares = topic_shares(model)
    background = background_mask(model)
    lines = []
    for k in range(len(words)) if order is None else order:
        score = f", {coherence[0]} {coherence[1][k]:+.3f}" if coherence is not None else ""
        kind = ", background" if background[k] else ""
        shown = " ".join(words[k]) or "(empty)"
        lines.append(f"topic {k:>{width}} ({shares[k]:5.1%}{kind}{score}): {shown}")
    return lines


def topic_order(model, by: str, coherence: np.ndarray | None = None) -> np.ndarray:
    """Topic ids by id, by share of the training tokens (largest first), or by ``coherence``
    (highest first; undefined last)."""
    if by == "id":
        return np.arange(len(topic_shares(model)))
    if by == "share":
        return np.argsort(-topic_shares(model), kind="stable")
    if by == "coherence":
        if coherence is None:
            raise ValueError("ordering by coherence needs the coherence of each topic")
        return np.argsort(-np.nan_to_num(coherence, nan=-np.inf), kind="stable")
    raise ValueError(f"order topics by id, share or coherence, not {by!r}")


def coherence_json(measure: str, values: np.ndarray) -> dict:
    """Per-topic coherence and its mean over the topics where it is defined, JSON-ready (NaN as null)."""
    defined = values[~np.isnan(values)]
    return {"coherence_measure": measure,
            "coherence": [None if np.isnan(v) else float(v) for v in values],
            "coherence_mean": float(defined.mean()) if defined.size else None}


def class_topic_weights(model, n_topics: int = 3) -> dict:
    """For each class (a regressor: "high" and "low"), the ``n_topics`` topics whose weight favours
    it most, as (topic, eta weight) pairs: no empty or background topic (filler words, no
    weight), and for a regressor only topics that move the response that way (high: eta > 0,
    low: eta < 0)."""
    eta = model.eta_
    skip = empty_topics(model) | background_mask(model)
    regression = not hasattr(model, "classes_")
    out = {}
    for label, topics in model.class_topics(eta.shape[1]).items():
        t = 0 if eta.shape[0] == 1 else list(model.classes_).index(label)
        weighted = [(k, float(eta[t, k])) for k in topics if not skip[k]]
        if regression:
            weighted = [(k, w) for k, w in weighted if (w > 0 if label == "high" else w < 0)]
        out[label] = weighted[:n_topics]
    return out


def class_topic_lines(model, n_topics: int = 3, n_words: int = 8, relevance: float = 1.0) -> list[str]:
    """For each class, the topics whose classifier weight favours it most, with weights and words
    (``class_topic_weights``: no empty topics), under a heading; a regressor's, the
    topics that raise the response and those that lower it."""
    words = topic_words(model, n_words, relevance)
    lines = ["topics that weigh most for each class:"] if hasattr(model, "classes_") else []
    for label, weighted in class_topic_weights(model, n_topics).items():
        lines.append(_class_heading(model, label))
        lines.extend(f"  topic {k} (eta {weight:+.2f}): {' '.join(words[k])}" for k, weight in weighted)
        if not weighted:
            lines.append("  none")
    return lines


def _class_heading(model, label) -> str:
    """One class's line in ``class_topic_lines``; a regressor's "high" and "low" in words."""
    if hasattr(model, "classes_"):
        return f"class {label}:"
    return "topics that raise the response:" if label == "high" else "topics that lower the response:"


def topics_json(model, n_words: int = 10, n_class_topics: int = 3, relevance: float = 1.0) -> dict:
    """The same reports as JSON-ready data (an empty topic's words: none)."""
    out = {"topics": topic_words(model, n_words, relevance), "topic_shares": topic_shares(model).tolist(),
           "relevance": relevance}
    if hasattr(model, "eta_samples_"):
        out["background_topics"] = np.flatnonzero(background_mask(model)).tolist()
        out["class_topics"] = {str(c): t for c, t in model.class_topics(n_class_topics).items()}
        out["eta"] = model.eta_.tolist()
    return out


def explanation_json(words: list[list[str]], ids: np.ndarray, values: np.ndarray) -> list[dict]:
    """One document's explaining topics (``medlda.evaluation.explain.top_topics``) as JSON-ready records:
    topic id, contribution to the decision, and the topic's top words (``words``, ``topic_words``
    made once for all documents)."""
    return [{"topic": int(k), "contribution": float(v), "words": words[k]} for k, v in zip(ids, values)]


def explanation_cell(ids: np.ndarray, values: np.ndarray) -> str:
    """One document's explaining topics as text: ``topic:contribution`` pairs."""
    return " ".join(f"{k}:{v:+.4g}" for k, v in zip(ids, values))


def proportion_lines(theta: np.ndarray, top: int | None = None) -> list[str]:
    """Documents' topic proportions as text lines: a header of topic ids, then one tab-separated
    row per document; with ``top``, each row's ``top`` largest as ``topic:proportion`` pairs."""
    if top is None:
        return (["\t".join(f"topic_{k}" for k in range(theta.shape[1]))]
                + ["\t".join(f"{v:.6g}" for v in row) for row in theta])
    return [" ".join(f"{k}:{v:.4g}" for k, v in zip(ids, values)) for ids, values in zip(*top_topics(theta, top))]


class Summary(dict):
    """What a fitted model is (``model_summary``): a dict of its fields, as ``medlda info --json``
    prints them, that prints, and shows in a notebook, as the text of ``medlda info``."""

    def __str__(self) -> str:
        return "\n".join(summary_lines(self))

    __repr__ = __str__


def model_summary(model, meta: dict | None = None, path=None) -> Summary:
    """What a fitted model is (``medlda info``, ``model.summary()``): estimator, task, sizes, how
    and on what it was trained, and every parameter; ``meta`` is the metadata of the file it was
    read from (``medlda.io.model_file.load_with_metadata``) and ``path`` that file, if any."""
    stats = getattr(model, "fit_stats_", {})
    out = Summary({"model": str(path)} if path is not None else {})
    out["estimator"] = meta["estimator"] if meta else type(model).__name__
    if meta:
        saved_by = f"medlda {meta.get('medlda_version')}"
        if meta.get("environment"):  # older model files do not record it
            saved_by += " (" + ", ".join(f"{k} {v}" for k, v in meta["environment"].items()) + ")"
        out["saved_by"] = saved_by
    out.update(task=model_task(model), n_topics=model.n_components, n_words=model.n_features_in_,
               vocabulary=model.vocabulary_ is not None)
    if getattr(model, "estimators_", None):  # one-vs-rest: a topic set per class, stacked
        out["n_topic_sets"] = len(model.estimators_)
    if getattr(model, "chains_", None):  # several chains: a topic set per chain, stacked
        out["n_chains"] = len(model.chains_)
    if out["task"] != "unsupervised":
        out["loss"] = model.loss
    if hasattr(model, "classes_"):
        out["classes"] = [str(c) for c in model.classes_]
        out.update(c=model.c_)  # as resolved from "auto"
        if getattr(model, "loss", None) == "hinge":  # the logistic loss has no margin
            out.update(margin=model.margin_)
    elif out["task"] == "regression":
        out["c"] = float(model.c_)  # as resolved from "auto"
    for key in ("label_column", "n_docs", "n_tokens", "train_seconds", "tokens_per_second"):
        if key in stats:
            out[key] = stats[key]
    alpha = getattr(model, "alpha_", None)
    if getattr(model, "optimize_alpha", False) and alpha is not None and np.ndim(alpha) == 1:
        out["alpha"] = [float(a) for a in alpha]  # learned during the fit
    for key, attr in (("train_accuracy", "train_accuracy_"), ("train_r2", "train_score_"), ("log_joint", "log_joint_")):
        if getattr(model, attr, None) is not None:
            out[key] = getattr(model, attr)
    out["params"] = model.get_params()
    out["sampler"] = getattr(model, "sampler_", out["params"].get("sampler"))  # "auto" as it resolved
    return out


TASKS_IN_WORDS = {"unsupervised": "an unsupervised topic model (LDA)",
                  "classification": "a supervised topic model for classification, one label per document",
                  "multilabel": "a supervised topic model for multi-label classification, any labels per document",
                  "regression": "a supervised topic model for regression, a number per document"}
LOSSES_IN_WORDS = {"hinge": "hinge loss (Gibbs MedLDA)", "logistic": "logistic loss (gSLDA)",
                   "epsilon": "epsilon-insensitive loss (MedLDA regression)", "squared": "squared loss (sLDA)"}


def summary_lines(summary: dict) -> list[str]:
    """``model_summary`` in words, one ``what: value`` line each, c and the margin explained, the
    parameters on the last line."""
    s, params = summary, summary["params"]
    task = s["task"]
    loss = f"; {LOSSES_IN_WORDS.get(s['loss'], s['loss'] + ' loss')}" if "loss" in s else ""
    lines = [f"model file: {s['model']}"] if "model" in s else []
    lines.append(f"estimator: {s['estimator']}, {TASKS_IN_WORDS.get(task, task)}{loss}")
    sets = f", one set per class ({s['n_topic_sets']} sets, trained apart)" if "n_topic_sets" in s else ""
    if "n_chains" in s:
        sets = f", one set per chain ({s['n_chains']} chains, trained apart; their predictions averaged)"
    lines.append(f"topics: {s['n_topics']}{sets}")
    lines.append(f"words: {s['n_words']:,} " + ("(the vocabulary is stored: new documents are matched to it word by word)"
                                                if s["vocabulary"] else "(no vocabulary: new documents must be counts "
                                                                        "over the same columns)"))
    if "n_docs" in s:
        column = f", labels from the column {s['label_column']!r}" if s.get("label_column") else ""
        lines.append(f"trained on: {s['n_docs']:,} documents, {s.get('n_tokens', 0):,} tokens{column}")
    chosen = " (auto)" if params.get("sampler") == "auto" else ""
    run = f"training: {params.get('max_iter')} iterations of the {s.get('sampler', params.get('sampler'))}{chosen} sampler"
    if "train_seconds" in s:
        run += f" in {s['train_seconds']:.4g} s ({s.get('tokens_per_second', 0):,.0f} tokens per second)"
    lines.append(run)
    if "classes" in s:
        names = s["classes"]
        lines.append(f"classes ({len(names)}): " + ", ".join(names[:12]) + (", ..." if len(names) > 12 else ""))
    if "train_accuracy" in s:
        lines.append(f"accuracy on the training documents: {s['train_accuracy']:.4g}")
    if "train_r2" in s:
        lines.append(f"R^2 on the training documents: {s['train_r2']:.4g}")
    lines += _constants_in_words(s, params)
    if "alpha" in s:
        alpha = np.asarray(s["alpha"])
        top = int(np.argmax(alpha))
        lines.append(f"document-topic prior: learned (optimize_alpha), alpha_k from {alpha.min():.3g} to {alpha.max():.3g}, "
                     f"sum {alpha.sum():.3g}; topic {top} has the largest, {alpha[top] / alpha.sum():.0%} of the prior "
                     "mass (a topic with a large alpha_k is expected in every document: it gathers common words)")
    if "log_joint" in s:
        lines.append(f"log joint probability of the training words and topics: {s['log_joint']:.6g}")
    if "saved_by" in s:
        lines.append(f"saved by: {s['saved_by']}")
    return lines + ["parameters: " + ", ".join(f"{k}={v}" for k, v in sorted(params.items()))]


def _constants_in_words(s: dict, params: dict) -> list[str]:
    """c, the margin and epsilon, each with what it does."""
    what = "labels" if "classes" in s else "responses"
    lines = []
    if "c" in s:
        auto = ("" if params.get("c") != "auto" else ", set by c='auto' from the training documents' mean length"
                if what == "responses" else ", c='auto': the loss's default for this number of classes")
        lines.append(f"c: {s['c']:.4g}, how much the {what} weigh against the words (the regularization constant{auto}: "
                     f"larger fits the training {what} more closely, at the cost of topics that explain the words)")
    if "margin" in s and s.get("loss") == "hinge":
        lines.append(f"margin: {s['margin']:.4g}, how far the right class's score must lead every other before the "
                     "hinge loss leaves a training document alone (wider asks for more confident topics)")
    if s.get("loss") == "epsilon":
        lines.append(f"epsilon: {params.get('epsilon')}, the error within which a prediction costs nothing (in "
                     "standard deviations of the training responses)")
    return lines


def evaluation_lines(report: dict, confusion: bool = False) -> list[str]:
    """The report of ``medlda.evaluation.metrics.evaluate`` as text: the overall measures, a table
    of the classes (worst F1 first), and with ``confusion`` the confusion matrix."""
    overall = [k for k in ("accuracy", "log_loss", "f1_micro", "f1_macro", "f1_weighted", "r2", "mae", "rmse")
               if k in report]
    lines = [f"{report['n_docs']} documents: " + ", ".join(f"{k.replace('_', ' ')} {report[k]:.4f}" for k in overall)]
    if "per_class" in report:
        rows = sorted(report["per_class"].items(), key=lambda item: (item[1]["f1"], item[0]))
        width = max(len("class"), *(len(name) for name, _ in rows))
        lines.append(f"{'class':<{width}}  precision  recall      f1  support   (worst F1 first)")
        lines.extend(f"{name:<{width}}  {m['precision']:9.3f}  {m['recall']:6.3f}  {m['f1']:6.3f}  {m['support']:7d}"
                     for name, m in rows)
    if confusion and "confusion" in report:
        lines.extend(confusion_lines(report["classes"], report["confusion"]))
    return lines


def confusion_lines(names: list[str], matrix: list[list[int]]) -> list[str]:
    """A confusion matrix as text: one row per true class, led by its number and its whole name;
    the columns, predicted classes, headed by the same numbers (names of any length fit)."""
    names = [str(n) for n in names]
    number = len(str(len(names)))
    cell = max(number, *(len(str(v)) for row in matrix for v in row))
    width = max(len(name) for name in names)
    lines = ["confusion (rows: true class; columns: predicted class, numbered as the rows)",
             " " * (number + width + 3) + " ".join(f"{c:>{cell}}" for c in range(1, len(names) + 1))]
    lines.extend(f"{i:>{number}} {name:<{width}}  " + " ".join(f"{v:>{cell}}" for v in row)
                 for i, (name, row) in enumerate(zip(names, matrix), 1))
    return lines
