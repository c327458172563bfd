"""medlda info, topics and plot: what a saved model is and holds."""

from __future__ import annotations

import json
import os
import sys

import numpy as np

from medlda.cli.common import (
    CLIError,
    check_outputs,
    coherence_of,
    doc_ids,
    headless_matplotlib,
    load_with_jobs,
    model_targets,
    read_model_data,
)
from medlda.io.atomic import check_writable

PLOT_KINDS = ["trace", "topics", "class-topics", "map", "confusion", "predictions", "explain"]


def cmd_info(args) -> int:
    from medlda.io.model_file import load_with_metadata
    from medlda.reporting.reports import model_summary

    summary = model_summary(*load_with_metadata(args.model), path=args.model)
    print(json.dumps(summary) if args.json else summary)
    return 0


def cmd_topics(args) -> int:
    from medlda.io.model_file import load_model
    from medlda.reporting.reports import class_topic_lines, coherence_json, topic_lines, topic_order, topics_json

    model = load_model(args.model)
    if args.sort == "coherence" and not args.coherence:
        raise CLIError("--sort coherence needs --coherence DATA, the documents to score the topics in")
    coherence = None
    if args.coherence:
        docs = read_model_data(args, model, args.coherence, args.split)
        coherence = (args.measure, coherence_of(model, docs, args.measure, args.top_words, args.relevance))
    if args.json:
        result = topics_json(model, args.top_words, args.class_topics, args.relevance)
        if coherence is not None:
            result.update(coherence_json(*coherence))
        print(json.dumps(result))
        return 0
    order = topic_order(model, args.sort, None if coherence is None else coherence[1])
    print("\n".join(topic_lines(model, args.top_words, coherence, order, args.relevance)))
    if coherence is not None:
        mean = coherence_json(*coherence)["coherence_mean"]
        print(f"mean {args.measure} coherence of the top {args.top_words} words in {args.coherence}: "
              + ("undefined" if mean is None else f"{mean:+.4f}"))
    if hasattr(model, "eta_samples_"):
        print("\n" + "\n".join(class_topic_lines(model, args.class_topics, args.top_words, args.relevance)))
    return 0


def cmd_plot(args) -> int:
    """Draw one figure of a saved model and write it atomically to --out."""
    headless_matplotlib("plots")
    from medlda.reporting import plots

    check_outputs({"--out": args.out}, {"--model": args.model, "--input": args.input, "--vocab": args.vocab})
    model = load_with_jobs(args)
    check_writable(args.out)
    if not os.path.splitext(args.out)[1]:
        raise CLIError(f"{args.out}: no suffix to name the figure format; end the name in .png, .pdf or .svg")
    plots.figure_format(args.out)
    if args.kind == "explain":
        _check_label(model, args.label)
    data_kinds = ("map", "confusion", "predictions", "explain")
    if args.kind in data_kinds and not args.input:
        raise CLIError(f"--kind {args.kind} needs --input documents")
    if args.kind not in data_kinds and args.input:
        raise CLIError(f"--kind {args.kind} draws the model alone; --input is for {', '.join(data_kinds)}")
    if args.dpi <= 0:
        raise CLIError(f"--dpi must be positive, got {args.dpi}")
    if args.kind == "trace":
        fig = plots.plot_trace(model, x=args.x)
    elif args.kind == "topics":
        ids = None
        if args.topic_ids:
            ids = [_int_id(t, "--topic-ids") for t in args.topic_ids.split(",") if t.strip()]
        fig = plots.plot_topics(model, ids, n_words=args.top_words or 10, relevance=args.relevance)
    elif args.kind == "class-topics":
        fig = plots.plot_class_topics(model, args.class_topics, n_words=args.top_words or 5,
                                      relevance=args.relevance)
    elif args.kind == "explain":
        corpus = read_model_data(args, model, args.input)
        row, name = _document(corpus, args.doc, args.input)
        with _inferring(args, corpus):
            fig = plots.plot_explanation(model, corpus, row, args.n_topics, n_words=args.top_words or 5,
                                         label=args.label, name=name)
    else:
        corpus = read_model_data(args, model, args.input)
        y = None
        if corpus.labels is not None and hasattr(model, "predict"):
            y = model_targets(model, corpus, args.input)
        if args.kind != "map" and y is None:
            raise CLIError(f"{args.input}: --kind {args.kind} needs labeled documents and a supervised model")
        with _inferring(args, corpus):
            if args.kind == "map":
                fig = plots.plot_topic_map(model, corpus, None if y is None or np.ndim(y) != 1 else y,
                                           method=args.method, random_state=args.seed, n_jobs=args.n_jobs)
            elif args.kind == "confusion":
                fig = plots.plot_confusion(model, corpus, y)
            else:
                fig = plots.plot_predictions(model, corpus, y)
    plots.save_figure(fig, args.out, dpi=args.dpi)
    print(f"figure written to {args.out}", file=sys.stderr)
    return 0


def _inferring(args, corpus):
    """The stage of drawing a figure of ``corpus``'s documents: mostly inferring their topics."""
    from medlda.cli.progress import stage

    return stage(args, f"inferring the topics of {corpus.n_docs:,} documents to draw them", has_bar=True)


def _check_label(model, label: str | None) -> None:
    """plot --kind explain: --label, a class of the model, given where a multi-label model needs it
    and refused for a regressor (it has no classes)."""
    if not hasattr(model, "classes_"):
        if label is not None:
            raise CLIError("--label is for classifiers; a regression model's prediction is explained as a whole")
        return
    names = [str(c) for c in model.classes_]
    if label is None and getattr(model, "multilabel_", False):
        raise CLIError(f"a multi-label model decides each label apart: give --label, one of: {', '.join(names)}")
    if label is not None and label not in names:
        raise CLIError(f"--label {label!r} is not a class of the model; one of: {', '.join(names)}")


def _document(corpus, doc: int | str, path: str) -> tuple[int, str]:
    """(row of ``corpus``, name) of --doc: a name as ``predict --ids`` prints it, or a number N,
    "line N" of a file read by lines, else the N-th document (from 1, as the output's lines)."""
    names = doc_ids(corpus)
    by_line = bool(names) and all(name.startswith("line ") for name in names)
    wanted = f"line {doc}" if isinstance(doc, int) and by_line else doc
    if isinstance(wanted, str):
        if wanted in names:
            return names.index(wanted), wanted
        raise CLIError(f"--doc {doc}: no document {wanted!r} in {path} (empty documents are skipped); give a "
                       f"name as predict --ids prints it (e.g. {names[0]!r}) or a number")
    if doc > corpus.n_docs:
        raise CLIError(f"--doc {doc}: {path} has {corpus.n_docs} non-empty documents")
    return doc - 1, names[doc - 1]


def _int_id(text: str, flag: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise CLIError(f"{flag}: {text!r} is not a topic id") from None
