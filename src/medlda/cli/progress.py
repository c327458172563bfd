"""What the command line shows while it works, on stderr: each stage (reading, vectorizing,
training, predicting) as it starts.

On a terminal a stage that has no bar of its own (reading an archive, vectorizing its text) is a
line with a running clock that ends in the time it took; training and inference draw their own
bars there (the estimators' ``verbose``). Elsewhere (a pipe, a log file) each stage is one line,
``reading 20news-bydate.tar.gz ...``, printed as it starts. ``--quiet`` and ``--json`` show none
of it; stdout never holds any.
"""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from typing import Iterator

TICK_SECONDS = 0.5  # how often a terminal's running clock is redrawn


def enabled(args) -> bool:
    """Whether stages are shown: not with --quiet or --json (commands without them: yes)."""
    return not (getattr(args, "quiet", False) or getattr(args, "json", False))


def on_terminal() -> bool:
    return sys.stderr.isatty()


@contextmanager
def stage(args, message: str, has_bar: bool = False) -> Iterator[None]:
    """Show the stage ``message`` (e.g. "reading docs.txt") while the block runs: on a pipe one
    line ``message ...``; on a terminal a clock, unless ``has_bar``: the stage draws its own bar
    there (training, inference)."""
    if not enabled(args):
        yield
        return
    if not on_terminal():
        print(f"{message} ...", file=sys.stderr, flush=True)
        yield
        return
    if has_bar:
        yield
        return
    with _clock(message):
        yield


@contextmanager
def _clock(message: str) -> Iterator[None]:
    """A tqdm line ``message ... 00:03`` redrawn every ``TICK_SECONDS`` by a thread, ending as
    ``message ... done in 00:04`` (left as it was if the block raises)."""
    from tqdm import tqdm

    from medlda.engine.progress import bar_layout

    bar = tqdm(total=None, desc=message, bar_format="{desc} ... {elapsed}", file=sys.stderr, leave=True,
               **bar_layout())
    done = threading.Event()

    def tick() -> None:
        while not done.wait(TICK_SECONDS):
            bar.refresh()

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        yield
        bar.bar_format = "{desc} ... done in {elapsed}"
    finally:
        done.set()
        ticker.join()
        bar.close()


def reading(args, path: str, fmt: str, raw_text: bool, subset: str | None = None):
    """The stage of reading ``path`` (format ``fmt``; ``subset``: the part of a collection read):
    "reading PATH", and for raw text, which is counted into words as it is read, "reading and
    vectorizing PATH"."""
    part = f"{subset} part, " if subset else ""
    if fmt == "folder" and str(path).endswith((".tar.gz", ".tgz", ".tar")):
        fmt = "archive of folders"
    return stage(args, f"{'reading and vectorizing' if raw_text else 'reading'} {path} ({part}{fmt})")


def training(args, model, n_docs: int):
    """The stage of fitting ``model`` to ``n_docs`` documents (its own bar on a terminal)."""
    return stage(args, f"training {type(model).__name__}: {model.n_components} topics, {model.max_iter} iterations "
                       f"on {n_docs:,} documents", has_bar=True)


def predicting(args, n_docs: int, what: str = "documents"):
    """The stage of inferring the topics of ``n_docs`` documents and predicting from them (the
    inference bar on a terminal)."""
    return stage(args, f"predicting {n_docs:,} {what}", has_bar=True)
