"""Every sampler's chain against the enumerated posterior of a tiny corpus.

One table, samplers x variants x targets: unsupervised LDA, a fixed classifier and augmentation
(two tasks: G_d(k) of SPEC (3) with T > 1), and each loss with its augmentation and eta drawn by
the training loop (eta integrated out of the enumerated posterior). Each case runs independent
chains and a chi-square test at the false-alarm rate ``exact.FALSE_ALARM``, and checks the same
histogram against a slightly wrong posterior, so a test that cannot fail would show up. Then the
cases a table does not hold: blocked against single-site chains, the light sampler drawing phi
every third sweep or under an asymmetric prior, and the measured bias of collapsed light.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pytest
from scipy import stats

from exact import (
    FALSE_ALARM,
    Tiny,
    all_states,
    chi_square_pvalue,
    fixed_augmentation,
    loss_evidence,
    sweeps,
    trained,
)
from medlda.losses import LOSSES, make_loss
from medlda.samplers import BLOCK_SIMULATIONS, PROPOSAL_MODES, SAMPLERS, ExactGibbs, Light
from medlda.samplers.blocked import BlockedGibbs

CORPORA = {
    "tiny": Tiny(((0, 1, 0), (1, 2)), 3, 2),
    # repeated words: blocks of 3, 1 | 2, 1 and of 3 | 1, 2
    "two-topics": Tiny(((0, 1, 0, 0), (1, 2, 1)), 3, 2),
    "three-topics": Tiny(((0, 0, 0), (0, 1, 1)), 2, 3),
}
TINY = CORPORA["tiny"]
ETA = np.array([[1.5, -1.0], [-0.5, 2.0]])  # fixed classifier and augmentation of the two documents
KAPPA = np.array([[1.0, -0.5], [-1.0, 0.7]])
W = np.array([[0.8, 0.3], [1.2, 0.5]])
LOSS_CASES = {  # loss: (parameters, targets of the two documents)
    "hinge": (dict(c=0.8, margin=1.0), [1.0, -1.0]),
    "logistic": (dict(c=3.0), [1.0, 0.0]),
    "squared": (dict(c=3.0), [1.5, -1.5]),
    "epsilon": (dict(c=1.0, epsilon=0.2), [1.5, -1.5]),
}
MODES = ["mixture", "cycle", "doc", "word", "exp", "scan"]
SIMULATIONS = ("backward", "nested")


def make_sampler(name: str):
    """'gibbs', 'light-<variant>-<proposal>' (n_mh = 4) or 'blocked-<simulation>'."""
    kind, *rest = name.split("-")
    if kind == "light":
        return Light(rest[0], rest[1], n_mh=4)
    return BlockedGibbs(rest[0]) if kind == "blocked" else ExactGibbs()


def posterior(target: str, corpus: Tiny = TINY, alpha=None, eta_scale: float = 1.0,
              c_scale: float = 1.0) -> np.ndarray:
    """The enumerated p(Z | W) toward ``target`` ('lda', 'supervised' with ETA scaled by
    ``eta_scale``, or a loss with its c scaled by ``c_scale``)."""
    if target == "lda":
        return corpus.posterior(alpha)
    if target == "supervised":
        return corpus.posterior(alpha, fixed_augmentation(ETA * eta_scale, KAPPA, W))
    params, y = LOSS_CASES[target]
    return corpus.posterior(alpha, loss_evidence(target, dict(params, c=params["c"] * c_scale), y))


@dataclass(frozen=True)
class Case:
    """A sampler on a corpus toward a target ('lda', 'supervised' or a loss), its chains, and the
    slightly wrong posterior the same histogram must reject: one keyword of ``posterior`` and its
    value, e.g. ('alpha', 0.2)."""

    sampler: str
    target: str
    n_chains: int
    n_sweeps: int
    seed: int
    wrong: tuple[str, float]
    corpus: str = "tiny"
    slow: bool = False

    @property
    def id(self) -> str:
        return "-".join([self.sampler, self.target] + ([self.corpus] if self.corpus != "tiny" else []))

    def posterior(self, wrong: bool = False) -> np.ndarray:
        return posterior(self.target, CORPORA[self.corpus], **dict([self.wrong] if wrong else []))


@functools.cache
def final_states(case: Case) -> np.ndarray:
    """The case's histogram of final assignments (computed once per session)."""
    corpus, sampler = CORPORA[case.corpus], make_sampler(case.sampler)
    if case.target in LOSS_CASES:
        params, y = LOSS_CASES[case.target]
        chain = trained(sampler, make_loss(case.target, **params), np.asarray(y, dtype=float)[:, None],
                        case.n_sweeps)
    else:
        chain = sweeps(sampler, case.n_sweeps, *((ETA, KAPPA, W) if case.target == "supervised" else corpus.no_tasks))
    return corpus.final_states(chain, case.n_chains, case.seed)


