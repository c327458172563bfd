"""A progress bar for training: iteration, train accuracy, log likelihood, tokens per second."""

from __future__ import annotations

import os
import sys
from typing import TextIO

from tqdm.auto import tqdm

from medlda.engine.loop import IterationInfo, Run

FALLBACK_COLUMNS, FALLBACK_ROWS = 80, 24  # a terminal that reports no size: a bar for one this size


def bar_layout(stream: TextIO | None = None) -> dict:
    """tqdm's size settings for a bar on ``stream`` (default stderr): the terminal's width,
    followed as it changes; a fixed size where a terminal reports none (0 columns or rows: tqdm
    would take that size and show no bar at all)."""
    stream = sys.stderr if stream is None else stream
    try:
        size = os.get_terminal_size(stream.fileno())
    except (AttributeError, OSError, ValueError):  # not a terminal, or no file descriptor (a notebook)
        return {"dynamic_ncols": True}
    if size.columns > 0 and size.lines > 0:
        return {"dynamic_ncols": True}
    return {"ncols": size.columns or FALLBACK_COLUMNS, "nrows": size.lines or FALLBACK_ROWS}


class ProgressBar:
    """Training callback drawing a tqdm bar on stderr; close() when training ends."""

    def __init__(self, n_iter: int, desc: str = "training") -> None:
        self._bar = tqdm(total=n_iter, desc=desc, unit="it", leave=True, **bar_layout())

    def __call__(self, info: IterationInfo, run: Run | None = None) -> None:
        post = {}
        if info.train_accuracy is not None:
            post["train_acc"] = f"{info.train_accuracy:.3f}"
        if info.log_joint is not None:
            post["loglik"] = f"{info.log_joint:.4g}"
        post["tok/s"] = f"{info.tokens_per_second / 1e6:.2f}M"
        self._bar.set_postfix(post, refresh=False)
        self._bar.update(1)

    def close(self) -> None:
        self._bar.close()
