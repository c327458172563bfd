"""The sampler-choice benchmark's arithmetic: light's speed-up over gibbs per (K, T) is the ratio of
the median fits, with the sampler ``sampler="auto"`` picks there."""

import pytest

from bench_suites import load

rows = load("rows")  # the suites import it as a sibling module
choice = load("sampler_choice")


def _fit(sampler: str, k: int, t: int, seconds: float) -> dict:
    config = {"task": "choice", "sampler": sampler, "n_topics": k, "n_tasks": t}
    return rows.row("samplers", config, "seconds_per_iter", seconds, "s")


def test_speedups_are_ratios_of_median_fits_with_the_auto_choice_beside():
    fits = [_fit("gibbs", 100, 20, s) for s in (3.0, 2.0, 9.0)] + [_fit("light", 100, 20, s) for s in (0.5, 0.4, 0.1)]
    fits += [_fit("gibbs", 5, 0, 0.1), _fit("light", 5, 0, 0.3), _fit("gibbs", 7, 1, 1.0)]  # the last: no pair
    out = choice.choice_ratios(fits)
    assert [(r["config"]["n_topics"], r["config"]["n_tasks"]) for r in out] == [(5, 0), (100, 20)]
    small, large = out
    assert small["value"] == pytest.approx(0.1 / 0.3) and small["auto"] == "gibbs"
    assert large["value"] == pytest.approx(3.0 / 0.4) and large["auto"] == "light"
    assert all(r["metric"] == "speedup_light_vs_gibbs" and r["unit"] == "x" for r in out)
