"""Command line: ``medlda train | predict | topics | plot | demo``. Only this layer prints."""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

from . import __version__
from .atomic import atomic_write, atomic_write_text, check_writable
from .corpus import NPY_META, Corpus
from .exceptions import MedLDAError
from .samplers import ETA_DRAWS, LIGHT_VARIANTS, PROPOSAL_MODES, SAMPLERS

PLOT_KINDS = ["trace", "topics", "class-topics", "map", "confusion", "predictions", "explain"]


class CLIError(MedLDAError):
    """A problem with the command line's inputs, reported without a traceback."""


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (0 ok, 2 bad input or usage)."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (MedLDAError, ValueError, FileNotFoundError, NotImplementedError, IsADirectoryError,
            PermissionError) as exc:
        print(f"medlda: error: {exc}", file=sys.stderr)
        return 2


# -- arguments ------------------------------------------------------------------------------------
def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="medlda", description="Supervised topic models (MedLDA, LightMedLDA).")
    p.add_argument("--version", action="version", version=f"medlda {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    t = sub.add_parser("train", help="train a model; evaluate on --test if given")
    _data_args(t, "--train", required=True, help="training data: bag-of-words or lda-c file, a folder "
               "with one sub-folder per label, or a .tar.gz of such folders")
    t.add_argument("--test", help="test data in the same form (an archive with -train/-test folders "
                   "gives its test half)")
    t.add_argument("--topics", type=int, default=20, help="number of topics K (default 20)")
    t.add_argument("--iters", type=int, default=50, help="training iterations (default 50)")
    t.add_argument("--sampler", choices=SAMPLERS, default="gibbs",
                   help="gibbs (exact), light (LightMedLDA) or blocked (blocked Gibbs, with --unsupervised)")
    t.add_argument("--block-simulation", choices=["nested", "backward"], default="nested",
                   help="blocked sampler: how a block's topic counts are drawn (default nested)")
    t.add_argument("--trace", metavar="FILE",
                   help="write the per-iteration trace (iteration, sampling seconds, log joint; with "
                        "--unsupervised and --test also held-out perplexity) to FILE as JSON")
    t.add_argument("--trace-every", type=int, default=1, metavar="N",
                   help="measure the trace every N iterations (default 1)")
    t.add_argument("--seed", type=int, default=None, help="random seed (same seed, same model)")
    t.add_argument("--light-variant", choices=LIGHT_VARIANTS, default="collapsed",
                   help="light sampler: 'partial' (exact, phi drawn) or 'collapsed' (the papers')")
    t.add_argument("--phi-every", type=int, default=1, metavar="N",
                   help="light partial: draw phi every N iterations (still exact; default 1)")
    t.add_argument("--proposal", choices=list(PROPOSAL_MODES), default="mixture",
                   help="light sampler's MH proposals (see MedLDAClassifier's proposal)")
    t.add_argument("--n-mh", type=int, default=6, help="MH steps per token (light)")
    t.add_argument("--eta-draw", choices=list(ETA_DRAWS), default="auto",
                   help="how light draws eta: exactly, by coordinate Gibbs sweeps, or exactly where cheap (auto)")
    t.add_argument("--alpha-sum", type=float, default=6.4)
    t.add_argument("--beta", type=float, default=0.01)
    t.add_argument("--c", type=float, default=None,
                   help="regularization constant c (default: hinge 1.6, logistic 25 binary / 204.8 "
                        "several tasks, regression 4)")
    t.add_argument("--task", choices=["auto", "classification", "multilabel", "regression"], default="auto",
                   help="auto: multi-label if a document has zero or several labels, regression if the "
                        "labels are numbers not all integers, else classification")
    t.add_argument("--loss", choices=["hinge", "logistic", "epsilon", "squared"], default=None,
                   help="hinge or logistic (classification, default hinge); epsilon or squared "
                        "(regression, default epsilon)")
    t.add_argument("--strategy", choices=["multitask", "ovr"], default="multitask",
                   help="several classes or labels: shared topics, or one binary model each (ovr)")
    t.add_argument("--n-jobs", type=int, default=1,
                   help="cores: light sampler threads, or one-vs-rest processes (default 1; -1 all cores)")
    t.add_argument("--epsilon", type=float, default=1e-3, help="epsilon-insensitive loss width (default 1e-3)")
    t.add_argument("--margin", type=float, default=None,
                   help="hinge margin l (default: 164 for two classes, 64 for more, as in the papers)")
    t.add_argument("--sigma2", type=float, default=1.0, help="prior variance of eta (default 1)")
    t.add_argument("--positive-cost", type=float, default=None, metavar="R",
                   help="classification: c times R on each task's positive documents, for rare labels "
                        "(default: 1, the papers' loss, for one label per document; 4 for multi-label)")
    t.add_argument("--infer-burn", type=int, default=None, metavar="N",
                   help="sweeps over a test document's topics before averaging (default 100)")
    t.add_argument("--infer-avg", type=int, default=None, metavar="N",
                   help="sweeps whose topic conditionals are averaged for a test document (default 200)")
    t.add_argument("--unsupervised", action="store_true", help="plain LDA: ignore labels")
    t.add_argument("--out", help="save the fitted model to this file")
    t.add_argument("--checkpoint", help="checkpoint file: the whole sampler state (npz + JSON), "
                   "replaced atomically every --checkpoint-every iterations")
    t.add_argument("--checkpoint-every", type=int, default=0, metavar="N",
                   help="write a checkpoint every N iterations (default 0: never)")
    t.add_argument("--resume", action="store_true",
                   help="go on from --checkpoint if it exists (same data and settings)")
    t.add_argument("--backend", choices=["local", "ray"], default="local",
                   help="train in this process, or data-parallel on a Ray cluster (medlda[ray])")
    t.add_argument("--address", help="Ray cluster address (default: start or join a local one)")
    t.add_argument("--workers", type=int, default=2, help="Ray workers, one document shard each (default 2)")
    t.add_argument("--top-words", type=_positive_int, default=10)
    _output_args(t)
    t.set_defaults(func=cmd_train)

    r = sub.add_parser("predict", help="predict labels of documents with a saved model")
    r.add_argument("--model", required=True)
    _data_args(r, "--input", required=True, help="documents to label")
    r.add_argument("--out", help="write one predicted label per line to this file")
    r.add_argument("--proba", action="store_true",
                   help="also each class's probability (logistic loss): tab-separated lines under a header "
                        "'label<TAB>class ...'; in --json, 'proba' and 'classes'")
    r.add_argument("--explain", type=int, default=0, metavar="N",
                   help="also the N topics that weigh most in each prediction (topic:contribution, the "
                        "topic's part of the margin over the runner-up class, of each predicted label's score, "
                        "or of the response); in --json, 'explanations' with each topic's words")
    r.add_argument("--n-jobs", type=int, default=None,
                   help="cores for inference (default: the model's n_jobs; -1 all cores); same "
                        "predictions on any number")
    _output_args(r)
    r.set_defaults(func=cmd_predict)

    f = sub.add_parser("transform", help="each document's topic proportions under a saved model")
    f.add_argument("--model", required=True)
    _data_args(f, "--input", required=True, help="documents whose topics to infer")
    f.add_argument("--out", help="write the proportions to this file: tab-separated text under a header "
                                 "of topic ids, or a NumPy array if it ends in .npy")
    f.add_argument("--top", type=_positive_int, default=None, metavar="N",
                   help="only each document's N largest proportions, as topic:proportion pairs")
    f.add_argument("--n-jobs", type=int, default=None,
                   help="cores for inference (default: the model's n_jobs; -1 all cores); same "
                        "proportions on any number")
    _output_args(f)
    f.set_defaults(func=cmd_transform)

    i = sub.add_parser("info", help="what a saved model is: estimator, task, sizes, training and parameters")
    i.add_argument("--model", required=True)
    i.add_argument("--json", action="store_true")
    i.set_defaults(func=cmd_info)

    s = sub.add_parser("topics", help="top words per topic and, for a supervised model, per class")
    s.add_argument("--model", required=True)
    s.add_argument("--top-words", type=_positive_int, default=10)
    s.add_argument("--class-topics", type=_positive_int, default=3, help="topics listed per class")
    _data_args(s, "--coherence", required=False,
               help="documents in which to score each topic's coherence (its --top-words occurring together)")
    s.add_argument("--measure", choices=["npmi", "umass"], default="npmi",
                   help="coherence measure: npmi (in [-1, 1]; held-out documents) or umass (training documents)")
    s.add_argument("--split", choices=["train", "test"], default="test",
                   help="--coherence data holding both splits (20 Newsgroups, Reuters): the part to use (default test)")
    s.add_argument("--sort", choices=["id", "share", "coherence"], default="id",
                   help="list topics by id, by share of the training tokens, or by coherence (needs --coherence)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_topics)

    g = sub.add_parser("plot", help="draw a saved model's training curves, topics, topics per class, "
                                    "a map of documents, or its errors on labeled data (needs matplotlib)")
    g.add_argument("--model", required=True)
    g.add_argument("--kind", required=True, choices=PLOT_KINDS,
                   help="trace: training curves; topics: top words per topic; class-topics: the topics "
                        "that weigh most per class; map: documents of --input by their topics (t-SNE); "
                        "confusion: confusion matrix on --input; predictions: predicted against true "
                        "responses on --input (regression); explain: the topics behind the prediction for "
                        "document --doc of --input")
    g.add_argument("--out", required=True, help="figure file; the format follows its suffix (png, pdf, svg)")
    g.add_argument("--dpi", type=int, default=150, help="resolution of raster formats (default 150)")
    _data_args(g, "--input", required=False, help="documents for map, confusion and predictions")
    g.add_argument("--x", choices=["iteration", "seconds"], default="iteration", help="trace: x axis")
    g.add_argument("--topic-ids", help="topics: comma-separated topic ids (default: the first 12)")
    g.add_argument("--top-words", type=_positive_int, default=None,
                   help="words per topic (default 10; 5 for class-topics)")
    g.add_argument("--class-topics", type=_positive_int, default=3, help="class-topics: topics per class")
    g.add_argument("--doc", type=int, default=0,
                   help="explain: which document of --input, from 0, empty ones skipped: the line of predict's "
                        "output (default 0)")
    g.add_argument("--label", help="explain: a class whose score to split (multi-label models need one)")
    g.add_argument("--n-topics", type=_positive_int, default=8, help="explain: topics shown (default 8)")
    g.add_argument("--method", choices=["tsne", "pca"], default="tsne", help="map: the 2-d embedding")
    g.add_argument("--seed", type=int, default=0, help="map: the embedding's random seed")
    g.add_argument("--n-jobs", type=int, default=None, help="cores for inference of --input documents")
    g.set_defaults(func=cmd_plot)

    d = sub.add_parser("demo", help="train and evaluate on data drawn from the model itself")
    d.add_argument("--docs", type=int, default=2000)
    d.add_argument("--topics", type=int, default=10)
    d.add_argument("--iters", type=int, default=100)
    d.add_argument("--sampler", choices=[s for s in SAMPLERS if s != "blocked"], default="gibbs")
    d.add_argument("--seed", type=int, default=0)
    _output_args(d)
    d.set_defaults(func=cmd_demo)
    return p


def _positive_int(text: str) -> int:
    """argparse type: an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _data_args(p, flag: str, required: bool, help: str) -> None:
    p.add_argument(flag, required=required, help=help)
    p.add_argument("--format", choices=["auto", "bow", "ldac", "folder", "csv", "tsv", "jsonl"], default="auto",
                   help="data format (default: guessed from the name and first line; .csv, .tsv and .jsonl "
                        "files are tables of raw texts, one document per row)")
    p.add_argument("--vocab", help="vocabulary file for lda-c data (lines 'id word' or one word a line)")
    p.add_argument("--categories", help="comma-separated labels to keep (folder data)")
    p.add_argument("--text-column", default="text", help="tables: the column holding each document's text "
                                                          "(default 'text')")
    p.add_argument("--label-column", help="tables: the column holding its labels (default 'label' if present; "
                                          "several labels comma-separated, or a number for regression)")


def _output_args(p) -> None:
    p.add_argument("--json", action="store_true", help="print one JSON object, nothing else")
    p.add_argument("--quiet", action="store_true", help="no progress bar or report")


def _show_progress(args) -> bool:
    return not (args.quiet or args.json) and sys.stderr.isatty()


# -- reading --------------------------------------------------------------------------------------
def _read(args, path: str, role: str, vocabulary=None) -> Corpus:
    from .readers import folder_splits, guess_format, is_collection, read_corpus

    if os.path.isfile(os.path.join(path, NPY_META)):
        return _read_npy(path, vocabulary)
    fmt = args.format if args.format != "auto" else guess_format(path)
    kwargs = {}
    if fmt == "folder":
        kwargs["subset"] = role if role in folder_splits(path) else None
        if args.categories:
            kwargs["categories"] = [c.strip() for c in args.categories.split(",") if c.strip()]
    if fmt == "ldac" and args.vocab:
        kwargs["vocab_path"] = args.vocab
    if fmt == "reuters" or (fmt == "ldac" and is_collection(path)):
        kwargs["subset"] = role if role in ("train", "test") else "test"
    if fmt in ("csv", "tsv", "jsonl"):
        kwargs.update(text_column=args.text_column, label_column=args.label_column)
    elif args.text_column != "text" or args.label_column:
        raise CLIError(f"{path}: --text-column and --label-column are for tables (csv, tsv, jsonl), "
                       f"and this is {fmt} data")
    corpus = read_corpus(path, format=fmt, vocabulary=vocabulary, **kwargs)
    if corpus.n_empty_skipped:
        _warn(args, f"{path}: skipped {corpus.n_empty_skipped} empty documents")
    if corpus.n_oov_dropped:
        _warn(args, f"{path}: dropped {corpus.n_oov_dropped} out-of-vocabulary tokens")
    if corpus.n_docs == 0:
        hint = (f" (all {corpus.n_oov_dropped} tokens are words the model or training data does not know)"
                if corpus.n_oov_dropped else "")
        raise CLIError(f"{path}: no non-empty documents{hint}")
    return corpus


def _read_npy(path: str, vocabulary=None) -> Corpus:
    """A corpus folder written by Corpus.save_npy, its token arrays memory-mapped."""
    corpus = Corpus.load(path, mmap=True)
    if vocabulary is not None and not np.array_equal(corpus.vocabulary, vocabulary):
        raise CLIError(f"{path}: its vocabulary is not the training data's (save both with one vocabulary)")
    if corpus.n_docs == 0:
        raise CLIError(f"{path}: no non-empty documents")
    return corpus


def _labels(corpus: Corpus, path: str) -> np.ndarray:
    if corpus.labels is None:
        raise CLIError(f"{path}: documents carry no labels (use --unsupervised for plain LDA)")
    return corpus.single_labels()


def _check_seen(y_test: np.ndarray, classes: np.ndarray, path: str) -> None:
    known = set(classes.tolist())
    unseen = sorted({str(v) for v in y_test.tolist() if v not in known})
    if unseen:
        raise CLIError(f"{path}: test labels {', '.join(unseen)} do not occur in the training data "
                       f"(training labels: {', '.join(map(str, classes.tolist()))})")


# -- commands -------------------------------------------------------------------------------------
def cmd_train(args) -> int:
    from .estimators import LDA
    from .reports import coherence_json

    if args.sampler == "blocked" and not args.unsupervised:
        raise CLIError("--sampler blocked is for plain LDA: add --unsupervised")
    for path in (args.out, args.trace, args.checkpoint):  # before training, not after it
        if path:
            check_writable(path)
    train = _read(args, args.train, "train")
    test = _read(args, args.test, "test", vocabulary=train.vocabulary) if args.test else None
    common = dict(alpha_sum=args.alpha_sum, beta=args.beta, n_iter=args.iters, sampler=args.sampler,
                  trace=bool(args.trace),
                  light_variant=args.light_variant, phi_every=args.phi_every, proposal=args.proposal,
                  n_mh=args.n_mh, n_jobs=args.n_jobs, random_state=args.seed, verbose=int(_show_progress(args)),
                  checkpoint_every=args.checkpoint_every, checkpoint_path=args.checkpoint,
                  resume=args.resume, backend=args.backend, n_workers=args.workers,
                  ray_address=args.address)
    common.update({name: value for name, value in (("n_infer_burn", args.infer_burn), ("n_infer_avg", args.infer_avg))
                   if value is not None})
    if args.resume and args.checkpoint and not os.path.exists(args.checkpoint):
        _warn(args, f"{args.checkpoint}: no checkpoint yet, starting from the first iteration")
    if args.unsupervised:
        model = LDA(args.topics, block_simulation=args.block_simulation, trace_every=args.trace_every,
                    **common).fit(train, heldout=test if args.trace else None)
    else:
        model, task, y_test = _fit_supervised(args, train, test, common)
    result = _train_summary(model, train, args)
    result.update({k: model.fit_stats_[k] for k in ("backend", "n_workers", "resumed_from_iteration")
                   if k in model.fit_stats_})
    if test is not None:
        result["n_test_docs"] = test.n_docs
        result["test_empty_skipped"] = test.n_empty_skipped
        result["test_oov_dropped"] = test.n_oov_dropped
        npmi = coherence_json("npmi", _coherence(model, test, "npmi", 10))["coherence_mean"]
        if npmi is not None:  # the mean NPMI of each topic's top 10 words in the test documents
            result["coherence_npmi"] = npmi
        if args.unsupervised:
            result["perplexity"] = model.perplexity(test)
        else:
            from .tasks import measures
            result.update(measures(task, y_test, model.predict(test)))
    if args.out:
        model.save(args.out)
        result["model"] = args.out
    if args.trace:
        atomic_write_text(args.trace, json.dumps(model.trace_, indent=1) + "\n")
        result["trace"] = args.trace
    _report(model, result, args)
    return 0


def _fit_supervised(args, train: Corpus, test: Corpus | None, common: dict):
    """Pick the task from the labels (or --task), build the estimator, fit it; return it, the task
    and the test targets (None without --test)."""
    from .estimators import MedLDAClassifier
    from .regression import MedLDARegressor
    from .tasks import detect_task, label_matrix, targets

    if train.labels is None:
        raise CLIError(f"{args.train}: documents carry no labels (use --unsupervised for plain LDA)")
    task = detect_task(train) if args.task == "auto" else args.task
    if args.loss is not None and (task == "regression") != (args.loss in ("epsilon", "squared")):
        raise CLIError(f"--loss {args.loss} does not fit a {task} task (labels of {args.train})")
    if task == "regression":
        if args.positive_cost is not None:
            raise CLIError("--positive-cost is for classification; this is a regression task")
        c = {} if args.c is None else {"c": args.c}
        model = MedLDARegressor(args.topics, loss=args.loss or "epsilon", epsilon=args.epsilon,
                                sigma2=args.sigma2, eta_draw=args.eta_draw, **c, **common)
    else:
        margin = "auto" if args.margin is None else args.margin
        model = MedLDAClassifier(args.topics, c="auto" if args.c is None else args.c, margin=margin,
                                 sigma2=args.sigma2,
                                 positive_cost="auto" if args.positive_cost is None else args.positive_cost,
                                 loss=args.loss or "hinge", strategy=args.strategy, eta_draw=args.eta_draw,
                                 **common)
    names = None
    if task == "multilabel":
        y, names, _ = label_matrix(train)
    else:
        y = targets(train, task)
    y_test = None
    if test is not None:
        if test.labels is None:
            raise CLIError(f"{args.test}: documents carry no labels")
        if task == "multilabel":
            y_test, _, dropped = label_matrix(test, names)
            if dropped:
                _warn(args, f"{args.test}: ignored {dropped} labels that no training document carries")
        else:
            y_test = targets(test, task)
            if task == "classification":
                _check_seen(y_test, np.unique(y), args.test)
    model.fit(train, y)
    if names is not None:
        model.classes_ = names  # label names instead of column indices
    return model, task, y_test


def _train_summary(model, train: Corpus, args) -> dict:
    stats = model.fit_stats_
    result = {
        "n_topics": model.n_topics, "n_iter": model.n_iter, "sampler": model.sampler,
        "train_seconds": stats["train_seconds"], "compile_seconds": stats["compile_seconds"],
        "tokens_per_second": stats["tokens_per_second"], "n_train_docs": train.n_docs,
        "n_train_tokens": train.n_tokens, "n_words": train.n_words,
        "train_empty_skipped": train.n_empty_skipped, "log_joint": model.log_joint_,
    }
    if hasattr(model, "train_accuracy_"):
        result["train_accuracy"] = model.train_accuracy_
    if hasattr(model, "train_score_"):
        result["train_r2"] = model.train_score_
    for key in ("loss", "strategy"):
        if key in model.get_params():
            result[key] = model.get_params()[key]
    if "wall_seconds" in stats:
        result["wall_seconds"] = stats["wall_seconds"]
    return result


def _report(model, result: dict, args) -> None:
    from .reports import class_topic_lines, topic_lines, topics_json

    if args.json:
        result.update(topics_json(model, args.top_words if hasattr(args, "top_words") else 10))
        print(json.dumps(result))
        return
    if args.quiet:
        for key in ("accuracy", "f1_micro", "f1_macro", "r2", "perplexity"):
            if key in result:
                print(f"{key}: {result[key]:.4f}")
        return
    print(f"trained {result['n_topics']} topics, {result['n_iter']} iterations ({result['sampler']}) on "
          f"{result['n_train_docs']} documents, {result['n_train_tokens']} tokens: "
          f"{result['train_seconds']:.2f} s ({result['tokens_per_second'] / 1e6:.2f}M tokens/s; "
          f"compile {result['compile_seconds']:.2f} s)")
    for key in ("train_accuracy", "train_r2", "accuracy", "f1_micro", "f1_macro", "r2", "perplexity", "coherence_npmi"):
        if key in result:
            print(f"{key.replace('_', ' ')}: {result[key]:.4f}")
    print("\ntopics:")
    print("\n".join(topic_lines(model, getattr(args, "top_words", 10))))
    if hasattr(model, "eta_samples_"):
        print("\ntopics that weigh most for each class:")
        print("\n".join(class_topic_lines(model)))
    if "model" in result:
        print(f"\nmodel saved to {result['model']}")


def cmd_predict(args) -> int:
    from .readers import write_lines

    model = _load_with_jobs(args)
    if not hasattr(model, "predict"):
        raise CLIError(f"{args.model}: an unsupervised LDA model cannot predict labels")
    if args.proba and not hasattr(model, "predict_proba"):
        raise CLIError(f"{args.model}: --proba needs a classifier with a probabilistic loss (logistic); "
                       f"this model uses loss={getattr(model, 'loss', None)!r}")
    task = _model_task(model)
    if args.out:
        check_writable(args.out)
    if args.explain < 0:
        raise CLIError("--explain must be a number of topics, 0 or more")
    corpus = _read(args, args.input, "test", vocabulary=_model_vocabulary(model))
    zbar = model.transform(corpus)  # one inference for labels, probabilities and explanations
    if hasattr(model, "classes_"):
        omega = model._decision_from(zbar)
        pred = model._labels_from(omega)
        proba = model._proba_from(omega) if args.proba else None
    else:
        pred, proba = model._predict_from(zbar), None
    explained = _explanations(model, zbar, pred, args.explain, task) if args.explain else None
    result = {"n_docs": corpus.n_docs, "empty_skipped": corpus.n_empty_skipped, "oov_dropped": corpus.n_oov_dropped}
    if corpus.labels is not None:
        from .tasks import measures
        result.update(measures(task, _model_targets(model, corpus, args.input), pred))
    if task == "multilabel":  # one line per document: its predicted labels, comma-separated
        pred = np.array([",".join(str(c) for c, on in zip(model.classes_, row) if on) for row in pred])
    labels = [str(p) for p in pred.tolist()]
    lines = labels
    names = [str(c) for c in model.classes_] if proba is not None else []
    if proba is not None or explained is not None:  # tab-separated columns under a header
        rows = [[label] for label in labels]
        if proba is not None:
            for row, p in zip(rows, proba):
                row.extend(f"{v:.6g}" for v in p)
        if explained is not None:
            for row, cell in zip(rows, explained[0]):
                row.append(cell)
        header = ["label", *names] + (["topic:contribution"] if explained is not None else [])
        lines = ["\t".join(header)] + ["\t".join(row) for row in rows]
    if args.out:
        write_lines(args.out, lines)
        result["predictions"] = args.out
    if args.json:
        if not args.out:
            result["labels"] = labels
            if proba is not None:
                result["classes"] = names
                result["proba"] = proba.tolist()
            if explained is not None:
                result["explanations"] = explained[1]
        print(json.dumps(result))
    else:
        if not args.out:
            print("\n".join(lines))
        for key in ("accuracy", "f1_micro", "f1_macro", "r2"):
            if key in result:
                print(f"{key}: {result[key]:.4f}", file=sys.stderr)
    return 0


def cmd_transform(args) -> int:
    """Infer each document's topic proportions (the model's ``transform``: LDA's theta, a
    supervised model's zbar, the features its classifier reads) and write or print them."""
    from .reports import proportion_lines

    model = _load_with_jobs(args)
    as_npy = bool(args.out) and args.out.endswith(".npy")
    if as_npy and args.top:
        raise CLIError("--top writes topic:proportion text; give --out a name not ending in .npy")
    if args.out:
        check_writable(args.out)
    corpus = _read(args, args.input, "test", vocabulary=_model_vocabulary(model))
    theta = model.transform(corpus)
    result = {"n_docs": corpus.n_docs, "n_topics": theta.shape[1], "empty_skipped": corpus.n_empty_skipped,
              "oov_dropped": corpus.n_oov_dropped}
    lines = None if as_npy else proportion_lines(theta, args.top)
    if args.out:
        if as_npy:
            atomic_write(args.out, lambda f: np.save(f, theta))
        else:
            from .readers import write_lines
            write_lines(args.out, lines)
        result["proportions"] = args.out
    if args.json:
        if not args.out:
            result["proportions"] = theta.tolist() if args.top is None else _top_records(theta, args.top)
        print(json.dumps(result))
    elif not args.out:
        print("\n".join(lines))
    return 0


def _top_records(theta: np.ndarray, n: int) -> list[list[dict]]:
    """Each document's ``n`` largest proportions as [{"topic": k, "proportion": p}, ...]."""
    from .explain import top_topics

    return [[{"topic": int(k), "proportion": float(v)} for k, v in zip(ids, values)]
            for ids, values in zip(*top_topics(theta, n))]


def _explanations(model, zbar: np.ndarray, pred: np.ndarray, n: int, task: str) -> tuple[list[str], list]:
    """Each document's ``n`` explaining topics (``medlda.explain``) as a text cell and as JSON:
    those that push toward its prediction (a regression: the largest either way); for a
    multi-label model, toward each label it predicts, as ``label: topic:contribution ...; ...``
    and a {label: records} object."""
    from .explain import top_topics
    from .reports import explanation_cell, explanation_json

    words = model.top_words(5)  # once: a sort of every topic's words

    def explained(ids, values, signed: bool):
        for i, v in zip(ids, values):
            keep = slice(None) if signed else v > 0  # a topic that pushes against a label is no reason for it
            yield explanation_cell(i[keep], v[keep]), explanation_json(words, i[keep], v[keep])

    if task != "multilabel":
        ids, values = top_topics(model._contributions_from(zbar), n, absolute=task == "regression")
        pairs = list(explained(ids, values, task == "regression"))
        return [cell for cell, _ in pairs], [record for _, record in pairs]
    cells, records = [[] for _ in pred], [{} for _ in pred]
    for t, label in enumerate(model.classes_):
        on = np.flatnonzero(pred[:, t])
        if on.size:
            for d, (cell, record) in zip(on, explained(*top_topics(model._contributions_from(zbar[on], t), n), False)):
                cells[d].append(f"{label}: {cell}")
                records[d][str(label)] = record
    return ["; ".join(c) for c in cells], records


def _coherence(model, docs: Corpus, measure: str, n_words: int) -> np.ndarray:
    if n_words < 2:
        raise CLIError("coherence needs --top-words of at least 2")
    return model.coherence(docs, measure, n_words)


def _load_with_jobs(args):
    """The saved model of --model, with --n-jobs (if given) overriding its n_jobs."""
    from .persistence import load_model

    model = load_model(args.model)
    if args.n_jobs is not None:
        if args.n_jobs == 0:
            raise CLIError("--n-jobs must be a non-zero integer")
        model.set_params(n_jobs=args.n_jobs)
    return model


def _model_vocabulary(model) -> np.ndarray:
    """The words a saved model knows (word ids as text when it was fitted on a matrix)."""
    if model.vocabulary_ is not None:
        return model.vocabulary_
    return np.array([str(v) for v in range(model.n_features_in_)])


def _model_task(model) -> str:
    return ("regression" if hasattr(model, "y_mean_") else
            "multilabel" if getattr(model, "multilabel_", False) else "classification")


def _model_targets(model, corpus: Corpus, path: str):
    """The labels (or responses) of ``corpus`` in the form ``model`` predicts them."""
    from .tasks import targets

    task = _model_task(model)
    if task == "multilabel":
        return targets(corpus, task, names=np.asarray(model.classes_, dtype=str))
    y = targets(corpus, task)
    if task == "classification":
        _check_seen(y, model.classes_, path)
    return y


def cmd_info(args) -> int:
    from .persistence import load_model, read_metadata
    from .reports import model_summary, summary_lines

    summary = {"model": args.model, **model_summary(load_model(args.model), read_metadata(args.model))}
    print(json.dumps(summary) if args.json else "\n".join(summary_lines(summary)))
    return 0


def cmd_topics(args) -> int:
    from .persistence import load_model
    from .reports import class_topic_lines, coherence_json, topic_lines, topic_order, topics_json

    model = load_model(args.model)
    if args.sort == "coherence" and not args.coherence:
        raise CLIError("--sort coherence needs --coherence DATA, the documents to score the topics in")
    coherence = None
    if args.coherence:
        docs = _read(args, args.coherence, args.split, vocabulary=_model_vocabulary(model))
        coherence = (args.measure, _coherence(model, docs, args.measure, args.top_words))
    if args.json:
        result = topics_json(model, args.top_words, args.class_topics)
        if coherence is not None:
            result.update(coherence_json(*coherence))
        print(json.dumps(result))
        return 0
    order = topic_order(model, args.sort, None if coherence is None else coherence[1])
    print("\n".join(topic_lines(model, args.top_words, coherence, order)))
    if coherence is not None:
        mean = coherence_json(*coherence)["coherence_mean"]
        print(f"mean {args.measure} coherence of the top {args.top_words} words in {args.coherence}: "
              + ("undefined" if mean is None else f"{mean:+.4f}"))
    if hasattr(model, "eta_samples_"):
        print("\ntopics that weigh most for each class:")
        print("\n".join(class_topic_lines(model, args.class_topics, args.top_words)))
    return 0


def cmd_plot(args) -> int:
    """Draw one figure of a saved model and write it atomically to --out."""
    try:
        import matplotlib
    except ImportError:
        raise CLIError("plots need matplotlib: pip install 'medlda[plots]'") from None
    matplotlib.use("Agg")  # files only: no display needed
    from . import plots

    model = _load_with_jobs(args)
    check_writable(args.out)
    plots.figure_format(args.out)
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
        fig = plots.plot_topics(model, ids, n_words=args.top_words or 10)
    elif args.kind == "class-topics":
        fig = plots.plot_class_topics(model, args.class_topics, n_words=args.top_words or 5)
    elif args.kind == "explain":
        corpus = _read(args, args.input, "test", vocabulary=_model_vocabulary(model))
        fig = plots.plot_explanation(model, corpus, args.doc, args.n_topics, n_words=args.top_words or 5,
                                     label=args.label)
    else:
        corpus = _read(args, args.input, "test", vocabulary=_model_vocabulary(model))
        y = None
        if corpus.labels is not None and hasattr(model, "predict"):
            y = _model_targets(model, corpus, args.input)
        if args.kind == "map":
            fig = plots.plot_topic_map(model, corpus, None if y is None or np.ndim(y) != 1 else y,
                                       method=args.method, random_state=args.seed, n_jobs=args.n_jobs)
        elif y is None:
            raise CLIError(f"{args.input}: --kind {args.kind} needs labeled documents and a supervised model")
        elif args.kind == "confusion":
            fig = plots.plot_confusion(model, corpus, y)
        else:
            fig = plots.plot_predictions(model, corpus, y)
    plots.save_figure(fig, args.out, dpi=args.dpi)
    print(f"figure written to {args.out}", file=sys.stderr)
    return 0


def _int_id(text: str, flag: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise CLIError(f"{flag}: {text!r} is not a topic id") from None


def cmd_demo(args) -> int:
    """Draw a labeled corpus from the model (known topics and classifier), train, evaluate."""
    from .estimators import MedLDAClassifier
    from .synthetic import make_supervised_corpus

    corpus, truth = make_supervised_corpus(args.docs, args.topics, random_state=args.seed)
    n_train = int(0.8 * corpus.n_docs)
    train, test = corpus.subset(np.arange(n_train)), corpus.subset(np.arange(n_train, corpus.n_docs))
    y = corpus.single_labels()
    if not (args.quiet or args.json):
        print(f"demo: {corpus.n_docs} documents drawn from a supervised topic model with "
              f"{args.topics} topics ({corpus.n_words} words, labels from a known classifier); "
              f"training on {train.n_docs}, testing on {test.n_docs}")
    model = MedLDAClassifier(args.topics, c=1.0, margin=1.0, n_iter=args.iters, sampler=args.sampler,
                             random_state=args.seed, verbose=int(_show_progress(args)))
    model.fit(train, y[:n_train])
    result = _train_summary(model, train, args)
    result["accuracy"] = float(model.score(test, y[n_train:]))
    result["n_test_docs"] = test.n_docs
    result["topic_recovery_l1"] = _recovery_l1(model.topic_word_, truth.topic_word)
    if not (args.quiet or args.json):
        print(f"planted topics recovered: mean L1 distance {result['topic_recovery_l1']:.3f} "
              "between matched learned and true topics (0 = identical, 2 = disjoint)")
    _report(model, result, args)
    return 0


def _recovery_l1(learned: np.ndarray, true: np.ndarray) -> float:
    """Mean L1 distance between learned and true topics after the best one-to-one matching."""
    from scipy.optimize import linear_sum_assignment

    cost = np.abs(learned[:, None, :] - true[None]).sum(-1)
    rows, cols = linear_sum_assignment(cost)
    return float(cost[rows, cols].mean())


def _warn(args, message: str) -> None:
    """A warning on stderr, unless --quiet or --json asked for silence."""
    if not (getattr(args, "quiet", False) or getattr(args, "json", False)):
        print(f"medlda: warning: {message}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
