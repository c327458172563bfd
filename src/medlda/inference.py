"""Topic inference for new documents (SPEC §7): the orchestration around the inference kernels."""

from __future__ import annotations

import numpy as np

from .kernels.inference import prior_tables, sparse_infer_doc_topic, sparse_infer_doc_topic_parallel
from .kernels.rng import make_streams, on_stream_chunks


def gibbs_infer(word_ids: np.ndarray, doc_ptr: np.ndarray, phi_wk: np.ndarray, alpha: np.ndarray,
                n_burn: int, n_avg: int, rng: np.random.Generator, n_jobs: int = 1) -> np.ndarray:
    """Exact Gibbs inference of new documents' expected doc-topic counts (D, K): each token's
    conditional averaged over the last n_avg of n_burn + n_avg sweeps (SPEC §7). ``n_jobs``
    threads share the documents; the result is the same for any number."""
    out = np.zeros((doc_ptr.size - 1, phi_wk.shape[1]))
    alpha = np.asarray(alpha, dtype=np.float64)
    on_stream_chunks(sparse_infer_doc_topic, sparse_infer_doc_topic_parallel, doc_ptr, n_jobs, word_ids, doc_ptr,
                     phi_wk, alpha, *prior_tables(phi_wk, alpha), n_burn, n_avg, make_streams(rng, doc_ptr.size - 1),
                     out, True)
    return out
