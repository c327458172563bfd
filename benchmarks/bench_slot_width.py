"""Light collapsed LDA sweeps with 16-bit or 32-bit word-hash slots, printed as JSON.

medlda stores a hash slot (topic, current count, frozen count) as three int16 when every word has
under 32,768 tokens and K <= 32,768 (``word_hash.slot_dtype``), else as three int32. This
benchmark runs both from one state (LDA on the full 20 Newsgroups training set after ``--warm``
sweeps), their sweeps alternating in one process (``paired_sweeps``); the figure is the median
over pairs of (int16 sweep time / int32 sweep time). Both chains make the same draws.

    python benchmarks/bench_slot_width.py --ks 100,1000
"""

from __future__ import annotations

import numpy as np

from medlda._kernels.light import word_hash
from paired_sweeps import alternate, main, summary, warm_state


def _hash_from_dense_int32(n_wk, spill, word_meta):
    """``hash_from_dense`` with int32 slots whatever the counts (compaction keeps the dtype)."""
    slots, top = word_hash.hash_from_dense(n_wk, spill, word_meta)
    return slots.astype(np.int32), top


def compare(corpus, n_topics: int, warm: int, pairs: int, seed: int) -> dict:
    state = warm_state(corpus, n_topics, warm, seed)
    times = alternate(state, {"int16": {}, "int32": {"hash_from_dense": _hash_from_dense_int32}}, pairs, seed)
    return {"n_topics": n_topics, "warm_sweeps": warm, "pairs": pairs, **summary(times, "int16", "int32")}


if __name__ == "__main__":
    main(__doc__, compare)
