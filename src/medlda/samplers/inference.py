"""Topic inference for new documents (docs/mathematics.md §7): the orchestration around the inference kernels."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Callable

import numpy as np

from medlda._kernels.cvb0 import cvb0_doc_topic, longest_document
from medlda._kernels.inference import prior_tables, sparse_infer_doc_topic, sparse_infer_doc_topic_parallel
from medlda._kernels.rng import DOCS_PER_STREAM, doc_streams, make_streams, on_stream_chunks
from medlda.limits import CELLS

# stream blocks (of DOCS_PER_STREAM documents) per thread between two progress reports: each report
# waits for the slowest thread, so fewer blocks between reports cost parallel time
PROGRESS_STREAMS = 16


def gibbs_infer(word_ids: np.ndarray, doc_ptr: np.ndarray, phi_wk: np.ndarray, alpha: np.ndarray,
                n_burn: int, n_avg: int, rng: np.random.Generator, n_jobs: int = 1,
                progress: Callable[[int], None] | None = None, doc_seeded: bool = False) -> np.ndarray:
    """Exact Gibbs inference of new documents' expected doc-topic counts (D, K): each token's
    conditional averaged over the last n_avg of n_burn + n_avg sweeps (docs/mathematics.md §7). ``n_jobs``
    threads share the documents; the result is the same for any number. ``progress(n)`` is
    called as each group of documents is done, with how many (the same result: a document's
    draws come from its own stream block). ``doc_seeded``: each document's draws come from one
    seed and its own words (``doc_state``), so its result does not depend on the batch."""
    n_docs = doc_ptr.size - 1
    out = np.zeros((n_docs, phi_wk.shape[1]))
    alpha = np.asarray(alpha, dtype=np.float64)
    tables = prior_tables(phi_wk, alpha)
    streams = doc_streams(rng, n_docs) if doc_seeded else make_streams(rng, n_docs)
    step = n_docs if progress is None else PROGRESS_STREAMS * max(n_jobs, 1) * DOCS_PER_STREAM
    for a in range(0, n_docs, max(step, 1)):
        b = min(a + step, n_docs)
        t0, t1 = doc_ptr[a], doc_ptr[b]
        ptr = doc_ptr[a:b + 1] - t0
        on_stream_chunks(sparse_infer_doc_topic, sparse_infer_doc_topic_parallel, ptr, n_jobs, word_ids[t0:t1], ptr,
                         phi_wk, alpha, *tables, n_burn, n_avg,
                         streams[a // DOCS_PER_STREAM:-(-b // DOCS_PER_STREAM)], out[a:b], True, doc_seeded)
        if progress is not None:
            progress(b - a)
    return out


# CVB0 passes per document after its start: on 20 Newsgroups (20 classes) and the hotel reviews
# (regression), test accuracy and R^2 match the Gibbs inference's from 8 passes on
# (docs/benchmarks.md, "Prediction"); fewer passes under-fit the regression
CVB0_PASSES = 8


def cvb0_infer(word_ids: np.ndarray, doc_ptr: np.ndarray, phi_wk: np.ndarray, alpha: np.ndarray, n_jobs: int = 1,
               n_passes: int = CVB0_PASSES, progress: Callable[[int], None] | None = None) -> np.ndarray:
    """Expected doc-topic counts (D, K) of new documents by CVB0 (``medlda._kernels.cvb0``):
    deterministic, O((n_passes + 1) N_d K) per document, with each thread holding its longest
    document's responsibilities (N_d x K floats); ``n_jobs`` threads share the documents (the same
    result on any number). ``progress(n)`` is called as each group of documents is done."""
    n_docs = doc_ptr.size - 1
    n_topics = phi_wk.shape[1]
    out = np.zeros((n_docs, n_topics))
    alpha = np.asarray(alpha, dtype=np.float64)
    n_threads = max(min(n_jobs, n_docs), 1)
    step = n_docs if progress is None else PROGRESS_STREAMS * n_threads * DOCS_PER_STREAM
    for a in range(0, n_docs, max(step, 1)):
        b = min(a + step, n_docs)
        bounds = np.linspace(a, b, n_threads + 1).astype(np.int64)
        jobs = []
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            longest = int(longest_document(doc_ptr, lo, hi))
            CELLS.check(longest * n_topics, "CVB0 inference's responsibilities of one document")
            jobs.append((word_ids, doc_ptr, phi_wk, alpha, n_passes, lo, hi, out, np.empty((longest, n_topics))))
        if len(jobs) == 1:
            cvb0_doc_topic(*jobs[0])
        else:
            with ThreadPoolExecutor(len(jobs)) as pool:
                list(pool.map(lambda job: cvb0_doc_topic(*job), jobs))
        if progress is not None:
            progress(b - a)
    return out
