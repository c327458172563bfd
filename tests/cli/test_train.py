"""medlda train end to end: what it reports (JSON and text), its options, the task it reads
from the labels, and every input format it trains on."""

from __future__ import annotations

import argparse
import csv
import json
import tarfile

import numpy as np
import pytest
from cli_helpers import FAST, run
from sklearn.metrics import log_loss

from files import make_folder, ticket_table, write_delimited, write_jsonl
from medlda import MedLDAClassifier
from medlda.cli import main
from medlda.cli.train import _hold_out
from medlda.data.readers import read_bow, read_corpus, write_bow
from medlda.data.synthetic import make_regression_corpus, make_supervised_corpus
from medlda.data.text import make_vectorizer
from medlda.io.model_file import load_model


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


def test_chains_from_the_command_line_reach_the_model_file(capsys, tmp_path, bow_files):
    train, test = bow_files
    model = tmp_path / "model.npz"
    code, out, err = run(capsys, "train", "--train", train, "--test", test, "--out", model, "--chains", "2",
                         "--json", *FAST)
    assert code == 0, err
    assert json.loads(out)["accuracy"] > 0.85
    loaded = load_model(model)
    assert loaded.n_chains == 2 and len(loaded.chains_) == 2 and loaded.topic_word_counts_.shape[0] == 10
    code, out, _ = run(capsys, "info", "--model", model)
    assert code == 0 and "2 chains" in out


def test_class_weight_from_the_command_line(capsys, tmp_path, bow_files):
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


def test_holdout_keeps_a_class_of_one_document_in_training(capsys, tmp_path):
    rows = [f"word{d % 4} text{d % 3} common note,{'abc'[d % 3]}" for d in range(24)] + ["word1 text2 note,rare"]
    table = tmp_path / "rare.csv"
    table.write_text("text,label\n" + "\n".join(rows) + "\n")
    code, out, err = run(capsys, "train", "--train", table, "--holdout", "0.25", "--topics", "3", "--iters", "5",
                         "--seed", "0", "--min-df", "1", "--json")
    assert code == 0, err
    assert (json.loads(out)["n_train_docs"], json.loads(out)["n_test_docs"]) == (19, 6)


    corpus = read_corpus(table)
    for seed in range(20):
        kept, held = _hold_out(corpus, 0.25, seed, argparse.Namespace(unsupervised=False))
        assert ("rare",) in kept.labels and set(held.labels) <= set(kept.labels)


def test_several_topic_counts_are_chosen_on_validation_then_refit_and_tested(capsys, tmp_path, bow_files):
    """--topics A,B chooses K on a seeded validation part of --train (never the test data),
    trains the chosen K again on all of --train (the model --out keeps) and tests that one."""
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
    assert result["validation"] == {"fraction": 0.2, "n_docs": 100, "n_fit_docs": 400, "seed": 0}
    assert all(r["n_train_docs"] == 400 and r["n_test_docs"] == 100 and r["measured_on"] == "validation"
               for r in runs.values())
    final = result["final"]
    assert final["n_topics"] == result["best_n_topics"] and final["measured_on"] == "test"
    assert final["n_train_docs"] == 500 and final["n_test_docs"] == 200
    kept = load_model(best)
    assert kept.n_components == result["best_n_topics"] and kept.fit_stats_["n_docs"] == 500  # the refit
    assert final["accuracy"] == pytest.approx(float(np.mean(kept.predict(read_bow(test)) == read_bow(test).single_labels())))
    code, out, _ = run(capsys, "train", "--train", train, "--test", test, "--topics", "2,5", "--unsupervised",
                       "--json", *fast)
    chosen = json.loads(out)
    assert chosen["best_n_topics"] == min(chosen["runs"], key=lambda r: r["perplexity"])["n_topics"]
    assert chosen["selected_by"] == "perplexity" and "perplexity" in chosen["final"]
    code, out, _ = run(capsys, "train", "--train", train, "--holdout", "0.2", "--topics", "2,5", *fast)
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("choosing among 2 numbers of topics on a validation part: 80 of the 400")
    assert lines[1].startswith("    2 topics: validation accuracy ") and lines[3].startswith("best: ")
    assert lines[4].startswith("holdout accuracy: ") and "not used to choose" in lines[4]
    code, out, err = run(capsys, "train", "--train", train, "--topics", "2,5", "--json", *fast)  # no test data
    assert code == 0 and "accuracy" not in json.loads(out)["final"], err
    code, _, err = run(capsys, "train", "--train", train, "--test", test, "--topics", "2,5",
                       "--checkpoint", tmp_path / "c.ckpt", *fast)
    assert code == 2 and "--checkpoint is for one model" in err


