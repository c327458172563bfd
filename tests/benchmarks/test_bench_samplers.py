"""The sampler benchmark's arithmetic: its ratios are those of the median fits, each repeat's beside,
written as rows of the benchmarks' one schema."""

import json
import sys

import numpy as np
import pytest

from bench_suites import load

rows = load("rows")  # the suites import it as a sibling module
against = load("reference_tomotopy")  # bench_samplers imports it when run
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


def test_log_joint_from_assignments_is_medlda_log_joint():
    from medlda._kernels.measures import log_joint as dense_log_joint

    rng = np.random.default_rng(0)
    k, v = 7, 11
    lengths = np.array([5, 0, 9, 3])
    ptr = np.concatenate([[0], np.cumsum(lengths)])
    words, topics = rng.integers(0, v, ptr[-1]), rng.integers(0, k, ptr[-1])
    n_dk, n_wk = np.zeros((len(lengths), k), np.int64), np.zeros((v, k), np.int64)
    np.add.at(n_dk, (np.repeat(np.arange(len(lengths)), lengths), topics), 1)
    np.add.at(n_wk, (words, topics), 1)
    expected = dense_log_joint(n_dk, n_wk, n_wk.sum(axis=0), lengths, np.full(k, 0.3), 0.05)
    assert against.log_joint(words, ptr, topics, k, v, 0.3, 0.05) == pytest.approx(expected, rel=1e-12)


def _speed(system: str, sampler: str, k: int, value: float) -> dict:
    config = {"task": against.TASK, "system": system, "sampler": sampler, "n_topics": k}
    return rows.row("samplers", config, "tokens_per_second", value, "tokens/s")


def test_speed_against_tomotopy_is_the_ratio_of_the_medians():
    fits = [_speed("medlda", "auto", 20, v) for v in (4.0, 6.0, 5.0)]
    fits += [_speed("tomotopy", "gibbs", 20, v) for v in (2.0, 2.5, 4.0)]
    out = against.against_summary(fits)
    ratio = _one(rows.find(out, "speed_vs_tomotopy", system="medlda", sampler="auto", n_topics=20))
    assert ratio["value"] == pytest.approx(5.0 / 2.5)
    assert ratio["each_repeat"] == pytest.approx([2.0, 2.4, 1.25])
    assert _one(rows.find(out, "median_tokens_per_second", system="tomotopy"))["value"] == 2.5
    assert not rows.find(out, "speed_vs_tomotopy", system="tomotopy")


def test_against_tomotopy_without_it_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "tomotopy", None)  # import tomotopy raises ImportError
    monkeypatch.setattr(sys, "argv", ["bench_samplers.py", "--against", "tomotopy", "--skip-binary",
                                      "--skip-sensitivity", "--data", str(tmp_path / "none.tar.gz"),
                                      "--out", str(tmp_path)])
    with pytest.raises(SystemExit, match=r"pip install tomotopy"):
        bench.main()
    assert not list(tmp_path.iterdir())  # stopped before writing a rows file


@pytest.mark.slow
def test_against_tomotopy_fits_both_systems_side_by_side(tmp_path):
    pytest.importorskip("tomotopy", reason="tomotopy is not installed (pip install tomotopy): the reference is optional")
    from medlda.data.synthetic import make_supervised_corpus
    from medlda.samplers import resolve_sampler

    corpus, _ = make_supervised_corpus(60, 4, doc_length=40, random_state=0)
    out = rows.RowWriter("samplers", tmp_path, argv=["python", "bench_samplers.py"])
    against.against_runs(out, corpus, [4, 60], n_iter=2, warmup=1, seed=0, repeats=2)
    for k in (4, 60):
        for system, sampler in [("medlda", s) for s in against.MEDLDA_SAMPLERS] + [("tomotopy", "gibbs")]:
            speeds = rows.find(out.rows, "tokens_per_second", system=system, sampler=sampler, n_topics=k)
            assert [r["repeat"] for r in speeds] == [0, 1]
            assert all(r["value"] > 0 and r["n_tokens"] == corpus.n_tokens for r in speeds)
        auto = rows.find(out.rows, "tokens_per_second", system="medlda", sampler="auto", n_topics=k)
        assert {r["resolved"] for r in auto} == {resolve_sampler("auto", k, 0)}  # what the estimators pick
        for r in rows.find(out.rows, "log_joint_per_token", system="tomotopy", n_topics=k):
            assert r["tomotopy_words"] == corpus.n_words
            assert r["value"] == pytest.approx(r["ll_per_word"], rel=1e-4)  # the same quantity, by its own code
    derived = against.against_summary(out.rows)
    assert len(rows.find(derived, "speed_vs_tomotopy")) == 2 * len(against.MEDLDA_SAMPLERS)
    assert len(rows.find(out.rows, "load_average")) == 2
