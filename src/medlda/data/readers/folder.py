"""Folder corpora: one sub-folder per label, one text file per document, as a directory or a tar
archive (read without extracting); with ``X-train`` / ``X-test`` sub-folders (the 20news-bydate
layout) the corpus has two halves."""

from __future__ import annotations

import tarfile
import zlib
from pathlib import Path, PurePosixPath
from typing import Sequence

from medlda.data.readers.paths import PathLike, existing
from medlda.exceptions import InputFormatError, archive_error

_SPLIT_SUFFIXES = ("-train", "-test")


def read_text_folder(
    path: PathLike,
    subset: str | None = None,
    categories: Sequence[str] | None = None,
) -> tuple[list[str], list[str], list[str]]:
    """Texts (Latin-1), labels (sub-folder names) and names (paths inside ``path``) of a folder corpus.

    ``path`` is a directory or a tar archive (read without extracting). With ``X-train``/``X-test``
    sub-folders (20news-bydate layout) ``subset`` must be ``"train"``, ``"test"`` or ``"all"``.
    """
    path = existing(path)
    if subset not in (None, "train", "test", "all"):
        raise ValueError(f"subset must be 'train', 'test', 'all' or None, not {subset!r}")
    if path.is_dir():
        files = {p.relative_to(path).parts: p for p in sorted(path.rglob("*")) if p.is_file()}
        docs = _select_documents(list(files), subset, categories, path)
        texts = [files[parts].read_bytes().decode("latin-1") for _, _, parts in docs]
    else:
        texts, docs = _read_archive_documents(path, subset, categories)
    return texts, [label for label, _, _ in docs], ["/".join(parts) for _, _, parts in docs]


def _read_archive_documents(path: Path, subset, categories) -> tuple[list[str], list]:
    """Select documents from a tar archive's member names, then read them in archive order."""
    try:
        with tarfile.open(path, "r:*") as tar:
            members = {PurePosixPath(m.name).parts: m for m in tar.getmembers() if m.isfile()}
            docs = _select_documents(list(members), subset, categories, path)
            data = {}
            for parts in sorted((parts for _, _, parts in docs), key=lambda p: members[p].offset):
                data[parts] = tar.extractfile(members[parts]).read()
    except (tarfile.TarError, EOFError, zlib.error, OSError) as err:
        if isinstance(err, (FileNotFoundError, PermissionError)):
            raise
        raise archive_error(path, err) from err
    return [data[parts].decode("latin-1") for _, _, parts in docs], docs


def _select_documents(files: list[tuple[str, ...]], subset, categories, where: Path) -> list:
    """(label, file name, path parts) of the documents to read, sorted by label then file name."""
    files = [p for p in files if not any(part.startswith(".") or part == "__MACOSX" for part in p)]
    depth, top = _common_top(files, where.name)
    rel = [(p[depth:], p) for p in files]
    splits = sorted({r[0] for r, _ in rel if len(r) == 3 and r[0].endswith(_SPLIT_SUFFIXES)})
    if splits:
        if subset is None:
            raise ValueError(f"{where} holds {' and '.join(splits)}: choose subset='train', 'test' or 'all'")
        wanted = splits if subset == "all" else [s for s in splits if s.endswith("-" + subset)]
        if not wanted:
            raise ValueError(f"{where} has no '-{subset}' folder (found {', '.join(splits)})")
        docs = [(r[1], r[2], p) for r, p in rel if len(r) == 3 and r[0] in wanted]
    else:
        if subset in ("train", "test") and not top.endswith("-" + subset):
            raise ValueError(f"{where} has no '-train'/'-test' sub-folders, "
                             f"so subset={subset!r} does not apply")
        docs = [(r[0], r[1], p) for r, p in rel if len(r) == 2]
    if not docs:
        raise InputFormatError(str(where), None, "no documents found: expected one sub-folder per label, "
                                                 "each holding one text file per document")
    return sorted(_filter_categories(docs, categories, where))


def _common_top(files: list[tuple[str, ...]], top: str) -> tuple[int, str]:
    """How many single wrapping folders (``archive/…``) to skip, and the name of the innermost one."""
    depth = 0
    while True:
        deeper = [p for p in files if len(p) > depth + 1]
        firsts = {p[depth] for p in deeper}
        if len(firsts) != 1 or any(len(p) < depth + 3 for p in deeper):
            return depth, top
        (first,) = firsts
        if first.endswith(_SPLIT_SUFFIXES):
            return depth, top
        depth, top = depth + 1, first


def _filter_categories(docs: list, categories, where: Path) -> list:
    if categories is None:
        return docs
    if isinstance(categories, str):
        categories = [categories]
    available = sorted({label for label, _, _ in docs})
    unknown = sorted(set(categories) - set(available))
    if unknown:
        raise ValueError(f"unknown categories {unknown} in {where}; available: {', '.join(available)}")
    wanted = set(categories)
    return [d for d in docs if d[0] in wanted]


def folder_splits(path: PathLike) -> list[str]:
    """The halves ('train', 'test') a folder corpus offers in the 20news-bydate layout, else []."""
    path = existing(path)
    if path.is_dir():
        files = [p.relative_to(path).parts for p in path.rglob("*") if p.is_file()]
    else:
        try:
            with tarfile.open(path, "r:*") as tar:
                files = [PurePosixPath(m.name).parts for m in tar.getmembers() if m.isfile()]
        except (tarfile.TarError, EOFError, zlib.error) as err:
            raise archive_error(path, err) from err
    depth, _ = _common_top(files, path.name)
    tops = {p[depth] for p in files if len(p) == depth + 3}
    return sorted(s for s in ("train", "test") if any(t.endswith("-" + s) for t in tops))
