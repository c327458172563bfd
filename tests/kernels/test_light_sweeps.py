"""The light sweep kernels: fastmath changes no draw, and the specialised sweeps load from numba's disk cache."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from light_problem import collapsed_sweeps, exact_sweeps, problem
from numba import njit

from medlda._kernels.alias import draw_alias
from medlda._kernels.light.collapsed import collapsed_docs
from medlda._kernels.light.exact import exact_blocks
from medlda._kernels.light.exp_table import enter_doc, exp_scratch, exp_table, sweep_scratch
from medlda._kernels.light.moves import apply_dense_moves
from medlda._kernels.light.proposals import FAST, PROPOSAL_MODES, task_kind
from medlda._kernels.light.sweeps import sweeps_for

HERE = Path(__file__).resolve().parent


def _with_globals(func, **names):
    """``func`` (a plain function) reading ``names`` in place of its module's globals of those names."""
    return types.FunctionType(func.__code__, {**func.__globals__, **names}, func.__name__, func.__defaults__,
                              func.__closure__)


@pytest.fixture(scope="module")
def plain():
    """The kernels compiled with fastmath (the two sweeps' block loops, their set-up and the exp
    table they call) compiled from their Python functions without it, each calling the others'
    plain builds. Not cached: numba's cache key does not hold the flags. (A kernel that sets no
    fastmath takes its first caller's: those the fastmath kernels call set it.)"""
    exp_plain = njit(fastmath=False)(exp_table.py_func)
    enter_plain = njit(inline="always")(_with_globals(enter_doc.py_func, exp_table=exp_plain))
    scratch_plain = njit(fastmath=False)(_with_globals(sweep_scratch.py_func,
                                                       exp_scratch=njit(fastmath=False)(exp_scratch.py_func)))
    plain_names = {"enter_doc": enter_plain, "sweep_scratch": scratch_plain}
    return types.SimpleNamespace(
        exp_table=exp_plain,
        collapsed=njit(fastmath=False)(_with_globals(collapsed_docs.py_func, **plain_names)),
        exact=njit(fastmath=False)(_with_globals(exact_blocks.py_func, **plain_names)))


FAST_ARITHMETIC = re.compile(r"= (fadd|fsub|fmul|fdiv|frem|fneg|call) (\w+ )*(reassoc|contract|fast) ")


def _fastmath_in(dispatcher) -> bool:
    """Whether any compiled overload of ``dispatcher`` (its callees linked in) has floating-point
    arithmetic with fast-math flags (on a comparison they change nothing)."""
    return any(FAST_ARITHMETIC.search(ir) for ir in dispatcher.inspect_llvm().values())


CASES = [(mode, n_mh, n_tasks) for mode, n_mh in (("mixture", 6), ("cycle", 3)) for n_tasks in (0, 1, 3)]


@pytest.mark.slow
@pytest.mark.parametrize("mode, n_mh, n_tasks", CASES)
def test_collapsed_sweep_draws_the_same_without_fastmath(plain, mode, n_mh, n_tasks):
    """The collapsed sweep specialised for (mode, task kind, n_mh), as the sampler runs it, and
    its block loop built without fastmath give bitwise the same z, counts and streams over three
    sweeps; the tokens do move."""
    p = problem(n_tasks)
    start = p.tokens.z.copy()
    fast = collapsed_sweeps(sweeps_for(PROPOSAL_MODES[mode], task_kind(n_tasks), n_mh).collapsed, p.copy(), 3)

    def sweep(tokens, counts, prior, words, supervision, streams, log):
        plain.collapsed(0, tokens.doc_ptr.size - 1, tokens, counts, prior, words, supervision, PROPOSAL_MODES[mode],
                        task_kind(n_tasks), n_mh, streams, log, 0, False, int(np.diff(tokens.doc_ptr).max()))

    exact = collapsed_sweeps(sweep, p.copy(), 3)
    assert not _fastmath_in(plain.collapsed)
    assert np.mean(fast["z"] != start) > 0.3
    for name, value in fast.items():
        assert np.array_equal(value, exact[name]), name


