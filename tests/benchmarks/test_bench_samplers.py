"""The sampler benchmark's arithmetic: its ratios are those of the median fits, each repeat's beside."""

import importlib.util
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_samplers.py"
_spec = importlib.util.spec_from_file_location("bench_samplers", _PATH)
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def _row(sampler: str, k: int, seconds: float) -> dict:
    return {"task": "lda-full", "sampler": sampler, "n_topics": k, "seconds_per_iter": seconds}


def test_ratios_of_repeated_fits_use_the_medians_and_list_each_repeat():
    seconds = {100: [0.20, 0.26, 0.21], 1000: [0.30, 0.31, 0.40]}
    rows = [_row("light-collapsed", k, seconds[k][r]) for r in range(3) for k in (100, 1000)]
    rows += [_row("gibbs", 100, s) for s in (1.0, 1.2, 0.9)]
    out = bench.ratios(rows)
    key = "lda-full/light-collapsed/seconds_ratio_K=1000_vs_K=100"
    assert out[key] == pytest.approx(0.31 / 0.21)
    assert out[key + "/each_repeat"] == pytest.approx([1.5, 0.31 / 0.26, 0.40 / 0.21])
    assert out["lda-full/light-collapsed/speedup_vs_gibbs/K=100"] == pytest.approx(1.0 / 0.21)


def test_ratios_of_one_fit_each_are_plain_ratios():
    out = bench.ratios([_row("light-collapsed", 100, 0.2), _row("light-collapsed", 1000, 0.3)])
    assert out == {"lda-full/light-collapsed/seconds_ratio_K=1000_vs_K=100": pytest.approx(1.5)}
