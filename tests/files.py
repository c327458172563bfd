"""Small file fixtures shared by the reader, dataset and command-line tests."""

from __future__ import annotations

import csv
import io
import json
import tarfile
from pathlib import Path

import numpy as np


def make_tar(path: Path, files: dict[str, str]) -> Path:
    """A .tar.gz at ``path`` holding ``files`` (member name -> Latin-1 text)."""
    with tarfile.open(path, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode("latin-1")
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def make_folder(root: Path, files: dict[str, str]) -> Path:
    """A folder at ``root`` holding ``files`` (relative name, e.g. label/name -> Latin-1 text)."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(text.encode("latin-1"))
    return root


def write_delimited(path: Path, delimiter: str, rows, header=("id", "body", "queue")) -> Path:
    """A CSV or TSV of ``header`` and one line per (text, labels cell) of ``rows``, led by its index."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, delimiter=delimiter)
        writer.writerow(header)
        for i, (text, labels) in enumerate(rows):
            writer.writerow([i, text, labels])
    return path


def write_jsonl(path: Path, objects) -> Path:
    """A JSON Lines file of ``objects``."""
    path.write_text("".join(json.dumps(o) + "\n" for o in objects), encoding="utf-8")
    return path


def ticket_table(path: Path, n_docs: int, seed: int):
    """A CSV of tickets drawn from three queues, each with words of its own, and their queues."""
    words = {"billing": "invoice charge refund payment card bank account money price".split(),
             "outage": "server down error crash timeout network restart login page".split(),
             "feature": "please add option export dark mode support setting request".split()}
    rng = np.random.default_rng(seed)
    queues = rng.choice(list(words), n_docs)
    rows = [(" ".join(rng.choice(words[q], 25)) + ".\nThanks, Kim", q) for q in queues]
    return write_delimited(path, ",", rows), queues
