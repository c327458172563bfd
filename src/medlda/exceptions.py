"""Errors medlda raises for bad input, so callers (and the CLI) can report them cleanly."""

from __future__ import annotations


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
