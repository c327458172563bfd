"""The command line end to end: train / predict / topics / demo, and every bad-input case."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile

import numpy as np
import pytest

from medlda.cli import main
from medlda.data.readers import write_bow
from medlda.data.synthetic import make_supervised_corpus

FAST = ["--iters", "30", "--topics", "5", "--seed", "0", "--c", "1", "--margin", "1", "--alpha-sum", "1"]


@pytest.fixture(scope="module")
def bow_files(tmp_path_factory):
    """Train and test bag-of-words files drawn from a planted model (labels 'neg' / 'pos')."""
    root = tmp_path_factory.mktemp("bow")
    corpus, _ = make_supervised_corpus(700, 5, words_per_topic=15, doc_length=50, random_state=3)
    corpus.labels = [("pos",) if lab == ("1",) else ("neg",) for lab in corpus.labels]
    train, test = corpus.subset(np.arange(500)), corpus.subset(np.arange(500, 700))
    return write_bow(train, root / "train.txt"), write_bow(test, root / "test.txt")


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_train_json_reports_accuracy_and_speed(capsys, bow_files):
    train, test = bow_files
    code, out, err = run(capsys, "train", "--train", train, "--test", test, "--json", *FAST)
    assert code == 0, err
    result = json.loads(out)
    for key in ("accuracy", "train_seconds", "compile_seconds", "tokens_per_second", "n_topics",
                "n_iter", "sampler", "train_accuracy", "topics", "class_topics"):
        assert key in result
    assert result["accuracy"] > 0.85
    assert result["n_topics"] == 5 and result["n_iter"] == 30 and result["sampler"] == "gibbs"
    assert result["tokens_per_second"] == pytest.approx(result["n_train_tokens"] * 30 / result["train_seconds"])
    assert err == ""  # --json: no progress bar, and this data gives no warning


def test_train_save_then_topics_and_predict(capsys, tmp_path, bow_files):
    train, test = bow_files
    model = tmp_path / "model.npz"
    code, out, _ = run(capsys, "train", "--train", train, "--test", test, "--out", model, *FAST)
    assert code == 0 and model.is_file()
    assert "accuracy:" in out and "topic 0 (" in out and "class pos:" in out and "class neg:" in out
    code, out, _ = run(capsys, "topics", "--model", model, "--top-words", "4")
    assert code == 0
    assert out.count("topic ") >= 5 and "topics that weigh most for each class" in out
    code, out, _ = run(capsys, "topics", "--model", model, "--json")
    assert len(json.loads(out)["topics"]) == 5
    preds = tmp_path / "labels.txt"
    code, out, _ = run(capsys, "predict", "--model", model, "--input", test, "--out", preds, "--json")
    assert code == 0
    result = json.loads(out)
    lines = preds.read_text().split()
    assert len(lines) == 200 and set(lines) <= {"pos", "neg"}
    assert result["accuracy"] > 0.85
    code, out, _ = run(capsys, "predict", "--model", model, "--input", test, "--n-jobs", "2", "--json")
    assert code == 0 and json.loads(out)["labels"] == lines  # inference threads change nothing
    code, _, err = run(capsys, "predict", "--model", model, "--input", test, "--n-jobs", "0")
    assert code != 0 and "--n-jobs" in err


def test_topics_by_relevance(capsys, tmp_path, bow_files):
    from medlda.io.model_file import load_model

    train, test = bow_files
    model = tmp_path / "model.npz"
    assert run(capsys, "train", "--train", train, "--out", model, "--quiet", *FAST)[0] == 0
    fitted = load_model(model)
    code, out, _ = run(capsys, "topics", "--model", model, "--relevance", "0.3", "--json", "--coherence", test)
    result = json.loads(out)
    assert result["topics"] == fitted.top_words(10, relevance=0.3) != fitted.top_words(10)
    assert result["relevance"] == 0.3
    assert np.allclose(result["coherence"], fitted.coherence(_read(test, fitted), "npmi", 10, 0.3))
    code, out, _ = run(capsys, "topics", "--model", model, "--relevance", "0.3", "--top-words", "4")
    assert "topic 0 (" in out and " ".join(fitted.top_words(4, relevance=0.3)[0]) in out
    with pytest.raises(SystemExit):
        run(capsys, "topics", "--model", model, "--relevance", "1.5")
    assert "must be in [0, 1], got 1.5" in capsys.readouterr().err


def _read(path, model):
    from medlda.data.readers import read_corpus
    return read_corpus(str(path), vocabulary=model.vocabulary_)


def test_class_weight_from_the_command_line(capsys, tmp_path, bow_files):
    from medlda.io.model_file import load_model

    train, _ = bow_files
    model = tmp_path / "model.npz"
    code, _, _ = run(capsys, "train", "--train", train, "--class-weight", "balanced", "--out", model, "--quiet", *FAST)
    assert code == 0
    assert load_model(model).class_weight == "balanced"
    responses = tmp_path / "r.txt"
    responses.write_text("0.5 apple:2 pear:1\n1.5 stone:2\n2.5 apple:1 stone:1\n")
    code, _, err = run(capsys, "train", "--train", responses, "--class-weight", "balanced", *FAST)
    assert code == 2 and "--class-weight is for classification; this is a regression task" in err


def test_holdout_sets_aside_a_stratified_seeded_part(capsys, bow_files):
    import argparse

    from medlda.cli.train import _hold_out
    from medlda.data.readers import read_corpus

    train, _ = bow_files
    code, out, err = run(capsys, "train", "--train", train, "--holdout", "0.2", "--json", *FAST)
    assert code == 0, err
    result = json.loads(out)
    assert (result["n_train_docs"], result["n_test_docs"], result["holdout"]) == (400, 100, 0.2)
    assert result["accuracy"] > 0.85
    corpus = read_corpus(str(train))
    args = argparse.Namespace(unsupervised=False)
    kept, held = _hold_out(corpus, 0.2, 0, args)
    again, _ = _hold_out(corpus, 0.2, 0, args)
    assert again.labels == kept.labels and _hold_out(corpus, 0.2, 1, args)[0].labels != kept.labels
    share = np.mean([lab == ("pos",) for lab in corpus.labels])
    assert np.mean([lab == ("pos",) for lab in held.labels]) == pytest.approx(share, abs=0.006)  # stratified
    assert sorted(kept.doc_names + held.doc_names, key=lambda n: int(n.split()[1])) == corpus.doc_names
    code, _, err = run(capsys, "train", "--train", train, "--holdout", "0.2", "--test", train, *FAST)
    assert code == 2 and "give it or --test, not both" in err
    with pytest.raises(SystemExit):
        run(capsys, "train", "--train", train, "--holdout", "1")
    assert "must be between 0 and 1, got 1" in capsys.readouterr().err


def test_several_topic_counts_are_compared_and_the_best_kept(capsys, tmp_path, bow_files):
    from medlda.io.model_file import load_model

    train, test = bow_files
    fast = [a for a in FAST if a not in ("--topics", "5")]
    best = tmp_path / "best.npz"
    code, out, err = run(capsys, "train", "--train", train, "--test", test, "--topics", "2,5", "--out", best,
                         "--json", *fast)
    assert code == 0, err
    result = json.loads(out)
    runs = {r["n_topics"]: r for r in result["runs"]}
    assert sorted(runs) == [2, 5] and result["selected_by"] == "accuracy"
    assert result["best_n_topics"] == max(runs, key=lambda k: (runs[k]["accuracy"], -k))
    assert load_model(best).n_topics == result["best_n_topics"]
    code, out, _ = run(capsys, "train", "--train", train, "--test", test, "--topics", "2,5", "--unsupervised",
                       "--json", *fast)
    runs = json.loads(out)["runs"]
    assert json.loads(out)["best_n_topics"] == min(runs, key=lambda r: r["perplexity"])["n_topics"]
    code, out, _ = run(capsys, "train", "--train", train, "--holdout", "0.2", "--topics", "2,5", *fast)
    assert code == 0 and out.splitlines()[0].startswith("    2 topics: accuracy ") and "best: " in out
    code, _, err = run(capsys, "train", "--train", train, "--topics", "2,5", *fast)
    assert code == 2 and "give --test or --holdout" in err
    code, _, err = run(capsys, "train", "--train", train, "--test", test, "--topics", "2,5",
                       "--checkpoint", tmp_path / "c.ckpt", *fast)
    assert code == 2 and "--checkpoint is for one model" in err


def test_predict_proba_of_a_logistic_model(capsys, tmp_path, bow_files):
    """--proba: a header and one row per document whose probabilities sum to 1, pick the label,
    and equal predict_proba; a hinge model is refused."""
    from medlda.io.model_file import load_model
    from medlda.data.readers import read_corpus

    train, test = bow_files
    model = tmp_path / "logistic.npz"
    code, _, err = run(capsys, "train", "--train", train, "--loss", "logistic", "--out", model, "--quiet", *FAST)
    assert code == 0, err
    out_file = tmp_path / "proba.tsv"
    code, _, err = run(capsys, "predict", "--model", model, "--input", test, "--proba", "--out", out_file)
    assert code == 0, err
    header, *rows = [line.split("\t") for line in out_file.read_text().splitlines()]
    assert header == ["label", "neg", "pos"] and len(rows) == 200
    proba = np.array([[float(v) for v in row[1:]] for row in rows])
    assert np.allclose(proba.sum(axis=1), 1.0, atol=1e-5)
    assert [row[0] for row in rows] == [header[1 + i] for i in proba.argmax(axis=1)]
    fitted = load_model(model)
    expected = fitted.predict_proba(read_corpus(str(test), vocabulary=fitted.vocabulary_))
    assert np.allclose(proba, expected, atol=1e-5)
    code, out, _ = run(capsys, "predict", "--model", model, "--input", test, "--proba", "--json")
    result = json.loads(out)
    assert result["classes"] == ["neg", "pos"] and np.allclose(result["proba"], expected)
    assert result["labels"] == [row[0] for row in rows]
    hinge = tmp_path / "hinge.npz"
    run(capsys, "train", "--train", train, "--out", hinge, "--quiet", *FAST)
    code, _, err = run(capsys, "predict", "--model", hinge, "--input", test, "--proba")
    assert code == 2 and "--proba needs a classifier with a probabilistic loss" in err


def test_train_reports_the_test_log_loss_of_a_logistic_model(capsys, tmp_path, bow_files):
    """With probabilities (logistic) train's JSON line and report, and evaluate's, carry the test
    log loss of predict_proba, next to the accuracy of the same inference; a hinge model has none."""
    from sklearn.metrics import log_loss

    from medlda.io.model_file import load_model
    from medlda.data.readers import read_corpus

    train, test = bow_files
    model = tmp_path / "logistic.npz"
    code, out, err = run(capsys, "train", "--train", train, "--test", test, "--loss", "logistic", "--out", model,
                         "--json", *FAST)
    assert code == 0, err
    result = json.loads(out)
    fitted = load_model(model)
    docs = read_corpus(str(test), vocabulary=fitted.vocabulary_)
    y = np.array([lab[0] for lab in docs.labels])
    assert result["log_loss"] == pytest.approx(log_loss(y, fitted.predict_proba(docs), labels=fitted.classes_))
    assert result["accuracy"] == pytest.approx(fitted.score(docs, y))
    assert 0 < result["log_loss"] < np.log(2)
    code, out, _ = run(capsys, "train", "--train", train, "--test", test, "--loss", "logistic", "--quiet", *FAST)
    assert "test log loss: " in out
    code, out, _ = run(capsys, "evaluate", "--model", model, "--input", test, "--json")
    assert json.loads(out)["log_loss"] == pytest.approx(result["log_loss"])
    code, out, _ = run(capsys, "evaluate", "--model", model, "--input", test)
    assert "log loss " in out.splitlines()[0]
    code, out, _ = run(capsys, "train", "--train", train, "--test", test, "--json", *FAST)
    assert "log_loss" not in json.loads(out)


def test_inference_sweeps_reach_the_saved_model(capsys, tmp_path, bow_files):
    from medlda.io.model_file import load_model

    train, test = bow_files
    model = tmp_path / "model.npz"
    code, _, err = run(capsys, "train", "--train", train, "--test", test, "--out", model,
                       "--infer-burn", "3", "--infer-avg", "4", *FAST)
    assert code == 0, err
    params = load_model(model).get_params()
    assert (params["n_infer_burn"], params["n_infer_avg"]) == (3, 4)


def test_unsupervised_reports_perplexity(capsys, bow_files):
    train, test = bow_files
    code, out, _ = run(capsys, "train", "--train", train, "--test", test, "--unsupervised", "--json", *FAST)
    assert code == 0
    result = json.loads(out)
    assert "accuracy" not in result and 1 < result["perplexity"] < 75


def test_transform_writes_each_documents_topic_proportions(capsys, tmp_path, bow_files):
    """transform: the estimator's transform as text (header of topic ids), as .npy, as JSON and as
    each document's largest proportions; for a supervised and an unsupervised model."""
    from medlda.io.model_file import load_model
    from medlda.data.readers import read_corpus

    train, test = bow_files
    for kind in ([], ["--unsupervised"]):
        model = tmp_path / f"model{len(kind)}.npz"
        code, _, err = run(capsys, "train", "--train", train, "--out", model, "--quiet", *kind, *FAST)
        assert code == 0, err
        fitted = load_model(model)
        expected = fitted.transform(read_corpus(str(test), vocabulary=fitted.vocabulary_))
        assert expected.shape == (200, 5) and np.allclose(expected.sum(axis=1), 1.0)
        tsv, npy = tmp_path / "theta.tsv", tmp_path / "theta.npy"
        code, out, err = run(capsys, "transform", "--model", model, "--input", test, "--out", tsv)
        assert code == 0 and out == "", err
        header, *rows = [line.split("\t") for line in tsv.read_text().splitlines()]
        assert header == [f"topic_{k}" for k in range(5)]
        assert np.allclose(np.array(rows, dtype=float), expected, atol=1e-5)
        code, out, _ = run(capsys, "transform", "--model", model, "--input", test, "--out", npy, "--json")
        result = json.loads(out)
        assert result["n_docs"] == 200 and result["n_topics"] == 5 and result["proportions"] == str(npy)
        assert np.array_equal(np.load(npy), expected)  # the same inference, seeded: bit for bit
        code, out, _ = run(capsys, "transform", "--model", model, "--input", test, "--json", "--n-jobs", "2")
        assert np.array_equal(np.array(json.loads(out)["proportions"]), expected)
        code, out, _ = run(capsys, "transform", "--model", model, "--input", test, "--top", "2")
        lines = out.splitlines()
        assert len(lines) == 200
        for line, row in zip(lines, expected):
            pairs = [pair.split(":") for pair in line.split()]
            top = np.argsort(-row, kind="stable")[:2]
            assert [int(k) for k, _ in pairs] == top.tolist()
            assert np.allclose([float(v) for _, v in pairs], row[top], rtol=1e-3)
        code, out, _ = run(capsys, "transform", "--model", model, "--input", test, "--top", "9", "--json")
        records = json.loads(out)["proportions"]
        assert len(records) == 200 and all(len(r) == 5 for r in records)  # at most K
        assert records[0][0] == {"topic": int(expected[0].argmax()), "proportion": float(expected[0].max())}
    code, _, err = run(capsys, "predict", "--model", model, "--input", test)  # model: the LDA one
    assert code == 2 and "cannot predict labels (medlda transform gives" in err
    code, _, err = run(capsys, "transform", "--model", model, "--input", test, "--top", "2", "--out", npy)
    assert code == 2 and "--top writes text; give --out a name not ending in .npy" in err
    with pytest.raises(SystemExit):
        run(capsys, "transform", "--model", model, "--input", test, "--top", "0")
    assert "must be at least 1" in capsys.readouterr().err


