"""medlda predict, transform and evaluate end to end: labels, probabilities, explanations,
topic proportions and measures, each equal to the estimator's own on the same documents."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_helpers import FAST, run

from files import make_folder
from medlda import MedLDAClassifier, MedLDARegressor
from medlda.cli import main
from medlda.data.readers import read_corpus, write_bow
from medlda.data.synthetic import make_multilabel_corpus, make_supervised_corpus
from medlda.evaluation.explain import top_topics
from medlda.io.model_file import load_model


def test_predict_proba_of_a_logistic_model(capsys, tmp_path, bow_files):
    """--proba: a header and one row per document whose probabilities sum to 1, pick the label,
    and equal predict_proba; a hinge model is refused."""
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


QUICK_FIT = dict(max_iter=20, alpha_sum=1.0, random_state=0, sampler="light")


def test_cli_predict_explain(tmp_path, capsys):
    corpus, _ = make_supervised_corpus(500, 5, words_per_topic=15, doc_length=50, random_state=3)
    train = write_bow(corpus.subset(np.arange(400)), tmp_path / "train.txt")
    test = write_bow(corpus.subset(np.arange(400, 500)), tmp_path / "test.txt")
    model_path = tmp_path / "m.npz"
    assert main(["train", "--train", str(train), "--topics", "5", "--iters", "20", "--seed", "0", "--loss",
                 "logistic", "--out", str(model_path), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["predict", "--model", str(model_path), "--input", str(test), "--explain", "2", "--proba",
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    model = load_model(model_path)
    docs = read_corpus(test, vocabulary=model.vocabulary_)
    ids, values = top_topics(model.decision_contributions(docs), 2)
    assert [[e["topic"] for e in row] for row in result["explanations"]] == ids.tolist()
    np.testing.assert_allclose([[e["contribution"] for e in row] for row in result["explanations"]], values)
    assert result["explanations"][0][0]["words"] == model.words_of(model.top_word_ids(5))[ids[0, 0]]
    assert len(result["proba"]) == 100

    out_file = tmp_path / "pred.tsv"
    assert main(["predict", "--model", str(model_path), "--input", str(test), "--explain", "2", "--out",
                 str(out_file), "--quiet"]) == 0
    lines = out_file.read_text().splitlines()
    assert lines[0] == "label\ttopic:contribution" and len(lines) == 101
    label, cell = lines[1].split("\t")
    assert label == str(model.predict(docs)[0])
    assert cell == " ".join(f"{k}:{v:+.4g}" for k, v in zip(ids[0], values[0]))
    # with every topic asked for, only those pushing toward the prediction are given
    assert main(["predict", "--model", str(model_path), "--input", str(test), "--explain", "5", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["explanations"]
    ids, values = top_topics(model.decision_contributions(docs), 5)
    assert (values <= 0).any()
    for row, i, v in zip(shown, ids, values):
        assert [e["topic"] for e in row] == i[v > 0].tolist()
    assert main(["predict", "--model", str(model_path), "--input", str(test), "--explain", "-1"]) == 2
    assert "--explain must be" in capsys.readouterr().err


def test_cli_predict_explain_regression_and_multilabel(tmp_path, capsys, regression_corpus):
    corpus, truth = regression_corpus
    model = MedLDARegressor(5, c=10.0, **QUICK_FIT).fit(corpus, truth.y)
    model.save(tmp_path / "r.npz")
    docs = write_bow(corpus.subset(np.arange(20)), tmp_path / "docs.txt")
    assert main(["predict", "--model", str(tmp_path / "r.npz"), "--input", str(docs), "--explain", "3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    read = read_corpus(docs, vocabulary=model.vocabulary_)  # the file's token order, as predict reads it
    ids, values = top_topics(model.decision_contributions(read), 3, absolute=True)
    assert [[e["topic"] for e in row] for row in result["explanations"]] == ids.tolist()
    assert np.abs(values).min() > 0 and (values < 0).any()  # ordered by size, either sign
    np.testing.assert_allclose(np.array(result["labels"], dtype=float), model.predict(read), rtol=1e-12)

    # multi-label: each predicted label explained apart, by its own score's topics
    corpus, truth = make_multilabel_corpus(300, 4, n_labels=3, words_per_topic=10, random_state=3)
    keep = np.flatnonzero(truth.Y.sum(axis=1) > 0)
    model = MedLDAClassifier(4, c=1.0, margin=1.0, **QUICK_FIT).fit(corpus.subset(keep[:-40]), truth.Y[keep[:-40]])
    model.save(tmp_path / "ml.npz")
    docs = write_bow(corpus.subset(keep[-40:]), tmp_path / "ml.txt")
    assert main(["predict", "--model", str(tmp_path / "ml.npz"), "--input", str(docs), "--explain", "2",
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    read = read_corpus(docs, vocabulary=model.vocabulary_)
    on = model.predict(read)
    assert on.sum() > 0
    for t in range(3):
        ids, values = top_topics(model.decision_contributions(read, label=t), 2)
        for d in range(read.n_docs):
            shown = result["explanations"][d]
            assert (str(t) in shown) == bool(on[d, t])
            if on[d, t]:  # only topics that push toward the label are its reasons
                keep = values[d] > 0
                assert [e["topic"] for e in shown[str(t)]] == ids[d][keep].tolist()
                np.testing.assert_allclose([e["contribution"] for e in shown[str(t)]], values[d][keep])
    assert main(["predict", "--model", str(tmp_path / "ml.npz"), "--input", str(docs), "--explain", "1",
                 "--out", str(tmp_path / "ml.tsv")]) == 0
    lines = (tmp_path / "ml.tsv").read_text().splitlines()
    d = int(np.argmax(on.sum(axis=1)))
    labels, cell = lines[1 + d].split("\t")
    assert cell.count(": ") == on[d].sum() == len(labels.split(","))


def test_regression_predictions_and_topics_speak_of_the_response(capsys, tmp_path, regression_table):
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
    make_folder(folder, {"neg/a.txt": "rock stone rock", "pos/b.txt": "kiwi kiwi", "pos/c.txt": "apple pear apple"})
    code, out, _ = run(capsys, "predict", "--model", model, "--input", folder, "--ids")
    assert out.splitlines() == ["neg/a.txt\tneg", "pos/c.txt\tpos"]
    table = tmp_path / "t.csv"
    table.write_text("text\nrock stone rock\nkiwi\napple pear apple\n")
    code, out, _ = run(capsys, "predict", "--model", model, "--input", table, "--ids")
    assert out.splitlines() == ["line 2\tneg", "line 4\tpos"]


def test_predict_reads_raw_text_a_line(capsys, tmp_path):
    """A file whose lines hold no word:count pair is raw text, one document a line, with or
    without --format txt."""
    words = {"sports": "goal match striker keeper", "cooking": "oven butter dough sugar"}
    rows = [f"{words[label]} {word},{label}" for label in words for word in words[label].split()]
    table = tmp_path / "train.csv"
    table.write_text("text,label\n" + "\n".join(rows) + "\n")
    model = tmp_path / "m.npz"
    assert run(capsys, "train", "--train", table, "--out", model, "--quiet", "--topics", "2", "--iters", "20",
               "--seed", "0", "--min-df", "1")[0] == 0
    new = tmp_path / "new.txt"
    new.write_text("The striker scored a goal in the match\nbake the dough in the oven with butter\n")
    for fmt in ([], ["--format", "txt"]):
        code, out, err = run(capsys, "predict", "--model", model, "--input", new, *fmt)
        assert code == 0, err
        assert out.split() == ["sports", "cooking"]


def test_transform_writes_each_documents_topic_proportions(capsys, tmp_path, bow_files):
    """transform: the estimator's transform as text (header of topic ids), as .npy, as JSON and as
    each document's largest proportions; for a supervised and an unsupervised model."""
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