CASES = [  # slow: the light proposal modes other than the default, and the losses
    Case("gibbs", "lda", 3000, 15, 0, ("alpha", 0.25)),
    Case("gibbs", "supervised", 3000, 15, 1, ("eta_scale", 0.5)),
    # partially collapsed light: its Z-marginal is the collapsed posterior (phi drawn exactly)
    *[Case(f"light-partial-{mode}", target, 2000, 12, MODES.index(mode), ("alpha", 0.2), slow=mode != "mixture")
      for mode in MODES for target in ("lda", "supervised")],
    *[Case(f"blocked-{simulation}", "lda", 3000, 8, 5, ("alpha", 0.3), corpus)
      for corpus in ("two-topics", "three-topics") for simulation in SIMULATIONS],
    *[Case("gibbs", "lda", 3000, 8, 6, ("alpha", 0.3), corpus) for corpus in ("two-topics", "three-topics")],
    # aux, topics and eta together leave p(Z, eta, aux) invariant, for every loss
    *[Case(sampler, loss, 1500, 15, sorted(LOSS_CASES).index(loss), ("c_scale", 3.0), slow=True)
      for loss in sorted(LOSS_CASES) for sampler in ("gibbs", "light-partial-mixture")],
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=[pytest.mark.slow] if c.slow else []) for c in CASES])
def test_chain_matches_enumerated_posterior(case):
    hist = final_states(case)
    assert chi_square_pvalue(hist, case.posterior()) > FALSE_ALARM
    assert chi_square_pvalue(hist, case.posterior(wrong=True)) < FALSE_ALARM  # the test has power


def test_every_sampler_variant_and_loss_has_a_case():
    assert set(LOSS_CASES) == set(LOSSES)
    assert set(MODES) == set(PROPOSAL_MODES) and set(SIMULATIONS) == set(BLOCK_SIMULATIONS)
    assert {case.sampler.split("-")[0] for case in CASES} == set(SAMPLERS)
    covered = {case.sampler for case in CASES}
    assert {"gibbs", *(f"light-partial-{m}" for m in MODES), *(f"blocked-{s}" for s in SIMULATIONS)} <= covered


@pytest.mark.parametrize("simulation", SIMULATIONS)
@pytest.mark.parametrize("corpus", ["three-topics", "two-topics"])
def test_blocked_and_single_site_chains_agree(corpus, simulation):
    """The blocked and the single-site chains of the table, as two samples of one distribution."""
    blocked = final_states(Case(f"blocked-{simulation}", "lda", 3000, 8, 5, ("alpha", 0.3), corpus))
    single = final_states(Case("gibbs", "lda", 3000, 8, 6, ("alpha", 0.3), corpus))
    table = np.array([blocked, single])
    keep = table.sum(axis=0) >= 10
    table = np.column_stack([table[:, keep], table[:, ~keep].sum(axis=1)])
    assert stats.chi2_contingency(table).pvalue > FALSE_ALARM


# -- light: phi drawn every third sweep, an asymmetric prior, the collapsed variant's bias ----------
@pytest.mark.slow
@pytest.mark.parametrize("supervised", [False, True], ids=["lda", "supervised"])
def test_partially_collapsed_light_drawing_phi_every_third_sweep_matches_the_posterior(supervised, monkeypatch):
    """phi drawn at every third sweep only (counted) and the tokens sampled given the same phi in
    between: still the enumerated posterior, and not the posterior of another prior. The chain
    needs about as many phi draws as with phi_every=1 to get there (after 12 sweeps, 4 draws, the
    supervised chains are still far from it: p = 2e-10; after 36 sweeps p = 0.22)."""
    from medlda.samplers import light

    draws = []
    real = light.draw_phi_tables
    monkeypatch.setattr(light, "draw_phi_tables", lambda *args: draws.append(1) or real(*args))
    sampler = Light("partial", "mixture", n_mh=4, phi_every=3)
    target = "supervised" if supervised else "lda"
    hist = TINY.final_states(sweeps(sampler, 36, *((ETA, KAPPA, W) if supervised else TINY.no_tasks)), 2000,
                             seed=40 + supervised)
    assert len(draws) == 2000 * 12
    assert chi_square_pvalue(hist, posterior(target)) > FALSE_ALARM
    assert chi_square_pvalue(hist, posterior(target, alpha=0.2)) < FALSE_ALARM


