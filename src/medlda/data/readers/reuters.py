"""Reuters-21578 (Distribution 1.0) from its 22 SGML files: the ModApte multi-label split.

ModApte: documents with ``TOPICS="YES"``, ``LEWISSPLIT="TRAIN"`` or ``"TEST"`` (9,603 / 3,299);
the 90 categories that occur in at least one training and one test document; documents keeping at
least one of them (7,770 / 3,019). Its single-label subset (R52, ``single_label=True``): the ModApte
documents with exactly one topic, in the 52 categories that occur in both splits among them
(6,532 / 2,568). The text of a document is its title and body; documents of
``<TEXT TYPE="UNPROC">`` have neither (their text sits directly in ``<TEXT>``, tables and all), so
theirs is the whole ``<TEXT>`` content. Reads the ``reuters21578.tar.gz`` archive or its extracted
folder, from any path.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Iterator

from medlda.data.readers.paths import (
    archive_members,
    folder_files,
    member_bytes,
    open_archive,
    printable,
    read_bounded,
)
from medlda.exceptions import InputFormatError

SGML_NAME = re.compile(r"reut2-\d{3}\.sgm\Z")
_ATTR = re.compile(r'(?<!\w)(\w+)="([^"]*)"')  # a name is tried from its start only: linear time
SPLITS = {"train": "TRAIN", "test": "TEST"}


@dataclass(frozen=True)
class ReutersDoc:
    """One ModApte document: its NEWID, split ('train' / 'test'), topic categories and text."""

    newid: int
    split: str
    topics: tuple[str, ...]
    text: str


def _sgml_members(path: Path):
    """(name, bytes) of every ``reut2-NNN.sgm`` file of a folder or tar archive (each bounded by
    ``limits.MEMBER_BYTES``; a folder's links leading outside it are not followed)."""
    if path.is_dir():
        for parts, file in folder_files(path).items():
            if SGML_NAME.search(parts[-1]):
                yield printable(str(file)), read_bounded(file)
        return
    with open_archive(path) as tar:
        for member in archive_members(tar, path):
            if member.isfile() and SGML_NAME.search(PurePosixPath(member.name).name):
                yield f"{path}:{printable(member.name)}", member_bytes(tar, member, path)


def elements(text: str, tag: str, attributes: bool = False) -> Iterator[tuple[str, str, int]]:
    """(attributes, content, start) of each ``<TAG>content</TAG>`` of ``text`` (``<TAG ...>`` with
    ``attributes``), in order, as the non-greedy regular expression would find them but in linear
    time: an opening tag without a closing one after it ends the search (none after it can close)."""
    opening, closing = f"<{tag}" if attributes else f"<{tag}>", f"</{tag}>"
    pos = 0
    while (start := text.find(opening, pos)) >= 0:
        after = start + len(opening)
        if attributes:
            if after < len(text) and (text[after].isalnum() or text[after] == "_"):
                pos = after  # a longer tag name
                continue
            gt = text.find(">", after)
            if gt < 0:
                return
            attrs, after = text[start + len(opening):gt], gt + 1
        else:
            attrs = ""
        end = text.find(closing, after)
        if end < 0:
            return
        yield attrs, text[after:end], start
        pos = end + len(closing)


def _first(text: str, tag: str, attributes: bool = False) -> str | None:
    """The content of the first ``tag`` element of ``text``, or None."""
    return next((content for _, content, _ in elements(text, tag, attributes)), None)


def _untagged(text: str) -> str:
    """``text`` with its tags replaced by spaces (after the last '>' no tag can close)."""
    last = text.rfind(">")
    return re.sub(r"<[^>]*>", " ", text[:last + 1]) + text[last + 1:]


def parse_sgml(text: str, name: str = "<sgml>") -> list[ReutersDoc]:
    """The ModApte candidates (``TOPICS="YES"``, LEWISSPLIT TRAIN or TEST) of one SGML file."""
    docs = []
    for attr_text, body, start in elements(text, "REUTERS", attributes=True):
        attrs = dict(_ATTR.findall(attr_text))
        if attrs.get("TOPICS") != "YES" or attrs.get("LEWISSPLIT") not in SPLITS.values():
            continue
        newid = attrs.get("NEWID", "")
        if not (newid.isascii() and newid.isdigit() and len(newid) <= 18):
            line = text.count("\n", 0, start) + 1
            raise InputFormatError(name, line, "<REUTERS> element without a numeric NEWID")
        topics = _first(body, "TOPICS")
        cats = tuple(d.strip() for _, d, _ in elements(topics, "D")) if topics is not None else ()
        parts = [html.unescape(part) for part in (_first(body, "TITLE"), _first(body, "BODY")) if part is not None]
        if not parts:  # TYPE="UNPROC": untagged text inside <TEXT>
            whole = _first(body, "TEXT", attributes=True)
            parts = [html.unescape(_untagged(whole))] if whole is not None else []
        split = "train" if attrs["LEWISSPLIT"] == "TRAIN" else "test"
        docs.append(ReutersDoc(int(newid), split, cats, "\n".join(parts)))
    return docs


def read_modapte(path) -> tuple[list[ReutersDoc], list[str]]:
    """All ModApte documents of the collection at ``path`` (sorted by NEWID) and the categories
    that occur in both splits (sorted), before dropping documents without one of them."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file or directory: {path}")
    docs = []
    for name, data in _sgml_members(path):
        docs += parse_sgml(data.decode("latin-1"), name)
    if not docs:
        raise InputFormatError(str(path), None, "no Reuters-21578 documents found (expected the "
                                                "reut2-000.sgm .. reut2-021.sgm files)")
    docs.sort(key=lambda d: d.newid)
    seen = {s: {t for d in docs if d.split == s for t in d.topics} for s in SPLITS}
    return docs, sorted(seen["train"] & seen["test"])


def modapte_subset(path, subset: str, single_label: bool = False
                   ) -> tuple[list[str], list[tuple[str, ...]], list[str], list[int]]:
    """Texts, label tuples (restricted to the categories of both splits), the categories, and
    NEWIDs of the ModApte ``subset`` ('train', 'test' or 'all'); documents left without a
    category are dropped. ``single_label``: only the documents with exactly one topic, and the
    categories of both splits among them (R52)."""
    if subset not in ("train", "test", "all"):
        raise ValueError(f"subset must be 'train', 'test' or 'all', not {subset!r}")
    docs, categories = read_modapte(path)
    if single_label:
        docs = [d for d in docs if len(d.topics) == 1]
        seen = {s: {d.topics[0] for d in docs if d.split == s} for s in SPLITS}
        categories = sorted(seen["train"] & seen["test"])
    keep = set(categories)
    texts, labels, ids = [], [], []
    for d in docs:
        cats = tuple(t for t in d.topics if t in keep)
        if cats and subset in ("all", d.split):
            texts.append(d.text)
            labels.append(cats)
            ids.append(d.newid)
    return texts, labels, categories, ids
