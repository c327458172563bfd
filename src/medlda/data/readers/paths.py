"""Paths the readers accept: files, and collections of files (a directory or a tar archive).

A collection is read without trusting it: a directory is walked without leaving it (a symbolic
link, to a file or a folder, is followed only when it resolves inside the directory given, and
never into a folder above itself), special files are never opened, and what is left out is
counted (:class:`Skipped`) for a warning. An archive is never extracted; its members are listed
as their headers are read, each regular file's declared size checked against
``limits.MEMBER_BYTES`` before its bytes are read and its bytes counted as they are; the entries of
either against ``limits.FILES``.
"""

from __future__ import annotations

import codecs
import lzma
import os
import tarfile
import warnings
import zlib
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator

from medlda.exceptions import archive_error
from medlda.limits import FILES, MEMBER_BYTES

PathLike = str | os.PathLike
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")
_ARCHIVE_ERRORS = (tarfile.TarError, EOFError, zlib.error, lzma.LZMAError, OSError)
_BLOCK = 1 << 20


class FilesSkippedWarning(UserWarning):
    """Files of a folder or archive that a reader left out (links leading outside, special files,
    files outside a label folder), counted by reason."""


class Skipped:
    """What a walk or a reader left out of a collection: a count and a first example per reason."""

    def __init__(self) -> None:
        self.reasons: dict[str, list] = {}

    def add(self, reason: str, name: str) -> None:
        entry = self.reasons.setdefault(reason, [0, name])
        entry[0] += 1

    def warn(self, path, stacklevel: int = 3) -> None:
        """One warning naming ``path`` and each reason with its count and first file, if any."""
        if not self.reasons:
            return
        total = sum(n for n, _ in self.reasons.values())
        parts = "; ".join(f"{n} {reason} (first: {first})" for reason, (n, first) in self.reasons.items())
        warnings.warn(f"{path}: left out {total} file{'s' if total != 1 else ''}: {parts}",
                      FilesSkippedWarning, stacklevel=stacklevel)


def existing(path: PathLike) -> Path:
    """``path`` as a Path; FileNotFoundError naming it unless it exists."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file or directory: {path}")
    return path


def is_collection(path: PathLike) -> bool:
    """Whether ``path`` is a directory or a tar archive (a collection of files)."""
    path = Path(path)
    return path.is_dir() or path.name.lower().endswith(ARCHIVE_SUFFIXES)


def readable_name(name: str) -> str:
    """A file name as text: a name whose bytes are not UTF-8 (Python keeps them as surrogate
    escapes, which cannot be printed or written) is read as Latin-1."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape").decode("latin-1")


def printable(name: str) -> str:
    """A file or member name for a one-line message: as text (``readable_name``), with control
    characters (a newline in a name) escaped."""
    name = readable_name(name)
    return name if name.isprintable() else name.encode("unicode_escape").decode("ascii")


def folder_files(root: Path, skipped: Skipped | None = None) -> dict[tuple[str, ...], Path]:
    """The regular files under the directory ``root`` by their relative path parts (sorted), see
    the module docstring for the links followed; ``skipped`` counts the entries left out."""
    skipped = Skipped() if skipped is None else skipped
    base = root.resolve()
    files: dict[tuple[str, ...], Path] = {}
    n_entries, max_files = 0, FILES.value
    stack: list[tuple[Path, tuple[str, ...], frozenset]] = [(root, (), frozenset({base}))]
    while stack:
        folder, parts, above = stack.pop()
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name, reverse=True)
        for entry in entries:
            n_entries += 1
            if n_entries > max_files:
                FILES.check(n_entries, str(root))
            rel, target = parts + (entry.name,), Path(entry.path)
            if entry.is_symlink():
                try:
                    real = target.resolve(strict=True)
                except (OSError, RuntimeError):
                    skipped.add("broken or looping symbolic links", printable("/".join(rel)))
                    continue
                if not real.is_relative_to(base):
                    skipped.add("symbolic links leading outside the folder (never followed)", printable("/".join(rel)))
                    continue
            if entry.is_dir():
                real = target.resolve()
                if real in above:
                    skipped.add("symbolic links to a folder holding them", printable("/".join(rel)))
                    continue
                stack.append((target, rel, above | {real}))
            elif entry.is_file():
                files[rel] = target
            else:
                skipped.add("special files (not regular files: never opened)", printable("/".join(rel)))
    return dict(sorted(files.items()))


