"""The one row schema of every benchmark suite: JSON lines of {suite, config, metric, value, unit}.

A row is one measured (or derived) number:

- ``suite``: the script that measured it ("samplers", "tasks", "scale", "collapsed_bias", "blocked");
- ``config``: what ran, as a dict of the settings that tell this configuration from the others
  of the suite (task, sampler, n_topics, ...);
- ``metric``, ``value``, ``unit``: what was measured, the number (or a list, for a trace) and its
  unit ("s", "tokens/s", "x" for a ratio, "" for a plain number);
- any further keys: context that does not define the configuration (seed, repeat, spread).

Each run of a suite writes its rows to ``<out>/<suite>-<UTC time>.jsonl``, flushed row by row (an
interrupted run keeps what it finished), and echoes each row on stderr. The file's first row,
metric "environment", records the machine and the versions the figures belong to.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

DEFAULT_OUT = Path(__file__).resolve().parent / "out"  # ignored by git (.gitignore)


def add_out_argument(parser: argparse.ArgumentParser) -> None:
    """The ``--out`` folder option every suite takes."""
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help=f"folder for the rows file (default {DEFAULT_OUT})")


def row(suite: str, config: dict, metric: str, value, unit: str, **extra) -> dict:
    """One row of the schema."""
    return {"suite": suite, "config": dict(config), "metric": metric, "value": value, "unit": unit, **extra}


def environment() -> dict:
    """The machine and versions: CPU model and count, Python, NumPy, numba, medlda."""
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    versions = {}
    for package in ("numpy", "numba", "medlda"):
        try:
            versions[package] = version(package)
        except PackageNotFoundError:
            versions[package] = None
    return {"cpu": cpu, "cpu_count": os.cpu_count(), "platform": platform.platform(),
            "python": platform.python_version(), **versions}


class RowWriter:
    """Writes one suite's rows to a fresh JSON-lines file under ``out``."""

    def __init__(self, suite: str, out: Path, argv: list[str] | None = None):
        self.suite = suite
        out.mkdir(parents=True, exist_ok=True)
        self.path = out / f"{suite}-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}.jsonl"
        self.rows: list[dict] = []
        command = " ".join(["python", *sys.argv] if argv is None else argv)
        self.put(row(suite, {}, "environment", None, "", command=command, **environment()))

    def write(self, config: dict, metric: str, value, unit: str, **extra) -> dict:
        """Write one row of this suite and return it."""
        return self.put(row(self.suite, config, metric, value, unit, **extra))

    def put(self, one: dict) -> dict:
        """Write an already built row."""
        self.rows.append(one)
        with open(self.path, "a") as f:
            f.write(json.dumps(one) + "\n")
        if one["metric"] != "environment":
            shown = {k: v for k, v in one.items() if k != "suite" and not isinstance(v, list)}
            print(json.dumps(shown), file=sys.stderr, flush=True)
        return one


def read_rows(path: Path) -> list[dict]:
    """The rows of a file a suite wrote."""
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def find(rows: list[dict], metric: str, **config) -> list[dict]:
    """The rows of ``metric`` whose config holds every given key with the given value."""
    return [r for r in rows if r["metric"] == metric and all(r["config"].get(k) == v for k, v in config.items())]
