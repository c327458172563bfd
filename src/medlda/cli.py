"""Command line: ``medlda train | predict | topics | demo``. Only this layer prints."""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from . import __version__
from .corpus import Corpus
from .exceptions import MedLDAError
from .samplers import LIGHT_VARIANTS, SAMPLERS

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
    t.add_argument("--sampler", choices=SAMPLERS, default="gibbs")
    t.add_argument("--seed", type=int, default=None, help="random seed (same seed, same model)")
    t.add_argument("--light-variant", choices=LIGHT_VARIANTS, default="partial",
                   help="light sampler: 'partial' (exact, phi drawn) or 'collapsed' (the papers')")
    t.add_argument("--proposal", choices=["mixture", "cycle", "doc", "word", "exp"], default="mixture")
    t.add_argument("--n-mh", type=int, default=6, help="MH steps per token (light)")
    t.add_argument("--alpha-sum", type=float, default=6.4)
    t.add_argument("--beta", type=float, default=0.01)
    t.add_argument("--c", type=float, default=1.6, help="regularization constant c (default 1.6)")
    t.add_argument("--margin", type=float, default=None,
                   help="hinge margin l (default: 164 for two classes, 64 for more, as in the papers)")
    t.add_argument("--sigma2", type=float, default=1.0, help="prior variance of eta (default 1)")
    t.add_argument("--unsupervised", action="store_true", help="plain LDA: ignore labels")
    t.add_argument("--out", help="save the fitted model to this file")
    t.add_argument("--top-words", type=int, default=10)
    _output_args(t)
    t.set_defaults(func=cmd_train)

    r = sub.add_parser("predict", help="predict labels of documents with a saved model")
    r.add_argument("--model", required=True)
    _data_args(r, "--input", required=True, help="documents to label")
    r.add_argument("--out", help="write one predicted label per line to this file")
    _output_args(r)
    r.set_defaults(func=cmd_predict)

    s = sub.add_parser("topics", help="top words per topic and, for a supervised model, per class")
    s.add_argument("--model", required=True)
    s.add_argument("--top-words", type=int, default=10)
    s.add_argument("--class-topics", type=int, default=3, help="topics listed per class")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_topics)

    d = sub.add_parser("demo", help="train and evaluate on data drawn from the model itself")
    d.add_argument("--docs", type=int, default=2000)
    d.add_argument("--topics", type=int, default=10)
    d.add_argument("--iters", type=int, default=100)
    d.add_argument("--sampler", choices=SAMPLERS, default="gibbs")
    d.add_argument("--seed", type=int, default=0)
    _output_args(d)
    d.set_defaults(func=cmd_demo)
    return p


def _data_args(p, flag: str, required: bool, help: str) -> None:
    p.add_argument(flag, required=required, help=help)
    p.add_argument("--format", choices=["auto", "bow", "ldac", "folder"], default="auto")
    p.add_argument("--vocab", help="vocabulary file for lda-c data (lines 'id word' or one word a line)")
    p.add_argument("--categories", help="comma-separated labels to keep (folder data)")


def _output_args(p) -> None:
    p.add_argument("--json", action="store_true", help="print one JSON object, nothing else")
    p.add_argument("--quiet", action="store_true", help="no progress bar or report")


def _show_progress(args) -> bool:
    return not (args.quiet or args.json) and sys.stderr.isatty()