def test_train_reports_the_test_log_loss_of_a_logistic_model(capsys, tmp_path, bow_files):
    """With probabilities (logistic) train's JSON line and report, and evaluate's, carry the test
    log loss of predict_proba, next to the accuracy of the same inference; a hinge model has none."""
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


def test_cli_writes_the_trace_as_json(tmp_path, bow_files, capsys):
    train, test = bow_files
    trace = tmp_path / "trace.json"
    argv = ["train", "--train", str(train), "--test", str(test),
            "--unsupervised", "--sampler", "blocked", "--block-simulation", "backward", "--topics", "4",
            "--iters", "3", "--trace", str(trace), "--seed", "0", "--json"]
    assert main(argv) == 0
    rows = json.loads(trace.read_text())
    assert [r["iteration"] for r in rows] == [1, 2, 3]
    assert all("log_joint" in r and "perplexity" in r for r in rows)
    assert json.loads(capsys.readouterr().out)["trace"] == str(trace)
    assert main(["train", "--train", str(train), "--sampler", "blocked"]) == 2
    assert "--unsupervised" in capsys.readouterr().err


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


def test_progress_bar_shows_accuracy_loglik_and_speed(capsys, bow_files):
    corpus = read_bow(bow_files[0])
    MedLDAClassifier(3, max_iter=3, verbose=1, random_state=0).fit(corpus, corpus.single_labels())
    err = capsys.readouterr().err
    assert "train_acc" in err and "loglik" in err and "tok/s" in err and "3/3" in err


@pytest.mark.slow
def test_binary_20newsgroups_reaches_paper_accuracy(capsys, shared_data):
    archive = shared_data / "20news-bydate.tar.gz"
    code, out, err = run(capsys, "train", "--train", archive, "--test", archive, "--categories",
                         "alt.atheism,talk.religion.misc", "--sampler", "gibbs", "--topics", "20",
                         "--seed", "0", "--news", "headers", "--json")  # the papers' preprocessing
    assert code == 0, err
    result = json.loads(out)
    assert result["n_train_docs"] == 857 and result["n_test_docs"] == 570
    assert result["accuracy"] >= 0.78


# -- every task --------------------------------------------------------------------------------
CLI_FAST = ["--iters", "25", "--topics", "6", "--seed", "0", "--alpha-sum", "1", "--sampler", "light", "--json"]


def test_cli_multilabel_bow_reports_f1_and_predicts_label_sets(tmp_path, capsys, multilabel_corpus):
    corpus, truth = multilabel_corpus
    keep = np.flatnonzero(truth.Y.sum(1) > 0)
    corpus = corpus.subset(keep)
    train, test = write_bow(corpus.subset(np.arange(450)), tmp_path / "tr.txt"), \
        write_bow(corpus.subset(np.arange(450, corpus.n_docs)), tmp_path / "te.txt")
    code, out, err = run(capsys, "train", "--train", train, "--test", test, "--c", "1", "--margin", "1",
                          "--out", tmp_path / "m.npz", *CLI_FAST)
    assert code == 0, err
    result = json.loads(out)
    assert result["f1_micro"] > 0.7 and 0 <= result["f1_macro"] <= 1 and "accuracy" not in result
    code, out, err = run(capsys, "predict", "--model", tmp_path / "m.npz", "--input", test, "--json")
    assert code == 0, err
    predicted = json.loads(out)
    assert predicted["f1_micro"] == pytest.approx(result["f1_micro"])
    assert all(set(lab.split(",")) <= {"", "L0", "L1", "L2", "L3"} for lab in predicted["labels"])


