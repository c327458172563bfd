"""The sampler benchmark's prediction rows: per K and inference setting, the median documents/s
over seeds and repeats, and the mean test accuracy over the seeds of the first repeat."""

import pytest

from bench_suites import load

rows = load("rows")
bench = load("bench_samplers")


def _rows(metric: str, values: dict) -> list[dict]:
    """Rows of ``metric`` for K = 100, the default setting: values[(seed, repeat)]."""
    config = {"task": "prediction", "sampler": "light", "n_topics": 100, "setting": "default",
              "n_infer_burn": 1, "n_infer_avg": 32}
    return [rows.row("samplers", config, metric, v, "", seed=s, repeat=r) for (s, r), v in values.items()]


def test_prediction_summary_gives_median_speed_and_mean_accuracy_over_seeds():
    speed = _rows("docs_per_second", {(0, 0): 100.0, (0, 1): 300.0, (1, 0): 200.0, (1, 1): 900.0})
    accuracy = _rows("test_accuracy", {(0, 0): 0.80, (0, 1): 0.99, (1, 0): 0.90, (1, 1): 0.99})
    out = bench.prediction_summary(speed + accuracy)
    median = rows.find(out, "median_docs_per_second", n_topics=100, setting="default")
    assert len(median) == 1 and median[0]["value"] == pytest.approx(250.0)
    assert (median[0]["min"], median[0]["max"], median[0]["n"]) == (100.0, 900.0, 4)
    mean = rows.find(out, "mean_test_accuracy", n_topics=100, setting="default")
    assert len(mean) == 1 and mean[0]["value"] == pytest.approx(0.85)
    assert mean[0]["seeds"] == [0, 1]
