"""Folder corpora: one sub-folder per label, one text file per document, as a directory or a tar
archive (read without extracting); with ``X-train`` / ``X-test`` sub-folders (the 20news-bydate
layout) the corpus has two halves.

Which files are documents, one rule: every regular file inside a label folder, however deep (its
label is the label folder's name), except hidden files and folders (a name starting with '.') and
``__MACOSX``, which are never documents. Single folders wrapping the label folders are skipped.
Everything else is left out and counted in one :class:`FilesSkippedWarning`: files beside the
label folders, symbolic links leading outside the folder given (never followed; one inside it is
read like a copy), links inside an archive (never followed), special files. A name whose bytes
are not UTF-8 is read as Latin-1.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Sequence

from medlda.data.readers.paths import (
    FilesSkippedWarning,
    PathLike,
    Skipped,
    archive_members,
    existing,
    folder_files,
    member_bytes,
    open_archive,
    printable,
    read_bounded,
    readable_name,
)
from medlda.exceptions import InputFormatError

__all__ = ["FilesSkippedWarning", "folder_splits", "read_text_folder"]

_SPLIT_SUFFIXES = ("-train", "-test")


def read_text_folder(
    path: PathLike,
    subset: str | None = None,
    categories: Sequence[str] | None = None,
) -> tuple[list[str], list[str], list[str]]:
    """Texts (Latin-1), labels (label folder names) and names (paths inside ``path``) of a folder
    corpus, sorted by label then name; files that are no documents are counted in one
    :class:`FilesSkippedWarning` (module docstring).

    ``path`` is a directory or a tar archive (read without extracting). With ``X-train``/``X-test``
    sub-folders (20news-bydate layout) ``subset`` must be ``"train"``, ``"test"`` or ``"all"``.
    Each document's size is bounded by ``limits.MEMBER_BYTES``.
    """
    path = existing(path)
    if subset not in (None, "train", "test", "all"):
        raise ValueError(f"subset must be 'train', 'test', 'all' or None, not {subset!r}")
    skipped = Skipped()
    if path.is_dir():
        files = folder_files(path, skipped)
        docs = _select_documents(list(files), subset, categories, path, skipped)
        texts = [read_bounded(files[parts]).decode("latin-1") for _, _, parts in docs]
    else:
        texts, docs = _read_archive_documents(path, subset, categories, skipped)
    skipped.warn(path)
    return texts, [label for label, _, _ in docs], ["/".join(map(printable, parts)) for _, _, parts in docs]


def _archive_files(tar, path: Path, skipped: Skipped) -> dict:
    """The regular members of an open archive by path parts; links and special members counted."""
    members = {}
    for m in archive_members(tar, path):
        parts = PurePosixPath(m.name).parts
        if m.isfile():
            if parts in members:
                skipped.add("members repeating an earlier member's name (the last one read)", printable(m.name))
            members[parts] = m
        elif m.issym() or m.islnk():
            skipped.add("links in the archive (never followed)", printable(m.name))
        elif not m.isdir():
            skipped.add("special members (not regular files: never read)", printable(m.name))
    return members


def _read_archive_documents(path: Path, subset, categories, skipped: Skipped) -> tuple[list[str], list]:
    """Select documents from a tar archive's member names, then read them in archive order."""
    with open_archive(path) as tar:
        members = _archive_files(tar, path, skipped)
        docs = _select_documents(list(members), subset, categories, path, skipped)
        data = {}
        for parts in sorted((parts for _, _, parts in docs), key=lambda p: members[p].offset):
            data[parts] = member_bytes(tar, members[parts], path)
    return [data[parts].decode("latin-1") for _, _, parts in docs], docs


def _select_documents(files: list[tuple[str, ...]], subset, categories, where: Path, skipped: Skipped) -> list:
    """(label, file name, path parts) of the documents to read, sorted by label then file name."""
    files = [p for p in files if not any(part.startswith(".") or part == "__MACOSX" for part in p)]
    depth, top = _common_top(files, where.name)
    rel = [(p[depth:], p) for p in files]
    splits = sorted({r[0] for r, _ in rel if len(r) >= 3 and r[0].endswith(_SPLIT_SUFFIXES)})
    if splits:
        if subset is None:
            raise InputFormatError(str(where), None, f"holds {' and '.join(map(printable, splits))}: choose "
                                                     "subset='train', 'test' or 'all'")
        wanted = splits if subset == "all" else [s for s in splits if s.endswith("-" + subset)]
        if not wanted:
            raise InputFormatError(str(where), None, f"has no '-{subset}' folder (found "
                                                     f"{', '.join(map(printable, splits))})")
        docs = [(readable_name(r[1]), r[-1], p) for r, p in rel if len(r) >= 3 and r[0] in wanted]
        for r, p in rel:
            if r[0] not in splits:
                skipped.add("files outside the -train and -test folders", printable("/".join(p)))
            elif len(r) == 2 and r[0] in wanted:
                skipped.add("files outside a label folder", printable("/".join(p)))
    else:
        if subset in ("train", "test") and not top.endswith("-" + subset):
            raise InputFormatError(str(where), None, f"has no '-train'/'-test' sub-folders, "
                                                     f"so subset={subset!r} does not apply")
        docs = [(readable_name(r[0]), r[-1], p) for r, p in rel if len(r) >= 2]
        for r, p in rel:
            if len(r) == 1:
                skipped.add("files outside a label folder", printable("/".join(p)))
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
        raise InputFormatError(str(where), None, f"unknown categories {unknown}; available: "
                                                 f"{', '.join(map(printable, available))}")
    wanted = set(categories)
    return [d for d in docs if d[0] in wanted]


def folder_splits(path: PathLike) -> list[str]:
    """The halves ('train', 'test') a folder corpus offers in the 20news-bydate layout, else []."""
    path = existing(path)
    if path.is_dir():
        files = list(folder_files(path))
    else:
        with open_archive(path) as tar:
            files = [PurePosixPath(m.name).parts for m in archive_members(tar, path) if m.isfile()]
    depth, _ = _common_top(files, path.name)
    tops = {p[depth] for p in files if len(p) >= depth + 3}
    return sorted(s for s in ("train", "test") if any(t.endswith("-" + s) for t in tops))