def test_cli_regression_ldac_reports_r2(tmp_path, capsys):
    corpus, truth = make_regression_corpus(600, 6, words_per_topic=20, noise=0.1, random_state=4)
    X = corpus.to_sparse()
    lines = []
    for d in range(corpus.n_docs):
        row = slice(X.indptr[d], X.indptr[d + 1])
        pairs = " ".join(f"{v}:{c}" for v, c in zip(X.indices[row], X.data[row]))
        lines.append(f"{X.indptr[d + 1] - X.indptr[d]} {truth.y[d]:.5f} {pairs}\n")
    (tmp_path / "train.dat").write_text("".join(lines[:450]))
    (tmp_path / "test.dat").write_text("".join(lines[450:]))
    code, out, err = run(capsys, "train", "--train", tmp_path / "train.dat", "--test", tmp_path / "test.dat",
                          "--c", "10", *CLI_FAST)
    assert code == 0, err
    result = json.loads(out)
    assert result["r2"] > 0.6 and result["loss"] == "epsilon" and "accuracy" not in result
    code, out, err = run(capsys, "train", "--train", tmp_path / "train.dat", "--loss", "hinge", *CLI_FAST)
    assert code == 2 and "does not fit a regression task" in err
    code, out, err = run(capsys, "train", "--train", tmp_path / "train.dat", "--positive-cost", "2", *CLI_FAST)
    assert code == 2 and "--positive-cost is for classification" in err
    code, out, err = run(capsys, "train", "--train", tmp_path / "train.dat", "--test", tmp_path / "test.dat",
                          "--chains", "2", "--combine", "ridge", *CLI_FAST)
    assert code == 0, err
    result = json.loads(out)
    assert result["r2"] > 0.6 and len(result["eta"][0]) == 12  # one weight per chain's topic
    assert result["ridge_penalty"] > 0
    code, out, err = run(capsys, "train", "--train", tmp_path / "train.dat", "--chains", "2", "--combine",
                          "average,ridge", *CLI_FAST)
    assert code == 0, err
    assert [run["setting"]["combine"] for run in json.loads(out)["runs"]] == ["average", "ridge"]


def test_cli_multiclass_logistic_ovr(tmp_path, capsys):
    corpus, _ = make_supervised_corpus(600, 6, words_per_topic=20, n_classes=3, random_state=2)
    train = write_bow(corpus.subset(np.arange(450)), tmp_path / "tr.txt")
    test = write_bow(corpus.subset(np.arange(450, 600)), tmp_path / "te.txt")
    code, out, err = run(capsys, "train", "--train", train, "--test", test, "--loss", "logistic",
                          "--strategy", "ovr", "--c", "10", "--n-jobs", "1", *CLI_FAST)
    assert code == 0, err
    result = json.loads(out)
    assert result["accuracy"] > 0.75 and result["strategy"] == "ovr" and result["loss"] == "logistic"


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


def test_documents_without_a_label_are_named(capsys, tmp_path):
    """A table whose rows carry one label each but for a few empty cells: read as multi-label
    with a warning naming the first such row; --task classification refuses it by file and line."""
    rows = [(f"refund invoice card {i}", "billing") for i in range(4)] + [("server down login", "")] + \
        [(f"server down login page {i}", "outage") for i in range(4)] + [("refund card", "")]
    table = write_delimited(tmp_path / "gaps.csv", ",", rows, header=("id", "text", "label"))
    common = ["train", "--train", str(table), "--topics", "2", "--iters", "3", "--min-df", "1"]
    assert main(common) == 0
    err = capsys.readouterr().err
    assert "warning: 2 documents carry no label (first: " + str(table) + ", line 6) and the others one each" in err
    assert main(common + ["--json"]) == 0
    assert json.loads(capsys.readouterr().out)["task"] == "multilabel"
    assert main(common + ["--task", "classification"]) == 2
    assert f"2 documents do not carry exactly one label (first: {table}, line 6, with 0)" in capsys.readouterr().err
    rows[2] = ("refund invoice", "2.5")
    table = write_delimited(tmp_path / "numbers.csv", ",", rows, header=("id", "text", "label"))
    assert main(["train", "--train", str(table), "--topics", "2", "--iters", "3", "--min-df", "1", "--task",
                 "regression"]) == 2
    assert f"{table}, line 2: response 'billing' is not one real number" in capsys.readouterr().err


# -- folders, archives and tables --------------------------------------------------------------
def test_train_from_folder_and_archive(capsys, tmp_path):
    rng = np.random.default_rng(0)
    fruit = ["apple", "banana", "cherry", "mango", "orchard", "juice"]
    cars = ["engine", "wheel", "brake", "highway", "driver", "garage"]
    docs = {}
    for split in ("train", "test"):
        for i in range(30):
            for label, words in (("fruit", fruit), ("cars", cars)):
                docs[f"set-{split}/{label}/{i}"] = "Subject: note\nFrom: someone\n\n" + " ".join(rng.choice(words, 12))
    make_folder(tmp_path / "data", docs)
    with tarfile.open(tmp_path / "data.tar.gz", "w:gz") as tar:
        tar.add(tmp_path / "data", arcname="data")
    for source in (tmp_path / "data", tmp_path / "data.tar.gz"):
        code, out, err = run(capsys, "train", "--train", source, "--test", source, "--json",
                             "--topics", "2", "--iters", "20", "--seed", "0", "--c", "1", "--margin", "1")
        assert code == 0, err
        result = json.loads(out)
        assert result["n_train_docs"] == 60 and result["n_test_docs"] == 60
        assert result["accuracy"] > 0.9


