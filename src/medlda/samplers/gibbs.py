"""Exact collapsed Gibbs (docs/mathematics.md §4): the reference sampler."""

from __future__ import annotations

import numpy as np

from medlda._kernels.gibbs import gibbs_sweep
from medlda._kernels.records import Counts, Supervision, Tokens
from medlda.samplers.base import Sampler, WarmUp, register
from medlda.samplers.eta import exact_eta
from medlda.samplers.inference import gibbs_infer


@register
class ExactGibbs(Sampler):
    """Collapsed Gibbs, O(K) per token; eta from its exact Gaussian conditional (Cholesky)."""

    name = "gibbs"

    def sweep(self, state, eta, kappa, w, rng, phi_wk=None) -> None:
        gibbs_sweep(Tokens(state.word_ids, state.doc_ptr, state.z), Counts(state.n_dk, state.n_wk, state.n_k),
                    state.alpha, state.beta, state.vbeta, Supervision(eta, kappa, w), state.streams)

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
        return WarmUp(cls(), (0, 1))