@contextmanager
def open_archive(path: Path) -> Iterator[tarfile.TarFile]:
    """The tar archive at ``path``, open for reading; any failure to decode it, while opening or
    while reading members, ends as one :class:`InputFormatError` naming it."""
    try:
        with tarfile.open(path, "r:*") as tar:
            yield tar
    except (FileNotFoundError, PermissionError, IsADirectoryError):
        raise
    except _ARCHIVE_ERRORS as err:
        raise archive_error(path, err) from None


def archive_members(tar: tarfile.TarFile, path: Path) -> Iterator[tarfile.TarInfo]:
    """The members of an open archive as their headers are read (the archive is never listed
    whole first), each regular file's declared size checked against ``MEMBER_BYTES``."""
    max_files, max_bytes = FILES.value, MEMBER_BYTES.value
    for n, member in enumerate(tar, 1):
        if n > max_files:
            FILES.check(n, str(path))
        if member.isfile() and member.size > max_bytes:
            MEMBER_BYTES.check(member.size, f"{path}:{printable(member.name)}")
        yield member


def member_chunks(tar: tarfile.TarFile, member: tarfile.TarInfo, path: Path) -> Iterator[bytes]:
    """The bytes of a regular member in blocks, their count checked against ``MEMBER_BYTES``."""
    MEMBER_BYTES.check(member.size, f"{path}:{printable(member.name)}")
    max_bytes, size = MEMBER_BYTES.value, min(_BLOCK, member.size + 1)
    stream: IO[bytes] = tar.extractfile(member)
    total = 0
    while block := stream.read(size):
        total += len(block)
        if total > max_bytes:
            MEMBER_BYTES.check(total, f"{path}:{printable(member.name)}")
        yield block


def member_bytes(tar: tarfile.TarFile, member: tarfile.TarInfo, path: Path) -> bytes:
    """The whole content of a regular member, bounded as :func:`member_chunks` says."""
    return b"".join(member_chunks(tar, member, path))


def copy_member(tar: tarfile.TarFile, member: tarfile.TarInfo, path: Path, target: Path) -> Path:
    """Write a regular member's bytes to ``target`` (bounded as :func:`member_chunks` says)."""
    with open(target, "wb") as out:
        for block in member_chunks(tar, member, path):
            out.write(block)
    return target


def utf8_error(path: PathLike) -> tuple[int, int, str]:
    """(line, byte offset, reason) of the first byte of a file that is not UTF-8, found reading it
    in blocks; (0, -1, '') for a UTF-8 file."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset, line = 0, 1  # bytes and line before the block
    with open(path, "rb") as fh:
        while True:
            block = fh.read(_BLOCK)
            pending = decoder.getstate()[0]  # an unfinished character from the block before
            try:
                decoder.decode(block, final=not block)
            except UnicodeDecodeError as err:
                return line + err.object[:err.start].count(b"\n"), offset - len(pending) + err.start, err.reason
            if not block:
                return 0, -1, ""
            line += block.count(b"\n")
            offset += len(block)


def read_bounded(path: Path) -> bytes:
    """A file's bytes, its size checked against ``MEMBER_BYTES`` before and after reading."""
    MEMBER_BYTES.check(path.stat().st_size, printable(str(path)))
    data = path.read_bytes()
    MEMBER_BYTES.check(len(data), printable(str(path)))
    return data


def collection_files(path: Path) -> list[str]:
    """Relative names (directory) or member names (archive) of the regular files of a collection."""
    if path.is_dir():
        return ["/".join(parts) for parts in folder_files(path)]
    with open_archive(path) as tar:
        return [m.name for m in archive_members(tar, path) if m.isfile()]
