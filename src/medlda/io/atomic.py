"""Atomic file writes: nothing a user has is ever overwritten half-way.

A write goes to a temporary file ``.NAME.XXXXXXXX.tmp`` beside ``NAME``, locked while it is
written, then renamed over ``NAME``. A process killed mid-write leaves its temporary file behind;
the next write to ``NAME`` removes such leftovers: files of exactly that name pattern, regular
files of this user, not locked by a live writer and last modified before this process began
writing or over a minute ago. Nothing else is ever removed.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
import time
from pathlib import Path
from typing import IO, Callable, Sequence

from medlda.exceptions import MedLDAError

try:  # POSIX: a writer holds a lock on its temporary file, so a cleaner never takes a live one
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

_STARTED = time.time()  # leftovers older than this are from earlier processes
STALE_SECONDS = 60.0  # ... or, not locked, untouched this long (a writer killed in this process' time)
_RANDOM = re.compile(r"[a-z0-9_]{8}")  # tempfile.mkstemp's random part


class WriteError(MedLDAError, OSError):
    """A file could not be written (disk full, no permission, ...); the file that was there is
    unchanged. The message names the path and the system's reason in one line."""

    def __init__(self, path, err: OSError) -> None:
        super().__init__(err.errno, err.strerror or str(err), str(path))
        self.path = str(path)

    def __str__(self) -> str:
        reason = self.strerror or "write failed"
        kept = "; the file that was there is unchanged" if os.path.lexists(self.path) else ""
        return f"{self.path}: cannot write it ({reason}){kept}"


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


def is_leftover_name(name: str, target: str) -> bool:
    """Whether ``name`` is the name of a temporary file of a write to ``target`` (a file name)."""
    prefix, suffix = f".{target}.", ".tmp"
    return (name.startswith(prefix) and name.endswith(suffix)
            and _RANDOM.fullmatch(name[len(prefix):len(name) - len(suffix)]) is not None)


def _is_stale(entry: os.DirEntry, now: float) -> bool:
    """A leftover: a regular file (not a link) of this user, not modified lately (see the module
    docstring), and not locked by a writer."""
    try:
        info = entry.stat(follow_symlinks=False)
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode) or (hasattr(os, "geteuid") and info.st_uid != os.geteuid()):
        return False
    if info.st_mtime >= max(_STARTED, now - STALE_SECONDS):
        return False
    if fcntl is None:
        return True
    try:
        fd = os.open(entry.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held by a live writer: BlockingIOError
        return os.path.samestat(os.fstat(fd), info)
    except OSError:
        return False
    finally:
        os.close(fd)  # releases the lock


def remove_leftovers(path) -> list[Path]:
    """Remove the temporary files that killed writes to ``path`` left behind (best effort: a file
    that cannot be removed stays); return those removed."""
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    removed = []
    now = time.time()
    try:
        entries = [e for e in os.scandir(parent) if is_leftover_name(e.name, path.name)]
    except OSError:
        return removed
    for entry in entries:
        if _is_stale(entry, now):
            try:
                os.unlink(entry.path)
                removed.append(Path(entry.path))
            except OSError:
                pass
    return removed


def atomic_write(path, write: Callable[[IO[bytes]], None]) -> Path:
    """Call ``write(fileobj)`` on a temporary file beside ``path``, then rename it over ``path``;
    on any error the temporary file is removed and ``path`` is left untouched. A system error
    (disk full, no permission) is raised as ``WriteError`` naming ``path``."""
    path = Path(path)
    check_writable(path)
    remove_leftovers(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise WriteError(path, exc) from exc
    try:
        with os.fdopen(fd, "wb") as f:
            if fcntl is not None:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX)  # released when closed, or when this process dies
            os.fchmod(f.fileno(), _final_mode(path))
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError) and not isinstance(exc, MedLDAError) and exc.errno is not None:
            raise WriteError(path, exc) from exc
        raise
    return path


def atomic_write_text(path, text: str) -> Path:
    """Write UTF-8 text (newlines kept as '\\n') atomically. Names read from the file system
    that are not UTF-8 (Python holds their bytes as lone surrogates) are written back as those
    bytes; any other text that UTF-8 cannot hold is an error naming ``path``."""
    try:
        data = text.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError as exc:
        line = text.count("\n", 0, exc.start) + 1
        raise MedLDAError(f"{path}, line {line}: cannot be written as UTF-8 ({exc.reason}: "
                          f"{text[exc.start:exc.end]!r})") from None
    return atomic_write(path, lambda f: f.write(data))


def write_lines(path, lines: Sequence[str]) -> Path:
    """Write one string per line, atomically (e.g. predicted labels)."""
    return atomic_write_text(path, "".join(f"{line}\n" for line in lines))
