"""The command line's arguments: one sub-command per job.

Each sub-command's arguments are built only when that sub-command is asked for: ``train``'s flags
come from the estimators' declarations, which import the samplers and their kernels, and
``medlda --help`` or ``--version`` should start at once.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Callable, Iterable, NoReturn

from medlda._version import __version__
from medlda.cli.flags import int_at_least, number

MODEL_HELP = "the saved model file (medlda train --out)"
DEMO_MIN_DOCS = 10
TRAINED_LABELS = ("default: the column the model was trained on (train --label-column) if the table has it, "
                  "else 'label' if present")


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and a pointer to --help: the full usage of
    train runs to some 30 lines and buries the error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\nsee `{self.prog} --help`\n")


def build_parser(commands: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The parser of ``medlda``, with the arguments of the sub-commands in ``commands`` (None:
    all); the others are listed with their help only."""
    p = _Parser(prog="medlda", description="Supervised topic models (MedLDA, LightMedLDA).")
    p.add_argument("--version", action="version", version=f"medlda {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    full = set(COMMANDS) if commands is None else set(commands)
    for name, (help_text, add_arguments) in COMMANDS.items():
        parser = sub.add_parser(name, help=help_text)
        if name in full:
            add_arguments(parser)
    return p


def command_named(argv: list[str]) -> str | None:
    """The sub-command ``argv`` names: its first argument that is not an option (``medlda`` itself
    takes no option with a value)."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def _run(module: str, function: str) -> Callable[[argparse.Namespace], int]:
    """A sub-command's function, imported from ``medlda.cli.<module>`` when it runs, after the
    package's public names (``medlda.__getattr__``: this registers the estimators model files name)."""
    def run(args: argparse.Namespace) -> int:
        from medlda import load_model  # noqa: F401

        return getattr(importlib.import_module(f"medlda.cli.{module}"), function)(args)
    return run


def _train(t: argparse.ArgumentParser) -> None:
    from medlda.cli.flags import add_parameter_flags

    _data_args(t, "--train", required=True, help="training data: bag-of-words or lda-c file, a folder "
               "with one sub-folder per label, or a .tar.gz of such folders",
               labels="the labels to learn; default 'label' if present")
    _text_args(t)
    t.add_argument("--test", help="test data in the same form (an archive with -train/-test folders "
                   "gives its test half)")
    t.add_argument("--holdout", type=_open_fraction, default=None, metavar="F",
                   help="set aside a random fraction F of --train (stratified by class; --seed) as test data, "
                        "when there is no --test; the vocabulary is still built from all of --train")
    t.add_argument("--topics", "--n-components", dest="topics", type=_topic_counts, default=[20], metavar="K",
                   help="number of topics K (default 20); several, comma-separated (20,50,100), are compared on "
                        "a validation part (20%% of --train, seeded by --seed): the best is trained again on all "
                        "of --train, measured on --test or --holdout, and kept by --out")
    add_parameter_flags(t, skip=("n_components",))
    t.add_argument("--trace", metavar="FILE",
                   help="write the per-iteration trace (iteration, sampling seconds, log joint; with "
                        "--unsupervised and --test also held-out perplexity) to FILE as JSON")
    t.add_argument("--task", choices=["auto", "classification", "multilabel", "regression"], default="auto",
                   help="auto: multi-label if a document has zero or several labels, regression if the "
                        "labels are numbers not all integers, else classification")
    t.add_argument("--unsupervised", action="store_true", help="plain LDA: ignore labels")
    t.add_argument("--out", help="save the fitted model to this file")
    t.add_argument("--top-words", type=_positive_int, default=10, metavar="N",
                   help="words shown per topic in the report (default 10)")
    _output_args(t)
    t.set_defaults(func=_run("train", "cmd_train"))


def _predict(r: argparse.ArgumentParser) -> None:
    _model_args(r, "documents to label", "true labels, if any, to score the predictions against (accuracy, F1 or "
                "r2, on stderr); " + TRAINED_LABELS)
    r.add_argument("--out", help="write one predicted label per line to this file")
    r.add_argument("--proba", action="store_true",
                   help="also each class's probability (logistic loss): tab-separated lines under a header "
                        "'label<TAB>class ...'; in --json, 'proba' and 'classes'")
    r.add_argument("--explain", type=int, default=0, metavar="N",
                   help="also the N topics that weigh most in each prediction (topic:contribution, the "
                        "topic's part of the margin over the runner-up class, of each predicted label's score, "
                        "or of the response); in --json, 'explanations' with each topic's words")
    _inference_args(r, "predictions")
    r.set_defaults(func=_run("predict", "cmd_predict"))


def _evaluate(e: argparse.ArgumentParser) -> None:
    _model_args(e, "labeled documents", "the true labels; " + TRAINED_LABELS)
    e.add_argument("--confusion", action="store_true", help="also print the confusion matrix (always in --json)")
    e.add_argument("--n-jobs", type=int, default=None,
                   help="cores for inference (default: the model's n_jobs; -1 all cores)")
    e.add_argument("--inference", choices=["cvb0", "gibbs"], default=None,
                   help="how the documents' topics are inferred (default: the model's): cvb0 (deterministic, "
                        "fast) or gibbs (a sampled posterior mean, about 15 times slower, as accurate)")
    _output_args(e)
    e.set_defaults(func=_run("predict", "cmd_evaluate"))


def _transform(f: argparse.ArgumentParser) -> None:
    _model_args(f, "documents whose topics to infer", "not used by transform")
    f.add_argument("--out", help="write the proportions to this file: tab-separated text under a header "
                                 "of topic ids, or a NumPy array if it ends in .npy")
    f.add_argument("--top", type=_positive_int, default=None, metavar="N",
                   help="only each document's N largest proportions, as topic:proportion pairs")
    _inference_args(f, "proportions")
    f.set_defaults(func=_run("predict", "cmd_transform"))


def _info(i: argparse.ArgumentParser) -> None:
    i.add_argument("--model", required=True, help=MODEL_HELP)
    i.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    i.set_defaults(func=_run("show", "cmd_info"))


def _topics(s: argparse.ArgumentParser) -> None:
    s.add_argument("--model", required=True, help=MODEL_HELP)
    s.add_argument("--top-words", type=_positive_int, default=10, metavar="N", help="words per topic (default 10)")
    s.add_argument("--class-topics", type=_positive_int, default=3, metavar="N",
                   help="topics listed per class (default 3)")
    _data_args(s, "--coherence", required=False,
               help="documents in which to score each topic's coherence (its --top-words occurring together)",
               labels="not used for coherence")
    s.add_argument("--measure", choices=["npmi", "umass"], default="npmi",
                   help="coherence measure: npmi (in [-1, 1]; held-out documents) or umass (training documents)")
    s.add_argument("--split", choices=["train", "test"], default="test",
                   help="--coherence data holding both splits (20 Newsgroups, Reuters): the part to use (default test)")
    _relevance_arg(s)
    s.add_argument("--sort", choices=["id", "share", "coherence"], default="id",
                   help="list topics by id, by share of the training tokens, or by coherence (needs --coherence)")
    s.add_argument("--json", action="store_true", help="print one JSON object: topics, shares, class topics, eta")
    s.set_defaults(func=_run("show", "cmd_topics"))


def _plot(g: argparse.ArgumentParser) -> None:
    from medlda.cli.show import PLOT_KINDS

    g.add_argument("--model", required=True, help=MODEL_HELP)
    g.add_argument("--kind", required=True, choices=PLOT_KINDS,
                   help="trace: training curves; topics: top words per topic; class-topics: the topics "
                        "that weigh most per class; map: documents of --input by their topics (t-SNE); "
                        "confusion: confusion matrix on --input; predictions: predicted against true "
                        "responses on --input (regression); explain: the topics behind the prediction for "
                        "document --doc of --input")
    g.add_argument("--out", required=True, help="figure file; the format follows its suffix (png, pdf, svg)")
    g.add_argument("--dpi", type=int, default=150, help="resolution of raster formats (default 150)")
    _data_args(g, "--input", required=False, help="documents for map, confusion, predictions and explain",
               labels="true labels for confusion and predictions (map colours by them); " + TRAINED_LABELS)
    g.add_argument("--x", choices=["iteration", "seconds"], default="iteration", help="trace: x axis")
    g.add_argument("--topic-ids", help="topics: comma-separated topic ids (default: the first 12)")
    g.add_argument("--top-words", type=_positive_int, default=None,
                   help="words per topic (default 10; 5 for class-topics)")
    g.add_argument("--class-topics", type=_positive_int, default=3, help="class-topics: topics per class")
    _relevance_arg(g)
    g.add_argument("--doc", type=_document, default=1,
                   help="explain: which document of --input: its name as predict --ids prints it ('line 12', a "
                        "file of a folder), or a number N: line N of a file, the N-th document of a folder "
                        "(from 1; default 1, the first)")
    g.add_argument("--label", help="explain: a class whose score to split (multi-label models need one)")
    g.add_argument("--n-topics", type=_positive_int, default=8, help="explain: topics shown (default 8)")
    g.add_argument("--method", choices=["tsne", "pca"], default="tsne", help="map: the 2-d embedding")
    g.add_argument("--seed", type=_non_negative_int, default=0, help="map: the embedding's random seed (default 0)")
    g.add_argument("--n-jobs", type=int, default=None,
                   help="cores for inference of --input documents (default: the model's n_jobs; -1 all cores)")
    g.set_defaults(func=_run("show", "cmd_plot"))


def _report(r: argparse.ArgumentParser) -> None:
    r.add_argument("--model", required=True, help=MODEL_HELP)
    _data_args(r, "--input", required=False, help="documents to map and to score the model on (held-out ones); "
               "without it the report shows the model alone", labels="the true labels; " + TRAINED_LABELS)
    r.add_argument("--out", required=True, help="the HTML file to write (one self-contained file: figures and style "
                                                "inline, nothing fetched)")
    r.add_argument("--top-words", type=_positive_int, default=10, metavar="N", help="words per topic (default 10)")
    r.add_argument("--class-topics", type=_positive_int, default=3, metavar="N",
                   help="topics listed per class (default 3)")
    r.add_argument("--method", choices=["tsne", "pca"], default="tsne", help="the document map's embedding")
    r.add_argument("--seed", type=_non_negative_int, default=0,
                   help="random seed of the document map (default 0)")
    r.add_argument("--map-docs", type=_positive_int, default=2000, metavar="N",
                   help="at most N documents of --input on the map, drawn at random (default 2000)")
    r.add_argument("--n-jobs", type=int, default=None,
                   help="cores for inference of --input documents (default: the model's n_jobs; -1 all cores)")
    r.add_argument("--quiet", action="store_true", help="no progress and no chatter; warnings still go to stderr")
    r.set_defaults(func=_run("report", "cmd_report"))


def _demo(d: argparse.ArgumentParser) -> None:
    from medlda.samplers import SAMPLERS

    d.add_argument("--docs", type=int_at_least(DEMO_MIN_DOCS, "a fifth of them is test data"), default=2000,
                   metavar="N",
                   help=f"documents to draw, at least {DEMO_MIN_DOCS}; 80%% train, 20%% test (default 2000)")
    d.add_argument("--topics", "--n-components", dest="topics", type=int_at_least(2, "two classes need two topics"),
                   default=10, metavar="K",
                   help="topics of the planted model and of the one trained, at least 2 (default 10)")
    d.add_argument("--iters", "--max-iter", dest="iters", type=_positive_int, default=100,
                   help="training iterations (default 100)")
    d.add_argument("--sampler", choices=["auto", *(s for s in SAMPLERS if s != "blocked")], default="auto",
                   help="auto (default: gibbs or light, the faster for --topics), gibbs (exact) or light (LightMedLDA)")
    d.add_argument("--seed", type=_non_negative_int, default=0,
                   help="random seed of the drawn data and the training (default 0)")
    _output_args(d)
    d.set_defaults(func=_run("train", "cmd_demo"))


# each sub-command: its help, and the function that adds its arguments
COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None]]] = {
    "train": ("train a model; evaluate on --test if given", _train),
    "predict": ("predict labels of documents with a saved model", _predict),
    "evaluate": ("a saved model's errors on labeled documents, overall and per class", _evaluate),
    "transform": ("each document's topic proportions under a saved model", _transform),
    "info": ("what a saved model is: estimator, task, sizes, training and parameters", _info),
    "topics": ("top words per topic and, for a supervised model, per class", _topics),
    "plot": ("draw a saved model's training curves, topics, topics per class, a map of documents, or its errors "
             "on labeled data (needs matplotlib)", _plot),
    "demo": ("train and evaluate on data drawn from the model itself", _demo),
    "report": ("a saved model's topics, maps, errors on labeled data and training curves as one HTML page "
               "(needs matplotlib)", _report),
}


