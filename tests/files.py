"""Small file fixtures shared by the reader and dataset tests."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path


def make_tar(path: Path, files: dict[str, str]) -> Path:
    """A .tar.gz at ``path`` holding ``files`` (member name -> Latin-1 text)."""
    with tarfile.open(path, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode("latin-1")
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path
