"""medlda report: a saved model and its errors on documents as one self-contained HTML page."""

from __future__ import annotations

import os
import sys

import numpy as np

from medlda.cli.common import (
    check_outputs,
    headless_matplotlib,
    load_with_jobs,
    model_targets,
    read_model_data,
    show_progress,
)
from medlda.io.atomic import check_writable


def cmd_report(args) -> int:
    """Write the HTML report (``medlda.reporting.html``) of --model on the documents of --input
    to --out, atomically, never over an input."""
    headless_matplotlib("the report's figures")
    from medlda.reporting.html import write_report

    check_outputs({"--out": args.out}, {"--model": args.model, "--input": args.input, "--vocab": args.vocab})
    model = load_with_jobs(args)
    check_writable(args.out)
    corpus = y = None
    if args.input:
        corpus = read_model_data(args, model, args.input)  # as the model's data selection says
        y = _labels(model, corpus, args.input)
    if show_progress(args):
        print("medlda: inferring the documents' topics and drawing the figures ...", file=sys.stderr)
    name = os.path.basename(args.model)
    title = f"medlda report: {name}" + (f" on {os.path.basename(os.path.normpath(args.input))}" if args.input else "")
    write_report(model, corpus, y, args.out, title=title, data_name=args.input, n_words=args.top_words,
                 n_class_topics=args.class_topics, method=args.method, random_state=args.seed, n_jobs=args.n_jobs,
                 max_map_docs=args.map_docs)
    if not args.quiet:
        print(f"report written to {args.out}", file=sys.stderr)
    return 0


def _labels(model, corpus, path: str):
    """The true labels of ``corpus`` as the model predicts them (None if the documents carry
    none); for an LDA, each document's label as text when every document has exactly one (they
    colour the map), else None."""
    if corpus.labels is None:
        return None
    if hasattr(model, "eta_samples_"):
        return model_targets(model, corpus, path)
    if all(len(labels) == 1 for labels in corpus.labels):
        return np.array([labels[0] for labels in corpus.labels], dtype=str)
    return None
