"""LightMedLDA (docs/mathematics.md §4, §4a): Metropolis-Hastings with doc / word / exp proposals and alias
tables, in two variants (partially collapsed given phi, or the papers' fully collapsed one)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from medlda._kernels.alias import build_alias_rows
from medlda._kernels.counts import fill_doc_topic
from medlda._kernels.dirichlet import draw_phi_tables
from medlda._kernels.eta import coordinate_eta_sweeps
from medlda._kernels.light.compaction import compact_and_build
from medlda._kernels.light.moves import word_ranges
from medlda._kernels.light.proposals import PROPOSAL_MODES, proposal_scratch, task_kind
from medlda._kernels.light.sweeps import sweeps_for
from medlda._kernels.light.word_hash import (
    TABLE_STRIDE,
    dense_rows,
    hash_from_dense,
    new_slots,
    new_word_meta,
    new_word_table,
    spill_bound,
    to_dense,
)
from medlda._kernels.records import AlphaTable, Counts, MoveLog, PhiTables, Supervision, Tokens, WordHash
from medlda._kernels.rng import make_streams, stream_chunks
from medlda.samplers.base import ETA_DRAWS, Sampler, WarmUp, register
from medlda.samplers.choice import LIGHT_STEPS
from medlda.samplers.eta import exact_eta, exact_eta_cost, shift_eta, topic_pairs
from medlda.samplers.inference import gibbs_infer
from medlda.samplers.saved_hash import check_saved_hash

LIGHT_VARIANTS = ("partial", "collapsed")
# "auto" draws eta exactly with probability 1 / j at each iteration, j the smallest integer at which
# the exact draws (``exact_eta_cost``) cost on average at most this share of a sweep (N n_mh
# steps); the other iterations draw it by coordinate sweeps, which lag eta's conditional when
# classes are many. At K = 100 on 20 Newsgroups and R52 an exact draw costs 0.1-0.2 sweeps
EXACT_ETA_SHARE = 0.25


def _word_tables(word_totals: np.ndarray, n_topics: int) -> tuple[np.ndarray, np.ndarray, int]:
    """For ``HashedCounts``: an empty word table (each sweep sizes it, ``room_for_proposals``),
    the frozen normalizers, and the entries the word-proposal tables need (a word holds at most
    min(N_w, K) topics, plus the K entries of the dense part)."""
    entries = int(np.minimum(word_totals, n_topics).sum()) + n_topics
    return new_word_table(0, n_topics), np.empty(n_topics), entries


@dataclass
class HashedCounts:
    """The collapsed light sampler's topic-word counts in per-word hashes and its word-proposal
    tables (``_kernels.light.word_hash``). ``spare``: the slots before the last compaction, where
    the next one lays out (reused, so its huge pages stay mapped)."""

    word_meta: np.ndarray
    slots: np.ndarray
    top: np.ndarray
    spill: int
    word_table: np.ndarray
    inv_frozen: np.ndarray
    word_entries: int
    spare: np.ndarray | None = None

    def room_for_proposals(self, n_topics: int, max_length: int, n_threads: int) -> None:
        """Size ``word_table`` for the word-proposal tables and, after them, a scratch region for
        the doc and exp proposal tables of each of ``n_threads`` sweep threads (all rebuilt every
        sweep, so growing it loses nothing); called before each sweep's compaction."""
        entries = self.word_entries + n_threads * proposal_scratch(n_topics, max_length)
        if self.word_table.size < TABLE_STRIDE * entries:
            self.word_table = new_word_table(entries, n_topics)


@dataclass
class LightCache:
    """What Light keeps of one chain between sweeps, in the chain's ``cache`` slot: the partial
    variant's phi tables and its phi schedule (``phi_age``: sweeps since phi was drawn; None
    before the first draw into these tables), the collapsed variant's hashed counts (current
    while the chain's n_k is ``hashed_n_k``) and which dense counts its sweeps left behind, and
    scratch."""

    phi_tables: tuple | None = None
    phi_age: int | None = None
    hashed: HashedCounts | None = None
    hashed_n_k: np.ndarray | None = None
    n_wk_behind: bool = False
    n_dk_behind: bool = False
    moves: tuple | None = None
    word_ranges: tuple[np.ndarray, np.ndarray] | None = None


