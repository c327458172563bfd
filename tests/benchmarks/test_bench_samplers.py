"""The sampler benchmark's arithmetic: its ratios are those of the median fits, each repeat's beside,
written as rows of the benchmarks' one schema."""

import json

import pytest

from bench_suites import load

rows = load("rows")  # the suites import it as a sibling module
bench = load("bench_samplers")


def _row(sampler: str, k: int, seconds: float) -> dict:
    config = {"task": "lda-full", "sampler": sampler, "n_topics": k}
    return rows.row("samplers", config, "seconds_per_iter", seconds, "s")


def _one(found: list[dict]) -> dict:
    assert len(found) == 1
    return found[0]


def test_ratios_of_repeated_fits_use_the_medians_and_list_each_repeat():
    seconds = {100: [0.20, 0.26, 0.21], 1000: [0.30, 0.31, 0.40]}
    fits = [_row("light-collapsed", k, seconds[k][r]) for r in range(3) for k in (100, 1000)]
    fits += [_row("gibbs", 100, s) for s in (1.0, 1.2, 0.9)]
    out = bench.ratios(fits)
    growth = _one(rows.find(out, "seconds_ratio", sampler="light-collapsed", n_topics=1000, against_n_topics=100))
    assert growth["value"] == pytest.approx(0.31 / 0.21)
    assert growth["unit"] == "x"
    assert growth["each_repeat"] == pytest.approx([1.5, 0.31 / 0.26, 0.40 / 0.21])
    speedup = _one(rows.find(out, "speedup_vs_gibbs", task="lda-full", sampler="light-collapsed", n_topics=100))
    assert speedup["value"] == pytest.approx(1.0 / 0.21)


def test_ratios_of_one_fit_each_are_plain_ratios():
    out = bench.ratios([_row("light-collapsed", 100, 0.2), _row("light-collapsed", 1000, 0.3)])
    assert len(out) == 1
    assert out[0]["metric"] == "seconds_ratio"
    assert out[0]["config"] == {"task": "lda-full", "sampler": "light-collapsed", "n_topics": 1000,
                                "against_n_topics": 100}
    assert out[0]["value"] == pytest.approx(1.5)
    assert "each_repeat" not in out[0]


def test_rows_are_json_lines_of_one_schema(tmp_path):
    writer = rows.RowWriter("samplers", tmp_path, argv=["python", "bench_samplers.py"])
    writer.write({"task": "binary", "sampler": "gibbs", "n_topics": 20}, "seconds_per_iter", 0.5, "s", repeat=0)
    written = rows.read_rows(writer.path)
    assert [r["metric"] for r in written] == ["environment", "seconds_per_iter"]
    for r in written:
        assert {"suite", "config", "metric", "value", "unit"} <= set(r)
        assert r["suite"] == "samplers"
        json.dumps(r)
    assert written[0]["command"] == "python bench_samplers.py"
    assert written[1]["repeat"] == 0
