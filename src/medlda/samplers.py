"""Samplers: how one sweep over the tokens, one draw of eta, and inference for new documents are
done. "gibbs" is exact collapsed Gibbs (the reference); "light" is LightMedLDA (SPEC §4, §4a)."""

from __future__ import annotations

import numpy as np

from .classifier import draw_eta_exact
from .kernels.alias import build_alias_rows, build_word_tables_from_counts
from .kernels.eta import coordinate_eta_sweeps
from .kernels.gibbs import gibbs_sweep
from .kernels.inference import infer_doc_topic
from .kernels.light import PROPOSAL_MODES, light_infer_doc_topic, light_sweep
from .kernels.rng import make_streams

SAMPLERS = ("gibbs", "light")
LIGHT_VARIANTS = ("partial", "collapsed")


class ExactGibbs:
    """Collapsed Gibbs, O(K) per token; eta from its exact Gaussian conditional (Cholesky)."""

    name = "gibbs"

    def sweep(self, state, eta, kappa, w, rng) -> None:
        gibbs_sweep(state.word_ids, state.doc_ptr, state.z, state.n_dk, state.n_wk, state.n_k,
                    state.alpha, state.beta, state.vbeta, eta, kappa, w, state.streams)

    def draw_eta(self, state, eta, kappa, w, nu, rng) -> np.ndarray:
        return draw_eta_exact(state.zbar(), kappa, w, nu, rng)

    def infer(self, word_ids, doc_ptr, phi_wk, alpha, n_burn, n_avg, rng) -> np.ndarray:
        """Averaged doc-topic counts (D, K) of new documents given phi (SPEC §7)."""
        out = np.zeros((doc_ptr.size - 1, phi_wk.shape[1]))
        infer_doc_topic(word_ids, doc_ptr, phi_wk, alpha, n_burn, n_avg, make_streams(rng, doc_ptr.size - 1), out)
        return out


class Light:
    """LightMedLDA: MH with doc / word / exp proposals and alias tables; coordinate Gibbs for eta.

    ``variant="partial"`` draws phi ~ Dir(n_k. + beta) each iteration and samples (2b): exact.
    ``variant="collapsed"`` is the papers' sampler, with word tables frozen at sweep start.
    """

    name = "light"

    def __init__(self, variant: str = "partial", proposal: str = "mixture", n_mh: int = 6, n_gibbs: int = 2):
        if variant not in LIGHT_VARIANTS:
            raise ValueError(f"light_variant must be one of {list(LIGHT_VARIANTS)}, got {variant!r}")
        if proposal not in PROPOSAL_MODES:
            raise ValueError(f"proposal must be one of {list(PROPOSAL_MODES)}, got {proposal!r}")
        self.variant = variant
        self.proposal = proposal
        self.n_mh = n_mh
        self.n_gibbs = n_gibbs
        self._tables = None

    def _word_tables(self, n_words: int, n_topics: int):
        if self._tables is None or self._tables[0].shape != (n_words, n_topics):
            self._tables = (np.empty((n_words, n_topics)), np.empty((n_words, n_topics), np.int64),
                            np.empty((n_words, n_topics)))
        return self._tables

    @staticmethod
    def _alpha_table(alpha: np.ndarray):
        prob, alias, q = np.empty((1, alpha.size)), np.empty((1, alpha.size), np.int64), np.empty((1, alpha.size))
        build_alias_rows(alpha[None, :], prob, alias, q)
        return prob[0], alias[0]

    def sweep(self, state, eta, kappa, w, rng, phi_wk: np.ndarray | None = None) -> None:
        """One sweep over every token. The partial variant draws phi from ``state.n_wk`` unless
        ``phi_wk`` (V, K) is given (a distributed driver draws it once from the global counts)."""
        n_words, n_topics = state.n_wk.shape
        prob, alias, q = self._word_tables(n_words, n_topics)
        exact = self.variant == "partial"
        if exact:
            if phi_wk is None:
                phi_wk = draw_phi_wk(state.n_wk, state.beta, rng)
            build_alias_rows(phi_wk, prob, alias, q)
        else:
            phi_wk = np.empty((0, 0))
            build_word_tables_from_counts(state.n_wk, state.n_k, state.beta, state.vbeta, prob, alias, q)
        a_prob, a_alias = self._alpha_table(state.alpha)
        light_sweep(state.word_ids, state.doc_ptr, state.z, state.n_dk, state.n_wk, state.n_k,
                    state.alpha, a_prob, a_alias, state.beta, state.vbeta, phi_wk, prob, alias, q,
                    eta, kappa, w, PROPOSAL_MODES[self.proposal], self.n_mh, exact, state.streams)

    def draw_eta(self, state, eta, kappa, w, nu, rng) -> np.ndarray:
        zbar = state.zbar()
        eta = eta.copy()
        omega = zbar @ eta.T
        normals = rng.standard_normal((self.n_gibbs,) + eta.shape)
        coordinate_eta_sweeps(np.ascontiguousarray(zbar.T), kappa, w, omega, eta, nu, normals)
        return eta

    def infer(self, word_ids, doc_ptr, phi_wk, alpha, n_burn, n_avg, rng) -> np.ndarray:
        prob, alias, q = (np.empty(phi_wk.shape), np.empty(phi_wk.shape, np.int64), np.empty(phi_wk.shape))
        build_alias_rows(phi_wk, prob, alias, q)
        a_prob, a_alias = self._alpha_table(alpha)
        out = np.zeros((doc_ptr.size - 1, phi_wk.shape[1]))
        light_infer_doc_topic(word_ids, doc_ptr, phi_wk, alpha, a_prob, a_alias, prob, alias, q,
                              n_burn, n_avg, max(2, self.n_mh), make_streams(rng, doc_ptr.size - 1), out)
        return out


def draw_phi_wk(n_wk: np.ndarray, beta: float, rng: np.random.Generator) -> np.ndarray:
    """phi_k ~ Dirichlet(n_k. + beta) for every topic, returned word-major (V, K)."""
    gam = rng.standard_gamma(n_wk + beta)
    gam /= gam.sum(axis=0, keepdims=True)
    return gam


def make_sampler(name: str, *, light_variant: str = "partial", proposal: str = "mixture",
                 n_mh: int = 6, n_gibbs: int = 2):
    """The sampler object for ``name`` ("gibbs" or "light")."""
    if name == "gibbs":
        return ExactGibbs()
    if name == "light":
        return Light(light_variant, proposal, n_mh, n_gibbs)
    raise ValueError(f"sampler must be one of {list(SAMPLERS)}, got {name!r}")
