"""Exact answers for tiny problems, written independently of the package's kernels, and the one
harness that runs the package's chains against them.

Enumerated posteriors over every assignment Z (with a fixed supervision or a loss with eta
integrated out), a chi-square goodness-of-fit test with a stated false-alarm rate, and ``Tiny``:
a corpus whose independent chains (``sweeps`` of a sampler, or the ``trained`` loop) give a
histogram to test against its posterior. Only the chains use the package.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from scipy import stats
from scipy.special import gammaln

from medlda.engine.local import LocalBackend
from medlda.engine.loop import Supervision, train
from medlda.engine.state import ChainState

FALSE_ALARM = 1e-3  # probability that a correct sampler fails one goodness-of-fit test


def lda_log_joint(docs: list[list[int]], z: tuple, n_topics: int, n_words: int, alpha, beta: float) -> float:
    """log p(W, Z) of collapsed LDA by the textbook formula (symmetric beta; alpha a number or a
    (K,) vector), plain NumPy."""
    alpha = np.broadcast_to(np.asarray(alpha, dtype=float), (n_topics,))
    n_dk = np.zeros((len(docs), n_topics))
    n_kw = np.zeros((n_topics, n_words))
    i = 0
    for d, doc in enumerate(docs):
        for v in doc:
            n_dk[d, z[i]] += 1
            n_kw[z[i], v] += 1
            i += 1
    a_sum, v_beta = alpha.sum(), n_words * beta
    total = np.sum(gammaln(a_sum) - gammaln(n_dk.sum(1) + a_sum))
    total += np.sum(gammaln(n_dk + alpha) - gammaln(alpha))
    total += np.sum(gammaln(v_beta) - gammaln(n_kw.sum(1) + v_beta))
    total += np.sum(gammaln(n_kw + beta) - gammaln(beta))
    return float(total)


def token_arrays(docs: list[list[int]]):
    """(word_ids int32, doc_ptr int64) of a list of documents of word ids."""
    word_ids = np.array([v for doc in docs for v in doc], np.int32)
    doc_ptr = np.concatenate(([0], np.cumsum([len(d) for d in docs]))).astype(np.int64)
    return word_ids, doc_ptr


def zbar_of(docs: list[list[int]], z: tuple, n_topics: int) -> np.ndarray:
    out = np.zeros((len(docs), n_topics))
    i = 0
    for d, doc in enumerate(docs):
        for _ in doc:
            out[d, z[i]] += 1.0 / len(doc)
            i += 1
    return out


def all_states(n_tokens: int, n_topics: int) -> list[tuple]:
    return list(itertools.product(range(n_topics), repeat=n_tokens))


def normalize_log(logp: np.ndarray) -> np.ndarray:
    p = np.exp(logp - logp.max())
    return p / p.sum()


def chi_square_pvalue(observed: np.ndarray, probs: np.ndarray, min_expected: float = 5.0) -> float:
    """Pearson chi-square p-value of counts against probabilities; bins with expected counts below
    ``min_expected`` are pooled into one."""
    n = observed.sum()
    expected = probs * n
    small = expected < min_expected
    obs = np.append(observed[~small], observed[small].sum())
    exp = np.append(expected[~small], expected[small].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    return float(stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue)


def state_index(z: np.ndarray, n_topics: int) -> int:
    """Index of assignment z in ``all_states`` order (base-K digits, first token most significant)."""
    idx = 0
    for k in z:
        idx = idx * n_topics + int(k)
    return idx


# -- log psi of every loss, and the factors a supervised posterior multiplies p(W, Z) by ------------
def log_psi(name: str, params: dict, y: float, omega: np.ndarray) -> np.ndarray:
    """log psi(y | omega) of docs/mathematics.md §2's table, before augmentation (written here independently)."""
    c = params["c"]
    if name == "hinge":
        return -2 * c * np.maximum(0.0, params["margin"] - y * omega)
    if name == "logistic":
        return c * y * omega - c * np.logaddexp(0.0, omega)
    if name == "squared":
        return -c * (y - omega) ** 2 / 2
    return -2 * c * np.maximum(0.0, np.abs(y - omega) - params["epsilon"])


def fixed_augmentation(eta: np.ndarray, kappa: np.ndarray, w: np.ndarray):
    """log factor of Z given a fixed classifier and augmentation: sum kappa omega - w omega^2 / 2,
    omega = zbar eta^T (docs/mathematics.md (3), T tasks)."""
    def factor(zbar: np.ndarray) -> float:
        omega = zbar @ eta.T
        return float(np.sum(kappa * omega - 0.5 * w * omega ** 2))
    return factor


def loss_evidence(name: str, params: dict, y, sigma2: float = 1.0):
    """log factor of Z with eta ~ N(0, sigma2 I) integrated out numerically over a grid (two topics
    only), psi before augmentation: log of the integral of prior(eta) prod_d psi(y_d | zbar_d eta)."""
    grid = np.linspace(-9, 9, 541)
    e0, e1 = np.meshgrid(grid, grid, indexing="ij")
    log_prior = -(e0 ** 2 + e1 ** 2) / (2 * sigma2)

    def factor(zbar: np.ndarray) -> float:
        log_f = log_prior.copy()
        for d in range(zbar.shape[0]):
            log_f += log_psi(name, params, y[d], e0 * zbar[d, 0] + e1 * zbar[d, 1])
        top = log_f.max()
        return float(top + np.log(np.exp(log_f - top).sum()))
    return factor