def _model_args(p: argparse.ArgumentParser, input_help: str, labels: str) -> None:
    """The arguments of a sub-command that applies a saved model (--model) to documents (--input)."""
    p.add_argument("--model", required=True, help=MODEL_HELP)
    _data_args(p, "--input", required=True, help=input_help, labels=labels)


def _positive_int(text: str) -> int:
    """argparse type: an integer of at least 1."""
    return int_at_least(1)(text)


def _non_negative_int(text: str) -> int:
    """argparse type: an integer of at least 0 (seeds, counts that may be none)."""
    return int_at_least(0)(text)


def _document(text: str) -> int | str:
    """argparse type: a document by number (an integer of at least 1) or by name."""
    try:
        int(text)
    except ValueError:
        return text
    return _positive_int(text)


def _unit_number(text: str) -> float:
    """argparse type: a number in [0, 1]."""
    value = number(text, float, "a number")
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {text}")
    return value


def _topic_counts(text: str) -> list[int]:
    """argparse type: one or more numbers of topics, comma-separated, each at least 1."""
    counts = [_positive_int(part.strip()) for part in text.split(",") if part.strip()]
    if not counts:
        raise argparse.ArgumentTypeError(f"no number of topics in {text!r}")
    return counts


def _open_fraction(text: str) -> float:
    """argparse type: a number strictly between 0 and 1."""
    value = number(text, float, "a number")
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return value


