"""What the commands share: reading data and saved models, the error type they raise, warnings."""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import warnings

import numpy as np

from medlda.cli.progress import reading
from medlda.data.corpus import NPY_META, Corpus
from medlda.data.readers.tables import TABLE_FORMATS
from medlda.exceptions import MedLDAError


class CLIError(MedLDAError):
    """A problem with the command line's inputs, reported without a traceback."""


def check_outputs(outputs: dict[str, str | None], inputs: dict[str, str | None]) -> None:
    """Refuse, before any work, an output file (flag -> path; None: not given) that is one of the
    command's inputs (the same file by any name: a link, a relative path), lies inside an input
    folder, or is another output: writing it would destroy what the command reads or writes."""
    given_out = [(flag, path) for flag, path in outputs.items() if path]
    given_in = [(flag, path) for flag, path in inputs.items() if path and os.path.exists(path)]
    for i, (flag, path) in enumerate(given_out):
        for other, source in given_in:
            if _same_file(path, source):
                raise CLIError(f"{flag} {path} is the file {other} reads; writing it would overwrite that "
                               "input: choose another path")
            if os.path.isdir(source) and _inside(path, source):
                raise CLIError(f"{flag} {path} lies inside the folder {other} {source}; writing it would change "
                               "that input: choose a path outside it")
        for other, target in given_out[:i]:
            if _same_file(path, target):
                raise CLIError(f"{flag} and {other} name the same file ({path}); one would overwrite the other: "
                               "give each its own path")


