"""The topic-quality benchmark's arithmetic: token shares, the share-weighted NPMI, the largest
topic's share of eta, the means over seeds with MedLDA's NPMI gap to LDA, and the table of them."""

import numpy as np
import pytest

from bench_suites import load

rows = load("rows")  # the suites import it as a sibling module
quality = load("topic_quality")


def test_shares_and_the_weighted_npmi_leave_undefined_topics_out():
    shares = quality.topic_shares(np.array([[3, 1], [0, 0], [2, 2]]))
    assert shares.tolist() == pytest.approx([0.5, 0.0, 0.5])
    assert quality.topic_shares(np.zeros((2, 3))).tolist() == [0.0, 0.0]
    assert quality.weighted_npmi(np.array([0.2, np.nan, 0.4]), np.array([0.6, 0.3, 0.1])) == pytest.approx(
        (0.2 * 0.6 + 0.4 * 0.1) / 0.7)
    assert np.isnan(quality.weighted_npmi(np.array([np.nan, 0.1]), np.array([1.0, 0.0])))


def test_eta_share_is_the_largest_topics_share_of_abs_eta():
    eta = np.array([[1.0, -3.0, 0.0], [-1.0, 1.0, 4.0]])  # |eta| summed over the classes: 2, 4, 4
    assert quality.eta_share(eta, np.array([0.2, 0.7, 0.1])) == pytest.approx(0.4)
    assert quality.eta_share(eta, np.array([0.6, 0.3, 0.1])) == pytest.approx(0.2)
    assert quality.eta_share(np.zeros((2, 3)), np.array([0.6, 0.3, 0.1])) == 0.0


def _fit(model: str, seed: int, metric: str, value: float, preprocessing: str = "all",
         prior: str = "symmetric") -> dict:
    config = {"part": "topic_quality", "task": "binary", "preprocessing": preprocessing, "model": model,
              "n_topics": 20, "alpha": prior, "sampler": "light", "iters": 100}
    return rows.row("tasks", config, metric, value, "", seed=seed)


def test_summary_means_seeds_and_gives_medlda_minus_lda_and_the_table():
    fits = [_fit("lda", 0, "npmi_weighted", 0.2), _fit("lda", 1, "npmi_weighted", 0.4),
            _fit("medlda", 0, "npmi_weighted", 0.1), _fit("medlda", 1, "npmi_weighted", 0.2),
            _fit("medlda", 0, "accuracy", 0.8), _fit("medlda", 0, "largest_share", 0.25),
            _fit("medlda", 0, "npmi_weighted", 0.5, preprocessing="headers")]  # no LDA beside: no gap
    svm = rows.row("tasks", {"part": "topic_quality", "task": "binary", "preprocessing": "all", "model": "svm"},
                   "accuracy", 0.79, "")
    out = quality.summary([*fits, svm])
    lda = rows.find(out, "mean_npmi_weighted", model="lda")[0]
    assert lda["value"] == pytest.approx(0.3) and (lda["min"], lda["max"], lda["n"]) == (0.2, 0.4, 2)
    gaps = rows.find(out, "npmi_gap")
    assert len(gaps) == 1 and gaps[0]["value"] == pytest.approx(0.15 - 0.3)
    assert gaps[0]["config"]["preprocessing"] == "all" and gaps[0]["config"]["alpha"] == "symmetric"
    assert not rows.find(out, "mean_accuracy", model="svm")  # the baseline is not a fit over seeds
    lines = quality.table([*out, svm]).splitlines()
    assert len(lines) == 4 and lines[0].startswith("| task | preprocessing | K | alpha | MedLDA accuracy |")
    all_line = next(line for line in lines if "| all |" in line)
    assert all_line == ("| binary | all | 20 | symmetric | 0.800 | 0.790 | 0.300 | 0.150 (0.100-0.200) | - | 0.250 | "
                        "- | - | - | - | - |")


def test_the_priors_are_summarised_apart_and_the_table_shows_both():
    fits = [_fit("medlda", 0, "accuracy", 0.7), _fit("medlda", 1, "accuracy", 0.8),
            _fit("medlda", 0, "accuracy", 0.9, prior="optimized"),
            _fit("medlda", 0, "largest_share", 0.25, prior="optimized"),
            _fit("medlda", 0, "alpha_max_share", 0.3, prior="optimized"),
            _fit("lda", 0, "npmi_weighted", 0.2, prior="optimized"),
            _fit("medlda", 0, "npmi_weighted", 0.1, prior="optimized")]
    out = quality.summary(fits)
    symmetric = rows.find(out, "mean_accuracy", alpha="symmetric")[0]
    assert symmetric["value"] == pytest.approx(0.75) and (symmetric["min"], symmetric["max"], symmetric["n"]) == (
        0.7, 0.8, 2)
    assert rows.find(out, "mean_accuracy", alpha="optimized")[0]["value"] == pytest.approx(0.9)
    gaps = rows.find(out, "npmi_gap")
    assert len(gaps) == 1 and gaps[0]["config"]["alpha"] == "optimized" and gaps[0]["value"] == pytest.approx(-0.1)
    lines = quality.table(out).splitlines()
    assert len(lines) == 4 and "| symmetric | 0.750 (0.700-0.800) |" in lines[2]
    assert lines[3] == ("| binary | all | 20 | optimized | 0.900 | - | 0.200 | 0.100 | - | 0.250 | - | - | 0.300 | - "
                        "| - |")