@pytest.mark.slow
@pytest.mark.parametrize("mode, n_mh, n_tasks", CASES)
def test_partially_collapsed_sweep_draws_the_same_without_fastmath(plain, mode, n_mh, n_tasks):
    """As above for the partially collapsed sweep, each sweep after a draw of phi."""
    p = problem(n_tasks, symmetric=True)
    start = p.tokens.z.copy()
    fast = exact_sweeps(sweeps_for(PROPOSAL_MODES[mode], task_kind(n_tasks), n_mh).exact, p.copy(), 3)

    def sweep(tokens, counts, prior, phi, supervision, streams, log):
        n_logged = plain.exact(0, streams.size, tokens, counts, prior, phi, supervision, PROPOSAL_MODES[mode],
                               task_kind(n_tasks), n_mh, streams, log)
        apply_dense_moves(tokens, log, 0, n_logged, counts)

    exact = exact_sweeps(sweep, p.copy(), 3)
    assert not _fastmath_in(plain.exact)
    assert np.mean(fast["z"] != start) > 0.3
    for name, value in fast.items():
        assert np.array_equal(value, exact[name]), name


@njit
def _table_draws(build, eta, b, p, n_draws, state, out):
    """out[d, :] = draws from the exp table ``build`` makes for row d of (b, p), rejected tries
    drawn again; n_draws[d] is the draws the table is built for (it picks the table's form)."""
    n_tasks, n_topics = eta.shape
    exp_w, prob, q = np.empty(n_topics), np.empty(n_topics), np.empty(n_topics)
    alias, small, large = np.empty(n_topics, np.int64), np.empty(n_topics, np.int64), np.empty(n_topics, np.int64)
    for d in range(b.shape[0]):
        build(eta, b[d], p[d], exp_w, prob, alias, q, small, large, n_draws[d])
        for i in range(out.shape[1]):
            state, k = draw_alias(state, prob, alias)
            while k < 0:
                state, k = draw_alias(state, prob, alias)
            out[d, i] = k


def test_exp_table_draws_the_same_without_fastmath(plain):
    """The exp table built with fastmath and without it draws the same topics, for documents
    whose tables take either form (rejection or Vose). (A fastmath build shows its flags.)"""
    rng = np.random.default_rng(4)
    eta = rng.normal(0.0, 2.0, (3, 40))
    b, p = rng.uniform(0.0, 0.3, (200, 3)), rng.normal(0.0, 1.0, (200, 3))
    n_draws = rng.choice([1.0, 1000.0], 200)
    fast, slow = np.empty((200, 500), np.int64), np.empty((200, 500), np.int64)
    _table_draws(exp_table, eta, b, p, n_draws, np.uint64(9), fast)
    _table_draws(plain.exp_table, eta, b, p, n_draws, np.uint64(9), slow)
    assert not _fastmath_in(plain.exp_table)
    assert np.array_equal(fast, slow)
    rebuilt = njit(fastmath=FAST)(exp_table.py_func)
    _table_draws(rebuilt, eta, b[:1], p[:1], n_draws[:1], np.uint64(9), fast[:1])
    assert _fastmath_in(rebuilt)


@pytest.mark.slow
def test_specialised_sweeps_load_from_the_disk_cache_in_a_fresh_process():
    """``sweeps_for`` compiles closures per (mode, task kind, n_mh); numba caches each on disk
    (their constants are in the cache key), so a second fresh process loads them, compiling none."""
    code = (f"import json, sys\nsys.path.insert(0, {str(HERE)!r})\n"
            "from light_problem import collapsed_sweeps, exact_sweeps, problem\n"
            "from medlda._kernels.light.proposals import PROPOSAL_MODES, task_kind\n"
            "from medlda._kernels.light.sweeps import sweeps_for\n"
            "k = sweeps_for(PROPOSAL_MODES['cycle'], task_kind(1), 3)\n"
            "collapsed_sweeps(k.collapsed, problem(1), 1)\n"
            "exact_sweeps(k.exact, problem(1), 1)\n"
            "print(json.dumps({name: [sum(f.stats.cache_hits.values()), sum(f.stats.cache_misses.values())]"
            " for name, f in (('collapsed', k.collapsed_docs), ('exact', k.exact_blocks))}))\n")
    for _ in range(2):  # the first process may compile them (a new cache); the second must not
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"collapsed": [1, 0], "exact": [1, 0]}

