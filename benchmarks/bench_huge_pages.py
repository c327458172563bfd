"""Light collapsed LDA sweeps with the word hash on transparent huge pages or on 4 KB pages, printed as JSON.

NumPy asks Linux for transparent huge pages (madvise) for arrays of 4 MB and more; numba's
allocator does not. medlda allocates the hash slots with NumPy (``word_hash.new_slots``); this
benchmark compares that with slots allocated inside numba, as before. Both chains start from one
state (LDA on the full 20 Newsgroups training set after ``--warm`` sweeps) and their sweeps
alternate in one process, so the machine's drift hits both alike; the figure is the median over
pairs of (huge-page sweep time / 4 KB sweep time). On a kernel whose THP setting is ``never`` or
``always`` both chains get the same pages and the ratio is 1.

    python benchmarks/bench_huge_pages.py --ks 100,1000
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from medlda._kernels.light import word_hash
from paired_sweeps import alternate, main, summary, warm_state


@njit
def _numba_slots(n_values, like):
    return np.empty(n_values, like.dtype)


def _compact_on_small_pages(word_meta, slots, spill, n_k, beta, vbeta, word_table, inv_frozen, spare=None):
    """``compact_and_build`` with the new slots (of the same dtype) allocated inside numba every
    sweep (no madvise)."""
    fresh = _numba_slots(3 * word_hash.compact_bound(word_meta, spill), slots)
    return fresh, word_hash._compact_into(word_meta, slots, fresh, n_k, beta, vbeta, word_table, inv_frozen)


def thp_setting() -> str:
    try:
        text = Path("/sys/kernel/mm/transparent_hugepage/enabled").read_text()
        return text[text.index("[") + 1:text.index("]")]
    except (OSError, ValueError):
        return "unknown"


def compare(corpus, n_topics: int, warm: int, pairs: int, seed: int) -> dict:
    state = warm_state(corpus, n_topics, warm, seed)
    times = alternate(state, {"huge_pages": {}, "small_pages": {"compact_and_build": _compact_on_small_pages}},
                      pairs, seed)
    return {"n_topics": n_topics, "warm_sweeps": warm, "pairs": pairs,
            **summary(times, "huge_pages", "small_pages")}


if __name__ == "__main__":
    main(__doc__, compare, thp=thp_setting())