def test_cli_trains_on_a_csv_and_labels_a_jsonl(capsys, tmp_path):
    train, _ = ticket_table(tmp_path / "train.csv", 200, 0)
    test, queues = ticket_table(tmp_path / "test.csv", 60, 1)
    model = tmp_path / "m.npz"
    code = main(["train", "--train", str(train), "--test", str(test), "--text-column", "body", "--label-column",
                 "queue", "--topics", "6", "--iters", "30", "--seed", "0", "--out", str(model), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["accuracy"] > 0.95
    rows = list(csv.DictReader(open(test, encoding="utf-8")))
    new = write_jsonl(tmp_path / "new.jsonl", [{"body": r["body"]} for r in rows])
    code = main(["predict", "--model", str(model), "--input", str(new), "--text-column", "body", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    labels = json.loads(out)["labels"]
    assert len(labels) == 60 and np.mean(np.array(labels) == queues) > 0.95
    code = main(["predict", "--model", str(model), "--input", str(new), "--json"])  # the model's text column
    out, err = capsys.readouterr()
    assert code == 0 and json.loads(out)["labels"] == labels and "data selection: text column body" in err
    other = write_jsonl(tmp_path / "other.jsonl", [{"note": r["body"]} for r in rows])
    code = main(["predict", "--model", str(model), "--input", str(other)])
    assert code == 2 and "no column 'text' (columns: note)" in capsys.readouterr().err
    code = main(["topics", "--model", str(model), "--coherence", str(test), "--text-column", "body", "--json"])
    assert code == 0 and len(json.loads(capsys.readouterr().out)["coherence"]) == 6
    bow = tmp_path / "d.txt"
    bow.write_text("a word:1\n")
    code = main(["transform", "--model", str(model), "--input", str(bow), "--text-column", "body"])
    assert code == 2 and "--text-column and --label-column are for tables" in capsys.readouterr().err


def test_cli_preprocessing_options_shape_the_vocabulary(capsys, tmp_path):
    """--min-df, --max-df, --max-words and --stop-words give the vocabulary scikit-learn's
    CountVectorizer gives with the same settings; counted data refuses them."""
    train, _ = ticket_table(tmp_path / "train.csv", 100, 0)
    rows = list(csv.DictReader(open(train, encoding="utf-8")))
    texts = [r["body"] for r in rows]
    stop = tmp_path / "stop.txt"
    stop.write_text("# ours\n\nKim\n")
    cases = [([], dict()), (["--min-df", "1", "--stop-words", "none"], dict(min_df=1, stop_words=None)),
             (["--max-df", "0.5"], dict(max_df=0.5)), (["--max-words", "4"], dict(max_features=4)),
             (["--stop-words", str(stop)], dict(stop_words=["kim"])), (["--min-df", "0.4"], dict(min_df=0.4))]
    sizes = set()
    for flags, settings in cases:
        model = tmp_path / "m.npz"
        code = main(["train", "--train", str(train), "--text-column", "body", "--label-column", "queue",
                     "--topics", "3", "--iters", "2", "--out", str(model), "--quiet", *flags])
        assert code == 0, capsys.readouterr().err
        expected = make_vectorizer(news=False, **settings).fit(texts).get_feature_names_out()
        assert list(load_model(model).vocabulary_) == list(expected), flags
        sizes.add(len(expected))
    assert len(sizes) == len(cases)  # every option changed the vocabulary
    bow = tmp_path / "d.txt"
    bow.write_text("a word:1\n")
    code = main(["train", "--train", str(bow), "--unsupervised", "--min-df", "2", "--max-words", "3"])
    assert code == 2 and "--min-df, --max-words shape how raw text becomes words, and this is bow data" in \
        capsys.readouterr().err
    code = main(["train", "--train", str(train), "--text-column", "body", "--stop-words", "nofile.txt"])
    assert code == 2 and "'nofile.txt' is neither 'english', 'none' nor a file" in capsys.readouterr().err