# -- the harness: tiny corpora, their enumerated posteriors, and independent chains on them ---------
@dataclass(frozen=True)
class Tiny:
    """A corpus small enough to enumerate every assignment Z, with its symmetric priors."""

    docs: tuple[tuple[int, ...], ...]
    n_words: int
    n_topics: int
    alpha: float = 0.5
    beta: float = 0.3

    @property
    def n_tokens(self) -> int:
        return sum(len(doc) for doc in self.docs)

    @property
    def no_tasks(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(eta, kappa, w) of unsupervised LDA: no task."""
        n_docs = len(self.docs)
        return np.zeros((0, self.n_topics)), np.zeros((n_docs, 0)), np.zeros((n_docs, 0))

    def posterior(self, alpha=None, log_factor=None) -> np.ndarray:
        """p(Z | W) over ``all_states`` order (alpha a number or a (K,) vector); ``log_factor(zbar)``
        adds a supervised term."""
        alpha = self.alpha if alpha is None else alpha
        docs = [list(doc) for doc in self.docs]
        logp = []
        for z in all_states(self.n_tokens, self.n_topics):
            lp = lda_log_joint(docs, z, self.n_topics, self.n_words, alpha, self.beta)
            if log_factor is not None:
                lp += log_factor(zbar_of(docs, z, self.n_topics))
            logp.append(lp)
        return normalize_log(np.array(logp))

    def initial_state(self, rng, alpha=None) -> ChainState:
        """A chain state of the corpus, its assignments drawn from ``rng``."""
        word_ids, doc_ptr = token_arrays([list(doc) for doc in self.docs])
        alpha = np.broadcast_to(self.alpha if alpha is None else alpha, (self.n_topics,)).astype(float)
        return ChainState.initialize(word_ids, doc_ptr, self.n_words, self.n_topics, alpha, self.beta, rng)

    def final_states(self, run_chain, n_chains: int, seed: int, alpha=None) -> np.ndarray:
        """Histogram over all Z (``all_states`` order) of the final assignment of ``n_chains``
        independent chains, each initialised from one seeded generator and run by
        ``run_chain(state, rng)``."""
        rng = np.random.default_rng(seed)
        hist = np.zeros(self.n_topics ** self.n_tokens)
        for _ in range(n_chains):
            state = self.initial_state(rng, alpha)
            run_chain(state, rng)
            hist[state_index(state.z, self.n_topics)] += 1
        return hist


def sweeps(sampler, n_sweeps: int, eta: np.ndarray, kappa: np.ndarray, w: np.ndarray):
    """A chain of ``n_sweeps`` sweeps of ``sampler`` given a fixed classifier and augmentation."""
    def run_chain(state, rng) -> None:
        for _ in range(n_sweeps):
            sampler.sweep(state, eta, kappa, w, rng)
    return run_chain


def trained(sampler, loss, targets: np.ndarray, n_iter: int):
    """A chain of the training loop (augmentation, topics and eta drawn in turn) for ``n_iter``
    iterations from an eta drawn from N(0, I)."""
    def run_chain(state, rng) -> None:
        supervision = Supervision(loss, targets, 1.0, rng.normal(size=(1, state.n_wk.shape[1])))
        train(LocalBackend(state, sampler), supervision, n_iter=n_iter, n_eta_keep=0, rng=rng)
    return run_chain


# -- several tasks: evidence with each task's eta integrated out, chains that keep their final eta ---
ETA_GRID = np.linspace(-9, 9, 541)  # the grid of ``loss_evidence``, per coordinate of one task's eta (K = 2)


def task_log_density(name: str, params: dict, y: np.ndarray, zbar: np.ndarray, positive_cost: float = 1.0,
                     sigma2: float = 1.0) -> np.ndarray:
    """log of prior(eta_t) prod_d psi(y_dt | zbar_d eta_t) on ``ETA_GRID`` x ``ETA_GRID`` (two
    topics), unnormalised: one task's eta given Z, psi before augmentation. Document d's c is
    multiplied by ``positive_cost`` where its target is positive (y > 0: +1 hinge, 1 logistic)."""
    e0, e1 = np.meshgrid(ETA_GRID, ETA_GRID, indexing="ij")
    log_f = -(e0 ** 2 + e1 ** 2) / (2 * sigma2)
    for d in range(zbar.shape[0]):
        c = params["c"] * (positive_cost if y[d] > 0 else 1.0)
        log_f += log_psi(name, dict(params, c=c), y[d], e0 * zbar[d, 0] + e1 * zbar[d, 1])
    return log_f


def tasks_evidence(name: str, params: dict, targets: np.ndarray, positive_cost: float = 1.0,
                   sigma2: float = 1.0):
    """log factor of Z for T tasks (targets (D, T)), each task's eta ~ N(0, sigma2 I) integrated
    out: the tasks' etas are independent a priori and each task's factors read its own eta only,
    so the integral is the product over tasks of one-task integrals (two topics only)."""
    targets = np.asarray(targets, dtype=float)
    known: dict[tuple, float] = {}  # by zbar and one task's targets: many Z share a zbar

    def one_task(zbar: np.ndarray, y: np.ndarray) -> float:
        key = (zbar.tobytes(), y.tobytes())
        if key not in known:
            log_f = task_log_density(name, params, y, zbar, positive_cost, sigma2)
            top = log_f.max()
            known[key] = float(top + np.log(np.exp(log_f - top).sum()))
        return known[key]

    def factor(zbar: np.ndarray) -> float:
        return sum(one_task(zbar, targets[:, t]) for t in range(targets.shape[1]))
    return factor


def trained_tasks(sampler, loss, targets: np.ndarray, n_iter: int, eta0: np.ndarray | None = None,
                  finals: list | None = None):
    """A chain of the training loop on the T = ``targets.shape[1]`` tasks for ``n_iter``
    iterations, from ``eta0`` (T, K), or from an eta drawn from N(0, I); appends (index of the
    final Z in ``all_states`` order, final eta) to ``finals`` when given."""
    def run_chain(state, rng) -> None:
        n_topics = state.n_wk.shape[1]
        eta = rng.normal(size=(targets.shape[1], n_topics)) if eta0 is None else np.array(eta0, dtype=float)
        supervision = Supervision(loss, targets, 1.0, eta)
        train(LocalBackend(state, sampler), supervision, n_iter=n_iter, n_eta_keep=0, rng=rng)
        if finals is not None:
            finals.append((state_index(state.z, n_topics), supervision.eta.copy()))
    return run_chain


def _grid_cdf(density: np.ndarray) -> np.ndarray:
    """CDF on ``ETA_GRID`` of a density given there (trapezoids)."""
    cdf = np.concatenate(([0.0], np.cumsum(0.5 * (density[1:] + density[:-1]) * np.diff(ETA_GRID))))
    return cdf / cdf[-1]


def eta_uniforms(corpus: Tiny, name: str, params: dict, targets: np.ndarray, finals: list,
                 positive_cost: float = 1.0, sigma2: float = 1.0) -> np.ndarray:
    """(chains, T, 2) Rosenblatt transforms of the chains' final eta given their final Z: u0 =
    F(eta_t0 | Z), u1 = F(eta_t1 | eta_t0, Z) under p(eta_t | Z, y_t) (two topics, on
    ``ETA_GRID``, linear between grid points). For chains drawing (Z, eta) from the posterior they
    are independent uniforms: the tasks' etas are independent given Z."""
    states = all_states(corpus.n_tokens, corpus.n_topics)
    docs = [list(doc) for doc in corpus.docs]
    targets = np.asarray(targets, dtype=float)
    grids: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}  # by zbar and task: density, eta_t0's CDF
    out = np.empty((len(finals), targets.shape[1], 2))
    for i, (index, eta) in enumerate(finals):
        zbar = zbar_of(docs, states[index], corpus.n_topics)
        for t in range(targets.shape[1]):
            key = (zbar.tobytes(), t)
            if key not in grids:
                log_f = task_log_density(name, params, targets[:, t], zbar, positive_cost, sigma2)
                density = np.exp(log_f - log_f.max())
                grids[key] = density, _grid_cdf(density.sum(axis=1))
            density, cdf0 = grids[key]
            out[i, t, 0] = np.interp(eta[t, 0], ETA_GRID, cdf0)
            j = int(np.clip(np.searchsorted(ETA_GRID, eta[t, 0]) - 1, 0, ETA_GRID.size - 2))
            f = float(np.clip((eta[t, 0] - ETA_GRID[j]) / (ETA_GRID[j + 1] - ETA_GRID[j]), 0.0, 1.0))
            out[i, t, 1] = np.interp(eta[t, 1], ETA_GRID, _grid_cdf((1 - f) * density[j] + f * density[j + 1]))
    return out


def uniforms_pvalue(u: np.ndarray, n_bins: int = 4) -> float:
    """Chi-square p-value that u (samples, groups, dims) holds independent uniforms on [0, 1):
    each group's dims binned jointly into ``n_bins`` ** dims equal cells (so dependence within a
    group shows too), the groups' Pearson statistics summed (groups independent)."""
    n, n_groups, n_dims = u.shape
    cells = n_bins ** n_dims
    expected = n / cells
    statistic = 0.0
    for g in range(n_groups):
        bins = np.minimum((u[:, g] * n_bins).astype(int), n_bins - 1) @ (n_bins ** np.arange(n_dims))
        counts = np.bincount(bins, minlength=cells)
        statistic += float(((counts - expected) ** 2 / expected).sum())
    return float(stats.chi2.sf(statistic, n_groups * (cells - 1)))
