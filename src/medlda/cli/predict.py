"""medlda predict, evaluate and transform: labels, probabilities, explanations, errors and topic
proportions of new documents."""

from __future__ import annotations

import json
import sys

import numpy as np

from medlda.cli.common import (
    CLIError,
    check_outputs,
    doc_ids,
    load_with_jobs,
    model_targets,
    no_labels_hint,
    read_model_data,
)
from medlda.cli.progress import predicting, stage
from medlda.evaluation.scoring import model_task
from medlda.io.atomic import atomic_write, check_writable


def cmd_predict(args) -> int:
    check_outputs({"--out": args.out}, model_inputs(args))
    model = load_with_jobs(args)
    if not hasattr(model, "predict"):
        raise CLIError(f"{args.model}: an unsupervised LDA model cannot predict labels "
                       f"(medlda transform gives each document's topic proportions)")
    if args.proba and not hasattr(model, "predict_proba"):
        raise CLIError(f"{args.model}: --proba needs a classifier with a probabilistic loss (logistic); "
                       f"this model uses loss={getattr(model, 'loss', None)!r}")
    task = model_task(model)
    if args.out:
        check_writable(args.out)
    if args.explain < 0:
        raise CLIError("--explain must be a number of topics, 0 or more")
    corpus = read_model_data(args, model, args.input)
    with predicting(args, corpus.n_docs):
        zbar = model.transform(corpus)  # one inference for labels, probabilities and explanations
    if hasattr(model, "classes_"):
        omega = model.decision_from_topics(zbar)
        pred = model.labels_from_decision(omega)
        proba = model.proba_from_decision(omega) if args.proba else None
    else:
        pred, proba = model.predict_from_topics(zbar), None
    explained = _explanations(model, zbar, pred, args.explain, task) if args.explain else None
    result = {"n_docs": corpus.n_docs, "empty_skipped": corpus.n_empty_skipped, "oov_dropped": corpus.n_oov_dropped}
    if corpus.labels is not None:
        from medlda.evaluation.metrics import measures
        result.update(measures(task, model_targets(model, corpus, args.input), pred))
    if task == "multilabel":  # one line per document: its predicted labels, comma-separated
        pred = np.array([",".join(str(c) for c, on in zip(model.classes_, row) if on) for row in pred])
    labels = [str(p) for p in pred.tolist()]
    names = [str(c) for c in model.classes_] if proba is not None else []
    shown = [f"{p:.6g}" for p in pred.tolist()] if task == "regression" else labels  # JSON keeps every digit
    lines = _with_ids(args, corpus, *_prediction_table(shown, names, proba, explained,
                                                       "prediction" if task == "regression" else "label"))

    def fields() -> dict:
        out = {"labels": labels}
        if proba is not None:
            out.update(classes=names, proba=proba.tolist())
        if explained is not None:
            out["explanations"] = explained[1]
        return out

    _emit(args, corpus, result, lines, "predictions", fields)
    if not args.json:
        for key in ("accuracy", "f1_micro", "f1_macro", "r2"):
            if key in result:
                print(f"{key}: {result[key]:.4f}", file=sys.stderr)
    return 0


def _prediction_table(labels: list[str], names: list[str], proba, explained,
                      first: str = "label") -> tuple[list[str] | None, list[str]]:
    """predict's columns: a header (None for labels alone) and one tab-separated row per document:
    its label, each class's probability (``proba``), its explaining topics (``explained[0]``);
    ``first`` names the label column (a regressor's: 'prediction')."""
    rows = [[label] for label in labels]
    if proba is not None:
        for row, p in zip(rows, proba):
            row.extend(f"{v:.6g}" for v in p)
    if explained is not None:
        for row, cell in zip(rows, explained[0]):
            row.append(cell)
    header = None
    if proba is not None or explained is not None:
        header = [first, *names] + (["topic:contribution"] if explained is not None else [])
    return header, ["\t".join(row) for row in rows]


def cmd_evaluate(args) -> int:
    """Predict labeled documents and report the errors overall and per class."""
    from medlda.evaluation.metrics import evaluate
    from medlda.evaluation.scoring import predict_with_log_loss
    from medlda.reporting.reports import evaluation_lines

    model = load_with_jobs(args)
    if not hasattr(model, "predict"):
        raise CLIError(f"{args.model}: an unsupervised LDA model has no labels to evaluate (medlda train "
                       f"--unsupervised --test reports its held-out perplexity)")
    corpus = read_model_data(args, model, args.input)
    if corpus.labels is None:
        hint = no_labels_hint(args, args.input)
        raise CLIError(f"{args.input}: documents carry no labels to evaluate the predictions against"
                       + (f": {hint}" if hint else ""))
    task = model_task(model)
    y = model_targets(model, corpus, args.input)
    with predicting(args, corpus.n_docs):
        pred, extra = predict_with_log_loss(model, task, corpus, y)
    report = evaluate(task, y, pred, getattr(model, "classes_", None))
    report.update(extra, empty_skipped=corpus.n_empty_skipped, oov_dropped=corpus.n_oov_dropped)
    print(json.dumps(report) if args.json else "\n".join(evaluation_lines(report, args.confusion)))
    return 0


