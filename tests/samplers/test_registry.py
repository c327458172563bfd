"""The sampler registry: a sampler registered by name is built, warmed up, trained and
checkpointed by the engine with no change elsewhere."""

from __future__ import annotations

import numpy as np
import pytest

from medlda.engine.local import LocalBackend
from medlda.engine.loop import train
from medlda.engine.state import ChainState
from medlda.engine.warmup import warm_up
from medlda.samplers import REGISTRY, SAMPLERS, ExactGibbs, Sampler, make_sampler, sampler_class


class Toy(ExactGibbs):
    """Exact Gibbs under another name, with a per-chain cache counting its sweeps."""

    name = "toy"

    def new_cache(self) -> dict:
        return {"sweeps": 0}

    def sweep(self, state, eta, kappa, w, rng, phi_wk=None) -> None:
        if not isinstance(state.cache, dict):
            state.cache = self.new_cache()
        state.cache["sweeps"] += 1
        super().sweep(state, eta, kappa, w, rng)

    def chain_arrays(self, state) -> dict[str, np.ndarray]:
        return {"sweeps": np.array([state.cache["sweeps"]])}


def _chain(seed: int = 0) -> ChainState:
    rng = np.random.default_rng(seed)
    word_ids = rng.integers(0, 20, size=600).astype(np.int32)
    doc_ptr = np.arange(0, 601, 30, dtype=np.int64)
    return ChainState.initialize(word_ids, doc_ptr, 20, 4, np.full(4, 0.25), 0.1, rng)


def test_the_builtin_samplers_are_registered_in_order():
    assert SAMPLERS == ("gibbs", "light", "blocked") and tuple(REGISTRY) == SAMPLERS
    assert all(issubclass(cls, Sampler) for cls in REGISTRY.values())
    with pytest.raises(ValueError, match="sampler must be one of"):
        make_sampler("nope")


def test_a_registered_sampler_runs_through_the_engine_unchanged(monkeypatch):
    monkeypatch.setitem(REGISTRY, "toy", Toy)
    toy = make_sampler("toy", light_variant="partial")  # options of other samplers are ignored
    assert isinstance(toy, Toy) and sampler_class("toy") is Toy
    warm_up(toy, 0)
    a, b = _chain(), _chain()
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
    backend = LocalBackend(a, toy)
    result = train(backend, None, n_iter=3, n_eta_keep=0, rng=rng_a, measure_log_joint=True)
    train(LocalBackend(b, ExactGibbs()), None, n_iter=3, n_eta_keep=0, rng=rng_b)
    assert np.array_equal(a.z, b.z) and len(result.trace) == 3 and result.eta_samples is None
    assert a.cache["sweeps"] == 3 and backend.chain_arrays().sampler_arrays["sweeps"][0] == 3
