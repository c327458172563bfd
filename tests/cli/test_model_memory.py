"""A saved model remembers what it was trained on: its data selection (folder categories, table
columns, format) and its text preprocessing, which topics, evaluate, predict, transform and plot
use unless told otherwise, saying so on stderr; and a model trained on raw text by the command
line predicts raw text in Python."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_helpers import run

from files import make_folder, ticket_table
from medlda.cli.common import resolve_data_selection
from medlda.io.model_file import load_model

TRAIN = ["--topics", "3", "--iters", "20", "--seed", "0", "--c", "1", "--margin", "1", "--quiet"]
NOTE = "medlda: using the model's data selection: "
WORDS = {"fruit": "apple banana cherry mango orchard juice".split(), "cars": "engine wheel brake highway driver".split(),
         "space": "orbit rocket planet launch shuttle moon".split()}


@pytest.fixture(scope="module")
def news(tmp_path_factory):
    """A folder of three labels, -train and -test halves, and a model trained on two of the labels."""
    root = tmp_path_factory.mktemp("news")
    rng = np.random.default_rng(0)
    docs = {f"set-{split}/{label}/{i}": "Subject: note\nFrom: someone\n\n" + " ".join(rng.choice(words, 12))
            for split in ("train", "test") for i in range(15) for label, words in WORDS.items()}
    data = make_folder(root / "data", docs)
    model = root / "m.npz"
    assert run_main("train", "--train", data, "--categories", "fruit,cars", "--out", model, *TRAIN) == 0
    return data, model


def notes(err: str) -> list[str]:
    """The lines of ``err`` that say what was taken from the model (progress lines aside)."""
    return [line for line in err.splitlines() if line.startswith(NOTE)]


def run_main(*argv) -> int:
    from medlda.cli import main

    return main([str(a) for a in argv])


def test_evaluate_predict_topics_and_plot_read_the_trained_categories(capsys, news):
    data, model = news
    capsys.readouterr()
    code, out, err = run(capsys, "evaluate", "--model", model, "--input", data, "--json")
    assert code == 0, err
    assert json.loads(out)["n_docs"] == 30 and notes(err) == [NOTE + "categories fruit,cars"]
    code, out, err = run(capsys, "predict", "--model", model, "--input", data, "--ids", "--json")
    assert code == 0 and {name.split("/")[-2] for name in json.loads(out)["docs"]} == {"fruit", "cars"}
    code, out, err = run(capsys, "transform", "--model", model, "--input", data, "--json")
    assert code == 0 and json.loads(out)["n_docs"] == 30 and notes(err)
    scored = {}
    for extra in ([], ["--categories", "fruit,cars"], ["--categories", "fruit,cars,space"]):
        code, out, err = run(capsys, "topics", "--model", model, "--coherence", data, "--json", *extra)
        assert code == 0, err
        assert bool(notes(err)) == (not extra)  # a flag given overrides the model's selection, silently
        scored[len(extra) and extra[1].count(",")] = json.loads(out)["coherence"]
    assert scored[0] == scored[1] != scored[2]
    code, _, err = run(capsys, "evaluate", "--model", model, "--input", data, "--categories", "fruit,cars,space")
    assert code == 2 and "test labels space do not occur in the training data" in err
    pytest.importorskip("matplotlib")
    code, _, err = run(capsys, "plot", "--model", model, "--kind", "confusion", "--input", data,
                       "--out", data.parent / "c.png")
    assert code == 0 and notes(err) == [NOTE + "categories fruit,cars"]


def test_a_saved_model_keeps_its_data_selection_and_text_preprocessing(news):
    _, model = news
    loaded = load_model(model)
    assert loaded.data_selection_ == {"format": "folder", "categories": ["fruit", "cars"], "label_column": None,
                                      "text_column": None}
    assert sorted(loaded.classes_) == ["cars", "fruit"]
    assert loaded.vectorizer_.get_params()["preprocessor"].__name__ == "news_quotes_preprocessor"
    assert loaded.vectorizer_.get_params()["min_df"] == 3
    fruit, cars = "Subject: lunch\n\napple mango juice banana", "engine brake highway driver wheel"
    assert list(loaded.predict([fruit, cars])) == ["fruit", "cars"]
    assert loaded.transform([fruit, cars, ""]).shape == (3, 3)  # every text a row, an empty one too


def test_table_columns_and_preprocessing_are_remembered(capsys, tmp_path):
    train, _ = ticket_table(tmp_path / "train.csv", 120, 0)
    test, queues = ticket_table(tmp_path / "test.csv", 30, 1)
    model = tmp_path / "m.npz"
    assert run_main("train", "--train", train, "--text-column", "body", "--label-column", "queue",
                    "--stop-words", "none", "--out", model, *TRAIN) == 0
    capsys.readouterr()
    code, out, err = run(capsys, "predict", "--model", model, "--input", test, "--json")
    assert code == 0, err
    assert notes(err) == [NOTE + "text column body; label column queue; text preprocessing: stop words none"]
    assert np.mean(np.array(json.loads(out)["labels"]) == queues) > 0.9 and "accuracy" in json.loads(out)
    code, out, err = run(capsys, "evaluate", "--model", model, "--input", test, "--text-column", "body",
                         "--label-column", "queue")
    assert code == 0 and notes(err) == [NOTE + "text preprocessing: stop words none"]
    assert load_model(model).vectorizer_.get_params()["stop_words"] is None


def test_a_text_file_is_read_as_text_when_the_model_was(capsys, tmp_path):
    """Raw text that looks like bag-of-words to the guess ('10:30' is a word:count pair) is read as
    the model's training text was."""
    rng = np.random.default_rng(1)
    lines = [" ".join(rng.choice(WORDS["fruit" if i % 2 else "cars"], 10)) for i in range(60)]
    train = tmp_path / "train.txt"
    train.write_text("\n".join(lines) + "\n")
    model = tmp_path / "m.npz"
    assert run_main("train", "--train", train, "--format", "txt", "--unsupervised", "--out", model, *TRAIN) == 0
    new = tmp_path / "new.txt"
    new.write_text("meeting at 10:30 about the apple orchard\nengine brake\n")
    capsys.readouterr()
    code, out, err = run(capsys, "transform", "--model", model, "--input", new, "--json")
    assert code == 0, err
    assert notes(err) == [NOTE + "format txt"] and json.loads(out)["n_docs"] == 2
    code, _, err = run(capsys, "transform", "--model", model, "--input", new, "--format", "bow")
    assert code == 2 and not notes(err)  # told otherwise: read as told (and bag-of-words it is not)


