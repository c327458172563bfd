"""Simulation-based calibration (Talts et al. 2018) of the supervised chains on a tiny model.

Each simulation draws the truth from the generative model (theta_d ~ Dir(alpha), phi_k ~
Dir(beta), z, w, eta ~ N(0, sigma2 I), y from the loss' likelihood), runs the package's training
loop on (w, y) from a random start, and ranks label-invariant summaries of the truth among ``L``
thinned draws of the chain. A sampler whose stationary distribution is p(z, eta | w, y) gives
ranks uniform on {0..L} (draws far enough apart to be nearly independent); ``rank_pvalues`` tests
that by chi-square.

Each loss' joint must be a proper distribution that can be sampled:

- logistic with c = 1: psi(y | omega) = sigmoid(omega)^y sigmoid(-omega)^(1-y), a Bernoulli;
- squared: exp(-c (y - omega)^2 / 2) is N(omega, 1/c) up to a constant;
- epsilon-insensitive: exp(-2c max(0, |y - omega| - eps)) integrates over y to 2 eps + 1/c, the
  same for every omega, so y - omega has that density: uniform on [-eps, eps] with probability
  2 eps / (2 eps + 1/c), else eps plus an exponential of rate 2c, of either sign;
- hinge: psi(+1 | omega) + psi(-1 | omega) depends on omega, so psi is no likelihood of y; but the
  tilted joint p(z, eta, w) prod_d psi(y_d | omega_d) / Z is proper (psi <= 1) and its
  conditional given (w, y) is the posterior the chain targets. It is drawn by rejection: the
  truth from the prior, y uniform on {-1, +1}, kept with probability prod_d psi(y_d | omega_d).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from exact import lda_log_joint, log_psi
from medlda.engine.local import LocalBackend
from medlda.engine.loop import Supervision, train
from medlda.engine.state import ChainState
from medlda.losses import make_loss

SUMMARIES = ("majority", "topic_pairs", "word_pairs", "omega_0", "omega_1", "omega_2", "log_joint")


@dataclass(frozen=True)
class Model:
    """The generative model: documents of ``doc_lengths`` tokens over ``n_words`` words, symmetric
    priors, eta ~ N(0, sigma2 I) and a loss with its parameters (``c``, ``margin``, ``epsilon``)."""

    loss: str
    params: dict = field(default_factory=lambda: {"c": 1.0})
    doc_lengths: tuple[int, ...] = (2, 3, 4)
    n_words: int = 4
    n_topics: int = 2
    alpha: float = 0.5
    beta: float = 0.5
    sigma2: float = 4.0

    @property
    def doc_ptr(self) -> np.ndarray:
        return np.concatenate(([0], np.cumsum(self.doc_lengths))).astype(np.int64)

    def prior_draw(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(word ids (N,), z (N,), eta (1, K)) drawn from the LDA prior and eta's."""
        k, ptr = self.n_topics, self.doc_ptr
        phi = rng.dirichlet(np.full(self.n_words, self.beta), size=k)
        z = np.empty(ptr[-1], np.int32)
        words = np.empty(ptr[-1], np.int32)
        for d, length in enumerate(self.doc_lengths):
            theta = rng.dirichlet(np.full(k, self.alpha))
            z[ptr[d]:ptr[d + 1]] = rng.choice(k, size=length, p=theta)
        for i, topic in enumerate(z):
            words[i] = rng.choice(self.n_words, p=phi[topic])
        eta = rng.normal(0.0, np.sqrt(self.sigma2), size=(1, k))
        return words, z, eta

    def omega(self, z: np.ndarray, eta: np.ndarray) -> np.ndarray:
        """omega_d = zbar_d . eta, (D,)."""
        zbar = np.zeros((len(self.doc_lengths), self.n_topics))
        np.add.at(zbar, (np.repeat(np.arange(len(self.doc_lengths)), self.doc_lengths), z), 1.0)
        zbar /= np.asarray(self.doc_lengths)[:, None]
        return zbar @ eta[0]

    def labels(self, omega: np.ndarray, rng: np.random.Generator) -> np.ndarray | None:
        """y drawn from psi(. | omega) (None: a hinge draw rejected)."""
        p = self.params
        if self.loss == "logistic":
            if p["c"] != 1.0:
                raise ValueError("the logistic factor is a likelihood of y only at c = 1")
            return (rng.random(omega.size) < 1.0 / (1.0 + np.exp(-omega))).astype(float)
        if self.loss == "squared":
            return omega + rng.normal(0.0, 1.0 / np.sqrt(p["c"]), omega.size)
        if self.loss == "epsilon":
            eps, c = p["epsilon"], p["c"]
            flat = rng.random(omega.size) < 2 * eps / (2 * eps + 1 / c)
            tail = eps + rng.exponential(1 / (2 * c), omega.size)
            noise = np.where(flat, rng.uniform(-eps, eps, omega.size), tail * rng.choice([-1.0, 1.0], omega.size))
            return omega + noise
        y = rng.choice([-1.0, 1.0], omega.size)
        keep = np.exp(np.sum(log_psi("hinge", p, y, omega)))
        return y if rng.random() < keep else None

    def simulate(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(word ids, z, eta, y) drawn from the joint (by rejection for the hinge loss)."""
        while True:
            words, z, eta = self.prior_draw(rng)
            y = self.labels(self.omega(z, eta), rng)
            if y is not None:
                return words, z, eta, y

    def summaries(self, words: np.ndarray, z: np.ndarray, eta: np.ndarray, y: np.ndarray) -> np.ndarray:
        """The label-invariant summaries ``SUMMARIES`` of (z, eta) given the data: tokens in
        their document's majority topic, pairs of tokens sharing a topic, pairs of tokens of one
        word sharing a topic, omega of each document (eta and the topics switch labels
        together), and log p(w, z, eta, y) (up to the hinge's constant)."""
        k, ptr = self.n_topics, self.doc_ptr
        n_dk = np.zeros((len(self.doc_lengths), k))
        np.add.at(n_dk, (np.repeat(np.arange(len(self.doc_lengths)), self.doc_lengths), z), 1.0)
        n_kw = np.zeros((k, self.n_words))
        np.add.at(n_kw, (z, words), 1.0)
        n_k = n_kw.sum(axis=1)
        omega = self.omega(z, eta)
        docs = [list(words[ptr[d]:ptr[d + 1]]) for d in range(len(self.doc_lengths))]
        log_joint = (lda_log_joint(docs, tuple(z), k, self.n_words, self.alpha, self.beta)
                     - np.sum(eta ** 2) / (2 * self.sigma2)
                     + np.sum(log_psi(self.loss, self.params, y, omega)))
        return np.array([n_dk.max(axis=1).sum(), np.sum(n_k * (n_k - 1) / 2), np.sum(n_kw * (n_kw - 1) / 2),
                         *omega, log_joint])


def chain_draws(model: Model, sampler, words: np.ndarray, y: np.ndarray, rng: np.random.Generator,
                n_burn: int, n_draws: int, thin: int, chain_alpha: float | None = None,
                chain_params: dict | None = None) -> np.ndarray:
    """Summaries (n_draws, S) of the training loop's chain on (words, y), every ``thin``
    iterations after ``n_burn``, from uniformly random topics and eta from its prior.
    ``chain_alpha`` and ``chain_params`` run it on another alpha or loss than the model's."""
    alpha = model.alpha if chain_alpha is None else chain_alpha
    params = model.params if chain_params is None else chain_params
    loss = make_loss(model.loss, **params)
    state = ChainState.initialize(words.copy(), model.doc_ptr, model.n_words, model.n_topics,
                                  np.full(model.n_topics, alpha), model.beta, rng)
    eta = rng.normal(0.0, np.sqrt(model.sigma2), size=(1, model.n_topics))
    supervision = Supervision(loss, y[:, None], 1.0 / model.sigma2, eta)
    out = []

    def keep(info, run) -> None:
        if info.iteration > n_burn and (info.iteration - n_burn) % thin == 0:
            chain = run.backend.chain()
            out.append(model.summaries(words, chain.z, run.supervision.eta, y))

    train(LocalBackend(state, sampler), supervision, n_iter=n_burn + n_draws * thin, n_eta_keep=0, rng=rng,
          callbacks=[keep])
    return np.array(out)


def ranks(model: Model, sampler, n_sims: int, seed: int, n_burn: int, n_draws: int, thin: int,
          **chain_options) -> np.ndarray:
    """Ranks (n_sims, S) of the true summaries among ``n_draws`` chain draws, ties broken at
    random (so a discrete summary's rank is uniform too); seeded by ``seed``."""
    rng = np.random.default_rng(seed)
    out = np.empty((n_sims, len(SUMMARIES)), np.int64)
    for s in range(n_sims):
        words, z, eta, y = model.simulate(rng)
        truth = model.summaries(words, z, eta, y)
        draws = chain_draws(model, sampler, words, y, rng, n_burn, n_draws, thin, **chain_options)
        below, tied = (draws < truth).sum(axis=0), (draws == truth).sum(axis=0)
        out[s] = below + rng.integers(0, tied + 1)
    return out


def rank_pvalues(rank_table: np.ndarray, n_draws: int) -> np.ndarray:
    """Chi-square p-value of each summary's ranks (a column) against uniform on {0..n_draws}."""
    return np.array([stats.chisquare(np.bincount(col, minlength=n_draws + 1)).pvalue for col in rank_table.T])
