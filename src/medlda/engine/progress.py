"""A progress bar for training: iteration, train accuracy, log likelihood, tokens per second."""

from __future__ import annotations

from tqdm.auto import tqdm

from medlda.engine.loop import IterationInfo, Run


class ProgressBar:
    """Training callback drawing a tqdm bar on stderr; close() when training ends."""

    def __init__(self, n_iter: int, desc: str = "training") -> None:
        self._bar = tqdm(total=n_iter, desc=desc, unit="it", leave=True, dynamic_ncols=True)

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