def cmd_transform(args) -> int:
    """Infer each document's topic proportions (the model's ``transform``: LDA's theta, a
    supervised model's zbar, the features its classifier reads) and write or print them."""
    from medlda.reporting.reports import proportion_lines

    check_outputs({"--out": args.out}, model_inputs(args))
    model = load_with_jobs(args)
    as_npy = bool(args.out) and args.out.endswith(".npy")
    if as_npy and (args.top or args.ids):
        raise CLIError(f"{'--top' if args.top else '--ids'} writes text; give --out a name not ending in .npy")
    if args.out:
        check_writable(args.out)
    corpus = read_model_data(args, model, args.input)
    with stage(args, f"inferring the topics of {corpus.n_docs:,} documents", has_bar=True):
        theta = model.transform(corpus)
    result = {"n_docs": corpus.n_docs, "n_topics": theta.shape[1], "empty_skipped": corpus.n_empty_skipped,
              "oov_dropped": corpus.n_oov_dropped}
    if as_npy:
        atomic_write(args.out, lambda f: np.save(f, theta))
        lines = None
    else:
        lines = proportion_lines(theta, args.top)
        header = lines.pop(0).split("\t") if args.top is None else None
        lines = _with_ids(args, corpus, header, lines)
    _emit(args, corpus, result, lines, "proportions",
          lambda: {"proportions": theta.tolist() if args.top is None else _top_records(theta, args.top)})
    return 0


def model_inputs(args) -> dict[str, str | None]:
    """The files a command that applies a saved model reads: the model and the documents."""
    return {"--model": args.model, "--input": args.input, "--vocab": args.vocab}


def _emit(args, corpus, result: dict, lines: list[str] | None, out_key: str, fields) -> None:
    """Write ``lines`` to --out (unless None: written already) and name the file in ``result``
    under ``out_key``, or print them; with --json print ``result`` instead, and without --out add
    what the lines held, ``fields()``, and with --ids the documents' names."""
    from medlda.io.atomic import write_lines

    if args.out:
        if lines is not None:
            write_lines(args.out, lines)
        result[out_key] = args.out
    if args.json:
        if not args.out:
            if args.ids:
                result["docs"] = doc_ids(corpus)
            result.update(fields())
        print(json.dumps(result))
    elif not args.out:
        print("\n".join(lines))


def _with_ids(args, corpus, header: list[str] | None, rows: list[str]) -> list[str]:
    """Output lines: the header's columns (if any) and the rows, each led by the document's name
    and a tab with --ids."""
    if args.ids:
        rows = [f"{name}\t{row}" for name, row in zip(doc_ids(corpus), rows)]
        header = None if header is None else ["doc", *header]
    return rows if header is None else ["\t".join(header), *rows]


def _top_records(theta: np.ndarray, n: int) -> list[list[dict]]:
    """Each document's ``n`` largest proportions as [{"topic": k, "proportion": p}, ...]."""
    from medlda.evaluation.explain import top_topics

    return [[{"topic": int(k), "proportion": float(v)} for k, v in zip(ids, values)]
            for ids, values in zip(*top_topics(theta, n))]


def _explanations(model, zbar: np.ndarray, pred: np.ndarray, n: int, task: str) -> tuple[list[str], list]:
    """Each document's ``n`` explaining topics (``medlda.evaluation.explain``) as a text cell and as JSON:
    those that push toward its prediction (a regression: the largest either way); for a
    multi-label model, toward each label it predicts, as ``label: topic:contribution ...; ...``
    and a {label: records} object."""
    from medlda.evaluation.explain import top_topics
    from medlda.reporting.reports import explanation_cell, explanation_json

    words = model.words_of(model.top_word_ids(5))  # once: a sort of every topic's words

    def explained(ids, values, signed: bool):
        for i, v in zip(ids, values):
            keep = slice(None) if signed else v > 0  # a topic that pushes against a label is no reason for it
            yield explanation_cell(i[keep], v[keep]), explanation_json(words, i[keep], v[keep])

    if task != "multilabel":
        ids, values = top_topics(model.contributions_from_topics(zbar), n, absolute=task == "regression")
        pairs = list(explained(ids, values, task == "regression"))
        return [cell for cell, _ in pairs], [record for _, record in pairs]
    cells, records = [[] for _ in pred], [{} for _ in pred]
    for t, label in enumerate(model.classes_):
        on = np.flatnonzero(pred[:, t])
        if on.size:
            for d, (cell, record) in zip(on, explained(*top_topics(model.contributions_from_topics(zbar[on], t), n), False)):
                cells[d].append(f"{label}: {cell}")
                records[d][str(label)] = record
    return ["; ".join(c) for c in cells], records