def _document_frequency(text: str) -> int | float:
    """argparse type: a number of documents (an integer >= 1) or a fraction of them (0 < f <= 1)."""
    value = number(text, float, "a number")
    if "." in text or "e" in text.lower():
        if not 0 < value <= 1:
            raise argparse.ArgumentTypeError(f"a fraction of the documents must be in (0, 1], got {text}")
        return value
    if value < 1:
        raise argparse.ArgumentTypeError(f"a number of documents must be at least 1, got {text}")
    return int(value)


def _text_args(p) -> None:
    """How raw training text (folders, tables, Reuters) becomes words; test text uses the training words."""
    p.add_argument("--min-df", type=_document_frequency, default=3, metavar="N",
                   help="raw text: keep words in at least N training documents, or in a fraction N of them "
                        "if N has a point (default 3)")
    p.add_argument("--max-df", type=_document_frequency, default=1.0, metavar="N",
                   help="raw text: drop words in more than N training documents, or a fraction N of them "
                        "(default 1.0: none dropped)")
    p.add_argument("--max-words", type=_positive_int, default=None, metavar="N",
                   help="raw text: keep the N most frequent words")
    p.add_argument("--stop-words", default="english", metavar="LIST",
                   help="raw text: 'english' (default), 'none', or a file of stop words, one per line")
    p.add_argument("--news", choices=["all", "headers", "none"], default=None,
                   help="raw text: what of e-mail and news messages to drop: all (the header block but its Subject, "
                        "quoted lines, 'In article ... writes:' lines, the signature after a last '--' line), "
                        "headers (only the header block: the MedLDA papers' 20 Newsgroups convention) or none; "
                        "default all for folders, none for other text")


