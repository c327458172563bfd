"""Bad input to the command line: every malformed file, missing path, bad option and doubtful
value named in one line on stderr (exit code 2), before any work; and the help texts."""

from __future__ import annotations

import json

import pytest
from cli_helpers import FAST, option_help, run, subparser

import medlda.models.base
import medlda.models.classifier
from medlda.cli import main
from medlda.losses import MULTILABEL_MARGIN


def test_malformed_line_names_file_and_line(capsys, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("pos apple:1 pear:2\nneg apple:x\n")
    code, _, err = run(capsys, "train", "--train", bad, *FAST)
    assert code == 2
    assert "bad.txt, line 2" in err and "medlda: error:" in err


def test_empty_documents_and_oov_words_are_counted(capsys, tmp_path):
    train = tmp_path / "train.txt"
    test = tmp_path / "test.txt"
    train.write_text("pos apple:3 pear:1\nneg stone:2 rock:2\npos pear:2 apple:1\nneg rock:1 stone:3\n")
    test.write_text("pos apple:2 kiwi:5\nneg rock:1 granite:2 basalt:1\npos kiwi:3\n")
    code, out, err = run(capsys, "train", "--train", train, "--test", test, "--json", *FAST)
    assert code == 0, err
    result = json.loads(out)
    assert result["test_oov_dropped"] == 5 + 2 + 1 + 3  # kiwi, granite, basalt, and the emptied doc's kiwi
    assert result["test_empty_skipped"] == 1 and result["n_test_docs"] == 2
    code, _, err = run(capsys, "train", "--train", train, "--test", test, *FAST)
    assert "dropped 11 out-of-vocabulary tokens" in err
    assert "skipped 1 empty document" in err and "1 empty documents" not in err


def test_unseen_test_labels_are_an_error(capsys, tmp_path, bow_files):
    train, _ = bow_files
    test = tmp_path / "test.txt"
    test.write_text("pos t0_1:2\nmaybe t1_2:1\n")
    code, _, err = run(capsys, "train", "--train", train, "--test", test, *FAST)
    assert code == 2
    assert "test labels maybe do not occur in the training data" in err


def test_test_data_of_unknown_words_says_so(capsys, tmp_path, bow_files):
    train, _ = bow_files
    test = tmp_path / "oov.txt"
    test.write_text("pos kiwi:3\nneg granite:2\n")
    code, _, err = run(capsys, "train", "--train", train, "--test", test, *FAST)
    assert code == 2 and "no non-empty documents (all 5 tokens are words the model or training data" in err


def test_missing_input_and_unlabeled_training_data(capsys, tmp_path):
    code, _, err = run(capsys, "train", "--train", tmp_path / "missing.txt", *FAST)
    assert code == 2 and "missing.txt" in err
    unlabeled = tmp_path / "u.txt"
    unlabeled.write_text("apple:1 pear:2\nrock:2 stone:1\n")
    code, _, err = run(capsys, "train", "--train", unlabeled, *FAST)
    assert code == 2 and "--unsupervised" in err


def test_missing_input_files_say_no_such_file(capsys, tmp_path, saved_model):
    missing = tmp_path / "nope.csv"
    for argv in (["train", "--train", missing, *FAST], ["predict", "--model", saved_model, "--input", missing],
                 ["evaluate", "--model", saved_model, "--input", missing],
                 ["transform", "--model", saved_model, "--input", missing],
                 ["topics", "--model", saved_model, "--coherence", missing]):
        code, _, err = run(capsys, *argv)
        assert code == 2 and err == f"medlda: error: {missing}: no such file\n", argv


def test_unreadable_and_foreign_model_files(capsys, tmp_path, bow_files):
    _, test = bow_files
    code, _, err = run(capsys, "predict", "--model", tmp_path / "nope.npz", "--input", test)
    assert code == 2 and "no such model file" in err
    foreign = tmp_path / "foreign.npz"
    foreign.write_bytes(b"PK\x03\x04 definitely not a model")
    code, _, err = run(capsys, "topics", "--model", foreign)
    assert code == 2 and "not a medlda model file" in err


def test_failed_save_writes_nothing(capsys, tmp_path, bow_files):
    train, _ = bow_files
    target = tmp_path / "no_such_dir" / "model.npz"
    code, _, err = run(capsys, "train", "--train", train, "--out", target, *FAST)
    assert code == 2 and "no_such_dir" in err
    assert not target.parent.exists()


def test_unwritable_outputs_are_refused_before_the_work(capsys, tmp_path, bow_files, monkeypatch):
    """A typo in an output path costs nothing: the run stops before training or inference."""
    train, test = bow_files

    def no_fit(*args, **kwargs):
        raise AssertionError("training started")

    model = tmp_path / "m.npz"
    assert run(capsys, "train", "--train", train, "--out", model, *FAST)[0] == 0
    monkeypatch.setattr(medlda.models.base.TopicModel, "_fit_topics", no_fit)
    missing = tmp_path / "no" / "such"
    for flag in ("--out", "--trace", "--checkpoint"):
        code, out, err = run(capsys, "train", "--train", train, flag, missing / "f", *FAST)
        assert code == 2 and f"directory {missing} does not exist" in err and out == ""
    code, _, err = run(capsys, "train", "--train", train, "--out", tmp_path, *FAST)
    assert code == 2 and "is a directory" in err
    monkeypatch.setattr(medlda.models.base.TopicModel, "transform", no_fit, raising=False)
    monkeypatch.setattr(medlda.models.classifier.MedLDAClassifier, "transform", no_fit)
    code, _, err = run(capsys, "predict", "--model", model, "--input", test, "--out", missing / "p.txt")
    assert code == 2 and "does not exist" in err
    for out, problem in ((missing / "f.png", "does not exist"), (tmp_path / "f.xyz", "unknown figure format")):
        code, _, err = run(capsys, "plot", "--model", model, "--kind", "map", "--input", test, "--out", out)
        assert code == 2 and problem in err


def test_small_messages_fit_the_cli(capsys, tmp_path, saved_model):
    pytest.importorskip("matplotlib")
    code, _, err = run(capsys, "plot", "--model", saved_model, "--kind", "topics", "--out", tmp_path / "t")
    assert code == 2 and "no suffix to name the figure format; end the name in .png, .pdf or .svg" in err
    both = tmp_path / "both.txt"
    both.write_text("pos t0_1:2\npos,neg t1_2:1\n")
    code, _, err = run(capsys, "evaluate", "--model", saved_model, "--input", both)
    assert code == 2 and "1 document does not carry exactly one label" in err and "training" not in err


# -- options checked by the parser -------------------------------------------------------------
@pytest.mark.parametrize("flags, match", [
    (["--c", "-1"], "argument --c: must be"), (["--sigma2", "0"], "argument --sigma2: must be"),
    (["--alpha-sum", "0"], "argument --alpha-sum: must be"), (["--positive-cost", "0"], "argument --positive-cost"),
])
def test_invalid_hyperparameters(capsys, bow_files, flags, match):
    train, _ = bow_files
    with pytest.raises(SystemExit) as stop:
        run(capsys, "train", "--train", train, *FAST, *flags)
    assert stop.value.code == 2 and match in capsys.readouterr().err


@pytest.mark.parametrize("value, match", [("0", "must be at least 1, got 0"), ("20,x", "not an integer: 'x'"),
                                          (",", "no number of topics in ','")])
def test_invalid_topic_counts_are_refused_by_the_parser(capsys, bow_files, value, match):
    train, _ = bow_files
    with pytest.raises(SystemExit) as stop:
        run(capsys, "train", "--train", train, "--topics", value)
    assert stop.value.code == 2 and f"argument --topics/--n-components: {match}" in capsys.readouterr().err


def test_word_counts_must_be_positive(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["topics", "--model", "m.npz", "--top-words", "0"])
    assert stop.value.code == 2 and "must be at least 1, got 0" in capsys.readouterr().err


@pytest.mark.parametrize("argv, flag, match", [
    (["train", "--train", "nope.txt", "--iters", "0"], "--iters/--max-iter", "must be at least 1, got 0"),
    (["train", "--train", "nope.txt", "--iters", "-1"], "--iters/--max-iter", "must be at least 1, got -1"),
    (["train", "--train", "nope.txt", "--trace-every", "0"], "--trace-every", "must be at least 1"),
    (["train", "--train", "nope.txt", "--phi-every", "0"], "--phi-every", "must be at least 1"),
    (["train", "--train", "nope.txt", "--n-mh", "0"], "--n-mh", "must be at least 1"),
    (["train", "--train", "nope.txt", "--infer-burn", "-1"], "--infer-burn", "must be at least 0"),
    (["train", "--train", "nope.txt", "--infer-avg", "0"], "--infer-avg", "must be at least 1"),
    (["train", "--train", "nope.txt", "--checkpoint-every", "-1"], "--checkpoint-every", "must be at least 0"),
    (["train", "--train", "nope.txt", "--workers", "0"], "--workers", "must be at least 1"),
    (["train", "--train", "nope.txt", "--seed", "-3"], "--seed", "must be at least 0"),
    (["plot", "--model", "m.npz", "--kind", "explain", "--out", "f.png", "--doc", "0"], "--doc", "must be at least 1"),
    (["plot", "--model", "m.npz", "--kind", "map", "--out", "f.png", "--seed", "-1"], "--seed", "must be at least 0"),
])
def test_numeric_options_are_checked_before_the_data_is_read(capsys, argv, flag, match):
    with pytest.raises(SystemExit) as stop:
        run(capsys, *argv)
    assert stop.value.code == 2 and f"argument {flag}: {match}" in capsys.readouterr().err


def test_train_refuses_no_cores_before_reading(capsys):
    code, _, err = run(capsys, "train", "--train", "nope.txt", "--n-jobs", "0")
    assert code == 2 and "--n-jobs must be a non-zero integer" in err


def test_argparse_errors_are_one_line_and_a_hint(capsys):
    with pytest.raises(SystemExit) as stop:
        run(capsys, "train", "--train", "x.txt", "--iters", "abc")
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert err.splitlines() == ["medlda train: error: argument --iters/--max-iter: not an integer: 'abc'",
                                "see `medlda train --help`"]
    with pytest.raises(SystemExit):
        run(capsys, "predict", "--model", "m.npz")
    assert capsys.readouterr().err.splitlines() == [
        "medlda predict: error: the following arguments are required: --input", "see `medlda predict --help`"]


def test_help_texts_cover_every_option_and_say_the_defaults():
    for command in ("predict", "evaluate", "transform", "info", "topics", "plot"):
        assert "saved model" in option_help(command, "--model")
    assert option_help("info", "--json")
    for flag in ("--alpha-sum", "--beta", "--top-words"):
        assert "default" in option_help("train", flag), flag
    assert "default" in option_help("train", "--sampler") and "default" in option_help("train", "--light-variant")
    assert "default 6" in option_help("train", "--n-mh") and "default" in option_help("train", "--seed")
    assert f"{MULTILABEL_MARGIN:g} for multi-label" in option_help("train", "--margin")
    assert "explain" in option_help("plot", "--input")
    assert "score the predictions" in option_help("predict", "--label-column")
    assert "only" in option_help("predict", "--categories")
    for command in ("train", "predict", "evaluate", "transform", "topics", "plot", "demo", "info"):
        for action in subparser(command)._actions:
            assert action.help, (command, action.dest)
