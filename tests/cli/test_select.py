"""medlda train with several values of a compared setting (--c, --loss, --sigma2, ...) and of --topics:
every combination is compared on a validation part of --train, the best trained again on all of it
and tested."""

from __future__ import annotations

import json

import pytest
from cli_helpers import FAST, run

from medlda.io.model_file import load_model

QUICK = ["--iters", "10", "--seed", "0", "--margin", "1", "--alpha-sum", "1"]  # no --topics, no --c


def test_several_c_and_topics_are_compared_as_a_grid_and_the_best_is_refit(capsys, tmp_path, bow_files):
    train, test = bow_files
    best = tmp_path / "best.npz"
    code, out, err = run(capsys, "train", "--train", train, "--test", test, "--topics", "2,4", "--c", "0.5,4",
                         "--out", best, "--json", *QUICK)
    assert code == 0, err
    result = json.loads(out)
    settings = [r["setting"] for r in result["runs"]]
    assert settings == [{"n_components": k, "c": c} for k in (2, 4) for c in (0.5, 4.0)]
    assert all(r["n_topics"] == s["n_components"] and r["measured_on"] == "validation"
               for r, s in zip(result["runs"], settings))
    scores = [r["accuracy"] for r in result["runs"]]
    assert result["best"] == settings[scores.index(max(scores))]  # the first of the best, in the order given
    kept = load_model(best)
    assert (kept.n_components, kept.c) == (result["best"]["n_components"], result["best"]["c"])
    assert result["final"]["measured_on"] == "test" and result["final"]["n_train_docs"] == 500


def test_the_priors_and_background_topics_are_compared_too(capsys, bow_files):
    train, _ = bow_files
    code, out, err = run(capsys, "train", "--train", train, "--holdout", "0.2", "--topics", "4", "--sigma2", "1,10",
                         "--background-topics", "0,1", "--json", *QUICK)  # QUICK gives one --alpha-sum
    assert code == 0, err
    result = json.loads(out)
    assert [r["setting"] for r in result["runs"]] == [
        {"n_components": 4, "sigma2": s, "background_topics": b} for s in (1.0, 10.0) for b in (0, 1)]
    assert result["final"]["measured_on"] == "holdout"


def test_the_comparison_says_what_it_compares(capsys, bow_files):
    train, _ = bow_files
    code, out, err = run(capsys, "train", "--train", train, "--holdout", "0.2", "--topics", "3", "--loss",
                         "hinge,logistic", *QUICK)
    lines = out.splitlines()
    assert code == 0, err
    assert lines[0].startswith("choosing among 2 settings on a validation part: 80 of the 400")
    assert lines[1].lstrip().startswith("3 topics, --loss hinge: validation accuracy ")
    assert lines[2].lstrip().startswith("3 topics, --loss logistic: validation accuracy ")
    assert lines[3].startswith("best: 3 topics, --loss ") and "not used to choose" in lines[4]


@pytest.mark.parametrize("argv, message", [
    (["--epsilon", "0.1,0.2"], "--epsilon does not apply to a classification task"),
    (["--loss", "hinge,squared"], "--loss squared does not fit a classification task"),
])
def test_settings_that_do_not_fit_the_task_are_refused(capsys, bow_files, argv, message):
    train, _ = bow_files
    code, _, err = run(capsys, "train", "--train", train, "--topics", "2", *argv, "--iters", "2")
    assert code == 2 and message in err


@pytest.mark.parametrize("argv, message", [
    (["--c", "1,1"], "a value given twice"),
    (["--c", "1,"], "an empty value"),
    (["--c", "1,-2"], "got -2"),
    (["--loss", "hinge,nope"], "invalid choice: 'nope'"),
])
def test_bad_lists_are_refused_by_the_parser(capsys, bow_files, argv, message):
    train, _ = bow_files
    with pytest.raises(SystemExit) as stop:
        run(capsys, "train", "--train", train, *argv)
    assert stop.value.code == 2 and message in capsys.readouterr().err


def test_one_value_of_a_compared_setting_trains_one_model(capsys, bow_files):
    train, test = bow_files
    code, out, err = run(capsys, "train", "--train", train, "--test", test, "--json", *FAST)  # FAST: --c 1
    assert code == 0, err
    result = json.loads(out)
    assert "runs" not in result and result["n_topics"] == 5
