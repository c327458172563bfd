"""Reuters-21578 (Distribution 1.0) from its 22 SGML files: the ModApte multi-label split.

ModApte: documents with ``TOPICS="YES"``, ``LEWISSPLIT="TRAIN"`` or ``"TEST"`` (9,603 / 3,299);
the 90 categories that occur in at least one training and one test document; documents keeping at
least one of them (7,770 / 3,019). The text of a document is its title and body; documents of
``<TEXT TYPE="UNPROC">`` have neither (their text sits directly in ``<TEXT>``, tables and all), so
theirs is the whole ``<TEXT>`` content. Reads the ``reuters21578.tar.gz`` archive or its extracted
folder, from any path.
"""

from __future__ import annotations

import html
import re
import tarfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from medlda.exceptions import InputFormatError, archive_error

SGML_NAME = re.compile(r"reut2-\d{3}\.sgm$")
_DOC = re.compile(r"<REUTERS\b([^>]*)>(.*?)</REUTERS>", re.S)
_ATTR = re.compile(r'(\w+)="([^"]*)"')
_TOPICS = re.compile(r"<TOPICS>(.*?)</TOPICS>", re.S)
_D = re.compile(r"<D>(.*?)</D>", re.S)
_TITLE = re.compile(r"<TITLE>(.*?)</TITLE>", re.S)
_BODY = re.compile(r"<BODY>(.*?)</BODY>", re.S)
_TEXT = re.compile(r"<TEXT\b[^>]*>(.*?)</TEXT>", re.S)
_TAG = re.compile(r"<[^>]*>")
SPLITS = {"train": "TRAIN", "test": "TEST"}


@dataclass(frozen=True)
class ReutersDoc:
    """One ModApte document: its NEWID, split ('train' / 'test'), topic categories and text."""

    newid: int
    split: str
    topics: tuple[str, ...]
    text: str


def _sgml_members(path: Path):
    """(name, bytes) of every ``reut2-NNN.sgm`` file of a folder or tar archive."""
    if path.is_dir():
        for p in sorted(path.rglob("reut2-*.sgm")):
            yield str(p), p.read_bytes()
        return
    if not tarfile.is_tarfile(path):
        return
    try:
        with tarfile.open(path, "r:*") as tar:
            for member in tar:
                if member.isfile() and SGML_NAME.search(PurePosixPath(member.name).name):
                    yield member.name, tar.extractfile(member).read()
    except (tarfile.TarError, EOFError, zlib.error) as err:
        raise archive_error(path, err) from err


def parse_sgml(text: str, name: str = "<sgml>") -> list[ReutersDoc]:
    """The ModApte candidates (``TOPICS="YES"``, LEWISSPLIT TRAIN or TEST) of one SGML file."""
    docs = []
    for match in _DOC.finditer(text):
        attrs = dict(_ATTR.findall(match.group(1)))
        if attrs.get("TOPICS") != "YES" or attrs.get("LEWISSPLIT") not in SPLITS.values():
            continue
        if "NEWID" not in attrs or not attrs["NEWID"].isdigit():
            line = text.count("\n", 0, match.start()) + 1
            raise InputFormatError(name, line, "<REUTERS> element without a numeric NEWID")
        body = match.group(2)
        topics = _TOPICS.search(body)
        cats = tuple(d.strip() for d in _D.findall(topics.group(1))) if topics else ()
        title, text_body = _TITLE.search(body), _BODY.search(body)
        parts = [html.unescape(m.group(1)) for m in (title, text_body) if m]
        if not parts:  # TYPE="UNPROC": untagged text inside <TEXT>
            whole = _TEXT.search(body)
            parts = [html.unescape(_TAG.sub(" ", whole.group(1)))] if whole else []
        split = "train" if attrs["LEWISSPLIT"] == "TRAIN" else "test"
        docs.append(ReutersDoc(int(attrs["NEWID"]), split, cats, "\n".join(parts)))
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


def modapte_subset(path, subset: str) -> tuple[list[str], list[tuple[str, ...]], list[str], list[int]]:
    """Texts, label tuples (restricted to the categories of both splits), the categories, and
    NEWIDs of the ModApte ``subset`` ('train', 'test' or 'all'); documents left without a
    category are dropped."""
    if subset not in ("train", "test", "all"):
        raise ValueError(f"subset must be 'train', 'test' or 'all', not {subset!r}")
    docs, categories = read_modapte(path)
    keep = set(categories)
    texts, labels, ids = [], [], []
    for d in docs:
        cats = tuple(t for t in d.topics if t in keep)
        if cats and subset in ("all", d.split):
            texts.append(d.text)
            labels.append(cats)
            ids.append(d.newid)
    return texts, labels, categories, ids
