"""The alpha-prior benchmark's arithmetic: the share-weighted NPMI, the means over seeds and the
table of them."""

import numpy as np
import pytest

from bench_suites import load

rows = load("rows")  # the suites import it as a sibling module
bench = load("alpha_prior")


def _fit(prior: str, seed: int, metric: str, value: float) -> dict:
    config = {"part": "alpha_prior", "task": "binary", "model": "medlda", "n_topics": 20, "alpha": prior,
              "sampler": "light", "iters": 100}
    return rows.row("tasks", config, metric, value, "", seed=seed)


def test_weighted_npmi_leaves_undefined_topics_out():
    assert bench.weighted_npmi(np.array([0.2, np.nan, 0.4]), np.array([0.6, 0.3, 0.1])) == pytest.approx(
        (0.2 * 0.6 + 0.4 * 0.1) / 0.7)
    assert np.isnan(bench.weighted_npmi(np.array([np.nan, 0.1]), np.array([1.0, 0.0])))


def test_summary_means_the_seeds_and_the_table_shows_both_priors():
    fits = [_fit("symmetric", 0, "accuracy", 0.7), _fit("symmetric", 1, "accuracy", 0.8),
            _fit("optimized", 0, "accuracy", 0.9), _fit("optimized", 0, "largest_share", 0.25)]
    out = bench.summary(fits)
    symmetric = rows.find(out, "mean_accuracy", alpha="symmetric")[0]
    assert symmetric["value"] == pytest.approx(0.75) and (symmetric["min"], symmetric["max"], symmetric["n"]) == (
        0.7, 0.8, 2)
    lines = bench.table(out).splitlines()
    assert len(lines) == 4 and "| symmetric | 0.750 (0.700-0.800) |" in lines[2]
    assert "| optimized | 0.900 | - | 0.250 | - |" in lines[3]
