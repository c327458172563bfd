"""The eta kernels: coordinate Gibbs leaves eta's Gaussian conditional invariant and converges to it;
zbar's sparse topic columns read from the counts are the dense zbar's; the exact draw's sparse
statistics are the dense products."""

import numpy as np
from scipy import stats

from exact import FALSE_ALARM
from medlda._kernels.eta import columns_omega, coordinate_eta_sweeps, dense_topic_columns, topic_columns_from_counts
from medlda.samplers.eta import (
    count_statistics,
    draw_eta_exact,
    eta_statistics,
    row_statistics,
    rows_to_omega,
    topic_pairs,
    zbar_rows,
)


def test_coordinate_gibbs_eta_leaves_gaussian_invariant_and_converges():
    rng = np.random.default_rng(3)
    n_docs, n_topics = 30, 3
    zbar = rng.dirichlet(np.ones(n_topics), size=n_docs)
    zbar[zbar < 0.1] = 0.0  # sparse zbar, as with many topics
    kappa = rng.normal(size=(n_docs, 2))
    w = rng.gamma(2.0, size=(n_docs, 2))
    nu = 0.5
    chol = [np.linalg.cholesky(nu * np.eye(n_topics) + (zbar * w[:, [t]]).T @ zbar) for t in range(2)]
    means = [np.linalg.solve(c @ c.T, zbar.T @ kappa[:, t]) for t, c in enumerate(chol)]
    columns = dense_topic_columns(np.ascontiguousarray(zbar.T))

    def whitened(samples):
        return [((samples[:, t] - means[t]) @ chol[t]) for t in range(2)]

    # (a) invariance: from exact draws, one coordinate sweep must give exact draws again
    out = []
    for _ in range(3000):
        eta = draw_eta_exact(zbar, kappa, w, nu, rng)
        omega = zbar @ eta.T
        coordinate_eta_sweeps(columns, kappa, w, omega, eta, nu, rng.standard_normal((1, 2, n_topics)))
        assert np.allclose(omega, zbar @ eta.T)
        out.append(eta)
    # (b) convergence: from zero, 30 sweeps reach the target (an identity kernel would fail here)
    far = []
    for _ in range(3000):
        eta = np.zeros((2, n_topics))
        omega = np.zeros((n_docs, 2))
        coordinate_eta_sweeps(columns, kappa, w, omega, eta, nu, rng.standard_normal((30, 2, n_topics)))
        far.append(eta)
    for samples in (np.array(out), np.array(far)):
        for white in whitened(samples):
            assert stats.kstest((white ** 2).sum(1), stats.chi2(n_topics).cdf).pvalue > FALSE_ALARM
            for j in range(n_topics):
                assert stats.kstest(white[:, j], "norm").pvalue > FALSE_ALARM
    stuck = np.zeros((3000, 2, n_topics)) + rng.normal(scale=1e-3, size=(3000, 2, n_topics))
    assert stats.kstest((whitened(stuck)[0] ** 2).sum(1), stats.chi2(n_topics).cdf).pvalue < FALSE_ALARM


def test_topic_columns_from_counts_equal_dense_zbar_columns():
    """The eta draw reads zbar's sparse topic columns straight from n_dk; they must be the dense
    zbar's, bit for bit (empty documents included), and omega from them zbar @ eta.T."""
    rng = np.random.default_rng(11)
    n_dk = rng.poisson(0.7, size=(40, 9)).astype(np.int32)
    n_dk[3] = 0
    lengths = n_dk.sum(1)
    zbar = n_dk / np.maximum(lengths, 1)[:, None]
    got = topic_columns_from_counts(n_dk, lengths)
    want = dense_topic_columns(np.ascontiguousarray(zbar.T))
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    eta = rng.normal(size=(4, 9))
    assert np.allclose(columns_omega(*got, eta, 40), zbar @ eta.T, rtol=1e-12, atol=1e-12)


def test_sparse_eta_statistics_equal_the_dense_products():
    """Over each document's nonzero topics, with empty documents and unused topics: the dense
    sum_d w_dt zbar_d zbar_d^T and sum_d kappa_dt zbar_d to rounding, symmetric exactly."""
    rng = np.random.default_rng(5)
    n_docs, n_topics, n_tasks = 60, 11, 3
    zbar = rng.dirichlet(np.ones(n_topics), size=n_docs)
    zbar[zbar < 0.08] = 0.0
    zbar[7] = 0.0
    zbar[:, 4] = 0.0
    kappa, w = rng.normal(size=(n_docs, n_tasks)), rng.gamma(2.0, size=(n_docs, n_tasks))
    gram, linear = eta_statistics(zbar, kappa, w)
    for t in range(n_tasks):
        assert np.allclose(gram[t], (zbar * w[:, [t]]).T @ zbar, rtol=1e-12, atol=1e-14)
        assert np.allclose(linear[t], zbar.T @ kappa[:, t], rtol=1e-12, atol=1e-14)
        assert np.array_equal(gram[t], gram[t].T)
    assert np.all(gram[:, 4, :] == 0) and np.all(linear[:, 4] == 0)


def test_statistics_read_from_the_counts_are_those_of_the_dense_zbar_bit_for_bit():
    rng = np.random.default_rng(8)
    n_dk = rng.poisson(0.6, size=(50, 7)).astype(np.int32)
    n_dk[4] = 0  # an empty document
    lengths = n_dk.sum(1)
    kappa, w = rng.normal(size=(50, 2)), rng.gamma(2.0, size=(50, 2))
    dense = eta_statistics(n_dk / np.maximum(lengths, 1)[:, None], kappa, w)
    counted = count_statistics(n_dk, lengths, kappa, w)
    assert np.array_equal(dense[0], counted[0]) and np.array_equal(dense[1], counted[1])


def test_the_exact_draws_parts_are_the_same_bits_on_any_number_of_threads():
    """zbar's sparse rows, the statistics (topics dealt to threads) and omega (documents dealt to
    threads) on 1, 2, 3 and 8 threads: the same bits, omega those of ``columns_omega``, and the
    topic pairs counted from the rows."""
    rng = np.random.default_rng(12)
    n_dk = rng.poisson(0.5, size=(70, 13)).astype(np.int32)
    n_dk[[0, 33]] = 0  # empty documents, the first among them
    n_dk[:, 6] = 0  # an unused topic
    lengths = np.maximum(n_dk.sum(1), 1).astype(np.float64)
    kappa, w = rng.normal(size=(70, 4)), rng.gamma(2.0, size=(70, 4))
    eta = rng.normal(size=(4, 13))
    one = zbar_rows(n_dk, lengths)
    stats_one = row_statistics(one, 13, kappa, w)
    omega_one = rows_to_omega(one, eta)
    assert np.array_equal(omega_one, columns_omega(*topic_columns_from_counts(n_dk, n_dk.sum(1)), eta, 70))
    m = np.count_nonzero(n_dk, axis=1)
    assert topic_pairs(n_dk, 3) == (m * (m + 1)).sum() / 2
    for threads in (2, 3, 8):
        rows = zbar_rows(n_dk, lengths, threads)
        assert all(np.array_equal(a, b) for a, b in zip(rows, one))
        stats = row_statistics(rows, 13, kappa, w, threads)
        assert np.array_equal(stats[0], stats_one[0]) and np.array_equal(stats[1], stats_one[1])
        assert np.array_equal(rows_to_omega(rows, eta, threads), omega_one)
    assert np.array_equal(stats_one[0], count_statistics(n_dk, n_dk.sum(1), kappa, w)[0])
