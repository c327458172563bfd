"""Kernels on Python threads: numba functions compiled with ``nogil=True`` release the GIL, so
a plain thread pool runs them side by side with no parallel (parfor) compilation."""

from concurrent.futures import ThreadPoolExecutor
from typing import Callable


def on_threads(kernel: Callable, jobs: list[tuple]) -> list:
    """``kernel(*job)`` for each job, each on its own thread; the results in the jobs' order."""
    if len(jobs) == 1:
        return [kernel(*jobs[0])]
    with ThreadPoolExecutor(len(jobs)) as pool:
        return list(pool.map(lambda job: kernel(*job), jobs))
