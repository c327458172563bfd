"""Simulation-based calibration of the supervised chains: gibbs, light partial and light collapsed.

Each cell draws ``N_SIMS`` data sets from the generative model (``sbc.Model``: K = 2, V = 4, three
documents of 2, 3 and 4 tokens, eta ~ N(0, 4 I), y from the loss), runs the training loop on each
from a random start and ranks label-invariant summaries of the truth among ``N_DRAWS`` thinned
draws. Every loss appears: logistic (c = 1) on each sampler, hinge, epsilon-insensitive and squared
once each (``sbc`` says why each joint is proper and how it is drawn).

False alarm: each summary of each cell is a chi-square test of uniform ranks at ``THRESHOLD`` =
``FALSE_ALARM`` / (summaries x cells), Bonferroni, so a correct sampler fails this file with
probability at most ``FALSE_ALARM``. Power: the same simulations and threshold reject the chain run
with c = 3 where the labels were drawn with c = 1, and with alpha = 0.2 where the topics were drawn
with alpha = 0.5.

Light collapsed is an approximation (its word proposal is frozen at sweep start, so a sweep is not
an exact MH kernel). Its bias over Z on corpora this small is for the enumeration tests to measure:
it is far below what a few hundred simulations resolve. Here it must show no error of the size of a
wrong alpha or c, on the same summaries as the exact samplers.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from exact import FALSE_ALARM
from medlda.samplers import ExactGibbs, Light
from sbc import SUMMARIES, Model, rank_pvalues, ranks

N_SIMS, N_DRAWS, N_BURN, THIN = 400, 9, 15, 3
PARAMS = {  # loss: parameters of the model and of the chain
    "logistic": {"c": 1.0},
    "hinge": {"c": 0.5, "margin": 1.0},
    "epsilon": {"c": 1.0, "epsilon": 0.2},
    "squared": {"c": 1.0},
}
CELLS = [  # (sampler, loss, seed)
    ("gibbs", "logistic", 0),
    ("gibbs", "hinge", 1),
    ("light-partial", "logistic", 2),
    ("light-partial", "epsilon", 3),
    ("light-collapsed", "logistic", 4),
    ("light-collapsed", "squared", 5),
]
THRESHOLD = FALSE_ALARM / (len(SUMMARIES) * len(CELLS))
WRONG = [  # (sampler, loss, seed of a cell above: its simulations, the chain's wrong alpha or c)
    ("gibbs", "logistic", 0, "c", 3.0),
    ("light-partial", "logistic", 2, "alpha", 0.2),
]


def make_sampler(name: str):
    """'gibbs' or 'light-<variant>' (mixture proposal, default n_mh)."""
    return ExactGibbs() if name == "gibbs" else Light(name.split("-")[1], "mixture")


def cell_pvalues(sampler: str, loss: str, seed: int, chain_alpha: float | None = None,
                 chain_c: float | None = None) -> np.ndarray:
    """One p-value per summary of a cell's ranks, the chain given the model's alpha and c unless
    ``chain_alpha`` or ``chain_c`` says otherwise."""
    model = Model(loss, PARAMS[loss])
    chain_params = dict(PARAMS[loss], **({} if chain_c is None else {"c": chain_c}))
    rank_table = ranks(model, make_sampler(sampler), N_SIMS, seed, N_BURN, N_DRAWS, THIN, chain_alpha=chain_alpha,
                       chain_params=chain_params)
    return rank_pvalues(rank_table, N_DRAWS)


@pytest.mark.slow
@pytest.mark.parametrize("sampler, loss, seed", CELLS, ids=[f"{s}-{loss}" for s, loss, _ in CELLS])
def test_ranks_of_the_truth_are_uniform(sampler, loss, seed):
    pvalues = cell_pvalues(sampler, loss, seed)
    assert pvalues.min() > THRESHOLD, dict(zip(SUMMARIES, pvalues))


@pytest.mark.slow
@pytest.mark.parametrize("sampler, loss, seed, name, value", WRONG, ids=[f"{s}-{n}" for s, _, _, n, _ in WRONG])
def test_the_harness_rejects_a_chain_on_the_wrong_model(sampler, loss, seed, name, value):
    assert (sampler, loss, seed) in CELLS  # the simulations of a cell that passes
    pvalues = cell_pvalues(sampler, loss, seed, **{f"chain_{name}": value})
    assert pvalues.min() < THRESHOLD, dict(zip(SUMMARIES, pvalues))


def test_epsilon_noise_has_the_loss_density():
    """y - omega of the epsilon-insensitive model against its CDF (uniform on [-eps, eps] with
    probability 2 eps / (2 eps + 1/c), else exponential tails of rate 2c), by Kolmogorov-Smirnov
    at FALSE_ALARM; the same draws reject the CDF of c 1.3 times larger."""
    eps = PARAMS["epsilon"]["epsilon"]
    noise = Model("epsilon", PARAMS["epsilon"]).labels(np.zeros(20000), np.random.default_rng(7))

    def cdf(x, c):
        flat = 2 * eps / (2 * eps + 1 / c)
        tail = (1 - flat) / 2 * np.exp(-2 * c * np.maximum(np.abs(x) - eps, 0.0))
        inside = 0.5 + flat * np.clip(x, -eps, eps) / (2 * eps)
        return np.where(x < -eps, tail, np.where(x > eps, 1 - tail, inside))

    c = PARAMS["epsilon"]["c"]
    assert stats.kstest(noise, lambda x: cdf(x, c)).pvalue > FALSE_ALARM
    assert stats.kstest(noise, lambda x: cdf(x, 1.3 * c)).pvalue < FALSE_ALARM
