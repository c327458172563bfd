"""Independent chains of one supervised model, their predictions averaged (``n_chains``).

Each chain is a single-chain clone fitted from its own seed (spawned from the parent's
random_state). The parent presents them as one model, as one-vs-rest does: their topics stacked
(n_chains * K) and eta divided by n_chains in each chain's block, so that
``omega = sum_s eta_s . zbar_s / n_chains``, the chains' discriminants averaged, reads as one
linear model of the stacked topic features. Averaging over chains is the posterior predictive
mean over several modes of the posterior, where one chain sees one.
"""

from __future__ import annotations

import os
import time
from contextlib import nullcontext
from typing import Callable, Sequence

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.linear_model import RidgeCV
from threadpoolctl import threadpool_limits

from medlda.engine.ray import map_on_ray
from medlda.models.labels import effective_jobs
from medlda.models.texts import remember_words
from medlda.samplers import resolve_sampler, sampler_class

# what a chain does not inherit from its parent: it is one chain and keeps no checkpoints
CHAIN_RUN = {"n_chains": 1, "verbose": 0, "checkpoint_every": 0, "checkpoint_path": None, "resume": False}
RIDGE_PENALTIES = np.logspace(-6, 4, 21)  # searched by leave-one-out for combine="ridge" (zbar lies in [0, 1])


def spawn_seeds(random_state, n: int) -> list[int]:
    """``n`` seeds derived from ``random_state`` (fresh entropy if None), one per sub-model."""
    return [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(random_state).spawn(n)]


def check_chains(model) -> None:
    """Refuse settings that several chains, or their weighing by ridge regression
    (``combine="ridge"``), do not support, naming the parameter."""
    ovr = getattr(model, "strategy", "multitask") == "ovr"
    if getattr(model, "combine", "average") == "ridge":
        if model.background_topics:
            raise ValueError("combine='ridge' weighs every topic, so no topic can stay a background topic: "
                             "set background_topics=0")
        if ovr:
            raise ValueError("combine='ridge' weighs one set of topics for every class: it needs strategy='multitask'")
    if getattr(model, "n_chains", 1) == 1:
        return
    if ovr:
        raise ValueError("n_chains > 1 needs strategy='multitask' (one-vs-rest already fits a model per class)")
    if model.checkpoint_every or model.resume:
        raise ValueError("n_chains > 1 keeps no checkpoints: set checkpoint_every=0 and resume=False")


def releases_gil(template) -> bool:
    """Whether the fits of ``template``'s sampler run Python-free, so that threads run them in parallel."""
    return sampler_class(resolve_sampler(template.sampler, template.n_components, 1)).releases_gil


def fit_in_parallel(template, fit_one: Callable, calls: Sequence[tuple], n_jobs: int) -> list:
    """``fit_one(clone(template), *call)`` for each call, ``n_jobs`` at a time: on threads where
    the sampler releases the GIL (no start-up, no copies of the corpus), BLAS held at one thread
    around them; else in processes."""
    on_threads = releases_gil(template)
    # each fit limits BLAS to its own threads and restores the limit it found: held at one here,
    # threads that enter and leave in any order leave it at one
    with threadpool_limits(1, user_api="blas") if on_threads else nullcontext():
        return Parallel(n_jobs=n_jobs, prefer="threads" if on_threads else None)(
            delayed(fit_one)(clone(template), *call) for call in calls)


