"""The scale benchmark's modes and its thread ratios against one thread."""

import pytest

from bench_suites import load

rows = load("rows")  # the suites import it as a sibling module
bench = load("bench_scale")


def test_modes_name_threads_or_workers():
    assert bench.parse_mode("local") == ("local", 1)
    assert bench.parse_mode("local-16") == ("local", 16)
    assert bench.parse_mode("ray-2") == ("ray", 2)
    for bad in ("ray", "local-x", "threads-2", "local-"):
        with pytest.raises(ValueError, match="local, local-N or ray-N"):
            bench.parse_mode(bad)


def _row(mode: str, metric: str, value: float) -> dict:
    return rows.row("scale", {"n_docs": 100, "n_topics": 20, "mode": mode}, metric, value, "s")


def test_thread_ratios_compare_each_thread_count_with_one_thread():
    measured = [_row("local", "seconds_per_iteration", 2.0), _row("local-2", "seconds_per_iteration", 1.25),
                _row("local", "cpu_seconds_per_iteration", 2.0), _row("local-2", "cpu_seconds_per_iteration", 2.2),
                _row("local", "peak_rss_bytes", 100.0), _row("local-2", "peak_rss_bytes", 105.0),
                _row("local", "log_joint", -1000.0), _row("local-2", "log_joint", -1010.0),
                _row("ray-2", "seconds_per_iteration", 0.5)]
    out = {r["metric"]: r for r in bench.thread_ratios(measured)}
    assert set(out) == {"speedup", "cpu_seconds_ratio", "peak_rss_ratio", "log_joint_ratio"}
    assert out["log_joint_ratio"]["value"] == pytest.approx(1.01)
    assert out["speedup"]["value"] == pytest.approx(1.6)
    assert out["cpu_seconds_ratio"]["value"] == pytest.approx(1.1)
    assert out["peak_rss_ratio"]["value"] == pytest.approx(1.05)
    assert all(r["config"]["mode"] == "local-2" and r["config"]["against_mode"] == "local" for r in out.values())
