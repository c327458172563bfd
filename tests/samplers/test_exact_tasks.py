"""Whole chains on several tasks against enumerated posteriors of a tiny corpus.

The training loop (aux, topics and eta drawn in turn) on T > 1 tasks sharing topics: multi-class
(one task per class, one-hot targets) and multi-label (any 0/1 targets, positive examples' c
times a positive cost), for hinge and logistic on the gibbs and light partial samplers; the
coordinate eta draw, serial and on two threads; one-vs-rest, whose C binary models are
independent chains each targeting its own binary posterior. Each enumerated posterior
integrates every task's eta out (``exact.tasks_evidence``). Each test's chi-squares together
have the false-alarm rate ``exact.FALSE_ALARM`` (split between them where a test makes several),
and the same histograms must reject a slightly wrong target (the posterior without the last
task, or without the positive cost): a test that cannot fail would show up.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from exact import (
    FALSE_ALARM,
    Tiny,
    all_states,
    chi_square_pvalue,
    eta_uniforms,
    tasks_evidence,
    token_arrays,
    trained_tasks,
    uniforms_pvalue,
)
from medlda import MedLDAClassifier
from medlda.data.corpus import Corpus
from medlda.losses import make_loss
from medlda.samplers import ExactGibbs, Light

TINY = Tiny(((0, 1, 0), (1, 2)), 3, 2)
PARAMS = {"hinge": dict(c=1.0, margin=1.0), "logistic": dict(c=3.0)}
N_ITER = 15


@dataclass(frozen=True)
class Tasks:
    """T tasks of the tiny corpus: a loss, a (D, T) 0/1 indicator and the positive cost."""

    loss: str
    indicator: tuple[tuple[int, ...], ...]
    positive_cost: float = 1.0

    def make_loss(self):
        params = PARAMS[self.loss]
        return make_loss(self.loss, params["c"], params.get("margin"), positive_cost=self.positive_cost)

    @property
    def targets(self) -> np.ndarray:
        return self.make_loss().encode(np.array(self.indicator, dtype=bool))

    def posterior(self, drop_last: bool = False, positive_cost: float | None = None) -> np.ndarray:
        """The enumerated p(Z | W, y), or that of a slightly wrong target: without the last task,
        or with another positive cost."""
        targets = self.targets[:, :-1] if drop_last else self.targets
        cost = self.positive_cost if positive_cost is None else positive_cost
        return TINY.posterior(log_factor=tasks_evidence(self.loss, PARAMS[self.loss], targets, cost))


# doc 0 in class 0, doc 1 in class 2: three tasks, one with no positive document
MULTICLASS = ((1, 0, 0), (0, 0, 1))
MULTILABEL = {"hinge": ((1, 1), (1, 0)), "logistic": ((1, 0), (1, 1))}
SAMPLERS = {"gibbs": ExactGibbs, "light": lambda: Light("partial")}  # light: mixture, default n_mh
# losses crossed with samplers: the aux draws do not depend on the sampler, nor its sweeps on the loss
CASES = [("gibbs", Tasks("hinge", MULTICLASS)), ("light", Tasks("logistic", MULTICLASS)),
         ("light", Tasks("hinge", MULTILABEL["hinge"], 3.0)), ("gibbs", Tasks("logistic", MULTILABEL["logistic"], 3.0))]


def case_id(sampler: str, tasks: Tasks) -> str:
    return f"{sampler}-{tasks.loss}-{'multilabel' if tasks.positive_cost != 1 else 'multiclass'}"


@pytest.mark.slow
@pytest.mark.parametrize("sampler, tasks", CASES, ids=[case_id(*case) for case in CASES])
def test_chain_on_several_tasks_matches_enumerated_posterior(sampler, tasks):
    """1,000 chains of 15 iterations from eta ~ N(0, I): the final Z against the enumerated
    posterior, rejecting it without the last task and (multi-label) without the positive cost."""
    hist = TINY.final_states(trained_tasks(SAMPLERS[sampler](), tasks.make_loss(), tasks.targets, N_ITER), 1000,
                             seed=CASES.index((sampler, tasks)))
    assert chi_square_pvalue(hist, tasks.posterior()) > FALSE_ALARM
    assert chi_square_pvalue(hist, tasks.posterior(drop_last=True)) < FALSE_ALARM  # every task counts
    if tasks.positive_cost != 1:
        assert chi_square_pvalue(hist, tasks.posterior(positive_cost=1.0)) < FALSE_ALARM


# -- the coordinate eta draw: in a chain, and on two threads ------------------------------------
COORDINATE = Tasks("hinge", MULTILABEL["hinge"], 3.0)


def coordinate_chains(n_jobs: int, n_chains: int, seed: int) -> tuple[np.ndarray, list]:
    """Histogram of the final Z and the (Z index, eta) of each chain of light partial drawing eta by
    coordinate Gibbs sweeps on ``n_jobs`` threads, every task's eta starting at 0 (as a fit does)."""
    finals: list = []
    sampler = Light("partial", eta_draw="coordinate", n_jobs=n_jobs)
    chain = trained_tasks(sampler, COORDINATE.make_loss(), COORDINATE.targets, N_ITER,
                          np.zeros((2, TINY.n_topics)), finals)
    return TINY.final_states(chain, n_chains, seed), finals