def chains_at_once(model) -> tuple[int, int]:
    """(chains that run at once, threads of each): ``n_jobs`` cores shared among the chains."""
    cores = effective_jobs(getattr(model, "n_jobs", None), os.cpu_count() or 1)
    at_once = max(1, min(model.n_chains, cores))
    return at_once, max(1, cores // at_once)


def chain_template(model):
    """An unfitted single chain of ``model``: its parameters, its share of the cores, the
    documents' weights (class weights included) taken as given."""
    weights = {"class_weight": None} if "class_weight" in model.parameters else {}
    return clone(model).set_params(n_jobs=chains_at_once(model)[1], **CHAIN_RUN, **weights)


def _fit_chain(chain, corpus, y, weight, seed: int):  # a Ray task's function too: its arguments pickle
    """Fit one chain from ``seed``; drop what only its fit needed."""
    chain.set_params(random_state=seed).fit(corpus, y, sample_weight=weight)
    chain.release_fit_state()
    return chain


def fit_chains(model, corpus, y, weight: np.ndarray | None) -> tuple[list, dict]:
    """Fit ``model.n_chains`` chains of ``model`` on ``corpus`` (no empty documents), labels or
    responses ``y`` and document weights ``weight``, n_jobs at a time; return them and the fit
    statistics."""
    seeds = spawn_seeds(model.random_state, model.n_chains)
    tic = time.perf_counter()
    if model.backend == "ray":  # chain-parallel: one Ray task, one CPU, per chain
        template = chain_template(model).set_params(backend="local", n_jobs=1)
        chains = map_on_ray(model.ray_address, model.n_workers, _fit_chain, corpus,
                            [(clone(template), y, weight, seed) for seed in seeds])
        pool = {"backend": "ray", "n_workers": model.n_workers}
    else:
        template, jobs = chain_template(model), chains_at_once(model)[0]
        chains = fit_in_parallel(template, _fit_chain, [(corpus, y, weight, seed) for seed in seeds], jobs)
        pool = {"backend": "local", "n_jobs": jobs, "pool": "threads" if releases_gil(template) else "processes"}
    seconds = sum(m.fit_stats_["train_seconds"] for m in chains)
    stats = {"train_seconds": seconds, "wall_seconds": time.perf_counter() - tic, "n_chains": len(chains), **pool,
             "compile_seconds": max(m.fit_stats_["compile_seconds"] for m in chains),
             "n_tokens": corpus.n_tokens, "n_docs": corpus.n_docs,
             "tokens_per_second": corpus.n_tokens * model.max_iter * len(chains) / max(seconds, 1e-12)}
    return chains, stats


def stack(chains: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The stacked view of fitted chains: topic-word counts (S*K, V), eta samples (n, T, S*K) with
    each chain's block divided by S, and the doc-topic prior (S*K,)."""
    n = len(chains)
    counts = np.ascontiguousarray(np.concatenate([m.topic_word_counts_ for m in chains]))
    eta = np.ascontiguousarray(np.concatenate([m.eta_samples_ for m in chains], axis=2) / n)
    alpha = np.concatenate([np.asarray(m.alpha_, dtype=np.float64) for m in chains])
    return counts, eta, alpha


def unstack(template, topic_word_counts: np.ndarray, eta_samples: np.ndarray, alpha: np.ndarray,
            seeds: list[int]) -> list:
    """Chains rebuilt from the stacked view (a model read from a file): clones of ``template``
    with their block of topics, prior and eta (times the number of chains)."""
    n, k = len(seeds), template.n_components
    chains = []
    for s, seed in enumerate(seeds):
        block = slice(s * k, (s + 1) * k)
        m = clone(template).set_params(random_state=seed)
        m.topic_word_counts_ = np.ascontiguousarray(topic_word_counts[block])
        m.eta_samples_ = np.ascontiguousarray(eta_samples[:, :, block] * n)
        m.alpha_ = np.ascontiguousarray(alpha[block])
        m._phi_cache = None
        chains.append(m)
    return chains


def chain_topics(chains: list, corpus, n_jobs: int | None) -> np.ndarray:
    """Each chain's inferred zbar of ``corpus``, side by side (D, S*K); chains in parallel on
    threads where their inference releases the GIL (CVB0)."""
    jobs = effective_jobs(n_jobs, len(chains))
    on_threads = all(m.inference == "cvb0" for m in chains)
    parts = Parallel(n_jobs=jobs, prefer="threads" if on_threads else None)(
        delayed(_transform)(m, corpus) for m in chains)
    return np.concatenate(parts, axis=1)


def _transform(model, corpus) -> np.ndarray:
    return model.transform(corpus)


# what every chain of a model read from a file shares with it (a file keeps no chain's own)
_SHARED = ("n_features_in_", "vocabulary_", "n_iter_", "sampler_", "n_mh_", "classes_", "multilabel_", "c_", "margin_",
           "positive_cost_", "y_mean_", "y_scale_")


class ChainAverage:
    """What the supervised estimators share for ``n_chains`` > 1: the chains' fit and stacked view."""

    _phi_cache: np.ndarray | None

    def _fit_chains(self, corpus, y, weight: np.ndarray | None) -> None:
        """Fit the chains on ``corpus`` and present them as one model (``chains_``, topics and eta stacked)."""
        chains, self.fit_stats_ = fit_chains(self, corpus, y, weight)
        self._take_chains(chains)
        self.sampler_ = chains[0].sampler_
        self.n_mh_ = chains[0].n_mh_
        self.n_iter_ = self.max_iter
        self.n_features_in_ = corpus.n_words
        remember_words(self, corpus, self._fit_input)
        self.log_joint_ = float(np.mean([m.log_joint_ for m in chains]))
        self.trace_ = []

    def _weigh_by_ridge(self, corpus, targets: np.ndarray, weight: np.ndarray | None, offset: float = 0.0) -> None:
        """``combine="ridge"``: eta (T, S*K) of ridge regression of ``targets`` ((D,) or (D, T)) on
        the documents' topics inferred as new ones, every chain's side by side, its penalty chosen
        by leave-one-out (RidgeCV's generalized cross-validation). The intercept less ``offset``
        is spread over the S chains' blocks (each block of a row of zbar sums to 1), so the
        decision stays zbar . eta (plus ``offset``)."""
        ridge = RidgeCV(alphas=RIDGE_PENALTIES).fit(self._zbar(corpus), targets, sample_weight=weight)
        intercept = np.atleast_1d(ridge.intercept_) - offset
        self.eta_samples_ = (np.atleast_2d(ridge.coef_) + intercept[:, None] / self.n_chains)[None]
        self.fit_stats_["ridge_penalty"] = float(ridge.alpha_)

    def _take_chains(self, chains: list) -> None:
        self.chains_ = chains
        self.topic_word_counts_, self.eta_samples_, self.alpha_ = stack(chains)
        self._phi_cache = None

    def rebuild_chains(self) -> None:
        """Rebuild ``chains_`` from the stacked topics, eta and prior of a model read from a file."""
        chains = unstack(chain_template(self), self.topic_word_counts_, self.eta_samples_, self.alpha_,
                         spawn_seeds(self.random_state, self.n_chains))
        for m in chains:
            for name in _SHARED:
                if hasattr(self, name):
                    setattr(m, name, getattr(self, name))
            m.fit_stats_, m.trace_, m.log_joint_ = {}, [], None
        self._take_chains(chains)
