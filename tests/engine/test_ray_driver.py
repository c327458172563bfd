"""The Ray driver's statistics without a Ray cluster: the phi it broadcasts to the partially
collapsed light sampler's shards is Dirichlet(n_k. + beta) per topic (normalised over the words;
its mean and marginals against the Dirichlet's at ``exact.FALSE_ALARM``), and whole chains of the driver (phi
drawn, shards swept given it, eta drawn from the shards' summed statistics) run on an in-process
stand-in for Ray match the enumerated posterior (chi-square at ``exact.FALSE_ALARM``); each test
must reject a slightly wrong target. Where Ray is installed, the stand-in and a local Ray
cluster run the same chain draw for draw. The collapsed schemes' driver sends the workers the
summed count changes after the first iteration, and runs the chain of a driver that sends the
whole counts every iteration."""

from __future__ import annotations

import os
import pickle

import numpy as np
import pytest
from scipy import stats

from exact import FALSE_ALARM, Tiny, chi_square_pvalue, state_index, tasks_evidence, token_arrays
from medlda.data.synthetic import make_supervised_corpus
from medlda.engine import ray as distributed
from medlda.engine.loop import Supervision, train
from medlda.engine.ray import RayBackend
from medlda.losses import make_loss
from medlda.samplers import Light, make_sampler
from medlda.samplers.light import draw_phi_wk


def dirichlet_mean_pvalue(draws: np.ndarray, a_wk: np.ndarray) -> float:
    """p-value of the mean of phi draws (S, V, K) under phi_k ~ Dirichlet(a_.k) for each topic k:
    per topic, n (m - mu)^T Sigma^-1 (m - mu) over V - 1 words (Sigma = (diag mu - mu mu^T) /
    (a_0 + 1), the Dirichlet's covariance), chi-square with V - 1 degrees of freedom, summed over
    the K independent topics."""
    n, n_words, n_topics = draws.shape
    statistic = 0.0
    for k in range(n_topics):
        a = a_wk[:, k]
        mu = a / a.sum()
        cov = (np.diag(mu) - np.outer(mu, mu)) / (a.sum() + 1)
        diff = (draws[:, :, k].mean(axis=0) - mu)[:-1]
        statistic += n * diff @ np.linalg.solve(cov[:-1, :-1], diff)
    return float(stats.chi2.sf(statistic, n_topics * (n_words - 1)))


def beta_marginals_pvalue(draws: np.ndarray, a_wk: np.ndarray) -> float:
    """Bonferroni-combined p-value of Kolmogorov-Smirnov tests of each entry phi_vk of draws
    (S, V, K) against its marginal Beta(a_vk, a_0k - a_vk) under phi_k ~ Dirichlet(a_.k)."""
    a0 = a_wk.sum(axis=0)
    n_words, n_topics = a_wk.shape
    smallest = min(stats.kstest(draws[:, v, k], stats.beta(a_wk[v, k], a0[k] - a_wk[v, k]).cdf).pvalue
                   for v in range(n_words) for k in range(n_topics))
    return min(1.0, smallest * n_words * n_topics)


def test_driver_phi_is_dirichlet_per_topic():
    """4,000 draws of the driver's phi (V, K) for counts with empty and full cells: every topic's
    column sums to 1 over the words; the mean of each column and the marginal of each entry pass,
    each at half the false-alarm rate, and each rejects Dirichlet(n_k. + 1.2 beta)."""
    n_wk = np.array([[3, 0, 1], [0, 0, 4], [1, 2, 0], [0, 5, 0]], dtype=np.int32)
    beta = 0.3
    rng = np.random.default_rng(7)
    draws = np.array([draw_phi_wk(n_wk, beta, rng) for _ in range(4000)])
    np.testing.assert_allclose(draws.sum(axis=1), 1.0, rtol=1e-12)
    for test in (dirichlet_mean_pvalue, beta_marginals_pvalue):
        assert test(draws, n_wk + beta) > FALSE_ALARM / 2
        assert test(draws, n_wk + 1.2 * beta) < FALSE_ALARM / 2


# -- whole chains of the driver on an in-process stand-in for Ray ----------------------------------
def _shipped(value):
    """What a Ray worker or the driver receives: a copy made by pickling, as Ray serialises."""
    return pickle.loads(pickle.dumps(value))


class _Method:
    def __init__(self, method):
        self._method = method

    def remote(self, *args):
        return self._method(*_shipped(args))


class _Actor:
    def __init__(self, instance):
        self._instance = instance

    def __getattr__(self, name):
        return _Method(getattr(self._instance, name))


class _ActorClass:
    def __init__(self, cls):
        self._cls = cls

    def options(self, **_):
        return self

    def remote(self, *args):
        return _Actor(self._cls(*_shipped(args)))


class InProcessRay:
    """The part of Ray's API the driver uses, in this process: an actor is an object built from
    pickled copies of its arguments, a remote call runs at once on pickled copies, an object
    reference is the object itself."""

    class exceptions:
        RayError = RuntimeError
        RayActorError = RuntimeError

    @staticmethod
    def remote(actor_class):
        return _ActorClass(actor_class)

    @staticmethod
    def put(value):
        return _shipped(value)

    @staticmethod
    def get(ref):
        return ref

    @staticmethod
    def cluster_resources():
        return {"CPU": 1.0}

    @staticmethod
    def kill(actor):
        pass


TINY = Tiny(((0, 1, 0), (1, 2)), 3, 2)
HINGE = dict(c=0.8, margin=1.0)
TARGETS = np.array([[1.0], [-1.0]])


