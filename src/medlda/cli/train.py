"""medlda train and medlda demo: fit a model, evaluate it, report."""

from __future__ import annotations

import json
import os

import numpy as np

from medlda.cli.common import (
    CLIError,
    check_outputs,
    check_seen,
    check_single_labels,
    coherence_of,
    no_labels_hint,
    read_data,
    remember_data_selection,
    remember_label_column,
    show_progress,
    warn,
)
from medlda.cli.flags import estimator_arguments, flag_of
from medlda.cli.progress import predicting, training
from medlda.cli.select import TEST_MEASURES, check_comparison, compare_settings, settings_grid
from medlda.data.corpus import Corpus
from medlda.io.atomic import atomic_write_text, check_writable
from medlda.samplers.choice import describe_choice


def cmd_train(args) -> int:
    if args.sampler == "blocked" and not args.unsupervised:
        raise CLIError("--sampler blocked is for plain LDA: add --unsupervised")
    stop_words = args.stop_words if args.stop_words not in ("english", "none") else None
    check_outputs({"--out": args.out, "--trace": args.trace, "--checkpoint": args.checkpoint_path},
                  {"--train": args.train, "--test": args.test, "--vocab": args.vocab, "--stop-words": stop_words})
    for path in (args.out, args.trace, args.checkpoint_path):  # before training, not after it
        if path:
            check_writable(path)
    if args.holdout is not None and args.test:
        raise CLIError("--holdout sets aside part of --train as test data; give it or --test, not both")
    if args.n_jobs == 0:
        raise CLIError("--n-jobs must be a non-zero integer (-1: all cores)")
    several = len(settings_grid(args)) > 1
    if several:  # before reading the data
        check_comparison(args)
    train = read_data(args, args.train, "train")
    test = (read_data(args, args.test, "test", vocabulary=train.vocabulary, vectorizer=train.vectorizer)
            if args.test else None)
    if args.holdout is not None:
        train, test = _hold_out(train, args.holdout, args.random_state, args)
    common = dict(trace=bool(args.trace), verbose=int(show_progress(args)))
    if args.resume and args.checkpoint_path and not os.path.exists(args.checkpoint_path):
        warn(args, f"{args.checkpoint_path}: no checkpoint yet, starting from the first iteration")
    if several:
        return compare_settings(args, train, test, common, _train_and_evaluate)
    model, result = _train_and_evaluate(args, train, test, common, settings_grid(args)[0])
    if args.out:
        model.save(args.out)
        result["model"] = args.out
    if args.trace:
        atomic_write_text(args.trace, json.dumps(model.trace_, indent=1) + "\n")
        result["trace"] = args.trace
    _report(model, result, args)
    return 0


def _train_and_evaluate(args, train: Corpus, test: Corpus | None, common: dict, setting: dict,
                        test_name: str | None = None):
    """Fit one model with ``setting`` (its number of topics ``n_components`` and any values chosen
    among several, ``medlda.cli.select``); return it and its summary, with its measures on
    ``test`` (if any; named ``test_name`` in messages, default --test or the --holdout part)."""
    from medlda import LDA
    from medlda.reporting.reports import coherence_json

    if args.unsupervised:
        _check_setting(setting, LDA, "plain LDA (--unsupervised)")
        model = LDA(setting["n_components"], **estimator_arguments(args, LDA, setting), **common)
        with training(args, model, train.n_docs):
            model.fit(train, heldout=test if args.trace else None)
    else:
        model, task, y_test = _fit_supervised(args, train, test, common, setting, test_name)
    remember_label_column(model, args)
    remember_data_selection(model, args)
    result = _train_summary(model, train, args)
    result["task"] = "unsupervised" if args.unsupervised else task
    result.update({k: model.fit_stats_[k] for k in ("backend", "n_workers", "resumed_from_iteration")
                   if k in model.fit_stats_})
    if args.holdout is not None:
        result["holdout"] = args.holdout
    if test is not None:
        result["n_test_docs"] = test.n_docs
        result["test_empty_skipped"] = test.n_empty_skipped
        result["test_oov_dropped"] = test.n_oov_dropped
        npmi = coherence_json("npmi", coherence_of(model, test, "npmi", 10))["coherence_mean"]
        if npmi is not None:  # the mean NPMI of each topic's top 10 words in the test documents
            result["coherence_npmi"] = npmi
        if args.unsupervised:
            result["perplexity"] = model.perplexity(test)
        else:
            from medlda.evaluation.metrics import measures
            from medlda.evaluation.scoring import predict_with_log_loss
            with predicting(args, test.n_docs, "test documents"):
                pred, extra = predict_with_log_loss(model, task, test, y_test)
            result.update(measures(task, y_test, pred), **extra)
    return model, result


