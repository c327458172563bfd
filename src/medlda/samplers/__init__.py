"""Samplers: how one sweep over the tokens, one draw of eta, and inference for new documents are
done. "gibbs" is exact collapsed Gibbs (the reference); "light" is LightMedLDA (SPEC §4, §4a)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from medlda.samplers.eta import draw_eta_exact
from medlda.samplers.inference import gibbs_infer
from medlda._kernels.alias import build_alias_rows
from medlda._kernels.dirichlet import draw_phi_tables
from medlda._kernels.eta import coordinate_eta_sweeps
from medlda._kernels.gibbs import gibbs_sweep
from medlda._kernels.light.sweeps import (PROPOSAL_MODES, light_infer_doc_topic, light_infer_doc_topic_parallel, proposal_scratch,
                            sweeps_for, task_kind)
from medlda._kernels.rng import doc_streams, make_streams, on_stream_chunks, stream_chunks
from medlda._kernels.light.word_hash import (META_COLUMNS, TABLE_STRIDE, compact_and_build, dense_rows, hash_from_dense,
                                new_slots, new_word_meta, new_word_table, spill_bound, to_dense)

SAMPLERS = ("gibbs", "light", "blocked")
LIGHT_VARIANTS = ("partial", "collapsed")
LIGHT_INFERENCE = ("gibbs", "mh")  # how Light infers new documents' topics
ETA_DRAWS = ("auto", "exact", "coordinate")  # how Light draws eta ("auto": exact where cheap)
# "auto" draws eta exactly while D K^2 T <= EXACT_ETA_WORK * N * n_mh: measured on 20 Newsgroups,
# 20 classes, K = 20 (ratio 10.8), the exact draw takes 39 ms of a 0.45 s iteration
EXACT_ETA_WORK = 12


def _exact_eta(state, kappa, w, nu, rng) -> tuple[np.ndarray, np.ndarray]:
    """One exact draw of eta (T, K) given the state's zbar, and omega = zbar @ eta.T for it."""
    eta = draw_eta_exact(state.zbar(), kappa, w, nu, rng)
    return eta, state.omega(eta)


class ExactGibbs:
    """Collapsed Gibbs, O(K) per token; eta from its exact Gaussian conditional (Cholesky)."""

    name = "gibbs"

    def sweep(self, state, eta, kappa, w, rng) -> None:
        gibbs_sweep(state.word_ids, state.doc_ptr, state.z, state.n_dk, state.n_wk, state.n_k,
                    state.alpha, state.beta, state.vbeta, eta, kappa, w, state.streams)

    def draw_eta(self, state, eta, kappa, w, nu, rng) -> tuple[np.ndarray, np.ndarray]:
        """eta from its exact Gaussian conditional, and omega = zbar @ eta.T (D, T) with it."""
        return _exact_eta(state, kappa, w, nu, rng)

    def infer(self, word_ids, doc_ptr, phi_wk, alpha, n_burn, n_avg, rng, n_jobs: int = 1,
              progress=None, doc_seeded: bool = False) -> np.ndarray:
        """Averaged doc-topic counts (D, K) of new documents given phi (SPEC §7): exact Gibbs,
        O(topics in use) per token (``sparse_infer_doc_topic``), on ``n_jobs`` threads."""
        return gibbs_infer(word_ids, doc_ptr, phi_wk, alpha, n_burn, n_avg, rng, n_jobs, progress, doc_seeded)


def _word_tables(word_totals: np.ndarray, n_topics: int) -> tuple[np.ndarray, np.ndarray, int]:
    """For ``HashedCounts``: an empty word table (each sweep sizes it, ``room_for_proposals``),
    the frozen normalizers, and the entries the word-proposal tables need (a word holds at most
    min(N_w, K) topics, plus the K entries of the dense part)."""
    entries = int(np.minimum(word_totals, n_topics).sum()) + n_topics
    return new_word_table(0, n_topics), np.empty(n_topics), entries


@dataclass
class HashedCounts:
    """The collapsed light sampler's topic-word counts in per-word hashes and its word-proposal
    tables (``kernels.word_hash``). ``spare``: the slots before the last compaction, where the
    next one lays out (reused, so its huge pages stay mapped)."""

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

    def write_topic_word(self, n_wk: np.ndarray) -> None:
        """Dense n_wk (V, K) from the hash's current counts (``SamplerState.topic_word_behind``)."""
        to_dense(self.word_meta, self.slots, n_wk)