def one_chain(ray, n_iter: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """The final z and eta samples of a chain of the driver (light partial, one shard, hinge loss)
    on ``ray``, from the driver's own random start drawn from ``rng`` (a generator or a seed)."""
    rng = np.random.default_rng(rng)
    word_ids, doc_ptr = token_arrays([list(doc) for doc in TINY.docs])
    supervision = Supervision(make_loss("hinge", **HINGE), TARGETS, 1.0, rng.normal(size=(1, TINY.n_topics)))
    backend = RayBackend(ray, word_ids, doc_ptr, TINY.n_words, TINY.n_topics, np.full(TINY.n_topics, TINY.alpha),
                         TINY.beta, Light("partial"), supervision, 1, rng)
    try:
        result = train(backend, supervision, n_iter=n_iter, n_eta_keep=n_iter, rng=rng)
        return backend.chain().z, result.eta_samples
    finally:
        backend.close()


def driver_chains(n_chains: int, n_iter: int, seed: int) -> np.ndarray:
    """Histogram of the final Z of ``n_chains`` chains of the driver on the in-process stand-in."""
    rng = np.random.default_rng(seed)
    hist = np.zeros(TINY.n_topics ** TINY.n_tokens)
    for _ in range(n_chains):
        hist[state_index(one_chain(InProcessRay(), n_iter, rng)[0], TINY.n_topics)] += 1
    return hist


@pytest.mark.slow
def test_driver_chains_match_the_enumerated_posterior(monkeypatch):
    """1,000 chains of 12 driver iterations, each drawing phi in the driver: Z against the
    enumerated posterior (eta integrated out), rejecting the posterior under alpha = 0.25 (not
    0.5). A phi normalised per word instead of per topic gives p = 3e-286."""
    drawn = []
    real = distributed.draw_phi_wk
    monkeypatch.setattr(distributed, "draw_phi_wk", lambda *args: drawn.append(1) or real(*args))
    hist = driver_chains(1000, 12, seed=3)
    assert len(drawn) == 1000 * 12
    evidence = tasks_evidence("hinge", HINGE, TARGETS)
    assert chi_square_pvalue(hist, TINY.posterior(log_factor=evidence)) > FALSE_ALARM
    assert chi_square_pvalue(hist, TINY.posterior(alpha=0.25, log_factor=evidence)) < FALSE_ALARM


@pytest.mark.slow
def test_in_process_stand_in_runs_the_driver_as_ray_does():
    """The stand-in is Ray for the driver: on a local Ray cluster (one CPU) the same seed gives the
    same chain, draw for draw (skipped without Ray)."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'medlda[ray]')")
    started = not ray.is_initialized()
    if started:
        ray.init(address="local", num_cpus=1, include_dashboard=False, logging_level="WARNING", log_to_driver=False)
    try:
        chains = [one_chain(backend, 4, 5) for backend in (ray, InProcessRay())]
    finally:
        if started:
            ray.shutdown()
    (z_ray, eta_ray), (z_here, eta_here) = chains
    np.testing.assert_array_equal(z_ray, z_here)
    np.testing.assert_array_equal(eta_ray, eta_here)


class CountingRay(InProcessRay):
    """The stand-in, keeping the pickled size of every object the driver puts (as the Ray
    benchmark's byte meter counts them)."""

    def __init__(self):
        self.put_bytes = []

    def put(self, value):
        self.put_bytes.append(len(pickle.dumps(value, protocol=5)))
        return _shipped(value)


@pytest.mark.parametrize("sampler", ["light", "gibbs"])
def test_driver_sends_the_changed_counts_after_the_first_iteration(sampler):
    """Collapsed light and Gibbs on two shards: the first iteration sends the whole topic-word
    counts (4VK bytes), every later one 12 bytes per cell the last iteration changed (plus n_k and
    eta); the chain is draw for draw that of a driver sending the whole counts every iteration."""
    corpus, _ = make_supervised_corpus(600, 5, words_per_topic=300, doc_length=12, random_state=2)
    n_topics = 100
    backends = [RayBackend(ray, corpus.word_ids, corpus.doc_ptr, corpus.n_words, n_topics, np.full(n_topics, 0.1),
                           0.01, make_sampler(sampler, light_variant="collapsed"), None, 2, np.random.default_rng(4))
                for ray in (CountingRay(), CountingRay())]
    sparse, whole = backends
    assert len(sparse.workers) == 2
    n_cells = corpus.n_words * n_topics
    changed = n_cells  # cells the last iteration changed
    try:
        for it in range(1, 5):
            whole._change = None  # the whole counts again, as in a first iteration
            counts_before, puts_before = sparse.n_wk.copy(), len(sparse.ray.put_bytes)
            for backend in backends:
                backend.iterate(it, None, np.random.default_rng(it), measure_log_joint=False)
            sent = sum(sparse.ray.put_bytes[puts_before:])
            if it == 1:
                assert sent > 4 * n_cells
            else:
                assert sent < 12 * changed + 8 * n_topics + 2000 and sent < n_cells  # a quarter of the whole counts
            assert sum(whole.ray.put_bytes[-2:]) > 4 * n_cells
            changed = np.count_nonzero(sparse.n_wk != counts_before)
            assert 0 < changed < n_cells / 3  # the sparse form of the summed change
            np.testing.assert_array_equal(sparse.n_wk, whole.n_wk)
        np.testing.assert_array_equal(sparse.chain().z, whole.chain().z)  # chain() checks the counts of z
    finally:
        for backend in backends:
            backend.close()