def _data_args(p, flag: str, required: bool, help: str, labels: str) -> None:
    """The data file and how to read it; ``labels`` says what the command does with the labels."""
    p.add_argument(flag, required=required, help=help)
    p.add_argument("--format", choices=["auto", "bow", "ldac", "folder", "csv", "tsv", "jsonl", "txt"], default="auto",
                   help="data format (default: guessed from the name and first line; .csv, .tsv and .jsonl "
                        "files are tables of raw texts, one document per row; txt, never guessed: raw text, "
                        "one unlabeled document per line)")
    p.add_argument("--vocab", help="vocabulary file for lda-c data (lines 'id word' or one word a line)")
    p.add_argument("--categories", help="folder data: read only the documents of these comma-separated labels "
                                        "(sub-folders); with a saved model, default: those it was trained on")
    p.add_argument("--text-column", default="text", help="tables: the column holding each document's text "
                                                          "(default 'text'; with a saved model, the column it was "
                                                          "trained on if the table has it)")
    p.add_argument("--label-column", help="tables: the column holding its labels (several comma-separated, or a number "
                                          f"for regression): {labels}")


def _relevance_arg(p) -> None:
    p.add_argument("--relevance", type=_unit_number, default=1.0, metavar="L",
                   help="rank each topic's words by L log p(w|k) + (1 - L) log(p(w|k) / p(w)) (LDAvis's "
                        "relevance): 1 (default) by probability; about 0.6 favours words frequent in the topic "
                        "and rare elsewhere")


def _inference_args(p, what: str) -> None:
    """What predict and transform share: --ids, --n-jobs, --inference, --json and --quiet."""
    p.add_argument("--ids", action="store_true",
                   help="lead each line with the document's name and a tab (its file in a folder, 'line N' of a "
                        "file): empty documents are skipped, so this is how lines meet their documents; in "
                        "--json, 'docs'")
    p.add_argument("--n-jobs", type=int, default=None,
                   help=f"cores for inference (default: the model's n_jobs; -1 all cores); same {what} on any number")
    p.add_argument("--inference", choices=["cvb0", "gibbs"], default=None,
                   help="how the documents' topics are inferred (default: the model's): cvb0 (deterministic, "
                        "fast) or gibbs (a sampled posterior mean, about 15 times slower, as accurate)")
    _output_args(p)


def _output_args(p) -> None:
    p.add_argument("--json", action="store_true",
                   help="print one JSON object on stdout, nothing else (warnings still go to stderr)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar and no chatter (train, demo: only the test measures); warnings, "
                        "about the data or a task switch, still go to stderr")
