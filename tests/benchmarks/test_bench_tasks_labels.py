"""The tasks benchmark's label-learning parts: R52 and the synthetic many-class split, and their
summary rows (means over seeds, light minus gibbs)."""

from collections import Counter

import numpy as np
import pytest

from bench_suites import load

rows = load("rows")
labels = load("task_labels")
bench = load("bench_tasks")  # imports task_labels


def _acc(part, sampler, seed, test, train, **setting):
    config = {"part": part, "sampler": sampler, "n_topics": 20, **setting}
    return [rows.row("tasks", config, "accuracy", test, "", seed=seed),
            rows.row("tasks", config, "train_accuracy", train, "", seed=seed)]


def test_label_summary_gives_means_and_light_minus_gibbs():
    data = (_acc("r52", "light", 0, 0.80, 0.90) + _acc("r52", "light", 1, 0.84, 0.92)
            + _acc("r52", "light", 0, 0.70, 0.85, eta_draw="coordinate")
            + _acc("r52", "gibbs", 0, 0.85, 0.95) + _acc("r52", "gibbs", 1, 0.83, 0.93)
            + _acc("synthetic", "light", 0, 0.3, 0.6))  # no gibbs row: no difference
    out = labels.label_summary(data)
    mean = {r["config"].get("eta_draw"): r for r in rows.find(out, "mean_accuracy", part="r52", sampler="light")}
    assert mean[None]["value"] == pytest.approx(0.82) and mean["coordinate"]["value"] == pytest.approx(0.70)
    assert (mean[None]["min"], mean[None]["max"], mean[None]["seeds"]) == (0.80, 0.84, [0, 1])
    diff = {r["config"].get("eta_draw"): r["value"] for r in rows.find(out, "accuracy_difference", part="r52")}
    assert diff == {None: pytest.approx(0.82 - 0.84), "coordinate": pytest.approx(0.70 - 0.84)}
    train = rows.find(out, "train_accuracy_difference", part="r52", eta_draw="coordinate")
    assert len(train) == 1 and train[0]["value"] == pytest.approx(0.85 - 0.94)
    assert not rows.find(out, "accuracy_difference", part="synthetic")


def test_synthetic_split_has_many_small_classes():
    train, test = labels.synthetic_split()
    assert (train.n_docs, test.n_docs) == (3000, 1000)
    counts = sorted(Counter(train.single_labels()).values())
    assert len(counts) == 30 and counts[-1] > 400 and counts[0] < 40


def test_conditional_distance_is_zero_at_the_mean_and_whitened_elsewhere():
    rng = np.random.default_rng(0)
    zbar = rng.dirichlet(np.ones(3), size=50)
    kappa, w, nu = rng.normal(size=(50, 2)), rng.gamma(2.0, size=(50, 2)), 0.5
    gram, linear = labels.eta_statistics(zbar, kappa, w)
    precision = [gram[t] + nu * np.eye(3) for t in range(2)]
    mean = np.array([np.linalg.solve(precision[t], linear[t]) for t in range(2)])
    assert labels.conditional_distance(mean, zbar, kappa, w, nu) == pytest.approx((0.0, 0.0), abs=1e-9)
    e = rng.normal(size=(2, 3))
    eta = mean + np.array([np.linalg.solve(np.linalg.cholesky(precision[t]).T, e[t]) for t in range(2)])
    d2, _ = labels.conditional_distance(eta, zbar, kappa, w, nu)
    assert d2 == pytest.approx(np.mean((e ** 2).sum(axis=1)) / 3)
    shifted = labels.conditional_distance(mean + 1.0, zbar, kappa, w, nu)  # off along the bias only
    assert shifted[1] > 1.0


@pytest.mark.slow
def test_r8_is_the_standard_split_of_eight_classes(shared_data):
    train, test = labels.r8_split(shared_data / "reuters21578.tar.gz")
    assert (train.n_docs, test.n_docs) == (5485, 2189)
    names = Counter(doc[0] for doc in train.labels)
    assert sorted(names) == ["acq", "crude", "earn", "grain", "interest", "money-fx", "ship", "trade"]
    assert (names["earn"], names["grain"]) == (2840, 41)
    assert test.vocabulary is not None and np.array_equal(test.vocabulary, train.vocabulary)


@pytest.mark.slow
def test_binary_part_fits_and_scores_the_papers_two_newsgroups(shared_data, tmp_path, monkeypatch):
    monkeypatch.setattr("sys.argv", ["bench_tasks.py", "--parts", "binary", "--r52-ks", "3", "--r52-iters", "2",
                                     "--samplers", "light", "--data", str(shared_data), "--out", str(tmp_path)])
    bench.main()
    [path] = tmp_path.glob("tasks-*.jsonl")
    [accuracy] = rows.find(rows.read_rows(path), "accuracy", part="binary", sampler="light")
    assert 0.3 < accuracy["value"] <= 1 and rows.find(rows.read_rows(path), "train_accuracy", part="binary")