def test_info_says_what_a_saved_model_is(capsys, tmp_path, bow_files):
    from medlda import __version__
    from medlda.io.model_file import load_model

    corpus, _ = make_supervised_corpus(120, 5, words_per_topic=15, doc_length=30, n_classes=3, random_state=3)
    three = write_bow(corpus, tmp_path / "three.txt")
    model = tmp_path / "ovr.npz"
    code, _, err = run(capsys, "train", "--train", three, "--strategy", "ovr", "--out", model, "--quiet", *FAST)
    assert code == 0, err
    code, out, _ = run(capsys, "info", "--model", model, "--json")
    info = json.loads(out)
    fitted = load_model(model)
    assert info["estimator"] == "MedLDAClassifier" and info["task"] == "classification"
    import numba
    assert info["saved_by"].startswith(f"medlda {__version__} (python ") and info["classes"] == ["0", "1", "2"]
    assert f"numpy {np.__version__}, numba {numba.__version__}" in info["saved_by"]
    assert (info["n_topics"], info["n_topic_sets"], info["n_words"]) == (5, 3, fitted.n_features_in_)
    assert (info["n_docs"], info["c"], info["margin"]) == (120, 1.0, 1.0)
    assert info["params"] == json.loads(json.dumps(fitted.get_params()))
    assert info["train_accuracy"] == fitted.train_accuracy_
    code, out, _ = run(capsys, "info", "--model", model)
    assert "estimator: MedLDAClassifier" in out and "classes: 3: 0, 1, 2" in out and "strategy=ovr" in out
    train, _ = bow_files
    lda = tmp_path / "lda.npz"
    run(capsys, "train", "--train", train, "--unsupervised", "--out", lda, "--quiet", *FAST)
    code, out, _ = run(capsys, "info", "--model", lda, "--json")
    info = json.loads(out)
    assert info["task"] == "unsupervised" and "classes" not in info and "n_topic_sets" not in info
    code, _, err = run(capsys, "info", "--model", train)
    assert code == 2 and "not a medlda model file" in err


