"""Atomic file writes: nothing a user has is ever overwritten half-way."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import IO, Callable, Sequence


def _final_mode(path: Path) -> int:
    """The permissions ``path`` should end with: its own if it exists, else what a plain ``open``
    would give (0o666 less the umask), not mkstemp's owner-only 0o600."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def check_writable(path) -> None:
    """Raise FileNotFoundError / IsADirectoryError / PermissionError, naming ``path``, unless a
    file can be written there: callers check before long work, not after it."""
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise FileNotFoundError(f"{path}: cannot write there, directory {parent} does not exist")
    if path.is_dir():
        raise IsADirectoryError(f"{path}: is a directory, not a file name")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise PermissionError(f"{path}: cannot write there, directory {parent} is not writable")


def atomic_write(path, write: Callable[[IO[bytes]], None]) -> Path:
    """Call ``write(fileobj)`` on a temporary file beside ``path``, then rename it over ``path``;
    on any error the temporary file is removed and ``path`` is left untouched."""
    path = Path(path)
    check_writable(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), _final_mode(path))
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def atomic_write_text(path, text: str) -> Path:
    """Write UTF-8 text (newlines kept as '\\n') atomically."""
    return atomic_write(path, lambda f: f.write(text.encode("utf-8")))


def write_lines(path, lines: Sequence[str]) -> Path:
    """Write one string per line, atomically (e.g. predicted labels)."""
    return atomic_write_text(path, "".join(f"{line}\n" for line in lines))
