"""The sampler benchmark's prediction rows: per K and inference setting, the median documents/s
over seeds and repeats, and the means over seeds of the test accuracy (first repeat) and of the
L1 distance from the reference."""

import pytest

from bench_suites import load

rows = load("rows")
bench = load("bench_samplers")

CONFIG = {"task": "prediction", "sampler": "light", "n_topics": 100, "setting": "20:200", "n_infer_burn": 20,
          "n_infer_avg": 200}


def _rows(metric: str, values: dict) -> list[dict]:
    """Rows of ``metric`` for CONFIG: values[(seed, repeat)]."""
    return [rows.row("samplers", CONFIG, metric, v, "", seed=s, repeat=r) for (s, r), v in values.items()]


def test_prediction_summary_gives_median_speed_and_means_over_seeds():
    speed = _rows("docs_per_second", {(0, 0): 100.0, (0, 1): 300.0, (1, 0): 200.0, (1, 1): 900.0})
    accuracy = _rows("test_accuracy", {(0, 0): 0.80, (0, 1): 0.99, (1, 0): 0.90, (1, 1): 0.99})
    l1 = [rows.row("samplers", CONFIG, "l1_to_reference", v, "", seed=s) for s, v in ((0, 0.08), (1, 0.10))]
    out = bench.prediction_summary(speed + accuracy + l1)
    median = rows.find(out, "median_docs_per_second", n_topics=100, setting="20:200")
    assert len(median) == 1 and median[0]["value"] == pytest.approx(250.0)
    assert (median[0]["min"], median[0]["max"], median[0]["n"]) == (100.0, 900.0, 4)
    mean = rows.find(out, "mean_test_accuracy", n_topics=100, setting="20:200")
    assert len(mean) == 1 and mean[0]["value"] == pytest.approx(0.85)
    assert mean[0]["seeds"] == [0, 1]
    distance = rows.find(out, "mean_l1_to_reference", n_topics=100, setting="20:200")
    assert len(distance) == 1 and distance[0]["value"] == pytest.approx(0.09)


def test_settings_are_cvb0_gibbs_at_its_defaults_or_burn_and_average():
    defaults = {"n_infer_burn": 20, "n_infer_avg": 200}
    assert bench._setting("gibbs", defaults) == bench._setting("cvb0", defaults) == (20, 200)
    assert bench._setting("100:200", defaults) == (100, 200)
    assert bench._setting("4x10:40", defaults) == (10, 40)
    assert [bench._chains(s) for s in ("gibbs", "100:200", "4x10:40")] == [1, 1, 4]
    assert [bench._inference(s) for s in ("cvb0", "gibbs", "100:200")] == ["cvb0", "gibbs", "gibbs"]