@pytest.mark.slow
def test_coordinate_eta_draw_in_a_chain_matches_the_posterior():
    """2,000 chains: Z against its enumerated posterior, and eta given Z against p(eta_t | Z, y_t)
    through its Rosenblatt transform (independent uniforms; binned per topic jointly over the
    tasks, so tasks drawn with shared noise show), each at half the false-alarm rate; Z must
    reject the posterior without the last task, eta the conditional under the prior N(0, 1.2 I).
    Every task's eta moved from its start at 0."""
    hist, finals = coordinate_chains(1, 2000, seed=11)
    level = FALSE_ALARM / 2
    assert all(np.all(eta != 0.0) for _, eta in finals)
    assert chi_square_pvalue(hist, COORDINATE.posterior()) > level
    assert chi_square_pvalue(hist, COORDINATE.posterior(drop_last=True)) < level
    params, targets = PARAMS["hinge"], COORDINATE.targets
    u = eta_uniforms(TINY, "hinge", params, targets, finals, COORDINATE.positive_cost)
    assert uniforms_pvalue(u.transpose(0, 2, 1)) > level
    wrong = eta_uniforms(TINY, "hinge", params, targets, finals, COORDINATE.positive_cost, sigma2=1.2)
    assert uniforms_pvalue(wrong.transpose(0, 2, 1)) < level


@pytest.mark.slow
def test_coordinate_eta_draw_on_two_threads_is_the_serial_draw():
    """Tasks are dealt to the threads: with two tasks each thread has one, and the chains are the
    serial chains draw for draw, so the serial test above covers them; the last task's eta moves,
    and the histogram passes the chi-square and rejects the posterior without the last task."""
    hist, finals = coordinate_chains(2, 100, seed=12)
    _, serial = coordinate_chains(1, 100, seed=12)
    assert all(np.all(eta[-1] != 0.0) for _, eta in finals)
    assert all(a == b and np.array_equal(x, y) for (a, x), (b, y) in zip(finals, serial))
    assert chi_square_pvalue(hist, COORDINATE.posterior()) > FALSE_ALARM
    assert chi_square_pvalue(hist, COORDINATE.posterior(drop_last=True)) < FALSE_ALARM


# -- one-vs-rest: C independent binary chains ------------------------------------------------------
OVR = Tiny(((0, 1, 0), (1, 2), (2, 0)), 3, 2, alpha=0.5, beta=0.3)  # one document per class
OVR_COST = 2.0  # positive_cost 'auto' in one-vs-rest: C - 1


def topic_word_key(n_kw: np.ndarray) -> bytes:
    return np.asarray(n_kw, dtype=np.int64).tobytes()


def binary_posterior(t: int, positive_cost: float = OVR_COST) -> dict[bytes, float]:
    """Class t's binary posterior (hinge, +1 on its document, -1 on the others), pushed forward to
    the topic-word counts (K, V): what a fitted binary model keeps of its chain."""
    y = -np.ones((len(OVR.docs), 1))
    y[t] = 1.0
    words = [v for doc in OVR.docs for v in doc]
    out: dict[bytes, float] = {}
    probs = OVR.posterior(log_factor=tasks_evidence("hinge", PARAMS["hinge"], y, positive_cost))
    for z, p in zip(all_states(OVR.n_tokens, OVR.n_topics), probs):
        n_kw = np.zeros((OVR.n_topics, OVR.n_words))
        np.add.at(n_kw, (np.array(z), np.array(words)), 1)
        key = topic_word_key(n_kw)
        out[key] = out.get(key, 0.0) + p
    return out


def key_pvalue(samples: list[bytes], probs: dict[bytes, float]) -> float:
    keys = sorted(probs)
    observed = np.array([sum(s == k for s in samples) for k in keys], dtype=float)
    assert observed.sum() == len(samples)  # no sample outside the support
    return chi_square_pvalue(observed, np.array([probs[k] for k in keys]))


@pytest.mark.slow
def test_one_vs_rest_fits_each_class_to_its_binary_posterior():
    """400 fits, each three binary chains (gibbs, 12 iterations): per class, the topic-word counts
    against the enumerated binary posterior with the one-vs-rest positive cost ('auto': C - 1),
    rejecting it without that cost."""
    word_ids, doc_ptr = token_arrays([list(doc) for doc in OVR.docs])
    corpus = Corpus(word_ids, doc_ptr, np.array(["a", "b", "c"]))
    model = MedLDAClassifier(2, strategy="ovr", sampler="gibbs", loss="hinge", alpha_sum=1.0, beta=0.3, max_iter=12,
                             n_jobs=1, **PARAMS["hinge"])
    samples: list[list[bytes]] = [[], [], []]
    for i in range(400):
        model.set_params(random_state=i).fit(corpus, [0, 1, 2])
        for t, sub in enumerate(model.estimators_):
            samples[t].append(topic_word_key(sub.topic_word_counts_))
    assert model.positive_cost_ == OVR_COST
    level = FALSE_ALARM / 3  # three classes: the test's false-alarm rate is FALSE_ALARM
    for t in range(3):
        assert key_pvalue(samples[t], binary_posterior(t)) > level
        assert key_pvalue(samples[t], binary_posterior(t, positive_cost=1.0)) < level