class Light:
    """LightMedLDA: MH with doc / word / exp proposals and alias tables; coordinate Gibbs for eta.

    ``variant="partial"`` draws phi ~ Dir(n_k. + beta) every ``phi_every`` sweeps and samples (2b)
    given it: exact (each step leaves the joint of Z and phi invariant, so skipping the phi draw at
    some sweeps keeps it so), and the O(V K) draw is paid once per ``phi_every`` sweeps.
    ``variant="collapsed"`` is the papers' sampler: word proposal frozen at sweep start, built as a
    sparse per-word part plus one shared dense part, and topic-word counts in per-word hashes, so
    a sweep costs O(tokens * n_mh + D * K * T), not O(V * K).
    """

    name = "light"

    def __init__(self, variant: str = "collapsed", proposal: str = "mixture", n_mh: int = 6, n_gibbs: int = 2,
                 n_jobs: int = 1, inference: str = "gibbs", eta_draw: str = "auto", phi_every: int = 1):
        if inference not in LIGHT_INFERENCE:
            raise ValueError(f"inference must be one of {list(LIGHT_INFERENCE)}, got {inference!r}")
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
        self.inference = inference
        self.eta_draw = eta_draw
        self.phi_every = int(phi_every)
        self.reset()

    def reset(self) -> None:
        """Forget cached tables and hashed counts; call after changing a state's counts outside a
        sweep (a changed n_k is noticed without it)."""
        self._phi_tables = None
        self._phi_drawn = None  # (state, sweeps since phi was drawn from its counts)
        self._hash = None
        self._synced = None
        self._moves = None
        self._threads = None

    def phi_due(self, state) -> bool:
        """Whether this sweep of ``state`` (a chain: a local state, or a distributed driver) draws
        phi: every ``phi_every``-th sweep of the same chain from its first on (a new chain or new
        tables draw at once). Called once per sweep."""
        fresh = self._phi_drawn is None or self._phi_drawn[0] is not state
        age = 0 if fresh else self._phi_drawn[1] + 1
        due = fresh or age % self.phi_every == 0
        self._phi_drawn = (state, 0 if due else age)
        return due

    def _exact_tables(self, n_words: int, n_topics: int):
        if self._phi_tables is None or self._phi_tables[0].shape != (n_words, n_topics):
            self._phi_tables = (np.empty((n_words, n_topics)), np.empty((n_words, n_topics)),
                                np.empty((n_words, n_topics), np.int32), np.empty(n_words))
            self._phi_drawn = None  # new tables hold no phi yet
        return self._phi_tables

    def _word_hash(self, state) -> HashedCounts:
        """The hashed counts and tables for ``state``, loaded from its dense counts unless they
        are the ones this sampler left after its last sweep of the same state."""
        synced = (self._synced is not None and self._synced[0] is state
                  and np.array_equal(self._synced[1], state.n_k))
        if not synced:
            n_words, n_topics = state.n_wk.shape
            rows = dense_rows(state.n_wk)  # one pass over the V x K counts
            totals = rows[1]
            spill = int(spill_bound(totals, n_topics))
            word_meta = new_word_meta(n_words)
            slots, top = hash_from_dense(state.n_wk, spill, word_meta, rows)
            self._hash = HashedCounts(word_meta, slots, top, spill, *_word_tables(totals, n_topics))
        return self._hash

    def chain_arrays(self, state) -> dict[str, np.ndarray]:
        """What a checkpoint keeps besides z and the streams so that the run goes on draw for draw:
        collapsed, the hashes of its last sweep of ``state`` (their slot order orders the next word
        tables and depends on the run's history, not only on the counts); nothing otherwise."""
        if self.variant != "collapsed" or self._synced is None or self._synced[0] is not state:
            return {}
        h = self._hash
        top = int(h.top[0])
        return {"word_meta": np.array(h.word_meta), "slots": h.slots[:3 * top].copy(),
                "layout": np.array([h.slots.size // 3, top, h.spill], np.int64)}

    def restore_chain_arrays(self, state, arrays: dict[str, np.ndarray]) -> None:
        """Take back ``chain_arrays`` for ``state`` (whose counts are those they were saved with)."""
        if self.variant != "collapsed":
            return
        n_words, n_topics = state.n_wk.shape
        n_slots, top, spill = (int(v) for v in arrays["layout"])
        saved = arrays["slots"]
        if arrays["word_meta"].shape != (n_words, META_COLUMNS) or saved.size != 3 * top or top > n_slots:
            raise ValueError(f"hash of {arrays['word_meta'].shape[0]} words and {top} slots, for {n_words} words")
        word_meta = new_word_meta(n_words)
        word_meta[:] = arrays["word_meta"]
        slots = new_slots(n_slots, saved.dtype)
        slots[:saved.size] = saved
        self._hash = HashedCounts(word_meta, slots, np.full(1, top, np.int64), spill,
                                  *_word_tables(state.n_wk.sum(axis=1, dtype=np.int64), n_topics))
        self._synced = (state, state.n_k.copy())

    def sweep(self, state, eta, kappa, w, rng, phi_wk: np.ndarray | None = None) -> None:
        """One sweep over every token. The partial variant draws phi from ``state.n_wk`` unless
        ``phi_wk`` (V, K) is given (a distributed driver draws it once from the global counts)."""
        a_prob, a_alias = _alpha_table(state.alpha)
        kernels = sweeps_for(PROPOSAL_MODES[self.proposal], task_kind(eta.shape[0]), int(self.n_mh))
        moved, moved_from = self._move_log(state.z.size)
        if self.variant == "partial":
            phi, prob, alias, mass = self._exact_tables(*state.n_wk.shape)
            if phi_wk is None:
                if self.phi_due(state):
                    draw_phi_tables(state.n_wk, state.beta, make_streams(rng, state.n_wk.shape[0]), phi, prob,
                                    alias, mass)
            else:
                phi = np.ascontiguousarray(phi_wk, dtype=np.float64)
                build_alias_rows(phi, prob, alias, np.empty(phi.shape))
                mass = phi.sum(axis=1)
            on_stream_chunks(kernels.exact, kernels.exact_parallel, state.doc_ptr, self.n_jobs, state.word_ids,
                             state.doc_ptr, state.z, state.n_dk, state.n_wk, state.n_k, state.alpha, a_prob, a_alias,
                             phi, prob, alias, mass, eta, kappa, w, state.streams, moved, moved_from)
            return
        h = self._word_hash(state)
        chunks = stream_chunks(state.doc_ptr, self.n_jobs)  # the parallel sweep also takes the threads' slots
        h.room_for_proposals(state.n_k.size, int(np.diff(state.doc_ptr).max(initial=0)), chunks.size - 1)
        slots, h.top = compact_and_build(h.word_meta, h.slots, h.spill, state.n_k, state.beta, state.vbeta,
                                         h.word_table, h.inv_frozen, h.spare)
        h.slots, h.spare = slots, h.slots
        # the dense counts are left behind (the hash holds n_kw; LDA's sweep neither reads nor
        # writes n_dk) and brought up to date when read; with tasks n_dk is read and written
        lda = eta.shape[0] == 0
        args = (state.word_ids, state.doc_ptr, state.z, state.doc_topic if lda else state.n_dk, state.n_k,
                state.alpha, a_prob, a_alias, state.beta, state.vbeta, h.word_meta, h.slots, h.top, h.word_table,
                h.inv_frozen, eta, kappa, w, state.streams, moved, moved_from)
        if chunks.size > 2:
            kernels.collapsed_parallel(chunks, *args, self._thread_slots(chunks.size - 1, h.slots))
        else:
            kernels.collapsed(*args)
        state.topic_word_behind(h)
        if lda:
            state.doc_topic_behind()
        self._synced = (state, state.n_k.copy())

    def _thread_slots(self, n_threads: int, slots: np.ndarray) -> np.ndarray:
        """(threads, >= slots.size), of the slots' dtype: each thread's copy of the hash slots in a
        parallel collapsed sweep, allocated once by NumPy (huge pages, see ``new_slots``)."""
        t = self._threads
        if t is None or t.dtype != slots.dtype or t.shape[0] < n_threads or t.shape[1] < slots.size:
            self._threads = np.empty((n_threads, slots.size), slots.dtype)
        return self._threads

    def _move_log(self, n_tokens: int):
        """Scratch (N,) arrays where kernels log the tokens that changed topic."""
        if self._moves is None or self._moves[0].size != n_tokens:
            self._moves = (np.empty(n_tokens, np.int64), np.empty(n_tokens, np.int32))
        return self._moves

    def exact_eta_is_cheap(self, state, n_tasks: int) -> bool:
        """Whether eta's exact draw (forming its precisions: D K^2 T multiply-adds) costs at most
        about a tenth of this sampler's sweep (N n_mh steps): ``EXACT_ETA_WORK`` steps' worth."""
        n_docs, n_topics = state.n_dk.shape
        return n_docs * n_topics ** 2 * n_tasks <= EXACT_ETA_WORK * state.word_ids.size * self.n_mh

    def draw_eta(self, state, eta, kappa, w, nu, rng) -> tuple[np.ndarray, np.ndarray]:
        """eta drawn exactly where that is cheap (``exact_eta_is_cheap``), else n_gibbs coordinate
        Gibbs sweeps (SPEC §5) on zbar's sparse topic columns; returns eta and omega = zbar @ eta.T
        (D, T) for it. Both leave eta's conditional invariant; coordinate sweeps mix slowly when
        topics are few and the loss is sharp (20 classes, K = 20, logistic: test accuracy 0.754
        against 0.786 with exact draws, three seeds each)."""
        if self.eta_draw == "exact" or (self.eta_draw == "auto" and self.exact_eta_is_cheap(state, eta.shape[0])):
            return _exact_eta(state, kappa, w, nu, rng)
        columns = state.topic_columns()
        eta = eta.copy()
        omega = state.omega(eta, columns)
        normals = rng.standard_normal((self.n_gibbs,) + eta.shape)
        coordinate_eta_sweeps(columns, kappa, w, omega, eta, nu, normals, int(self.n_jobs))
        return eta, state.omega(eta, columns)  # summed afresh: the sweeps' running omega drifts in the last bits

    def infer(self, word_ids, doc_ptr, phi_wk, alpha, n_burn, n_avg, rng, n_jobs: int = 1,
              progress=None, doc_seeded: bool = False) -> np.ndarray:
        """Averaged doc-topic counts (D, K) of new documents given phi (SPEC §7), on ``n_jobs``
        threads: by default the exact sparse Gibbs of ``gibbs_infer``; ``inference="mh"`` cycles
        doc and word proposals (O(1) per token). On 20 Newsgroups, 20 classes, 100 + 50 sweeps,
        Gibbs was both more accurate and faster: K = 200, 0.8043 in 9.6 s against 0.8004 in 24.2 s.
        ``progress`` and ``doc_seeded`` as in ``gibbs_infer`` (the mh inference does not report)."""
        if self.inference == "gibbs":
            return gibbs_infer(word_ids, doc_ptr, phi_wk, alpha, n_burn, n_avg, rng, n_jobs, progress, doc_seeded)
        prob, alias = np.empty(phi_wk.shape), np.empty(phi_wk.shape, np.int32)
        build_alias_rows(phi_wk, prob, alias, np.empty(phi_wk.shape))
        a_prob, a_alias = _alpha_table(alpha)
        out = np.zeros((doc_ptr.size - 1, phi_wk.shape[1]))
        on_stream_chunks(light_infer_doc_topic, light_infer_doc_topic_parallel, doc_ptr, n_jobs, word_ids, doc_ptr,
                         phi_wk, alpha, a_prob, a_alias, prob, alias, n_burn, n_avg, max(2, self.n_mh),
                         (doc_streams if doc_seeded else make_streams)(rng, doc_ptr.size - 1), out, doc_seeded)
        return out


def _alpha_table(alpha: np.ndarray):
    """Alias table (prob, alias) of the doc proposal's prior part alpha."""
    prob, alias, q = np.empty((1, alpha.size)), np.empty((1, alpha.size), np.int64), np.empty((1, alpha.size))
    build_alias_rows(alpha[None, :], prob, alias, q)
    return prob[0], alias[0]


def draw_phi_wk(n_wk: np.ndarray, beta: float, rng: np.random.Generator) -> np.ndarray:
    """phi_k ~ Dirichlet(n_k. + beta) for every topic, returned word-major (V, K)."""
    gam = rng.standard_gamma(n_wk + beta)
    gam /= gam.sum(axis=0, keepdims=True)
    return gam


def make_sampler(name: str, *, light_variant: str = "collapsed", proposal: str = "mixture",
                 n_mh: int = 6, n_gibbs: int = 2, n_jobs: int = 1, block_simulation: str = "nested",
                 phi_every: int = 1, eta_draw: str = "auto"):
    """The sampler object for ``name`` ("gibbs", "light" or "blocked"); ``n_jobs`` threads and
    ``phi_every`` (partial variant) and ``eta_draw`` for light; ``block_simulation`` ("nested" or "backward") for
    blocked (unsupervised LDA only)."""
    if name == "gibbs":
        return ExactGibbs()
    if name == "light":
        return Light(light_variant, proposal, n_mh, n_gibbs, n_jobs, eta_draw=eta_draw, phi_every=phi_every)
    if name == "blocked":
        from medlda.samplers.blocked import BlockedGibbs
        return BlockedGibbs(block_simulation)
    raise ValueError(f"sampler must be one of {list(SAMPLERS)}, got {name!r}")
