"""What N threads of this machine give on simple kernels: the ceiling a parallel sweep is read against.

A shared VM's cores are not always whole cores: two virtual CPUs may share one physical core's
vector units or caches with each other or with other tenants, and then no code scales however
little it shares. Each control kernel here runs on threads of its own data, sharing nothing
written: one thread doing all the work against N threads doing 1/N each, interleaved, and the
speed-up (median of the paired ratios) is what the machine gives that kind of work at that moment:

- ``dependent``: a chain of dependent floating-point adds (latency-bound, no memory);
- ``vector``: multiply-adds over an array in L1 (the vector units' throughput);
- ``scatter``: read-modify-writes of random 20-wide rows of a private 1.6 MB array (the caches),
  the access pattern of the exact eta draw's statistics;
- ``random_read``: random reads of a private 64 MB array (memory latency, as hash lookups).

Used by ``bench_scale.py --ceiling``.
"""

from __future__ import annotations

import statistics
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

WORK = {"dependent": 40_000_000, "vector": 80_000_000, "scatter": 3_000_000, "random_read": 3_000_000}  # ~50 ms each


@njit(cache=True, nogil=True)
def _dependent(n, data, index):
    x = 0.0
    for k in range(n):
        x += (k % 7) * 0.5
    data[0] = x


@njit(cache=True, nogil=True, fastmath=True)
def _vector(n, data, index):
    b = 1e-3
    for _ in range(n // 100):
        for k in range(1024):
            data[k] = data[k] * 0.999 + b


@njit(cache=True, nogil=True)
def _scatter(n, data, index):
    rows = data.reshape(-1, 20)
    for k in range(n):
        j = index[k % index.size] % rows.shape[0]
        for t in range(20):
            rows[j, t] += 0.5


@njit(cache=True, nogil=True)
def _random_read(n, data, index):
    x = 0.0
    j = 0
    for _ in range(n):
        j = (index[j % index.size] + np.int64(x)) % data.size  # each address waits for the last read
        x = data[j]
    data[0] = x


KERNELS = {"dependent": (_dependent, 8), "vector": (_vector, 1024), "scatter": (_scatter, 200_000),
           "random_read": (_random_read, 8_000_000)}


def _run(kernel, work: int, arrays: list, index: np.ndarray) -> float:
    jobs = len(arrays)
    tic = time.perf_counter()
    if jobs == 1:
        kernel(work, arrays[0], index)
    else:
        with ThreadPoolExecutor(jobs) as pool:
            list(pool.map(lambda a: kernel(work // jobs, a, index), arrays))
    return time.perf_counter() - tic


def ceiling(n_threads: int, repeats: int = 7) -> dict[str, dict]:
    """Per control kernel: the speed-up of ``n_threads`` threads over one (median of ``repeats``
    interleaved pairs, with the pairs' min and max)."""
    rng = np.random.default_rng(0)
    index = rng.integers(0, 2 ** 40, size=1 << 20)
    out = {}
    for name, (kernel, size) in KERNELS.items():
        arrays = [np.zeros(size) for _ in range(n_threads)]
        _run(kernel, 1000, arrays[:1], index)  # compiles
        ratios = []
        for _ in range(repeats):
            one = _run(kernel, WORK[name], arrays[:1], index)
            many = _run(kernel, WORK[name], arrays, index)
            ratios.append(one / many)
        out[name] = {"speedup": statistics.median(ratios), "min": min(ratios), "max": max(ratios)}
    return out


if __name__ == "__main__":
    import os

    for name, r in ceiling(os.cpu_count() or 2).items():
        print(f"{name:12s} {r['speedup']:.2f}x ({r['min']:.2f}-{r['max']:.2f})")