def test_cli_evaluate(capsys, tmp_path):
    corpus, _ = make_supervised_corpus(400, 5, words_per_topic=15, doc_length=50, n_classes=3, random_state=3)
    train = write_bow(corpus.subset(np.arange(300)), tmp_path / "train.txt")
    test = write_bow(corpus.subset(np.arange(300, 400)), tmp_path / "test.txt")
    model = tmp_path / "m.npz"
    fast = ["--topics", "5", "--iters", "30", "--seed", "0", "--c", "1", "--margin", "1", "--alpha-sum", "1"]
    assert main(["train", "--train", str(train), "--out", str(model), "--quiet", *fast]) == 0
    capsys.readouterr()
    assert main(["predict", "--model", str(model), "--input", str(test), "--json"]) == 0
    accuracy = json.loads(capsys.readouterr().out)["accuracy"]
    assert main(["evaluate", "--model", str(model), "--input", str(test), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["accuracy"] == accuracy and report["n_docs"] == 100 and report["classes"] == ["0", "1", "2"]
    assert sum(m["support"] for m in report["per_class"].values()) == 100 == np.sum(report["confusion"])
    assert np.trace(report["confusion"]) == round(accuracy * 100)
    assert main(["evaluate", "--model", str(model), "--input", str(test), "--confusion"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"100 documents: accuracy {accuracy:.4f}") and "confusion (rows: true class" in out
    unlabeled = tmp_path / "u.txt"
    unlabeled.write_text("\n".join(line.split(" ", 1)[1] for line in test.read_text().splitlines()) + "\n")
    assert main(["evaluate", "--model", str(model), "--input", str(unlabeled)]) == 2
    assert "carry no labels to evaluate the predictions against" in capsys.readouterr().err
    lda = tmp_path / "lda.npz"
    assert main(["train", "--train", str(train), "--unsupervised", "--out", str(lda), "--quiet", *fast]) == 0
    assert main(["evaluate", "--model", str(lda), "--input", str(test)]) == 2
    assert "has no labels to evaluate" in capsys.readouterr().err


def test_inference_flag_predicts_as_the_estimator_with_that_inference(capsys, tmp_path, bow_files):
    """--inference gibbs on predict and evaluate: the estimator's own predictions with
    inference='gibbs' (and not those of its saved cvb0 inference, on these documents)."""
    train, test = bow_files
    model = tmp_path / "m.npz"
    code, _, err = run(capsys, "train", "--train", train, "--out", model, "--quiet", *FAST)
    assert code == 0, err
    fitted = load_model(model)
    docs = read_corpus(str(test), vocabulary=fitted.vocabulary_)
    cvb0 = fitted.transform(docs)
    code, out, err = run(capsys, "predict", "--model", model, "--input", test, "--inference", "gibbs", "--json")
    assert code == 0, err
    assert json.loads(out)["labels"] == fitted.set_params(inference="gibbs").predict(docs).tolist()
    code, out, err = run(capsys, "evaluate", "--model", model, "--input", test, "--inference", "gibbs", "--json")
    assert code == 0, err
    assert json.loads(out)["accuracy"] == pytest.approx(fitted.score(docs, docs.single_labels()))
    assert not np.array_equal(cvb0, fitted.transform(docs))
