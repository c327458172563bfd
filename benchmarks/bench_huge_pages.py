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

import argparse
import copy
import json
import time
from pathlib import Path

import numpy as np
from numba import njit

from medlda import samplers
from medlda.kernels import word_hash
from medlda.readers import read_corpus
from medlda.training import SamplerState, warm_up

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "20news-bydate.tar.gz"


@njit
def _numba_slots(n_values):
    return np.empty(n_values, np.int32)


def _compact_on_small_pages(word_meta, slots, spill, n_k, beta, vbeta, word_table, inv_frozen, spare=None):
    """``compact_and_build`` with the new slots allocated inside numba every sweep (no madvise)."""
    nnz = word_hash.hash_nonzero(word_meta, slots)
    fresh = _numba_slots(3 * (word_hash.blocks_size(nnz) + spill))
    return fresh, word_hash._compact_into(word_meta, slots, nnz, fresh, n_k, beta, vbeta, word_table, inv_frozen)


def thp_setting() -> str:
    try:
        text = Path("/sys/kernel/mm/transparent_hugepage/enabled").read_text()
        return text[text.index("[") + 1:text.index("]")]
    except (OSError, ValueError):
        return "unknown"


def compare(corpus, n_topics: int, warm: int, pairs: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    state = SamplerState.initialize(corpus.word_ids, corpus.doc_ptr, corpus.n_words, n_topics,
                                    np.full(n_topics, 6.4 / n_topics), 0.01, rng)
    no_eta, no_aux = np.zeros((0, n_topics)), np.zeros((corpus.n_docs, 0))
    warm_sampler = samplers.Light("collapsed")
    for _ in range(warm):
        warm_sampler.sweep(state, no_eta, no_aux, no_aux, rng)
    chains = {"huge_pages": (copy.deepcopy(state), samplers.Light("collapsed"), np.random.default_rng(seed + 1),
                             word_hash.compact_and_build),
              "small_pages": (copy.deepcopy(state), samplers.Light("collapsed"), np.random.default_rng(seed + 1),
                              _compact_on_small_pages)}
    times = {name: [] for name in chains}
    try:
        for r in range(pairs + 1):  # the first pair compiles and builds the hashes: not timed
            for name in (list(chains) if r % 2 == 0 else list(chains)[::-1]):
                chain_state, sampler, chain_rng, compact = chains[name]
                samplers.compact_and_build = compact
                tic = time.perf_counter()
                sampler.sweep(chain_state, no_eta, no_aux, no_aux, chain_rng)
                if r > 0:
                    times[name].append(time.perf_counter() - tic)
    finally:
        samplers.compact_and_build = word_hash.compact_and_build
    huge, small = np.array(times["huge_pages"]), np.array(times["small_pages"])
    return {"n_topics": n_topics, "warm_sweeps": warm, "pairs": pairs,
            "huge_pages_median_seconds": float(np.median(huge)), "small_pages_median_seconds": float(np.median(small)),
            "ratio_huge_to_small_median_of_pairs": float(np.median(huge / small))}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=DEFAULT_DATA)
    p.add_argument("--ks", default="100,1000")
    p.add_argument("--warm", type=int, default=15, help="sweeps before the timed pairs")
    p.add_argument("--pairs", type=int, default=12)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    warm_up()
    corpus = read_corpus(args.data, subset="train")
    rows = [compare(corpus, int(k), args.warm, args.pairs, args.seed) for k in args.ks.split(",") if k]
    print(json.dumps({"thp": thp_setting(), "runs": rows}, indent=1))


if __name__ == "__main__":
    main()
