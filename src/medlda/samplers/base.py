"""The sampler protocol and the registry of samplers by name.

A sampler is how one sweep over the tokens, one draw of eta and inference for new documents are
done on a chain (``medlda.engine.state.ChainState``). Adding a sampler is one module: a subclass
of :class:`Sampler` decorated with :func:`register`, imported by ``medlda.samplers``.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

ETA_DRAWS = ("auto", "exact", "coordinate")  # how a sampler draws eta ("auto": exact where cheap)

REGISTRY: dict[str, type["Sampler"]] = {}


class WarmUp(NamedTuple):
    """How to compile one kernel group on a tiny problem: ``sampler`` sweeps once per task count
    in ``sweep_tasks``, draws eta (if it supports supervision) and infers; ``on_threads`` (None:
    no threaded kernels) sweeps and draws eta on two threads."""

    sampler: "Sampler"
    sweep_tasks: tuple[int, ...]
    on_threads: "Sampler | None" = None


class Sampler:
    """What every sampler offers the engine; the defaults suit a sampler that keeps no per-chain
    cache and leaves no counts behind.

    Capabilities: ``supports_supervision`` (it can train with tasks: aux, eta draw) and
    ``exact_given_phi`` (its sweep, given phi (V, K) drawn by the caller, leaves the posterior
    invariant: a distributed driver then broadcasts phi instead of a snapshot of the counts) and
    ``releases_gil`` (its sweeps run without holding Python's lock, so independent chains, such
    as one-vs-rest's binary models, train side by side on threads of one process).
    """

    name: str = ""
    supports_supervision: bool = True
    exact_given_phi: bool = False
    releases_gil: bool = False

    @classmethod
    def from_options(cls, **options) -> "Sampler":
        """The sampler from the estimators' options (each sampler reads the ones it has)."""
        return cls()

    def new_cache(self) -> object | None:
        """A fresh per-chain cache (tables, scratch, schedules) for a chain's ``cache`` slot."""
        return None

    def sweep(self, state, eta: np.ndarray, kappa: np.ndarray, w: np.ndarray, rng: np.random.Generator,
              phi_wk: np.ndarray | None = None) -> None:
        """One sweep over every token of ``state`` given eta (T, K) and the aux kappa, w (D, T);
        ``phi_wk`` (V, K) only for a sampler ``exact_given_phi``."""
        raise NotImplementedError

    def sync(self, state) -> None:
        """Bring ``state.n_dk`` and ``state.n_wk`` up to date with z where a sweep left them behind."""

    def phi_due(self, cache) -> bool:
        """Whether this sweep of the chain owning ``cache`` draws phi (``exact_given_phi`` samplers)."""
        return True

    def draw_eta(self, state, eta: np.ndarray, kappa: np.ndarray, w: np.ndarray, nu: float,
                 rng: np.random.Generator, n_supervised: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """A new eta (T, K) given the chain, and omega = zbar @ eta.T (D, T) for it; only the
        first ``n_supervised`` topics carry weights (None: all), the others' stay 0."""
        raise ValueError(f"the {self.name} sampler is for unsupervised LDA only: it has no classifier")

    def infer(self, word_ids: np.ndarray, doc_ptr: np.ndarray, phi_wk: np.ndarray, alpha: np.ndarray,
              n_burn: int, n_avg: int, rng: np.random.Generator, n_jobs: int = 1,
              progress: Callable[[int], None] | None = None, doc_seeded: bool = False) -> np.ndarray:
        """Averaged doc-topic counts (D, K) of new documents given phi (docs/mathematics.md §7)."""
        raise NotImplementedError

    def chain_arrays(self, state) -> dict[str, np.ndarray]:
        """What a checkpoint keeps besides z and the streams so that the chain goes on draw for draw."""
        return {}

    def restore_chain_arrays(self, state, arrays: dict[str, np.ndarray]) -> None:
        """Take back ``chain_arrays`` for ``state`` (whose counts are those they were saved with)."""

    def warm_up_groups(self, n_tasks: int | None, sizes: tuple[int, int, int] | None = None) -> list[tuple]:
        """Keys of the kernel groups a training run of this sampler on ``n_tasks`` tasks (None: 0
        and 1) runs; each names its sampler first. ``sizes`` (documents, tokens, topics of the
        run; None: unknown) lets a sampler leave out kernels such a run does not use.
        ``warm_up_plan`` builds the samplers for one."""
        return [(self.name,)]

    @classmethod
    def every_warm_up_group(cls) -> list[tuple]:
        """The groups that compile every kernel of this sampler at its default options."""
        return [(cls.name,)]

    @classmethod
    def warm_up_plan(cls, group: tuple) -> WarmUp:
        """How to compile the group ``group`` (a key of ``warm_up_groups``)."""
        return WarmUp(cls(), (0,))


def register(cls: type[Sampler]) -> type[Sampler]:
    """Class decorator: make ``cls`` known to :func:`make_sampler` by its ``name``."""
    REGISTRY[cls.name] = cls
    return cls


def sampler_class(name: str) -> type[Sampler]:
    """The registered sampler class called ``name``."""
    if name not in REGISTRY:
        raise ValueError(f"sampler must be one of {list(REGISTRY)}, got {name!r}")
    return REGISTRY[name]


def make_sampler(name: str, **options) -> Sampler:
    """The sampler ``name`` ("gibbs", "light", "blocked", ...) built from the estimators' options
    (light_variant, proposal, n_mh, n_gibbs, n_jobs, phi_every, eta_draw, block_simulation)."""
    return sampler_class(name).from_options(**options)
