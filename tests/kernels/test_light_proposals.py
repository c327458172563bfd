"""The light proposals' tables: each kind drawn through its row of word_table entries, and the exp
table in either form, draw their q."""

import numpy as np
import pytest
from numba import njit

from exact import FALSE_ALARM, chi_square_pvalue
from medlda._kernels.alias import build_alias, draw_alias
from medlda._kernels.light.exp_table import REJECT, exp_table
from medlda._kernels.light.proposals import DOC, EXP, ROW, draw_kind, put_alias, put_doc_topic, set_row
from medlda._kernels.light.word_hash import topic_view


def test_collapsed_sweep_draws_each_proposal_kind_through_its_row():
    """The collapsed sweep draws every proposal kind by one code path, from entries written into
    word_table after the word tables: the doc proposal's rows as the sweep sets them draw k with
    probability (n_dk + alpha_k) / (N_d + alpha_sum), its own token's topic included, and the exp
    rows draw the exp table's q."""
    @njit
    def draws(n, state, z, alpha, exp_w):
        n_topics = alpha.size
        table = np.zeros(2 * (2 * n_topics + z.size), np.float32)  # 8-byte entries, as the sweeps use
        topics = topic_view(table)
        prob, alias, q = np.empty(n_topics), np.empty(n_topics, np.int64), np.empty(n_topics)
        small, large = np.empty(n_topics, np.int64), np.empty(n_topics, np.int64)
        build_alias(alpha, prob, alias, q, small, large)
        put_alias(table, topics, 0, prob, alias)
        build_alias(exp_w, prob, alias, q, small, large)
        put_alias(table, topics, n_topics, prob, alias)
        for j in range(z.size):
            put_doc_topic(table, topics, 2 * n_topics + j, z[j])
        rows_f, rows_i = np.zeros(3 * ROW), np.zeros(3 * ROW, np.int64)
        alpha_sum = alpha.sum()
        set_row(rows_f, rows_i, DOC, z.size / (z.size + alpha_sum), z.size + alpha_sum, 2 * n_topics, z.size,
                n_topics * (z.size + alpha_sum) / alpha_sum, 0, n_topics)
        set_row(rows_f, rows_i, EXP, 2.0, n_topics, n_topics, n_topics, n_topics, n_topics, n_topics)
        out = np.empty((2, n), np.int64)
        for i in range(n):
            state, out[0, i] = draw_kind(state, rows_f, rows_i, DOC, table, topics)
            state, out[1, i] = draw_kind(state, rows_f, rows_i, EXP, table, topics)
        return out

    z = np.array([3, 0, 3, 3, 1, 0, 3])
    alpha = np.array([0.4, 1.1, 0.2, 0.5, 0.8])
    exp_w = np.array([3.0, 0.5, 0.0, 1.5, 0.25])
    doc_draws, exp_draws = draws(60000, np.uint64(7), z, alpha, exp_w)
    doc_q = (np.bincount(z, minlength=5) + alpha) / (z.size + alpha.sum())
    assert chi_square_pvalue(np.bincount(doc_draws, minlength=5), doc_q) > FALSE_ALARM
    without_alpha = (np.bincount(z, minlength=5) + 1e-3) / (z.size + 5e-3)  # a doc row that ignored alpha
    assert chi_square_pvalue(np.bincount(doc_draws, minlength=5), without_alpha / without_alpha.sum()) < FALSE_ALARM
    assert np.bincount(exp_draws, minlength=5)[2] == 0
    exp_q = np.delete(exp_w / exp_w.sum(), 2)
    assert chi_square_pvalue(np.delete(np.bincount(exp_draws, minlength=5), 2), exp_q) > FALSE_ALARM


@pytest.mark.parametrize("form", ["rejection", "vose"])
def test_exp_table_draws_its_q_in_either_form(form):
    """The exp table of a flat exp(G_d) for few draws is a rejection table (every alias
    ``REJECT``), of a peaked one for many draws Vose's; both store q = exp(G_d) / Z and draw it,
    by ``draw_alias`` (the exact sweep) and through word_table entries (the collapsed sweep), each
    rejected try drawn again. (A rejected try taken as its entry's topic would draw the uniform:
    the test tells the two apart.)"""
    @njit
    def draws(n, state, eta, b, p, n_draws):
        n_topics = eta.shape[1]
        exp_w, prob, q = np.empty(n_topics), np.empty(n_topics), np.empty(n_topics)
        alias, small, large = np.empty(n_topics, np.int64), np.empty(n_topics, np.int64), np.empty(n_topics, np.int64)
        exp_table(eta, b, p, exp_w, prob, alias, q, small, large, n_draws)
        table = np.zeros(2 * n_topics, np.float32)
        topics = topic_view(table)
        put_alias(table, topics, 0, prob, alias)
        rows_f, rows_i = np.zeros(3 * ROW), np.zeros(3 * ROW, np.int64)
        set_row(rows_f, rows_i, EXP, 2.0, n_topics, 0, n_topics, n_topics, 0, n_topics)
        out = np.empty((2, n), np.int64)
        for i in range(n):
            state, k = draw_alias(state, prob, alias)
            while k < 0:
                state, k = draw_alias(state, prob, alias)
            out[0, i] = k
            state, k = draw_kind(state, rows_f, rows_i, EXP, table, topics)
            while k < 0:
                state, k = draw_kind(state, rows_f, rows_i, EXP, table, topics)
            out[1, i] = k
        return out, q, alias

    flat = form == "rejection"
    eta = np.array([[0.1, -0.2, 0.3, 0.0, 0.2, -0.1]]) if flat else np.array([[4.0, -3.0, 2.0, 0.0, 5.0, -1.0]])
    b, p = (np.array([0.5]), np.array([1.0])) if flat else (np.array([0.1]), np.array([2.0]))
    out, q, alias = draws(60000, np.uint64(11), eta, b, p, 10.0 if flat else 100.0)
    g = eta[0] * (p[0] - b[0] * eta[0])
    assert np.allclose(q, np.exp(g - g.max()) / np.exp(g - g.max()).sum(), rtol=1e-5, atol=0)
    assert np.all(alias == REJECT) if flat else np.all(alias >= 0)
    for route in out:
        assert chi_square_pvalue(np.bincount(route, minlength=6), q) > FALSE_ALARM
        assert chi_square_pvalue(np.bincount(route, minlength=6), np.full(6, 1 / 6)) < FALSE_ALARM
