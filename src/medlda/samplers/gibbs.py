"""Exact collapsed Gibbs (docs/mathematics.md §4): the reference sampler.

With tasks every token's conditional carries the dense exp(G_d(k)), and the sweep is O(K (1 + T))
per token (``gibbs_sweep``). Unsupervised LDA from ``SPARSE_FROM`` topics on takes the sweep that is
sparse in topics (``sparse_gibbs_sweep``, SparseLDA's bucket split): the same conditional, O(topics
of the word) per token; below that the dense one (``dense_lda_sweep``, its K products in SIMD
lanes) is faster (measured below).
"""

from __future__ import annotations

import numpy as np

from medlda._kernels.gibbs import dense_lda_sweep, gibbs_sweep
from medlda._kernels.records import Counts, Supervision, Tokens
from medlda._kernels.sparse_gibbs import sparse_gibbs_sweep
from medlda.samplers.base import Sampler, WarmUp, register
from medlda.samplers.eta import exact_eta
from medlda.samplers.inference import gibbs_infer

# the least K at which LDA's sweep is the sparse one. On the 20 Newsgroups training set, after 10
# sweeps, the sparse sweep's speed over the dense one's (median of 8 paired sweeps, one thread) is
# 0.72x at K = 10, 0.80x at 15, 0.90x at 20, 0.89x at 30, 0.98x at 40 and 1.01x at 60:
#     python benchmarks/bench_sparse_gibbs.py --ks 10,15,20,30,40,60 --burn-in 10 --sweeps 8
SPARSE_FROM = 50


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
        elif eta.shape[0] == 0:
            dense_lda_sweep(tokens, counts, state.alpha, state.beta, state.vbeta, state.streams)
        else:
            gibbs_sweep(tokens, counts, state.alpha, state.beta, state.vbeta, Supervision(eta, kappa, w),
                        state.streams)

    def draw_eta(self, state, eta, kappa, w, nu, rng, n_supervised=None) -> tuple[np.ndarray, np.ndarray]:
        """eta from its exact Gaussian conditional, and omega = zbar @ eta.T (D, T) with it."""
        return exact_eta(state, kappa, w, nu, rng, 1, n_supervised)

    def infer(self, word_ids, doc_ptr, phi_wk, alpha, n_burn, n_avg, rng, n_jobs: int = 1,
              progress=None, doc_seeded: bool = False) -> np.ndarray:
        """Averaged doc-topic counts (D, K) of new documents given phi (docs/mathematics.md §7): exact Gibbs,
        O(topics in use) per token (``sparse_infer_doc_topic``), on ``n_jobs`` threads."""
        return gibbs_infer(word_ids, doc_ptr, phi_wk, alpha, n_burn, n_avg, rng, n_jobs, progress, doc_seeded)

    def warm_up_groups(self, n_tasks: int | None, sizes: tuple[int, int, int] | None = None) -> list[tuple]:
        """LDA's sweep, dense or sparse by K (both when K is unknown), and with tasks the supervised one."""
        groups = []
        if not n_tasks:
            lda = ("lda-dense", "lda-sparse") if sizes is None else \
                ("lda-sparse" if sizes[2] >= self.sparse_from else "lda-dense",)
            groups += [(self.name, kind) for kind in lda]
        if n_tasks is None or n_tasks > 0:
            groups.append((self.name, "tasks"))
        return groups

    @classmethod
    def every_warm_up_group(cls) -> list[tuple]:
        """LDA's dense and sparse sweeps and the supervised one."""
        return [(cls.name, "lda-dense"), (cls.name, "lda-sparse"), (cls.name, "tasks")]

    @classmethod
    def warm_up_plan(cls, group: tuple) -> WarmUp:
        """The group's sweep on the warm-up problem (K = 2): LDA's sparse one (``sparse_from`` 1),
        its dense one, or the supervised one (one task)."""
        kind = group[1]
        return WarmUp(cls(sparse_from=1) if kind == "lda-sparse" else cls(), (1,) if kind == "tasks" else (0,))
