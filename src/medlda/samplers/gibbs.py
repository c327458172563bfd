"""Exact collapsed Gibbs (docs/mathematics.md §4): the reference sampler.

With tasks every token's conditional carries the dense exp(G_d(k)), and the sweep is O(K (1 + T))
per token (``gibbs_sweep``). Unsupervised LDA from ``SPARSE_FROM`` topics on takes the sweep that is
sparse in topics (``sparse_gibbs_sweep``, SparseLDA's bucket split): the same conditional, O(topics
of the word) per token. Below that the dense sweep is as fast or faster (measured below).
"""

from __future__ import annotations

import numpy as np

from medlda._kernels.gibbs import gibbs_sweep
from medlda._kernels.records import Counts, Supervision, Tokens
from medlda._kernels.sparse_gibbs import sparse_gibbs_sweep
from medlda.samplers.base import Sampler, WarmUp, register
from medlda.samplers.eta import exact_eta
from medlda.samplers.inference import gibbs_infer

# the least K at which LDA's sweep is the sparse one. On the 20 Newsgroups training set, after 20
# sweeps, the sparse sweep's speed over the dense one's (median of 16 paired sweeps, one thread) is
# 0.91x at K = 8, 0.99x at 10, 1.08x at 12 (0.82x-1.25x), 1.17x at 15 (every sweep ahead), 1.39x at 20:
#     python benchmarks/bench_sparse_gibbs.py --ks 8,10,12,15,20 --sweeps 16
SPARSE_FROM = 15


@register
class ExactGibbs(Sampler):
    """Collapsed Gibbs; eta from its exact Gaussian conditional (Cholesky). ``sparse_from``: the
    least number of topics at which an unsupervised sweep is the sparse one (tests set 1 to run it
    on tiny corpora)."""

    name = "gibbs"

    def __init__(self, sparse_from: int = SPARSE_FROM) -> None:
        self.sparse_from = sparse_from

    def sweep(self, state, eta, kappa, w, rng, phi_wk=None) -> None:
        tokens, counts = Tokens(state.word_ids, state.doc_ptr, state.z), Counts(state.n_dk, state.n_wk, state.n_k)
        if eta.shape[0] == 0 and state.n_k.size >= self.sparse_from:
            sparse_gibbs_sweep(tokens, counts, state.alpha, state.beta, state.vbeta, state.streams)
        else:
            gibbs_sweep(tokens, counts, state.alpha, state.beta, state.vbeta, Supervision(eta, kappa, w),
                        state.streams)

    def draw_eta(self, state, eta, kappa, w, nu, rng) -> tuple[np.ndarray, np.ndarray]:
        """eta from its exact Gaussian conditional, and omega = zbar @ eta.T (D, T) with it."""
        return exact_eta(state, kappa, w, nu, rng)

    def infer(self, word_ids, doc_ptr, phi_wk, alpha, n_burn, n_avg, rng, n_jobs: int = 1,
              progress=None, doc_seeded: bool = False) -> np.ndarray:
        """Averaged doc-topic counts (D, K) of new documents given phi (docs/mathematics.md §7): exact Gibbs,
        O(topics in use) per token (``sparse_infer_doc_topic``), on ``n_jobs`` threads."""
        return gibbs_infer(word_ids, doc_ptr, phi_wk, alpha, n_burn, n_avg, rng, n_jobs, progress, doc_seeded)

    @classmethod
    def warm_up_plan(cls, group: tuple) -> WarmUp:
        """LDA's sweep sparse (its K = 2 below ``SPARSE_FROM``) and the dense one with a task: both
        kernels, whichever a run takes."""
        return WarmUp(cls(sparse_from=1), (0, 1))