def _same_file(a: str, b: str) -> bool:
    """Whether paths ``a`` and ``b`` name one file (both existing: the same inode; else the same
    absolute path once links are resolved)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _inside(path: str, folder: str) -> bool:
    real, root = os.path.realpath(path), os.path.realpath(folder)
    return os.path.commonpath([real, root]) == root


def _silenced(args) -> bool:
    """Whether --quiet or --json asked for no progress bar (commands without them: no); warnings
    are never silenced (``warn``)."""
    return getattr(args, "quiet", False) or getattr(args, "json", False)


def show_progress(args) -> bool:
    """Progress bars on a terminal, unless silenced."""
    return not _silenced(args) and sys.stderr.isatty()


def read_data(args, path: str, role: str, vocabulary=None, trained_label_column: str | None = None,
              vectorizer=None) -> Corpus:
    """The documents of ``path`` as --format and the table options say; ``trained_label_column``:
    the label column a saved model was trained on, read when --label-column is not given and the
    table has it; ``vectorizer``: how raw text became the training words (the training corpus'
    or the model's ``vectorizer_``), used for raw text read over ``vocabulary``."""
    from medlda.data.readers import FilesSkippedWarning, folder_splits, is_collection, read_corpus

    if not os.path.exists(path):
        raise CLIError(f"{path}: no such file")
    if os.path.isfile(os.path.join(path, NPY_META)):
        return _read_npy(path, vocabulary)
    fmt = data_format(args, path)
    kwargs = {}
    if fmt == "folder":
        kwargs["subset"] = role if role in folder_splits(path) else None
        if args.categories:
            kwargs["categories"] = [c.strip() for c in args.categories.split(",") if c.strip()]
    if fmt == "ldac" and args.vocab:
        if not os.path.exists(args.vocab):
            raise CLIError(f"{args.vocab}: no such file (--vocab)")
        kwargs["vocab_path"] = args.vocab
    if fmt == "reuters" or (fmt == "ldac" and is_collection(path)):
        kwargs["subset"] = role if role in ("train", "test") else "test"
    if fmt in TABLE_FORMATS:
        label_column = args.label_column
        if label_column is None and trained_label_column in (table_columns(path, fmt) or ()):
            label_column = trained_label_column
        kwargs.update(text_column=args.text_column, label_column=label_column)
    elif args.text_column != "text" or args.label_column:
        raise CLIError(f"{path}: --text-column and --label-column are for tables (csv, tsv, jsonl), "
                       f"and this is {fmt} data")
    if vocabulary is None and role == "train":
        kwargs.update(training_vectorizer(args, path, fmt))
    elif vectorizer is not None and vocabulary is not None and fmt in RAW_TEXT:
        kwargs["vectorizer"] = vectorizer
    with (warnings.catch_warnings(record=True) as caught,
          reading(args, path, fmt, fmt in RAW_TEXT, kwargs.get("subset"))):
        warnings.simplefilter("always", FilesSkippedWarning)  # the readers' warnings, as one line each
        corpus = read_corpus(path, format=fmt, vocabulary=vocabulary, **kwargs)
    for warning in caught:
        if issubclass(warning.category, FilesSkippedWarning):
            warn(args, str(warning.message))
        else:
            warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
    if corpus.n_empty_skipped:
        warn(args, f"{path}: skipped {_count(corpus.n_empty_skipped, 'empty document')}")
    if corpus.n_oov_dropped:
        warn(args, f"{path}: dropped {_count(corpus.n_oov_dropped, 'out-of-vocabulary token')}")
    if corpus.n_docs == 0:
        hint = (f" (all {corpus.n_oov_dropped} tokens are words the model or training data does not know)"
                if corpus.n_oov_dropped else "")
        raise CLIError(f"{path}: no non-empty documents{hint}")
    return corpus


def _count(n: int, noun: str) -> str:
    """"1 noun" or "n nouns"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def data_format(args, path: str) -> str:
    """The format of ``path``: --format, or guessed from the name and first line."""
    from medlda.data.readers import guess_format

    return args.format if args.format != "auto" else guess_format(path)


def table_columns(path: str, fmt: str) -> list[str] | None:
    """The column names of a csv, tsv or jsonl table (its header, or its first object's keys);
    None for other data or a table unreadable here (the reader then says why)."""
    if fmt not in TABLE_FORMATS:
        return None
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            if fmt != "jsonl":
                return next(csv.reader(fh, delimiter="," if fmt == "csv" else "\t"), None)
            first = next((line for line in fh if line.strip()), None)
            row = json.loads(first) if first is not None else None
            return [str(k) for k in row] if isinstance(row, dict) else None
    except (OSError, UnicodeDecodeError, csv.Error, ValueError):
        return None


def no_labels_hint(args, path: str) -> str:
    """For an unlabeled table: which columns it has and how to name the label column; else ''."""
    if args.label_column:
        return ""
    columns = table_columns(path, data_format(args, path))
    if not columns:
        return ""
    return f"no column 'label' (columns: {', '.join(columns)}); name the label column with --label-column"


def model_label_column(model) -> str | None:
    """The table column a saved model's labels came from, if train was given --label-column."""
    selection = getattr(model, "data_selection_", None) or {}
    return selection.get("label_column") or getattr(model, "fit_stats_", {}).get("label_column")


def remember_label_column(model, args) -> None:
    """Keep --label-column in the model's fit statistics, saved with it, so that evaluate, predict
    and plot read the same column of a table without being told again."""
    if getattr(args, "label_column", None) and not getattr(args, "unsupervised", False):
        model.fit_stats_["label_column"] = args.label_column


def remember_data_selection(model, args) -> None:
    """Keep in the model (``data_selection_``, saved with it) what train read of --train: its
    format, the folder --categories, the table's --text-column and --label-column, so that the
    commands that apply the model read new data the same way (``resolve_data_selection``)."""
    path = args.train
    fmt = None if os.path.isfile(os.path.join(path, NPY_META)) else data_format(args, path)
    table = fmt in TABLE_FORMATS
    model.data_selection_ = {
        "format": fmt,
        "categories": (_categories(args.categories) or None) if fmt == "folder" and args.categories else None,
        "label_column": args.label_column if table and not getattr(args, "unsupervised", False) else None,
        "text_column": args.text_column if table else None,
    }


def _categories(text: str) -> list[str]:
    """--categories as a list of names."""
    return list(dict.fromkeys(c.strip() for c in text.split(",") if c.strip()))


def resolve_data_selection(args, model, path: str) -> argparse.Namespace:
    """The arguments with which to read ``path`` for ``model``: a copy of ``args`` taking each part
    of the model's data selection (``remember_data_selection``; older files: the label column of
    its fit statistics) that the command line left at its default and that applies to this data:
    the folder categories, the table's text and label columns (where the table has them), and the
    format where the file could be read either as bag-of-words or as raw text. What it takes is
    said in one line on stderr. Every command that reads data for a saved model reads it this way
    (``read_model_data``)."""
    selection = dict(getattr(model, "data_selection_", None) or {})
    selection["label_column"] = model_label_column(model)
    resolved = argparse.Namespace(**vars(args))
    if not os.path.exists(path) or os.path.isfile(os.path.join(path, NPY_META)):
        return resolved
    fmt = data_format(args, path)
    used = []
    stored = selection.get("format")
    if args.format == "auto" and stored != fmt and {stored, fmt} <= {"bow", "txt"}:
        resolved.format = fmt = stored
        used.append(f"format {stored}")
    if fmt == "folder" and not args.categories and selection.get("categories"):
        resolved.categories = ",".join(selection["categories"])
        used.append(f"categories {resolved.categories}")
    if fmt in TABLE_FORMATS:
        columns = table_columns(path, fmt) or ()
        for flag, default in (("text_column", "text"), ("label_column", None)):
            value = selection.get(flag)
            if getattr(args, flag) == default and value not in (None, "text", "label") and value in columns:
                setattr(resolved, flag, value)
                used.append(f"{flag.replace('_', ' ')} {value}")
    vectorizer = getattr(model, "vectorizer_", None)
    if vectorizer is not None and fmt in RAW_TEXT:
        preprocessing = _preprocessing_note(vectorizer, fmt)
        if preprocessing:
            used.append(f"text preprocessing: {preprocessing}")
    if used:
        note(args, f"using the model's data selection: {'; '.join(used)}")
    return resolved


def _preprocessing_note(vectorizer, fmt: str) -> str:
    """How the model's preprocessing of raw text differs from what the reader does by default for
    ``fmt`` data ('' where it does not): e-mail headers, quotes and stop words (the vocabulary is the model's)."""
    from medlda.data.text import vectorizer_settings

    try:
        settings = vectorizer_settings(vectorizer)
    except ValueError:
        return "its own vectorizer"
    parts = [f"{what} {'stripped' if settings[key] else 'kept'}" for key, what in
             (("news", "e-mail headers"), ("quotes", "quotes and signatures")) if settings[key] != (fmt == "folder")]
    stop = settings["stop_words"]
    if stop != "english":
        parts.append("stop words " + ("none" if stop is None else f"{len(stop)} of its own"))
    return ", ".join(parts)


def read_model_data(args, model, path: str, role: str = "test") -> Corpus:
    """The documents of ``path`` for a saved ``model``: read as the model's data selection says
    unless the command line says otherwise (``resolve_data_selection``), its raw text counted over
    the model's words with the model's preprocessing."""
    resolved = resolve_data_selection(args, model, path)
    return read_data(resolved, path, role, vocabulary=model_vocabulary(model),
                     vectorizer=getattr(model, "vectorizer_", None))


def note(args, message: str) -> None:
    """A line on stderr about what a command took from the model: always, as ``warn``'s, since
    it shapes the result (``args`` for symmetry with ``warn``)."""
    print(f"medlda: {message}", file=sys.stderr)


RAW_TEXT = ("folder", "reuters", "txt", *TABLE_FORMATS)
_TEXT_DEFAULTS = {"min_df": 3, "max_df": 1.0, "max_words": None, "stop_words": "english", "news": None}


def training_vectorizer(args, path: str, fmt: str) -> dict:
    """{"vectorizer": ...} for raw training text when --min-df, --max-df, --max-words,
    --stop-words or --news ask for other than the standard preprocessing; else {}."""
    from medlda.data.text import make_vectorizer

    given = {k: getattr(args, k, v) for k, v in _TEXT_DEFAULTS.items()}
    if given == _TEXT_DEFAULTS:
        return {}
    if fmt not in RAW_TEXT:
        flags = ["--" + k.replace("_", "-") for k in given if given[k] != _TEXT_DEFAULTS[k]]
        raise CLIError(f"{path}: {', '.join(flags)} {'shapes' if len(flags) == 1 else 'shape'} how raw text "
                       f"becomes words, and this is {fmt} data (already counted)")
    stop_words = given["stop_words"]
    if stop_words == "none":
        stop_words = None
    elif stop_words != "english":
        stop_words = _stop_word_file(stop_words)
    news = given["news"] or ("all" if fmt == "folder" else "none")  # as the readers do: folders, not Reuters or tables
    return {"vectorizer": make_vectorizer(news=news != "none", quotes=news == "all", min_df=given["min_df"],
                                          max_df=given["max_df"], max_features=given["max_words"],
                                          stop_words=stop_words)}


def _stop_word_file(path: str) -> list[str]:
    """Stop words from a file, one per line (blank lines and '#' comments skipped), lowercased."""
    if not os.path.isfile(path):
        raise CLIError(f"--stop-words: {path!r} is neither 'english', 'none' nor a file of stop words")
    with open(path, encoding="utf-8-sig", errors="replace") as fh:
        words = [line.strip().lower() for line in fh]
    return [w for w in words if w and not w.startswith("#")]


def _read_npy(path: str, vocabulary=None) -> Corpus:
    """A corpus folder written by Corpus.save_npy, its token arrays memory-mapped."""
    corpus = Corpus.load(path, mmap=True)
    if vocabulary is not None and not np.array_equal(corpus.vocabulary, vocabulary):
        raise CLIError(f"{path}: its vocabulary is not the training data's (save both with one vocabulary)")
    if corpus.n_docs == 0:
        raise CLIError(f"{path}: no non-empty documents")
    return corpus


def check_seen(y_test: np.ndarray, classes: np.ndarray, path: str) -> None:
    known = set(classes.tolist())
    unseen = sorted({str(v) for v in y_test.tolist() if v not in known})
    if unseen:
        raise CLIError(f"{path}: test labels {', '.join(unseen)} do not occur in the training data "
                       f"(training labels: {', '.join(map(str, classes.tolist()))})")


def load_with_jobs(args):
    """The saved model of --model, with --n-jobs and --inference (if given) overriding its own, and verbose
    as --quiet, --json and the terminal say."""
    from medlda.io.model_file import load_model

    model = load_model(args.model)
    model.set_params(verbose=int(show_progress(args)))  # an inference progress bar on a terminal only
    if args.n_jobs is not None:
        if args.n_jobs == 0:
            raise CLIError("--n-jobs must be a non-zero integer")
        model.set_params(n_jobs=args.n_jobs)
    if getattr(args, "inference", None) is not None:
        model.set_params(inference=args.inference)
    return model


def model_vocabulary(model) -> np.ndarray:
    """The words a saved model knows (word ids as text when it was fitted on a matrix)."""
    if model.vocabulary_ is not None:
        return model.vocabulary_
    return np.array([str(v) for v in range(model.n_features_in_)])


def model_targets(model, corpus: Corpus, path: str):
    """The labels (or responses) of ``corpus`` in the form ``model`` predicts them."""
    from medlda.data.tasks import targets
    from medlda.evaluation.scoring import model_task

    task = model_task(model)
    if task == "multilabel":
        return targets(corpus, task, names=np.asarray(model.classes_, dtype=str))
    if task == "classification":
        check_single_labels(corpus, "this model predicts one label per document, so it is scored against "
                                    "one true label each")
    y = targets(corpus, task)
    if task == "classification":
        check_seen(y, model.classes_, path)
    return y


def check_single_labels(corpus: Corpus, why: str) -> None:
    """Refuse documents without exactly one label, saying ``why`` one is needed (the library's
    message speaks of training, wrong for test data)."""
    bad = [d for d, lab in enumerate(corpus.labels or ()) if len(lab) != 1]
    if bad:
        count = "1 document does" if len(bad) == 1 else f"{len(bad)} documents do"
        raise CLIError(f"{count} not carry exactly one label (first: {corpus.where(bad[0])}, "
                       f"with {len(corpus.labels[bad[0]])}); {why}")


def warn(args, message: str) -> None:
    """A warning on stderr, always: warnings are about the data or change the result (empty
    documents skipped, unknown words dropped, a switch to multi-label), so --quiet (no progress,
    no chatter) and --json (stdout holds only the JSON) keep them; ``args`` is for symmetry with
    ``show_progress``, the rule being the same for every command."""
    print(f"medlda: warning: {message}", file=sys.stderr)


def coherence_of(model, docs: Corpus, measure: str, n_words: int, relevance: float = 1.0) -> np.ndarray:
    """Each topic's coherence (``model.coherence``) of its top ``n_words`` in ``docs``."""
    if n_words < 2:
        raise CLIError("coherence needs --top-words of at least 2")
    return model.coherence(docs, measure, n_words, relevance)


def doc_ids(corpus: Corpus) -> list[str]:
    """Each document's name: its file in a folder or archive, 'line N' of a bow, lda-c or table
    file, 'NEWID=N' in Reuters; else its place among the non-empty documents, from 1 (as plot --doc
    counts them)."""
    return list(corpus.doc_names) if corpus.doc_names is not None else [str(d + 1) for d in range(corpus.n_docs)]


def headless_matplotlib(what: str) -> None:
    """matplotlib on its file-only backend (no display), or a CLIError: ``what`` needs it."""
    try:
        import matplotlib
    except ImportError:
        raise CLIError(f"{what} need matplotlib: pip install 'medlda[plots]'") from None
    matplotlib.use("Agg")