@register
class Light(Sampler):
    """LightMedLDA: MH with doc / word / exp proposals and alias tables; coordinate Gibbs for eta.

    ``variant="partial"`` draws phi ~ Dir(n_k. + beta) every ``phi_every`` sweeps and samples (2b)
    given it: exact (each step leaves the joint of Z and phi invariant, so skipping the phi draw at
    some sweeps keeps it so), and the O(V K) draw is paid once per ``phi_every`` sweeps.
    ``variant="collapsed"`` is the papers' sampler: word proposal frozen at sweep start, built as a
    sparse per-word part plus one shared dense part, and topic-word counts in per-word hashes, so
    a sweep costs O(tokens * n_mh + D * K * T), not O(V * K). Its sweeps leave the dense n_wk
    (and, for LDA, n_dk) behind z: writing both every sweep would cost more than the sweep's
    own count updates; ``sync`` writes them.
    """

    name = "light"
    releases_gil = True

    def __init__(self, variant: str = "collapsed", proposal: str = "mixture", n_mh: int = 6, n_gibbs: int = 2,
                 n_jobs: int = 1, eta_draw: str = "auto", phi_every: int = 1):
        if eta_draw not in ETA_DRAWS:
            raise ValueError(f"eta_draw must be one of {list(ETA_DRAWS)}, got {eta_draw!r}")
        if variant not in LIGHT_VARIANTS:
            raise ValueError(f"light_variant must be one of {list(LIGHT_VARIANTS)}, got {variant!r}")
        if proposal not in PROPOSAL_MODES:
            raise ValueError(f"proposal must be one of {list(PROPOSAL_MODES)}, got {proposal!r}")
        if int(phi_every) != phi_every or phi_every < 1:
            raise ValueError(f"phi_every must be an integer >= 1, got {phi_every!r}")
        self.variant = variant
        self.proposal = proposal
        self.n_mh = n_mh
        self.n_gibbs = n_gibbs
        self.n_jobs = n_jobs
        self.eta_draw = eta_draw
        self.phi_every = int(phi_every)
        self.exact_given_phi = variant == "partial"

    @classmethod
    def from_options(cls, light_variant: str = "collapsed", proposal: str = "mixture", n_mh: int = 6,
                     n_gibbs: int = 2, n_jobs: int = 1, eta_draw: str = "auto", phi_every: int = 1,
                     **_) -> "Light":
        return cls(light_variant, proposal, n_mh, n_gibbs, n_jobs, eta_draw=eta_draw, phi_every=phi_every)

    def new_cache(self) -> LightCache:
        return LightCache()

    def cache(self, state) -> LightCache:
        """``state``'s cache, a fresh one if it holds none of Light's."""
        if not isinstance(state.cache, LightCache):
            state.cache = LightCache()
        return state.cache

    def phi_due(self, cache: LightCache) -> bool:
        """Whether this sweep of the chain owning ``cache`` draws phi: every ``phi_every``-th sweep
        from its first on (a new chain or new tables draw at once). Called once per sweep."""
        fresh = cache.phi_age is None
        age = 0 if fresh else cache.phi_age + 1
        due = fresh or age % self.phi_every == 0
        cache.phi_age = 0 if due else age
        return due

    def _exact_tables(self, cache: LightCache, n_words: int, n_topics: int):
        if cache.phi_tables is None or cache.phi_tables[0].shape != (n_words, n_topics):
            cache.phi_tables = (np.empty((n_words, n_topics)), np.empty((n_words, n_topics)),
                                np.empty((n_words, n_topics), np.int32), np.empty(n_words))
            cache.phi_age = None  # new tables hold no phi yet
        return cache.phi_tables

    def _word_hash(self, state, cache: LightCache) -> HashedCounts:
        """The hashed counts of ``state``: those its last collapsed sweep left, unless its n_k has
        changed since (another sampler swept it), else loaded from its dense counts."""
        current = (cache.hashed is not None and cache.hashed_n_k is not None
                   and np.array_equal(cache.hashed_n_k, state.n_k))
        if not current:
            n_words, n_topics = state.n_wk.shape
            rows = dense_rows(state.n_wk)  # one pass over the V x K counts
            totals = rows[1]
            spill = int(spill_bound(totals, n_topics))
            word_meta = new_word_meta(n_words)
            slots, top = hash_from_dense(state.n_wk, spill, word_meta, rows)
            cache.hashed = HashedCounts(word_meta, slots, top, spill, *_word_tables(totals, n_topics))
            cache.n_wk_behind = False
        return cache.hashed

    def sync(self, state) -> None:
        """Write the dense counts the collapsed sweeps left behind: n_wk from the hash, n_dk from z."""
        cache = self.cache(state)
        if cache.n_wk_behind:
            to_dense(cache.hashed.word_meta, cache.hashed.slots, state.n_wk)
            cache.n_wk_behind = False
        if cache.n_dk_behind:
            fill_doc_topic(state.doc_ptr, state.z, state.n_dk)
            cache.n_dk_behind = False

    def chain_arrays(self, state) -> dict[str, np.ndarray]:
        """Collapsed: the hashes of the chain's last sweep (their slot order orders the next word
        tables and depends on the run's history, not only on the counts); nothing otherwise."""
        h = self.cache(state).hashed
        if self.variant != "collapsed" or h is None:
            return {}
        top = int(h.top[0])
        return {"word_meta": np.array(h.word_meta), "slots": h.slots[:3 * top].copy(),
                "layout": np.array([h.slots.size // 3, top, h.spill], np.int64)}

    def restore_chain_arrays(self, state, arrays: dict[str, np.ndarray]) -> None:
        if self.variant != "collapsed":
            return
        n_words, n_topics = state.n_wk.shape
        saved_meta, saved, n_slots, top, spill = check_saved_hash(arrays, state.n_wk)
        word_meta = new_word_meta(n_words)
        word_meta[:] = saved_meta
        slots = new_slots(n_slots, saved.dtype)
        slots[:saved.size] = saved
        cache = self.cache(state)
        cache.hashed = HashedCounts(word_meta, slots, np.full(1, top, np.int64), spill,
                                    *_word_tables(state.n_wk.sum(axis=1, dtype=np.int64), n_topics))
        cache.hashed_n_k = state.n_k.copy()

    def sweep(self, state, eta, kappa, w, rng, phi_wk: np.ndarray | None = None) -> None:
        """One sweep over every token. The partial variant draws phi from ``state.n_wk`` unless
        ``phi_wk`` (V, K) is given (a distributed driver draws it once from the global counts)."""
        cache = self.cache(state)
        prior = AlphaTable(state.alpha, *alpha_table(state.alpha))
        kernels = sweeps_for(PROPOSAL_MODES[self.proposal], task_kind(eta.shape[0]), int(self.n_mh))
        tokens = Tokens(state.word_ids, state.doc_ptr, state.z)
        supervision = Supervision(eta, kappa, w)
        log = MoveLog(*self._move_log(cache, state.z.size))
        if self.variant == "partial":
            phi, prob, alias, mass = self._exact_tables(cache, *state.n_wk.shape)
            if phi_wk is None:
                if self.phi_due(cache):
                    draw_phi_tables(state.n_wk, state.beta, make_streams(rng, state.n_wk.shape[0]), phi, prob,
                                    alias, mass, int(self.n_jobs))
            else:
                phi = np.ascontiguousarray(phi_wk, dtype=np.float64)
                build_alias_rows(phi, prob, alias, np.empty(phi.shape))
                mass = phi.sum(axis=1)
            args = (tokens, Counts(state.n_dk, state.n_wk, state.n_k), prior, PhiTables(phi, prob, alias, mass),
                    supervision, state.streams, log)
            chunks = stream_chunks(state.doc_ptr, self.n_jobs)
            if chunks.size > 2:
                kernels.exact_parallel(chunks, self._word_ranges(cache, state, chunks.size - 1)[0], *args)
            else:
                kernels.exact(*args)
            return
        # the hash holds n_kw; LDA's sweep neither reads nor writes n_dk, with tasks it does
        lda = eta.shape[0] == 0
        if not lda and cache.n_dk_behind:
            self.sync(state)
        h = self._word_hash(state, cache)
        chunks = stream_chunks(state.doc_ptr, self.n_jobs)
        range_of_word, bounds = self._word_ranges(cache, state, chunks.size - 1)
        h.room_for_proposals(state.n_k.size, int(np.diff(state.doc_ptr).max(initial=0)), chunks.size - 1)
        slots, h.top = compact_and_build(h.word_meta, h.slots, h.spill, state.n_k, state.beta, state.vbeta,
                                         h.word_table, h.inv_frozen, h.spare, bounds)
        h.slots, h.spare = slots, h.slots
        words = WordHash(state.beta, state.vbeta, h.word_meta, h.slots, h.top, h.word_table, h.inv_frozen)
        counts = Counts(state.n_dk, np.zeros((0, state.n_k.size), np.int32), state.n_k)  # no dense n_wk: the hash
        args = (tokens, counts, prior, words, supervision, state.streams, log)
        if chunks.size > 2:
            kernels.collapsed_parallel(chunks, range_of_word, *args)
        else:
            kernels.collapsed(*args)
        cache.n_wk_behind = True
        cache.n_dk_behind = cache.n_dk_behind or lda
        cache.hashed_n_k = state.n_k.copy()

    @staticmethod
    def _word_ranges(cache: LightCache, state, n_ranges: int) -> tuple[np.ndarray, np.ndarray]:
        """The word range of each word (``moves.word_ranges``) for a parallel sweep's merges and
        compaction, and the ranges' bounds (n_ranges + 1,)."""
        if cache.word_ranges is None or cache.word_ranges[1].size != n_ranges + 1:
            totals = np.bincount(state.word_ids, minlength=state.n_wk.shape[0])
            range_of_word = word_ranges(totals, n_ranges)
            cache.word_ranges = (range_of_word, np.searchsorted(range_of_word, np.arange(n_ranges + 1)))
        return cache.word_ranges

    @staticmethod
    def _move_log(cache: LightCache, n_tokens: int):
        """Scratch (N,) arrays where kernels log the tokens that changed topic."""
        if cache.moves is None or cache.moves[0].size != n_tokens:
            cache.moves = (np.empty(n_tokens, np.int64), np.empty(n_tokens, np.int32))
        return cache.moves

    def exact_eta_every(self, state, n_tasks: int) -> int:
        """j: "auto" draws eta exactly at a random 1 / j of the iterations, so that its exact draws
        cost on average at most ``EXACT_ETA_SHARE`` of a sweep, from the topics each document
        uses now (an exact draw's work grows with their pairs)."""
        n_docs, n_topics = state.n_dk.shape
        pairs = topic_pairs(state.n_dk, int(self.n_jobs))
        return self._exact_eta_every(n_docs, state.word_ids.size, n_topics, n_tasks, pairs)

    def _exact_eta_every(self, n_docs: int, n_tokens: int, n_topics: int, n_tasks: int,
                         pairs: float | None = None) -> int:
        """j for these sizes; ``pairs`` None: as if each document used min(K, N / D) topics."""
        if pairs is None:
            m = min(n_topics, n_tokens / max(n_docs, 1))
            pairs = n_docs * m * (m + 1) / 2
        budget = EXACT_ETA_SHARE * max(n_tokens * self.n_mh, 1)
        return max(1, math.ceil(exact_eta_cost(n_docs, n_topics, n_tasks, pairs) / budget))

    def exact_eta_is_cheap(self, state, n_tasks: int) -> bool:
        """Whether "auto" draws eta exactly at every iteration (``exact_eta_every`` is 1)."""
        return self.exact_eta_every(state, n_tasks) == 1

    def _exact_eta_is_cheap(self, n_docs: int, n_tokens: int, n_topics: int, n_tasks: int) -> bool:
        return self._exact_eta_every(n_docs, n_tokens, n_topics, n_tasks) == 1

    def _draws_coordinate_eta(self, n_tasks: int, sizes: tuple[int, int, int] | None) -> bool:
        """Whether a run on ``n_tasks`` tasks and ``sizes`` (documents, tokens, topics; None:
        unknown) may draw eta by coordinate sweeps (``draw_eta``)."""
        if n_tasks == 0 or self.eta_draw == "exact":
            return False
        if self.eta_draw == "coordinate" or sizes is None:
            return True
        n_docs, n_tokens, n_topics = sizes
        return not self._exact_eta_is_cheap(n_docs, n_tokens, n_topics, n_tasks)

    def draw_eta(self, state, eta, kappa, w, nu, rng, n_supervised=None) -> tuple[np.ndarray, np.ndarray]:
        """eta drawn exactly, or by n_gibbs coordinate Gibbs sweeps (docs/mathematics.md §5) on zbar's sparse
        topic columns followed by one draw of each task's bias (``shift_eta``); returns eta and
        omega = zbar @ eta.T (D, T) for it. "auto" draws exactly where that is cheap or eta is
        all zero (a chain's start, far from eta's conditional), else with probability
        1 / ``exact_eta_every`` (a uniform from ``rng``): a random choice between two kernels that
        both leave eta's conditional invariant. Coordinate sweeps mix slowly when
        topics are few and the loss is sharp, and lag eta's conditional as it moves with Z when
        the classes are many (docs/benchmarks.md, "Label learning on many classes"). Only the
        first ``n_supervised`` topics carry weights (None: all); the sweeps and the bias draw
        then run on their columns alone."""
        if self.eta_draw == "auto":
            every = self.exact_eta_every(state, eta.shape[0])
            if every == 1 or not eta.any() or rng.random() * every < 1.0:
                return exact_eta(state, kappa, w, nu, rng, int(self.n_jobs), n_supervised)
        if self.eta_draw == "exact":
            return exact_eta(state, kappa, w, nu, rng, int(self.n_jobs), n_supervised)
        columns = state.topic_columns()
        free = eta.shape[1] if n_supervised is None else int(n_supervised)
        omega = state.omega(eta, columns)
        supervised = (columns[0][:free + 1], columns[1], columns[2])
        weights = np.array(eta[:, :free], dtype=np.float64)  # a contiguous copy
        normals = rng.standard_normal((self.n_gibbs,) + weights.shape)
        coordinate_eta_sweeps(supervised, kappa, w, omega, weights, nu, normals, int(self.n_jobs))
        if free == eta.shape[1]:  # zbar's rows sum to 1 (0 for an empty document), exactly, not as summed
            row_sums = (state.doc_lengths > 0).astype(np.float64)
        else:  # each document's share of tokens in the supervised topics
            ptr, doc, value = supervised
            row_sums = np.bincount(doc[:ptr[free]], weights=value[:ptr[free]], minlength=omega.shape[0])
        shift_eta(weights, omega, kappa, w, row_sums, nu, rng)
        eta = np.zeros(eta.shape)
        eta[:, :free] = weights
        return eta, state.omega(eta, columns)  # summed afresh: the sweeps' running omega drifts in the last bits

    def infer(self, word_ids, doc_ptr, phi_wk, alpha, n_burn, n_avg, rng, n_jobs: int = 1,
              progress=None, doc_seeded: bool = False) -> np.ndarray:
        """Averaged doc-topic counts (D, K) of new documents given phi (docs/mathematics.md §7): the exact sparse
        Gibbs of ``gibbs_infer``, on ``n_jobs`` threads."""
        return gibbs_infer(word_ids, doc_ptr, phi_wk, alpha, n_burn, n_avg, rng, n_jobs, progress, doc_seeded)

    def warm_up_groups(self, n_tasks: int | None, sizes: tuple[int, int, int] | None = None) -> list[tuple]:
        """The sweeps are compiled per proposal mode, n_mh and kind of task count
        (``sweeps_for``), so a group names those (2 tasks stands for any T >= 2), and whether the
        run may draw eta by coordinate sweeps (a run whose exact draw is cheap never does)."""
        kinds = (0, 1) if n_tasks is None else (min(int(n_tasks), 2),)
        return [(self.name, self.variant, int(self.n_jobs) > 1, self.proposal, int(self.n_mh), tasks,
                 self._draws_coordinate_eta(tasks if n_tasks is None else int(n_tasks), sizes))
                for tasks in kinds]

    @classmethod
    def every_warm_up_group(cls) -> list[tuple]:
        """Each variant at the default proposals and steps, on one thread and two, for LDA and for
        one task with either eta draw (the groups of every such run, so that none warms up again)."""
        return [(cls.name, variant, threaded, "mixture", LIGHT_STEPS, tasks, coordinate)
                for variant in LIGHT_VARIANTS for threaded in (False, True) for tasks in (0, 1)
                for coordinate in ((False, True) if tasks else (False,))]

    @classmethod
    def warm_up_plan(cls, group: tuple) -> WarmUp:
        _, variant, threaded, proposal, n_mh, n_tasks, coordinate = group
        eta_draw = "coordinate" if coordinate else "exact"
        on_threads = cls(variant, proposal, n_mh, n_jobs=2, eta_draw=eta_draw) if threaded else None
        return WarmUp(cls(variant, proposal, n_mh, eta_draw=eta_draw), (n_tasks,), on_threads)


def alpha_table(alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Alias table (prob, alias) of the doc proposal's prior part alpha."""
    prob, alias, q = np.empty((1, alpha.size)), np.empty((1, alpha.size), np.int64), np.empty((1, alpha.size))
    build_alias_rows(alpha[None, :], prob, alias, q)
    return prob[0], alias[0]


def draw_phi_wk(n_wk: np.ndarray, beta: float, rng: np.random.Generator) -> np.ndarray:
    """phi_k ~ Dirichlet(n_k. + beta) for every topic, returned word-major (V, K): the draw a
    distributed driver broadcasts to the partial variant's shards."""
    gam = rng.standard_gamma(n_wk + beta)
    gam /= gam.sum(axis=0, keepdims=True)
    return gam