def _write_folder(root, docs):
    for label, name, text in docs:
        (root / label).mkdir(parents=True, exist_ok=True)
        (root / label / name).write_text(text, encoding="latin-1")


def test_train_from_folder_and_archive(capsys, tmp_path):
    rng = np.random.default_rng(0)
    fruit = ["apple", "banana", "cherry", "mango", "orchard", "juice"]
    cars = ["engine", "wheel", "brake", "highway", "driver", "garage"]
    docs = []
    for split in ("train", "test"):
        for i in range(30):
            for label, words in (("fruit", fruit), ("cars", cars)):
                text = "Subject: note\nFrom: someone\n\n" + " ".join(rng.choice(words, 12))
                docs.append((f"set-{split}/{label}", f"{i}", text))
    _write_folder(tmp_path / "data", docs)
    with tarfile.open(tmp_path / "data.tar.gz", "w:gz") as tar:
        tar.add(tmp_path / "data", arcname="data")
    for source in (tmp_path / "data", tmp_path / "data.tar.gz"):
        code, out, err = run(capsys, "train", "--train", source, "--test", source, "--json",
                             "--topics", "2", "--iters", "20", "--seed", "0", "--c", "1", "--margin", "1")
        assert code == 0, err
        result = json.loads(out)
        assert result["n_train_docs"] == 60 and result["n_test_docs"] == 60
        assert result["accuracy"] > 0.9