def test_resolution_is_one_function_a_new_command_can_reuse(capsys, news):
    """``resolve_data_selection`` gives the arguments to read data for a model with; given flags win."""
    import argparse

    data, model = news
    args = argparse.Namespace(format="auto", categories=None, text_column="text", label_column=None, vocab=None)
    resolved = resolve_data_selection(args, load_model(model), str(data))
    assert resolved.categories == "fruit,cars" and args.categories is None
    args.categories = "space"
    assert resolve_data_selection(args, load_model(model), str(data)).categories == "space"
    assert notes(capsys.readouterr().err) == [NOTE + "categories fruit,cars"]


def test_preprocessing_flags_keep_the_readers_header_rule():
    """--min-df and the like change the words, not whether e-mail headers are stripped: for
    folders only, as the readers do by default (so a model's stored preprocessing is the reader's)."""
    import argparse

    from medlda.cli.common import RAW_TEXT, training_vectorizer

    args = argparse.Namespace(min_df=2, max_df=1.0, max_words=None, stop_words="english")
    news = {fmt: training_vectorizer(args, "data", fmt)["vectorizer"].get_params()["preprocessor"] is not None
            for fmt in RAW_TEXT}
    assert news == {fmt: fmt == "folder" for fmt in RAW_TEXT}


@pytest.mark.slow
def test_20newsgroups_model_scores_and_evaluates_on_its_own_two_groups(capsys, tmp_path, shared_data):
    """The issue's example: trained on two groups, topics --coherence and evaluate read those two."""
    archive = shared_data / "20news-bydate.tar.gz"
    model = tmp_path / "m.npz"
    code, out, err = run(capsys, "train", "--train", archive, "--test", archive, "--categories",
                         "alt.atheism,talk.religion.misc", "--sampler", "light", "--topics", "10", "--iters", "20",
                         "--seed", "0", "--out", model, "--json")
    assert code == 0, err
    trained_npmi = json.loads(out)["coherence_npmi"]
    code, out, err = run(capsys, "topics", "--model", model, "--coherence", archive, "--json")
    assert code == 0 and notes(err) == [NOTE + "categories alt.atheism,talk.religion.misc"]
    assert json.loads(out)["coherence_mean"] == pytest.approx(trained_npmi)
    code, out, err = run(capsys, "evaluate", "--model", model, "--input", archive, "--json")
    assert code == 0, err
    assert json.loads(out)["n_docs"] == 570
    assert list(load_model(model).predict(["God does not exist; atheism is no belief"])) in (
        ["alt.atheism"], ["talk.religion.misc"])