# -- reading --------------------------------------------------------------------------------------
def _read(args, path: str, role: str, vocabulary=None) -> Corpus:
    from .readers import folder_splits, guess_format, read_corpus

    fmt = args.format if args.format != "auto" else guess_format(path)
    kwargs = {}
    if fmt == "folder":
        kwargs["subset"] = role if role in folder_splits(path) else None
        if args.categories:
            kwargs["categories"] = [c.strip() for c in args.categories.split(",") if c.strip()]
    if fmt == "ldac" and args.vocab:
        kwargs["vocab_path"] = args.vocab
    corpus = read_corpus(path, format=fmt, vocabulary=vocabulary, **kwargs)
    if corpus.n_empty_skipped:
        _warn(args, f"{path}: skipped {corpus.n_empty_skipped} empty documents")
    if corpus.n_oov_dropped:
        _warn(args, f"{path}: dropped {corpus.n_oov_dropped} out-of-vocabulary tokens")
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
    from .estimators import LDA, MedLDAClassifier

    train = _read(args, args.train, "train")
    test = _read(args, args.test, "test", vocabulary=train.vocabulary) if args.test else None
    common = dict(alpha_sum=args.alpha_sum, beta=args.beta, n_iter=args.iters, sampler=args.sampler,
                  light_variant=args.light_variant, proposal=args.proposal, n_mh=args.n_mh,
                  random_state=args.seed, verbose=int(_show_progress(args)))
    if args.unsupervised:
        model = LDA(args.topics, **common).fit(train)
    else:
        y = _labels(train, args.train)
        margin = "auto" if args.margin is None else args.margin
        model = MedLDAClassifier(args.topics, c=args.c, margin=margin, sigma2=args.sigma2, **common)
        y_test = None
        if test is not None:
            y_test = _labels(test, args.test)
            _check_seen(y_test, np.unique(y), args.test)
        model.fit(train, y)
    result = _train_summary(model, train, args)
    if test is not None:
        result["n_test_docs"] = test.n_docs
        result["test_empty_skipped"] = test.n_empty_skipped
        result["test_oov_dropped"] = test.n_oov_dropped
        if args.unsupervised:
            result["perplexity"] = model.perplexity(test)
        else:
            result["accuracy"] = float(model.score(test, y_test))
    if args.out:
        model.save(args.out)
        result["model"] = args.out
    _report(model, result, args)
    return 0


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
    return result


def _report(model, result: dict, args) -> None:
    from .reports import class_topic_lines, topic_lines, topics_json

    if args.json:
        result.update(topics_json(model, args.top_words if hasattr(args, "top_words") else 10))
        print(json.dumps(result))
        return
    if args.quiet:
        for key in ("accuracy", "perplexity"):
            if key in result:
                print(f"{key}: {result[key]:.4f}")
        return
    print(f"trained {result['n_topics']} topics, {result['n_iter']} iterations ({result['sampler']}) on "
          f"{result['n_train_docs']} documents, {result['n_train_tokens']} tokens: "
          f"{result['train_seconds']:.2f} s ({result['tokens_per_second'] / 1e6:.2f}M tokens/s; "
          f"compile {result['compile_seconds']:.2f} s)")
    for key in ("train_accuracy", "accuracy", "perplexity"):
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
    from .persistence import load_model
    from .readers import write_lines

    model = load_model(args.model)
    if not hasattr(model, "predict"):
        raise CLIError(f"{args.model}: an unsupervised LDA model cannot predict labels")
    vocab = model.vocabulary_ if model.vocabulary_ is not None else np.array([str(v) for v in range(model.n_features_in_)])
    corpus = _read(args, args.input, "test", vocabulary=vocab)
    pred = model.predict(corpus)
    result = {"n_docs": corpus.n_docs, "empty_skipped": corpus.n_empty_skipped, "oov_dropped": corpus.n_oov_dropped}
    if corpus.labels is not None:
        y = corpus.single_labels()
        _check_seen(y, model.classes_, args.input)
        result["accuracy"] = float(np.mean(pred == y))
    if args.out:
        write_lines(args.out, [str(p) for p in pred.tolist()])
        result["predictions"] = args.out
    if args.json:
        if not args.out:
            result["labels"] = [str(p) for p in pred.tolist()]
        print(json.dumps(result))
    else:
        if not args.out:
            print("\n".join(str(p) for p in pred.tolist()))
        if "accuracy" in result:
            print(f"accuracy: {result['accuracy']:.4f}", file=sys.stderr)
    return 0


def cmd_topics(args) -> int:
    from .persistence import load_model
    from .reports import class_topic_lines, topic_lines, topics_json

    model = load_model(args.model)
    if args.json:
        print(json.dumps(topics_json(model, args.top_words, args.class_topics)))
        return 0
    print("\n".join(topic_lines(model, args.top_words)))
    if hasattr(model, "eta_samples_"):
        print("\ntopics that weigh most for each class:")
        print("\n".join(class_topic_lines(model, args.class_topics, args.top_words)))
    return 0


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