def test_demo_prints_accuracy_and_topics(capsys):
    code, out, _ = run(capsys, "demo", "--docs", "500", "--topics", "4", "--iters", "30")
    assert code == 0
    assert "test accuracy:" in out and "topic 3 (" in out and "class 1:" in out
    acc = float(out.split("\ntest accuracy:")[1].split()[0])
    assert acc > 0.8


def test_installed_entry_point_runs():
    done = subprocess.run([sys.executable, "-m", "medlda.cli", "demo", "--docs", "300", "--topics", "3",
                           "--iters", "10", "--json"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "accuracy" in json.loads(done.stdout)


# -- bad input ------------------------------------------------------------------------------------
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


def test_ids_meet_lines_with_their_documents_past_skipped_ones(capsys, tmp_path):
    """--ids: each output line is led by its document's name, so the document an empty one was
    skipped after is still found; for bow, folder and table input, predict and transform."""
    train = tmp_path / "train.txt"
    train.write_text("pos apple:3 pear:1\nneg stone:2 rock:2\npos pear:2 apple:1\nneg rock:1 stone:3\n")
    test = tmp_path / "test.txt"
    test.write_text("# a comment\nneg rock:2 stone:1\npos kiwi:3\n\npos apple:2 pear:1\n")
    model = tmp_path / "m.npz"
    assert run(capsys, "train", "--train", train, "--out", model, "--quiet", *FAST)[0] == 0
    code, out, _ = run(capsys, "predict", "--model", model, "--input", test, "--ids")
    assert code == 0 and out.splitlines() == ["line 2\tneg", "line 5\tpos"]
    code, out, _ = run(capsys, "predict", "--model", model, "--input", test, "--ids", "--explain", "1")
    assert out.splitlines()[0] == "doc\tlabel\ttopic:contribution" and out.splitlines()[2].startswith("line 5\tpos\t")
    code, out, _ = run(capsys, "predict", "--model", model, "--input", test, "--ids", "--json")
    assert json.loads(out)["docs"] == ["line 2", "line 5"] and json.loads(out)["labels"] == ["neg", "pos"]
    code, out, _ = run(capsys, "transform", "--model", model, "--input", test, "--ids")
    lines = out.splitlines()
    assert lines[0].split("\t") == ["doc"] + [f"topic_{k}" for k in range(5)] and lines[2].startswith("line 5\t")
    code, out, _ = run(capsys, "transform", "--model", model, "--input", test, "--ids", "--top", "1")
    assert [line.split("\t")[0] for line in out.splitlines()] == ["line 2", "line 5"]
    code, _, err = run(capsys, "transform", "--model", model, "--input", test, "--ids", "--out", tmp_path / "t.npy")
    assert code == 2 and "--ids writes text" in err
    folder = tmp_path / "folder"
    _write_folder(folder, [("neg", "a.txt", "rock stone rock"), ("pos", "b.txt", "kiwi kiwi"),
                           ("pos", "c.txt", "apple pear apple")])
    code, out, _ = run(capsys, "predict", "--model", model, "--input", folder, "--ids")
    assert out.splitlines() == ["neg/a.txt\tneg", "pos/c.txt\tpos"]
    table = tmp_path / "t.csv"
    table.write_text("text\nrock stone rock\nkiwi\napple pear apple\n")
    code, out, _ = run(capsys, "predict", "--model", model, "--input", table, "--ids")
    assert out.splitlines() == ["line 2\tneg", "line 4\tpos"]


def test_unseen_test_labels_are_an_error(capsys, tmp_path, bow_files):
    train, _ = bow_files
    test = tmp_path / "test.txt"
    test.write_text("pos t0_1:2\nmaybe t1_2:1\n")
    code, _, err = run(capsys, "train", "--train", train, "--test", test, *FAST)
    assert code == 2
    assert "test labels maybe do not occur in the training data" in err


@pytest.mark.parametrize("flags, match", [
    (["--c", "-1"], "c must"), (["--sigma2", "0"], "sigma2"),
    (["--alpha-sum", "0"], "alpha_sum"), (["--positive-cost", "0"], "positive_cost"),
])
def test_invalid_hyperparameters(capsys, bow_files, flags, match):
    train, _ = bow_files
    code, _, err = run(capsys, "train", "--train", train, *FAST, *flags)
    assert code == 2 and match in err


@pytest.mark.parametrize("value, match", [("0", "must be at least 1, got 0"), ("20,x", "not an integer: 'x'"),
                                          (",", "no number of topics in ','")])
def test_invalid_topic_counts_are_refused_by_the_parser(capsys, bow_files, value, match):
    train, _ = bow_files
    with pytest.raises(SystemExit) as stop:
        run(capsys, "train", "--train", train, "--topics", value)
    assert stop.value.code == 2 and f"argument --topics: {match}" in capsys.readouterr().err


def test_unwritable_outputs_are_refused_before_the_work(capsys, tmp_path, bow_files, monkeypatch):
    """A typo in an output path costs nothing: the run stops before training or inference."""
    train, test = bow_files
    import medlda.models.base
    import medlda.models.classifier

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


def test_word_counts_must_be_positive(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["topics", "--model", "m.npz", "--top-words", "0"])
    assert stop.value.code == 2 and "must be at least 1, got 0" in capsys.readouterr().err


def test_test_data_of_unknown_words_says_so(capsys, tmp_path, bow_files):
    train, _ = bow_files
    test = tmp_path / "oov.txt"
    test.write_text("pos kiwi:3\nneg granite:2\n")
    code, _, err = run(capsys, "train", "--train", train, "--test", test, *FAST)
    assert code == 2 and "no non-empty documents (all 5 tokens are words the model or training data" in err


def test_unreadable_and_foreign_model_files(capsys, tmp_path, bow_files):
    _, test = bow_files
    code, _, err = run(capsys, "predict", "--model", tmp_path / "nope.npz", "--input", test)
    assert code == 2 and "no such model file" in err
    foreign = tmp_path / "foreign.npz"
    foreign.write_bytes(b"PK\x03\x04 definitely not a model")
    code, _, err = run(capsys, "topics", "--model", foreign)
    assert code == 2 and "not a medlda model file" in err


def test_missing_input_and_unlabeled_training_data(capsys, tmp_path):
    code, _, err = run(capsys, "train", "--train", tmp_path / "missing.txt", *FAST)
    assert code == 2 and "missing.txt" in err
    unlabeled = tmp_path / "u.txt"
    unlabeled.write_text("apple:1 pear:2\nrock:2 stone:1\n")
    code, _, err = run(capsys, "train", "--train", unlabeled, *FAST)
    assert code == 2 and "--unsupervised" in err


def test_failed_save_writes_nothing(capsys, tmp_path, bow_files):
    train, _ = bow_files
    target = tmp_path / "no_such_dir" / "model.npz"
    code, _, err = run(capsys, "train", "--train", train, "--out", target, *FAST)
    assert code == 2 and "no_such_dir" in err
    assert not target.parent.exists()


def test_progress_bar_shows_accuracy_loglik_and_speed(capsys, bow_files):
    from medlda import MedLDAClassifier
    from medlda.data.readers import read_bow
    corpus = read_bow(bow_files[0])
    MedLDAClassifier(3, n_iter=3, verbose=1, random_state=0).fit(corpus, corpus.single_labels())
    err = capsys.readouterr().err
    assert "train_acc" in err and "loglik" in err and "tok/s" in err and "3/3" in err


@pytest.mark.slow
def test_binary_20newsgroups_reaches_paper_accuracy(capsys, shared_data):
    archive = shared_data / "20news-bydate.tar.gz"
    code, out, err = run(capsys, "train", "--train", archive, "--test", archive, "--categories",
                         "alt.atheism,talk.religion.misc", "--sampler", "gibbs", "--topics", "20",
                         "--seed", "0", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["n_train_docs"] == 857 and result["n_test_docs"] == 570
    assert result["accuracy"] >= 0.78


# -- a user's walkthrough: validation, messages and reports -------------------------------------------
def _subparser(name: str):
    """The argparse parser of sub-command ``name``."""
    import argparse

    from medlda.cli.parser import build_parser

    actions = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return actions[0].choices[name]


def _option_help(command: str, flag: str) -> str:
    return next(a.help for a in _subparser(command)._actions if flag in a.option_strings) or ""


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory, bow_files):
    """A classifier trained on ``bow_files`` and saved."""
    path = tmp_path_factory.mktemp("saved") / "m.npz"
    assert main(["train", "--train", str(bow_files[0]), "--out", str(path), "--quiet", *FAST]) == 0
    return path


@pytest.mark.parametrize("flag, value, match", [
    ("--topics", "0", "must be at least 2 (two classes need two topics), got 0"),
    ("--topics", "1", "must be at least 2"), ("--docs", "0", "must be at least 10"),
    ("--docs", "1", "must be at least 10"), ("--iters", "0", "must be at least 1, got 0"),
    ("--seed", "-1", "must be at least 0, got -1"), ("--docs", "x", "not an integer: 'x'"),
])
def test_demo_options_are_checked_by_the_parser(capsys, flag, value, match):
    with pytest.raises(SystemExit) as stop:
        run(capsys, "demo", flag, value)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and f"argument {flag}: {match}" in err and "Traceback" not in err


def test_every_demo_option_says_its_default():
    for action in _subparser("demo")._actions:
        if action.dest not in ("help", "json", "quiet"):
            assert action.help and "default" in action.help, action.dest
            assert str(action.default) in action.help, action.dest


def test_data_warnings_reach_stderr_under_json_and_quiet(capsys, tmp_path):
    """--json keeps stdout pure JSON and --quiet drops the report, but warnings about the data
    still go to stderr."""
    train = tmp_path / "train.txt"
    test = tmp_path / "test.txt"
    train.write_text("pos apple:3 pear:1\nneg stone:2 rock:2\npos pear:2 apple:1\nneg rock:1 stone:3\n")
    test.write_text("pos apple:2 kiwi:5\nneg rock:1 granite:2 basalt:1\npos kiwi:3\n")
    for quiet in ("--json", "--quiet"):
        code, out, err = run(capsys, "train", "--train", train, "--test", test, quiet, *FAST)
        assert code == 0, err
        assert "medlda: warning: " in err and "dropped 11 out-of-vocabulary tokens" in err
        assert "skipped 1 empty document" in err and "1 empty documents" not in err
        if quiet == "--json":
            assert json.loads(out)["test_oov_dropped"] == 11
        else:
            assert out.splitlines() == [line for line in out.splitlines() if line.startswith("test accuracy:")]


@pytest.mark.parametrize("argv, flag, match", [
    (["train", "--train", "nope.txt", "--iters", "0"], "--iters", "must be at least 1, got 0"),
    (["train", "--train", "nope.txt", "--iters", "-1"], "--iters", "must be at least 1, got -1"),
    (["train", "--train", "nope.txt", "--trace-every", "0"], "--trace-every", "must be at least 1"),
    (["train", "--train", "nope.txt", "--phi-every", "0"], "--phi-every", "must be at least 1"),
    (["train", "--train", "nope.txt", "--n-mh", "0"], "--n-mh", "must be at least 1"),
    (["train", "--train", "nope.txt", "--infer-burn", "-1"], "--infer-burn", "must be at least 0"),
    (["train", "--train", "nope.txt", "--infer-avg", "0"], "--infer-avg", "must be at least 1"),
    (["train", "--train", "nope.txt", "--checkpoint-every", "-1"], "--checkpoint-every", "must be at least 0"),
    (["train", "--train", "nope.txt", "--workers", "0"], "--workers", "must be at least 1"),
    (["train", "--train", "nope.txt", "--seed", "-3"], "--seed", "must be at least 0"),
    (["plot", "--model", "m.npz", "--kind", "explain", "--out", "f.png", "--doc", "-1"], "--doc", "must be at least 0"),
    (["plot", "--model", "m.npz", "--kind", "map", "--out", "f.png", "--seed", "-1"], "--seed", "must be at least 0"),
])
def test_numeric_options_are_checked_before_the_data_is_read(capsys, argv, flag, match):
    with pytest.raises(SystemExit) as stop:
        run(capsys, *argv)
    assert stop.value.code == 2 and f"argument {flag}: {match}" in capsys.readouterr().err


def test_train_refuses_no_cores_before_reading(capsys):
    code, _, err = run(capsys, "train", "--train", "nope.txt", "--n-jobs", "0")
    assert code == 2 and "--n-jobs must be a non-zero integer" in err


def test_missing_input_files_say_no_such_file(capsys, tmp_path, saved_model):
    missing = tmp_path / "nope.csv"
    for argv in (["train", "--train", missing, *FAST], ["predict", "--model", saved_model, "--input", missing],
                 ["evaluate", "--model", saved_model, "--input", missing],
                 ["transform", "--model", saved_model, "--input", missing],
                 ["topics", "--model", saved_model, "--coherence", missing]):
        code, _, err = run(capsys, *argv)
        assert code == 2 and err == f"medlda: error: {missing}: no such file\n", argv


def test_argparse_errors_are_one_line_and_a_hint(capsys):
    with pytest.raises(SystemExit) as stop:
        run(capsys, "train", "--train", "x.txt", "--iters", "abc")
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert err.splitlines() == ["medlda train: error: argument --iters: not an integer: 'abc'",
                                "see `medlda train --help`"]
    with pytest.raises(SystemExit):
        run(capsys, "predict", "--model", "m.npz")
    assert capsys.readouterr().err.splitlines() == [
        "medlda predict: error: the following arguments are required: --input", "see `medlda predict --help`"]


def _multilabel_model(capsys, tmp_path):
    """A multi-label model and its training data (bow)."""
    from medlda.data.synthetic import make_multilabel_corpus

    corpus, truth = make_multilabel_corpus(200, 4, n_labels=3, words_per_topic=10, random_state=1)
    corpus = corpus.subset(np.flatnonzero(truth.Y.sum(1) > 0))
    data, model = write_bow(corpus, tmp_path / "ml.txt"), tmp_path / "ml.npz"
    code, _, err = run(capsys, "train", "--train", data, "--out", model, "--quiet", *FAST)
    assert code == 0, err
    return model, data


def test_plot_explain_of_a_multilabel_model_asks_for_label_in_cli_words(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    model, data = _multilabel_model(capsys, tmp_path)
    out = tmp_path / "e.png"
    code, _, err = run(capsys, "plot", "--model", model, "--kind", "explain", "--input", data, "--out", out)
    assert code == 2 and "give --label, one of: " in err and "label=" not in err and "classes_" not in err
    code, _, err = run(capsys, "plot", "--model", model, "--kind", "explain", "--input", data, "--out", out,
                       "--label", "nope")
    assert code == 2 and "--label 'nope' is not a class of the model; one of: " in err
    assert not out.exists()


@pytest.fixture(scope="module")
def regression_table(tmp_path_factory):
    """A CSV of columns id, text, score (no 'label'), whose score follows the words."""
    rng = np.random.default_rng(0)
    words = {4.5: "goal match striker keeper referee stadium".split(),
             0.5: "server code memory cloud chip keyboard".split()}
    path = tmp_path_factory.mktemp("reg") / "reg.csv"
    lines = ["id,text,score"]
    for i in range(80):
        level = [4.5, 0.5][i % 2]
        lines.append(f"{i},{' '.join(rng.choice(words[level], 12))},{level + rng.normal(0, 0.2):.2f}")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_regression_table_label_column_is_suggested_and_remembered(capsys, tmp_path, regression_table):
    fast = ["--iters", "20", "--topics", "3", "--seed", "0", "--min-df", "1"]
    code, _, err = run(capsys, "train", "--train", regression_table, *fast)
    assert code == 2 and "no column 'label' (columns: id, text, score)" in err and "--label-column" in err
    model = tmp_path / "reg.npz"
    code, _, err = run(capsys, "train", "--train", regression_table, "--label-column", "score", "--out", model,
                       "--quiet", *fast)
    assert code == 0, err
    code, out, err = run(capsys, "evaluate", "--model", model, "--input", regression_table, "--json")
    assert code == 0, err
    assert json.loads(out)["r2"] > 0.5
    code, out, _ = run(capsys, "info", "--model", model, "--json")
    assert json.loads(out)["label_column"] == "score"
    unlabeled = tmp_path / "new.csv"
    unlabeled.write_text("text\ngoal match striker\n")
    code, out, err = run(capsys, "predict", "--model", model, "--input", unlabeled)
    assert code == 0 and len(out.splitlines()) == 1, err  # no 'score' column: nothing to score against


def test_regression_predictions_and_topics_speak_of_the_response(capsys, tmp_path, regression_table):
    from medlda.io.model_file import load_model

    model = tmp_path / "reg.npz"
    code, _, err = run(capsys, "train", "--train", regression_table, "--label-column", "score", "--out", model,
                       "--quiet", "--iters", "20", "--topics", "3", "--seed", "0", "--min-df", "1")
    assert code == 0, err
    code, out, _ = run(capsys, "predict", "--model", model, "--input", regression_table, "--explain", "1")
    header, *rows = out.splitlines()
    assert header.split("\t") == ["prediction", "topic:contribution"]
    for row in rows:
        value = row.split("\t")[0]
        assert len(value.lstrip("-").replace(".", "").lstrip("0")) <= 6 and value == f"{float(value):.6g}"
    code, out, _ = run(capsys, "topics", "--model", model)
    assert "class high" not in out and "class low" not in out and "for each class" not in out
    eta = load_model(model).eta_[0]
    raise_part = out.split("topics that raise the response:\n")[1].split("topics that lower the response:\n")
    for part, sign in zip(raise_part, (1, -1)):
        ids = [int(line.split()[1]) for line in part.splitlines() if line.startswith("  topic ")]
        assert ids and all(sign * eta[k] > 0 for k in ids)


def test_test_measures_are_named_test_or_holdout(capsys, bow_files):
    train, test = bow_files
    code, out, _ = run(capsys, "train", "--train", train, "--test", test, *FAST)
    assert code == 0 and "\ntest accuracy: " in out and "\naccuracy:" not in out and "\ntrain accuracy: " in out
    code, out, _ = run(capsys, "train", "--train", train, "--holdout", "0.2", *FAST)
    assert code == 0 and "\nholdout accuracy: " in out and "\naccuracy:" not in out
    code, out, _ = run(capsys, "train", "--train", train, "--holdout", "0.2", "--quiet", *FAST)
    assert out.startswith("holdout accuracy: ")
    code, out, _ = run(capsys, "train", "--train", train, "--test", test, "--json", *FAST)
    assert "accuracy" in json.loads(out)  # the JSON key stays


def test_empty_topics_are_marked_and_left_out_of_class_lists(saved_model):
    from medlda.io.model_file import load_model
    from medlda.reporting.reports import class_topic_lines, topic_lines

    model = load_model(saved_model)
    model.topic_word_counts_[2] = 0
    model.eta_samples_[..., 2] = 1e3  # the heaviest weight of all, toward one class
    lines = topic_lines(model, 4)
    assert lines[2].endswith("(empty)") and not any(line.endswith("(empty)") for i, line in enumerate(lines) if i != 2)
    listed = [line for line in class_topic_lines(model, 3, 4) if line.startswith("  topic ")]
    assert listed and not any(line.startswith("  topic 2 ") for line in listed)


def test_help_texts_cover_every_option_and_say_the_defaults():
    from medlda.losses import MULTILABEL_MARGIN

    for command in ("predict", "evaluate", "transform", "info", "topics", "plot"):
        assert "saved model" in _option_help(command, "--model")
    assert _option_help("info", "--json")
    for flag in ("--alpha-sum", "--beta", "--top-words"):
        assert "default" in _option_help("train", flag), flag
    assert "default" in _option_help("train", "--sampler") and "default" in _option_help("train", "--light-variant")
    assert "default 6" in _option_help("train", "--n-mh") and "default" in _option_help("train", "--seed")
    assert f"{MULTILABEL_MARGIN:g} for multi-label" in _option_help("train", "--margin")
    assert "explain" in _option_help("plot", "--input")
    assert "score the predictions" in _option_help("predict", "--label-column")
    assert "only" in _option_help("predict", "--categories")
    for command in ("train", "predict", "evaluate", "transform", "topics", "plot", "demo", "info"):
        for action in _subparser(command)._actions:
            assert action.help, (command, action.dest)


def test_small_messages_fit_the_cli(capsys, tmp_path, saved_model):
    pytest.importorskip("matplotlib")
    code, _, err = run(capsys, "plot", "--model", saved_model, "--kind", "topics", "--out", tmp_path / "t")
    assert code == 2 and "no suffix to name the figure format; end the name in .png, .pdf or .svg" in err
    both = tmp_path / "both.txt"
    both.write_text("pos t0_1:2\npos,neg t1_2:1\n")
    code, _, err = run(capsys, "evaluate", "--model", saved_model, "--input", both)
    assert code == 2 and "1 document does not carry exactly one label" in err and "training" not in err


def test_holdout_keeps_a_class_of_one_document_in_training(capsys, tmp_path):
    rows = [f"word{d % 4} text{d % 3} common note,{'abc'[d % 3]}" for d in range(24)] + ["word1 text2 note,rare"]
    table = tmp_path / "rare.csv"
    table.write_text("text,label\n" + "\n".join(rows) + "\n")
    code, out, err = run(capsys, "train", "--train", table, "--holdout", "0.25", "--topics", "3", "--iters", "5",
                         "--seed", "0", "--min-df", "1", "--json")
    assert code == 0, err
    assert (json.loads(out)["n_train_docs"], json.loads(out)["n_test_docs"]) == (19, 6)
    import argparse

    from medlda.cli.train import _hold_out
    from medlda.data.readers import read_corpus

    corpus = read_corpus(table)
    for seed in range(20):
        kept, held = _hold_out(corpus, 0.25, seed, argparse.Namespace(unsupervised=False))
        assert ("rare",) in kept.labels and set(held.labels) <= set(kept.labels)


def test_doubtful_automatic_tasks_are_warned_about(capsys, tmp_path):
    rows = [f"word{d % 4} text{d % 3} common note,{d % 3}" for d in range(24)]
    rows[6] = rows[6].rsplit(",", 1)[0] + ",3.5"
    table = tmp_path / "typo.csv"
    table.write_text("text,label\n" + "\n".join(rows) + "\n")
    code, _, err = run(capsys, "train", "--train", table, "--topics", "2", "--iters", "3", "--min-df", "1", "--quiet")
    assert code == 0 and f"warning: {table}, line 8: label '3.5' is not an integer" in err
    assert "read as regression" in err and "--task classification" in err
    code, _, err = run(capsys, "train", "--train", table, "--topics", "2", "--iters", "3", "--min-df", "1",
                       "--task", "regression", "--quiet")
    assert code == 0 and "warning" not in err  # the task was asked for: nothing to warn about


def test_predict_reads_raw_text_a_line_with_format_txt(capsys, tmp_path):
    words = {"sports": "goal match striker keeper", "cooking": "oven butter dough sugar"}
    rows = [f"{words[label]} {word},{label}" for label in words for word in words[label].split()]
    table = tmp_path / "train.csv"
    table.write_text("text,label\n" + "\n".join(rows) + "\n")
    model = tmp_path / "m.npz"
    assert run(capsys, "train", "--train", table, "--out", model, "--quiet", "--topics", "2", "--iters", "20",
               "--seed", "0", "--min-df", "1")[0] == 0
    new = tmp_path / "new.txt"
    new.write_text("The striker scored a goal in the match\nbake the dough in the oven with butter\n")
    code, _, err = run(capsys, "predict", "--model", model, "--input", new)
    assert code == 2 and "if this is raw text, one document a line, pass --format txt" in err
    code, out, err = run(capsys, "predict", "--model", model, "--input", new, "--format", "txt")
    assert code == 0, err
    assert out.split() == ["sports", "cooking"]
