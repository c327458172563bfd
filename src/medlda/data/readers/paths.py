"""Paths the readers accept: files, and collections of files (a directory or a tar archive)."""

from __future__ import annotations

import os
import tarfile
import zlib
from pathlib import Path

from medlda.exceptions import archive_error

PathLike = str | os.PathLike
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")


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


def collection_files(path: Path) -> list[str]:
    """Relative names (directory) or member names (archive) of the files of a collection."""
    if path.is_dir():
        return sorted(str(p.relative_to(path)) for p in path.rglob("*") if p.is_file())
    try:
        with tarfile.open(path, "r:*") as tar:
            return [m.name for m in tar.getmembers() if m.isfile()]
    except (tarfile.TarError, EOFError, zlib.error) as err:
        raise archive_error(path, err) from err