def _hold_out(corpus: Corpus, fraction: float, seed: int | None, args) -> tuple[Corpus, Corpus]:
    """(train, test): a random ``fraction`` of the documents set aside, stratified by class when
    every document has one label (a class of one document stays in training), seeded by --seed."""
    n_test = int(round(fraction * corpus.n_docs))
    if not 1 <= n_test < corpus.n_docs:
        raise CLIError(f"--holdout {fraction} of {corpus.n_docs} documents leaves no test or no training document")
    return corpus.holdout(n_test, random_state=seed, stratify=not args.unsupervised)


def _check_setting(setting: dict, estimator: type, what: str) -> None:
    """Each compared parameter of ``setting`` must be one ``estimator`` has."""
    for name in setting:
        if name != "n_components" and name not in estimator.parameters:
            raise CLIError(f"{flag_of(name)} does not apply to {what}")


def _fit_supervised(args, train: Corpus, test: Corpus | None, common: dict, setting: dict,
                    test_name: str | None = None):
    """Pick the task from the labels (or --task), build the estimator with ``setting`` (see
    ``_train_and_evaluate``), fit it; return it, the task and the test targets (None without
    --test)."""
    from medlda import MedLDAClassifier
    from medlda.data.tasks import auto_task_warning, detect_task, label_matrix, targets
    from medlda.models.regressor import MedLDARegressor

    if train.labels is None:
        hint = no_labels_hint(args, args.train)
        if hint:
            raise CLIError(f"{args.train}: documents carry no labels: {hint}, or use --unsupervised "
                           "for plain LDA")
        raise CLIError(f"{args.train}: documents carry no labels (use --unsupervised for plain LDA)")
    task = detect_task(train) if args.task == "auto" else args.task
    note = auto_task_warning(train, task) if args.task == "auto" else None
    if note:  # blank, fractional or word labels among the others: say what was chosen and how to override
        warn(args, note)
    estimator = MedLDARegressor if task == "regression" else MedLDAClassifier
    for loss in args.loss or ():
        if loss not in estimator.parameters["loss"].rule.choices():
            raise CLIError(f"--loss {loss} does not fit a {task} task (labels of {args.train})")
    _check_setting(setting, estimator, f"a {task} task (labels of {args.train})")
    if task == "regression":
        if args.positive_cost is not None:
            raise CLIError("--positive-cost is for classification; this is a regression task")
        if args.class_weight is not None:
            raise CLIError("--class-weight is for classification; this is a regression task")
    model = estimator(setting["n_components"], **estimator_arguments(args, estimator, setting), **common)
    names = None
    if task == "multilabel":
        y, names, _ = label_matrix(train)
    else:
        y = targets(train, task)
    y_test = None
    test_name = test_name or args.test or f"{args.train} (its --holdout part)"
    if test is not None:
        if test.labels is None:
            raise CLIError(f"{test_name}: documents carry no labels")
        if task == "multilabel":
            y_test, _, dropped = label_matrix(test, names)
            if dropped:
                warn(args, f"{test_name}: ignored {dropped} labels that no training document carries")
        else:
            if task == "classification":
                check_single_labels(test, "the training data has one label per document, so must the test data")
            y_test = targets(test, task)
            if task == "classification":
                check_seen(y_test, np.unique(y), test_name)
    with training(args, model, train.n_docs):
        model.fit(train, y)
    if names is not None:
        model.classes_ = names  # label names instead of column indices
    return model, task, y_test


