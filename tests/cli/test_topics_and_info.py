"""medlda topics and info end to end: top words (by relevance), coherence, topic shares and
class lists; what a saved model file is."""

from __future__ import annotations

import json

import numba
import numpy as np
import pytest
from cli_helpers import FAST, run

from medlda import __version__
from medlda.cli import main
from medlda.data.readers import read_corpus, write_bow
from medlda.data.synthetic import make_supervised_corpus
from medlda.io.model_file import load_model
from medlda.reporting.reports import class_topic_lines, topic_lines


def test_topics_by_relevance(capsys, tmp_path, bow_files):
    train, test = bow_files
    model = tmp_path / "model.npz"
    assert run(capsys, "train", "--train", train, "--out", model, "--quiet", *FAST)[0] == 0
    fitted = load_model(model)
    code, out, _ = run(capsys, "topics", "--model", model, "--relevance", "0.3", "--json", "--coherence", test)
    result = json.loads(out)
    assert result["topics"] == fitted.words_of(fitted.top_word_ids(10, 0.3)) != fitted.words_of(fitted.top_word_ids(10))
    assert result["relevance"] == 0.3
    assert np.allclose(result["coherence"], fitted.coherence(_read(test, fitted), "npmi", 10, 0.3))
    code, out, _ = run(capsys, "topics", "--model", model, "--relevance", "0.3", "--top-words", "4")
    assert "topic 0 (" in out and " ".join(fitted.words_of(fitted.top_word_ids(4, 0.3))[0]) in out
    with pytest.raises(SystemExit):
        run(capsys, "topics", "--model", model, "--relevance", "1.5")
    assert "must be in [0, 1], got 1.5" in capsys.readouterr().err


def _read(path, model):
    return read_corpus(str(path), vocabulary=model.vocabulary_)


def test_cli_topics_and_train_report_coherence(capsys, tmp_path, bow_files):
    train, test = bow_files
    model_path = tmp_path / "m.npz"
    args = ["train", "--train", train, "--test", test, "--topics", "6", "--iters", "20", "--seed", "0",
            "--out", model_path, "--json"]
    assert main([str(a) for a in args]) == 0
    result = json.loads(capsys.readouterr().out)
    model = load_model(model_path)
    held = read_corpus(test, vocabulary=model.vocabulary_)
    assert result["coherence_npmi"] == pytest.approx(np.nanmean(model.coherence(held)))

    assert main(["topics", "--model", str(model_path), "--coherence", str(test), "--measure", "umass",
                 "--top-words", "5", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    np.testing.assert_allclose(shown["coherence"], model.coherence(held, "umass", 5))
    assert shown["coherence_measure"] == "umass"
    sizes = model.topic_word_counts_.sum(axis=1)
    np.testing.assert_allclose(shown["topic_shares"], sizes / sizes.sum())
    assert main(["topics", "--model", str(model_path), "--coherence", str(test)]) == 0
    out = capsys.readouterr().out
    assert out.count(", npmi ") == 6 and "mean npmi coherence of the top 10 words" in out
    first = f"topic 0 ({sizes[0] / sizes.sum():5.1%}, npmi {model.coherence(held)[0]:+.3f}): "
    assert first in out
    assert main(["topics", "--model", str(model_path), "--coherence", str(test), "--top-words", "1"]) == 2
    assert "at least 2" in capsys.readouterr().err

    def listed(*flags) -> list[int]:
        assert main(["topics", "--model", str(model_path), *flags]) == 0
        return [int(line.split()[1]) for line in capsys.readouterr().out.splitlines() if line.startswith("topic ")]

    assert listed() == list(range(6))
    assert listed("--sort", "share") == np.argsort(-sizes, kind="stable").tolist()
    scores = model.coherence(held)
    assert listed("--sort", "coherence", "--coherence", str(test)) == np.argsort(-scores, kind="stable").tolist()
    assert main(["topics", "--model", str(model_path), "--sort", "coherence"]) == 2
    assert "--sort coherence needs --coherence" in capsys.readouterr().err


def test_empty_topics_are_marked_and_left_out_of_class_lists(saved_model):
    model = load_model(saved_model)
    model.topic_word_counts_[2] = 0
    model.eta_samples_[..., 2] = 1e3  # the heaviest weight of all, toward one class
    lines = topic_lines(model, 4)
    assert lines[2].endswith("(empty)") and not any(line.endswith("(empty)") for i, line in enumerate(lines) if i != 2)
    listed = [line for line in class_topic_lines(model, 3, 4) if line.startswith("  topic ")]
    assert listed and not any(line.startswith("  topic 2 ") for line in listed)


def test_info_says_what_a_saved_model_is(capsys, tmp_path, bow_files):
    corpus, _ = make_supervised_corpus(120, 5, words_per_topic=15, doc_length=30, n_classes=3, random_state=3)
    three = write_bow(corpus, tmp_path / "three.txt")
    model = tmp_path / "ovr.npz"
    code, _, err = run(capsys, "train", "--train", three, "--strategy", "ovr", "--out", model, "--quiet", *FAST)
    assert code == 0, err
    code, out, _ = run(capsys, "info", "--model", model, "--json")
    info = json.loads(out)
    fitted = load_model(model)
    assert info["estimator"] == "MedLDAClassifier" and info["task"] == "classification"
    assert info["saved_by"].startswith(f"medlda {__version__} (python ") and info["classes"] == ["0", "1", "2"]
    assert f"numpy {np.__version__}, numba {numba.__version__}" in info["saved_by"]
    assert (info["n_topics"], info["n_topic_sets"], info["n_words"]) == (5, 3, fitted.n_features_in_)
    assert (info["n_docs"], info["c"], info["margin"]) == (120, 1.0, 1.0)
    assert info["params"] == json.loads(json.dumps(fitted.get_params()))
    assert info["train_accuracy"] == fitted.train_accuracy_
    code, out, _ = run(capsys, "info", "--model", model)
    assert "estimator: MedLDAClassifier" in out and "classes (3): 0, 1, 2" in out and "strategy=ovr" in out
    train, _ = bow_files
    lda = tmp_path / "lda.npz"
    run(capsys, "train", "--train", train, "--unsupervised", "--out", lda, "--quiet", *FAST)
    code, out, _ = run(capsys, "info", "--model", lda, "--json")
    info = json.loads(out)
    assert info["task"] == "unsupervised" and "classes" not in info and "n_topic_sets" not in info
    code, _, err = run(capsys, "info", "--model", train)
    assert code == 2 and "not a medlda model file" in err
