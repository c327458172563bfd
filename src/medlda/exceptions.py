"""Errors medlda raises for bad input, so callers (and the CLI) can report them cleanly."""

from __future__ import annotations

import tarfile


class MedLDAError(Exception):
    """Base class of every error medlda raises on purpose.

    Each subclass also derives from the built-in exception a caller would expect (``ValueError``
    for bad input), so code that catches that keeps working.

    Examples
    --------
    >>> from medlda import load_model
    >>> from medlda.exceptions import MedLDAError
    >>> try:
    ...     load_model("no-such-model.npz")
    ... except MedLDAError as err:
    ...     print(type(err).__name__, "-", err)
    ModelFileError - no-such-model.npz: no such model file
    """


class InputFormatError(MedLDAError, ValueError):
    """A data file is malformed; the message names the file, the line and the problem.

    Parameters
    ----------
    path : str or None
        The file (None: not from a file).
    line : int or None
        The line number, from 1 (None: the file as a whole).
    problem : str
        What is wrong, in words.

    Attributes
    ----------
    path, line, problem
        As given.

    Examples
    --------
    >>> from pathlib import Path
    >>> from medlda import read_corpus
    >>> from medlda.exceptions import InputFormatError
    >>> _ = Path("train.bow").write_text("sports ball:2 goal:1\\nnews vote:one\\n")
    >>> try:
    ...     read_corpus("train.bow")
    ... except InputFormatError as err:
    ...     print(err.line, "-", err)
    2 - train.bow, line 2: ...
    """

    def __init__(self, path: str | None, line: int | None, problem: str) -> None:
        self.path = path
        self.line = line
        self.problem = problem
        where = ""
        if path is not None:
            where = f"{path}"
            if line is not None:
                where += f", line {line}"
            where += ": "
        super().__init__(f"{where}{problem}")


class ModelFileError(MedLDAError, ValueError):
    """A model file is unreadable, foreign, or inconsistent.

    Examples
    --------
    >>> from pathlib import Path
    >>> from medlda import load_model
    >>> from medlda.exceptions import ModelFileError
    >>> _ = Path("notes.npz").write_text("not a model")
    >>> try:
    ...     load_model("notes.npz")
    ... except ModelFileError as err:
    ...     print(err)
    notes.npz: not a medlda model file (not an npz archive)
    """


def archive_error(path, err: Exception) -> InputFormatError:
    """The error for an archive that cannot be read: a file that is no tar archive at all is
    named as such (tarfile's own message lists every compression it tried)."""
    if isinstance(err, tarfile.ReadError) and "could not be opened successfully" in str(err):
        return InputFormatError(str(path), None, "not a tar archive (.tar, .tar.gz, .tar.bz2 or .tar.xz); "
                                                 "expected a folder or an archive of the dataset's files")
    return InputFormatError(str(path), None, f"cannot read the archive: {err}")


class LimitError(MedLDAError, ValueError):
    """An input asks for more memory or time than a stated limit allows (``medlda.limits``).

    The message names the limit and the environment variable that raises it.

    Examples
    --------
    >>> from medlda import LDA
    >>> from medlda.exceptions import LimitError
    >>> from medlda.data.synthetic import make_supervised_corpus
    >>> corpus, _ = make_supervised_corpus(50, 2, random_state=0)
    >>> try:
    ...     LDA(n_components=10**9, max_iter=1).fit(corpus)
    ... except LimitError as err:
    ...     print(type(err).__name__)
    LimitError
    """
