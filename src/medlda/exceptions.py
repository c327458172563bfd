"""Errors medlda raises for bad input, so callers (and the CLI) can report them cleanly."""

from __future__ import annotations

import tarfile


class MedLDAError(Exception):
    """Base class of every error medlda raises on purpose."""


class InputFormatError(MedLDAError, ValueError):
    """A data file is malformed; the message names the file, the line and the problem."""

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
    """A model file is unreadable, foreign, or inconsistent."""


def archive_error(path, err: Exception) -> InputFormatError:
    """The error for an archive that cannot be read: a file that is no tar archive at all is
    named as such (tarfile's own message lists every compression it tried)."""
    if isinstance(err, tarfile.ReadError) and "could not be opened successfully" in str(err):
        return InputFormatError(str(path), None, "not a tar archive (.tar, .tar.gz, .tar.bz2 or .tar.xz); "
                                                 "expected a folder or an archive of the dataset's files")
    return InputFormatError(str(path), None, f"cannot read the archive: {err}")


class LimitError(MedLDAError, ValueError):
    """An input asks for more memory or time than a stated limit allows (``medlda.limits``)."""