def _tv(p, q) -> float:
    return 0.5 * float(np.abs(p - q).sum())


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["partial", "collapsed"])
def test_light_with_an_asymmetric_prior_targets_it(variant):
    """An asymmetric alpha takes the kernels' per-topic path (a symmetric one reads a single
    alpha_k): partial matches the enumerated posterior; collapsed, whose small bias the next test
    measures, lands far nearer it than the symmetric prior's posterior."""
    alpha = np.array([0.25, 1.2])
    hist = TINY.final_states(sweeps(Light(variant, "mixture", n_mh=4), 12, ETA, KAPPA, W), 2000, seed=17,
                             alpha=alpha)
    target, symmetric = posterior("supervised", alpha=alpha), posterior("supervised")
    if variant == "partial":
        assert chi_square_pvalue(hist, target) > FALSE_ALARM
    assert chi_square_pvalue(hist, symmetric) < FALSE_ALARM
    assert _tv(hist / hist.sum(), target) < 0.5 * _tv(target, symmetric)


def _first_doc_posterior(target: str) -> np.ndarray:
    """The enumerated distribution of doc 0's three assignments (index 4 z0 + 2 z1 + z2)."""
    exact = np.zeros(8)
    for z, p in zip(all_states(TINY.n_tokens, TINY.n_topics), posterior(target)):
        exact[z[0] * 4 + z[1] * 2 + z[2]] += p
    return exact


def _first_doc_histogram(sampler, tasks, seed: int = 21, n_sweeps: int = 21000, burn_in: int = 1000) -> np.ndarray:
    """Doc 0's assignments along one long chain, after ``burn_in`` sweeps."""
    rng = np.random.default_rng(seed)
    state = TINY.initial_state(rng)
    hist = np.zeros(8)
    for sweep in range(n_sweeps):
        sampler.sweep(state, *tasks, rng)
        if sweep >= burn_in:
            hist[state.z[0] * 4 + state.z[1] * 2 + state.z[2]] += 1
    return hist / hist.sum()


def test_collapsed_light_bias_is_small_and_measured():
    """The papers' collapsed light sampler is not exactly stationary (its frozen word table counts
    the moving token itself); its deviation is small and measured. From one long chain: the
    distribution of doc 0's three assignments against the enumerated posterior. Measured TV with
    the default "mixture": 0.006 for the collapsed sampler, 0.004 for the exact partial one (noise
    floor); with "scan" 0.010 and 0.003; dropping the mixture's exp term from its ratio fails it
    (benchmarks/bench_collapsed_bias.py tracks the bias against corpus size)."""
    exact = _first_doc_posterior("supervised")
    for sampler, bound in ((Light("collapsed", n_mh=4), 0.045), (Light("partial", n_mh=4), 0.025)):
        assert _tv(_first_doc_histogram(sampler, (ETA, KAPPA, W)), exact) < bound, sampler.variant


@pytest.mark.slow
@pytest.mark.parametrize("supervised", [False, True], ids=["lda", "supervised"])
@pytest.mark.parametrize("proposal", MODES)
def test_collapsed_light_stays_near_the_posterior_in_every_mode(proposal, supervised):
    """Each proposal mode of the collapsed sampler reads its own stored values (the exp q of LDA's
    uniform table included: read as zero, every exp move would be accepted). Measured TV of doc
    0's assignments from the enumerated posterior: 0.004-0.049 in every mode but "word" (0.071 /
    0.079, its frozen table the whole proposal); a sampler accepting every proposal lands at
    0.39 / 0.65 (uniform assignments)."""
    exact = _first_doc_posterior("supervised" if supervised else "lda")
    tasks = (ETA, KAPPA, W) if supervised else TINY.no_tasks
    assert _tv(_first_doc_histogram(Light("collapsed", proposal, n_mh=4), tasks), exact) < 0.12
