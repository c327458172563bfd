"""What the commands share: reading data and saved models, the error type they raise, warnings."""

from __future__ import annotations

import os
import sys

import numpy as np

from ..corpus import NPY_META, Corpus
from ..exceptions import MedLDAError
from ..tables import TABLE_FORMATS


class CLIError(MedLDAError):
    """A problem with the command line's inputs, reported without a traceback."""


def _silenced(args) -> bool:
    """Whether --quiet or --json asked for no progress or warnings (commands without them: no)."""
    return getattr(args, "quiet", False) or getattr(args, "json", False)


def show_progress(args) -> bool:
    """Progress bars on a terminal, unless silenced."""
    return not _silenced(args) and sys.stderr.isatty()


def read_data(args, path: str, role: str, vocabulary=None) -> Corpus:
    from ..readers import folder_splits, guess_format, is_collection, read_corpus

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
    if fmt in TABLE_FORMATS:
        kwargs.update(text_column=args.text_column, label_column=args.label_column)
    elif args.text_column != "text" or args.label_column:
        raise CLIError(f"{path}: --text-column and --label-column are for tables (csv, tsv, jsonl), "
                       f"and this is {fmt} data")
    if vocabulary is None and role == "train":
        kwargs.update(_vectorizer_arg(args, path, fmt))
    corpus = read_corpus(path, format=fmt, vocabulary=vocabulary, **kwargs)
    if corpus.n_empty_skipped:
        warn(args, f"{path}: skipped {corpus.n_empty_skipped} empty documents")
    if corpus.n_oov_dropped:
        warn(args, f"{path}: dropped {corpus.n_oov_dropped} out-of-vocabulary tokens")
    if corpus.n_docs == 0:
        hint = (f" (all {corpus.n_oov_dropped} tokens are words the model or training data does not know)"
                if corpus.n_oov_dropped else "")
        raise CLIError(f"{path}: no non-empty documents{hint}")
    return corpus


RAW_TEXT = ("folder", "reuters", *TABLE_FORMATS)
_TEXT_DEFAULTS = {"min_df": 3, "max_df": 1.0, "max_words": None, "stop_words": "english"}


def _vectorizer_arg(args, path: str, fmt: str) -> dict:
    """{"vectorizer": ...} for raw training text when --min-df, --max-df, --max-words or
    --stop-words ask for other than the standard preprocessing; else {}."""
    from ..text import make_vectorizer

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
    return {"vectorizer": make_vectorizer(news=fmt in ("folder", "reuters"), min_df=given["min_df"],
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
    """The saved model of --model, with --n-jobs (if given) overriding its n_jobs, and verbose
    as --quiet, --json and the terminal say."""
    from ..persistence import load_model

    model = load_model(args.model)
    model.set_params(verbose=int(show_progress(args)))  # an inference progress bar on a terminal only
    if args.n_jobs is not None:
        if args.n_jobs == 0:
            raise CLIError("--n-jobs must be a non-zero integer")
        model.set_params(n_jobs=args.n_jobs)
    return model


def model_vocabulary(model) -> np.ndarray:
    """The words a saved model knows (word ids as text when it was fitted on a matrix)."""
    if model.vocabulary_ is not None:
        return model.vocabulary_
    return np.array([str(v) for v in range(model.n_features_in_)])


def model_targets(model, corpus: Corpus, path: str):
    """The labels (or responses) of ``corpus`` in the form ``model`` predicts them."""
    from ..tasks import model_task, targets

    task = model_task(model)
    if task == "multilabel":
        return targets(corpus, task, names=np.asarray(model.classes_, dtype=str))
    y = targets(corpus, task)
    if task == "classification":
        check_seen(y, model.classes_, path)
    return y


def warn(args, message: str) -> None:
    """A warning on stderr, unless --quiet or --json asked for silence."""
    if not _silenced(args):
        print(f"medlda: warning: {message}", file=sys.stderr)


def coherence_of(model, docs: Corpus, measure: str, n_words: int, relevance: float = 1.0) -> np.ndarray:
    """Each topic's coherence (``model.coherence``) of its top ``n_words`` in ``docs``."""
    if n_words < 2:
        raise CLIError("coherence needs --top-words of at least 2")
    return model.coherence(docs, measure, n_words, relevance)


def doc_ids(corpus: Corpus) -> list[str]:
    """Each document's name: its file in a folder or archive, 'line N' of a bow, lda-c or table
    file, 'NEWID=N' in Reuters; else its position among the non-empty documents."""
    return list(corpus.doc_names) if corpus.doc_names is not None else [str(d) for d in range(corpus.n_docs)]