def _train_summary(model, train: Corpus, args) -> dict:
    stats = model.fit_stats_
    result = {
        "n_topics": model.n_components, "n_iter": model.max_iter, "sampler": model.sampler_,
        "sampler_choice": describe_choice(model),
        "train_seconds": stats["train_seconds"], "compile_seconds": stats["compile_seconds"],
        "tokens_per_second": stats["tokens_per_second"], "n_train_docs": train.n_docs,
        "n_train_tokens": train.n_tokens, "n_words": train.n_words,
        "train_empty_skipped": train.n_empty_skipped, "log_joint": model.log_joint_,
    }
    if model.sampler_ == "light":
        result["n_mh"] = model.n_mh_  # its MH steps per token ("auto" resolved)
    if hasattr(model, "train_accuracy_"):
        result["train_accuracy"] = model.train_accuracy_
    if hasattr(model, "train_score_"):
        result["train_r2"] = model.train_score_
    for key in ("loss", "strategy"):
        if key in model.get_params():
            result[key] = model.get_params()[key]
    for key in ("wall_seconds", "ridge_penalty"):
        if key in stats:
            result[key] = stats[key]
    return result


def _report(model, result: dict, args) -> None:
    from medlda.reporting.reports import class_topic_lines, topic_lines, topics_json

    tested = "holdout" if getattr(args, "holdout", None) is not None else "test"
    if args.json:
        result.update(topics_json(model, args.top_words if hasattr(args, "top_words") else 10))
        print(json.dumps(result))
        return
    if args.quiet:
        for key in TEST_MEASURES:
            if key in result:
                print(f"{_measure_name(key, tested)}: {result[key]:.4f}")
        return
    steps = f", {result['n_mh']} MH steps per token" if "n_mh" in result else ""
    print(f"sampler: {result['sampler_choice']}{steps}")
    print(f"trained {result['n_topics']} topics, {result['n_iter']} iterations on "
          f"{result['n_train_docs']} documents, {result['n_train_tokens']} tokens: "
          f"{result['train_seconds']:.2f} s ({result['tokens_per_second'] / 1e6:.2f}M tokens/s; "
          f"compile {result['compile_seconds']:.2f} s)")
    for key in ("train_accuracy", "train_r2", *TEST_MEASURES, "coherence_npmi"):
        if key in result:
            print(f"{_measure_name(key, tested)}: {result[key]:.4f}")
    print("\ntopics:")
    print("\n".join(topic_lines(model, getattr(args, "top_words", 10))))
    if hasattr(model, "eta_samples_"):
        print("\n" + "\n".join(class_topic_lines(model)))
    if "model" in result:
        print(f"\nmodel saved to {result['model']}")


def _measure_name(key: str, tested: str) -> str:
    """A result key as the report says it: a measure on the test data (--test, or the --holdout
    part; also the coherence, scored there) led by ``tested``, so that it is not taken for one on
    the training data; the JSON keeps the bare keys."""
    name = key.replace("_", " ")
    return f"{tested} {name}" if key in (*TEST_MEASURES, "coherence_npmi") else name


def cmd_demo(args) -> int:
    """Draw a labeled corpus from the model (known topics and classifier), train, evaluate."""
    from medlda import MedLDAClassifier
    from medlda.data.synthetic import make_supervised_corpus

    corpus, truth = make_supervised_corpus(args.docs, args.topics, random_state=args.seed)
    n_train = int(0.8 * corpus.n_docs)
    train, test = corpus.subset(np.arange(n_train)), corpus.subset(np.arange(n_train, corpus.n_docs))
    y = corpus.single_labels()
    if np.unique(y[:n_train]).size < 2:
        raise CLIError(f"the {n_train} training documents drawn all carry one class; draw more (--docs) or "
                       "another --seed")
    if not (args.quiet or args.json):
        print(f"demo: {corpus.n_docs} documents drawn from a supervised topic model with "
              f"{args.topics} topics ({corpus.n_words} words, labels from a known classifier); "
              f"training on {train.n_docs}, testing on {test.n_docs}")
    model = MedLDAClassifier(args.topics, c=1.0, margin=1.0, max_iter=args.iters, sampler=args.sampler,
                             random_state=args.seed, verbose=int(show_progress(args)))
    with training(args, model, train.n_docs):
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
