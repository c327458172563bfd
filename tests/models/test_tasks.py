"""Every task: multi-class (multi-task and one-vs-rest, hinge and logistic), multi-label and
regression recover planted structure; predict_proba, model files and errors of the new estimators."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.metrics import f1_score

from medlda import MedLDAClassifier, MedLDARegressor, losses
from medlda.io.model_file import load_model
from medlda.data.synthetic import make_multilabel_corpus, make_regression_corpus, make_supervised_corpus

FAST = dict(alpha_sum=1.0, sampler="light", n_infer_burn=10, n_infer_avg=5, random_state=0)


@pytest.fixture(scope="module")
def multiclass():
    corpus, truth = make_supervised_corpus(700, 6, words_per_topic=20, n_classes=3, random_state=2)
    y = np.array(["a", "b", "c"])[corpus.single_labels()]
    return corpus.subset(np.arange(500)), y[:500], corpus.subset(np.arange(500, 700)), y[500:]


@pytest.fixture(scope="module")
def multilabel():
    corpus, truth = make_multilabel_corpus(700, 6, n_labels=4, words_per_topic=20, random_state=3)
    return corpus.subset(np.arange(500)), truth.Y[:500], corpus.subset(np.arange(500, 700)), truth.Y[500:]


@pytest.mark.parametrize("loss, strategy", [("hinge", "ovr"), ("logistic", "multitask"), ("logistic", "ovr")])
def test_multiclass_recovers_planted_classifier(multiclass, loss, strategy):
    train, y, test, y_test = multiclass
    margin = 1.0 if loss == "hinge" else "auto"
    c = 1.0 if loss == "hinge" else 10.0
    model = MedLDAClassifier(6, c=c, margin=margin, loss=loss, strategy=strategy, n_iter=40, n_jobs=1,
                             **FAST).fit(train, y)
    assert model.score(test, y_test) > 0.8
    # the planted labels are learnable; shuffled ones are not (the check can fail)
    assert model.score(test, np.random.default_rng(0).permutation(y_test)) < 0.6
    assert list(model.classes_) == ["a", "b", "c"]
    if strategy == "ovr":
        assert len(model.estimators_) == 3 and model.eta_.shape == (3, 18)
        assert model.transform(test).shape == (200, 18) and model.topic_word_counts_.shape[0] == 18
    else:
        assert model.eta_.shape == (3, 6)


def test_ovr_in_parallel_processes_matches_one_process(multiclass):
    train, y, test, _ = multiclass
    serial = MedLDAClassifier(4, c=1.0, margin=1.0, strategy="ovr", n_iter=5, n_jobs=1, **FAST).fit(train, y)
    parallel = clone(serial).set_params(n_jobs=2).fit(train, y)
    assert np.array_equal(serial.eta_samples_, parallel.eta_samples_)
    assert np.array_equal(serial.predict(test), parallel.predict(test))
    assert serial.fit_stats_["n_jobs"] == 1 and parallel.fit_stats_["n_jobs"] == 2


def test_predict_proba_only_for_the_logistic_loss(multiclass):
    train, y, test, _ = multiclass
    hinge = MedLDAClassifier(4, c=1.0, margin=1.0, n_iter=3, **FAST).fit(train, y)
    assert not hasattr(hinge, "predict_proba")
    with pytest.raises(AttributeError, match="predict_proba"):
        hinge.predict_proba(test)
    logistic = clone(hinge).set_params(loss="logistic", c="auto").fit(train, y)
    proba = logistic.predict_proba(test)
    assert proba.shape == (200, 3) and np.allclose(proba.sum(1), 1.0)
    assert np.array_equal(logistic.classes_[proba.argmax(1)], logistic.predict(test))
    assert logistic.c_ == 204.8
    binary = clone(logistic).fit(train, np.where(y == "a", "a", "rest"))
    assert binary.c_ == 25.0 and binary.predict_proba(test).shape == (200, 2)


@pytest.mark.parametrize("strategy", ["multitask", "ovr"])
def test_multilabel_recovers_planted_labels(multilabel, strategy):
    train, Y, test, Y_test = multilabel
    model = MedLDAClassifier(6, c=1.0, margin=1.0, strategy=strategy, n_iter=40, n_jobs=1, **FAST).fit(train, Y)
    pred = model.predict(test)
    assert pred.shape == Y_test.shape and set(np.unique(pred)) <= {0, 1}
    assert f1_score(Y_test, pred, average="micro") > 0.75
    shuffled = Y_test[np.random.default_rng(0).permutation(len(Y_test))]
    assert f1_score(shuffled, pred, average="micro") < 0.6  # the check can fail
    assert list(model.classes_) == [0, 1, 2, 3]


@pytest.mark.parametrize("loss", ["epsilon", "squared"])
def test_regression_recovers_planted_response(loss):
    corpus, truth = make_regression_corpus(700, 6, words_per_topic=20, noise=0.1, random_state=4)
    train, test = corpus.subset(np.arange(500)), corpus.subset(np.arange(500, 700))
    y = corpus.real_labels()
    model = MedLDARegressor(6, loss=loss, c=10.0, n_iter=40, **FAST).fit(train, y[:500])
    assert model.score(test, y[500:]) > 0.7
    assert model.score(test, np.random.default_rng(0).permutation(y[500:])) < 0.2  # can fail
    assert model.predict(test).shape == (200,)


def test_model_files_round_trip_every_estimator(tmp_path, multiclass, multilabel):
    train, y, test, _ = multiclass
    ml_train, Y, ml_test, _ = multilabel
    reg_corpus, reg = make_regression_corpus(200, 4, words_per_topic=10, random_state=5)
    fitted = [
        (MedLDAClassifier(4, loss="logistic", strategy="ovr", n_iter=3, n_jobs=1, **FAST).fit(train, y), test),
        (MedLDAClassifier(4, c=1.0, margin=1.0, n_iter=3, **FAST).fit(ml_train, Y), ml_test),
        (MedLDAClassifier(4, strategy="ovr", n_iter=3, n_jobs=1, **FAST).fit(ml_train, Y), ml_test),
        (MedLDARegressor(4, loss="squared", n_iter=3, **FAST).fit(reg_corpus, reg.y), reg_corpus),
    ]
    for i, (model, X) in enumerate(fitted):
        path = tmp_path / f"m{i}.npz"
        model.save(path)
        again = load_model(path)
        assert type(again) is type(model) and again.get_params() == model.get_params()
        if isinstance(model, MedLDAClassifier):
            assert (again.c_, again.margin_, again.positive_cost_) == (model.c_, model.margin_, model.positive_cost_)
        assert np.array_equal(again.eta_samples_, model.eta_samples_)
        assert np.array_equal(again.predict(X), model.predict(X))
        if hasattr(model, "predict_proba"):
            assert again.proba_scale_ == model.proba_scale_ != model.c_
            assert np.allclose(again.predict_proba(X), model.predict_proba(X))
        if hasattr(model, "estimators_"):
            assert len(again.estimators_) == len(model.estimators_)


def test_positive_cost_reaches_the_loss_of_every_strategy(multiclass, multilabel, monkeypatch):
    """An explicit positive_cost goes to every loss; 'auto' is MULTILABEL_POSITIVE_COST for
    multi-label data, C - 1 for one-vs-rest on C single-label classes (each binary model
    balanced; for the logistic loss up to OVR_LOGISTIC_BALANCED_MAX_K topics) and 1 otherwise,
    in the multi-task model and every binary model."""
    import medlda.models.classifier as est

    train, y, _, _ = multiclass
    ml_train, Y, _, _ = multilabel
    seen, real = [], est.make_loss
    monkeypatch.setattr(est, "make_loss", lambda *a, **k: seen.append(k.get("positive_cost")) or real(*a, **k))
    fits = [(dict(positive_cost=3.0), ml_train, Y, [3.0]),
            (dict(positive_cost=3.0, strategy="ovr"), ml_train, Y, [3.0] * 4),
            (dict(), ml_train, Y, [losses.MULTILABEL_POSITIVE_COST]),
            (dict(strategy="ovr"), ml_train, Y, [losses.MULTILABEL_POSITIVE_COST] * 4),
            (dict(), train, y, [1.0]), (dict(strategy="ovr"), train, y, [2.0] * 3),
            (dict(strategy="ovr", loss="logistic"), train, y, [2.0] * 3),
            (dict(strategy="ovr"), train, np.where(y == y[0], "one", "rest"), [1.0])]  # two classes: one binary model
    for params, X, labels, expected in fits:
        seen.clear()
        model = MedLDAClassifier(4, n_iter=2, n_jobs=1, **FAST, **params).fit(X, labels)
        assert seen == expected and model.positive_cost_ == expected[0], params
    assert losses.MULTILABEL_POSITIVE_COST == 4.0
    big = losses.OVR_LOGISTIC_BALANCED_MAX_K
    for loss, k, expected in (("logistic", big, 19.0), ("logistic", big + 1, 1.0), ("hinge", big + 1, 19.0)):
        default = losses.LOSSES[loss].default_positive_cost
        assert default(20, multilabel=False, one_vs_rest=True, n_topics=k) == expected, (loss, k)
        assert default(20, multilabel=False, one_vs_rest=False, n_topics=k) == 1.0  # multitask


def test_auto_margin_is_the_multilabel_one_only_for_multilabel_data(multiclass, multilabel, monkeypatch):
    """margin='auto' gives multi-label multi-task models MULTILABEL_MARGIN (validated on Reuters)
    and leaves the papers' multi-class margin alone; an explicit margin always wins."""
    import medlda.models.classifier as est

    train, y, _, _ = multiclass
    ml_train, Y, _, _ = multilabel
    seen, real = [], est.make_loss
    monkeypatch.setattr(est, "make_loss", lambda *a, **k: seen.append(a[2]) or real(*a, **k))
    for params, X, labels, expected in [(dict(), ml_train, Y, losses.MULTILABEL_MARGIN),
                                        (dict(margin=5.0), ml_train, Y, 5.0),
                                        (dict(), train, y, losses.MULTICLASS_MARGIN)]:
        seen.clear()
        model = MedLDAClassifier(4, n_iter=2, n_jobs=1, **FAST, **params).fit(X, labels)
        assert seen == [expected] and model.margin_ == expected, params
    assert losses.MULTILABEL_MARGIN == 8.0 != losses.MULTICLASS_MARGIN


@pytest.mark.parametrize("params, match", [
    (dict(loss="epsilon"), "MedLDARegressor"), (dict(strategy="ova"), "strategy"), (dict(n_jobs=0), "n_jobs"),
    (dict(c="big"), "c must"), (dict(positive_cost=0.0), "positive_cost"),
])
def test_invalid_classifier_options(multiclass, params, match):
    train, y, _, _ = multiclass
    with pytest.raises(ValueError, match=match):
        MedLDAClassifier(3, n_iter=2, **params).fit(train, y)


def test_bad_labels_and_responses(multiclass):
    train, y, _, _ = multiclass
    with pytest.raises(ValueError, match="0/1 label-indicator"):
        MedLDAClassifier(3, n_iter=2).fit(train, np.full((train.n_docs, 2), 2))
    with pytest.raises(ValueError, match="NaN"):
        MedLDARegressor(3, n_iter=2).fit(train, np.full(train.n_docs, np.nan))
    with pytest.raises(ValueError, match="loss must be one of"):
        MedLDARegressor(3, loss="hinge", n_iter=2).fit(train, np.zeros(train.n_docs))
    with pytest.raises(ValueError, match="one response per document"):
        MedLDARegressor(3, n_iter=2).fit(train, np.zeros(3))
    with pytest.raises(ValueError, match="numeric responses y .*use MedLDAClassifier"):
        MedLDARegressor(3, n_iter=2).fit(train, np.array(["spam"] * train.n_docs))


def _bow_with_labels(tmp_path, labels):
    """A bow file with one document a line (line N+1 carries labels[N]) and its task and warning."""
    from medlda.data.readers import read_corpus
    from medlda.data.tasks import auto_task_warning, detect_task

    path = tmp_path / "labels.bow"
    path.write_text("# a comment first\n" + "".join(f"{lab} w{d % 3}:2 x:1\n" for d, lab in enumerate(labels)))
    corpus = read_corpus(path)
    task = detect_task(corpus)
    return path, task, auto_task_warning(corpus, task)


def test_auto_task_warns_of_one_fractional_label_among_integers(tmp_path):
    path, task, message = _bow_with_labels(tmp_path, ["1", "2", "3", "3.5", "2", "1", "2.5"])
    assert task == "regression"
    assert message.startswith(f"{path}, line 5: label '3.5' (and 1 more) is not an integer, unlike 5 of the 7 ")
    assert "read as regression" in message and "--task classification" in message
    _, task, message = _bow_with_labels(tmp_path, ["1.5", "2.25", "3", "0.5"])  # real responses: no warning
    assert (task, message) == ("regression", None)


def test_auto_task_warns_of_numbers_mixed_with_words(tmp_path):
    path, task, message = _bow_with_labels(tmp_path, ["sports", "tech", "2", "sports", "tech"])
    assert task == "classification"
    assert message.startswith(f"{path}, line 4: label '2' is a number, yet 4 of the 5 labels are words: read as "
                              "classification over 3 classes") and "--task regression" in message
    path, _, message = _bow_with_labels(tmp_path, ["1.5", "x", "2.5", "y"])  # a tie: the words are doubtful
    assert message.startswith(f"{path}, line 3: label 'x' (and 1 more) is a word, yet 2 of the 4 labels are numbers")
    for labels in (["a", "b", "a"], ["1", "2", "1"], ["+1", "-1"]):
        assert _bow_with_labels(tmp_path, labels)[2] is None


def test_auto_task_warns_of_blank_labels_read_as_multilabel():
    from medlda.data.corpus import Corpus
    from medlda.data.tasks import auto_task_warning, detect_task

    corpus = Corpus.from_sparse(np.ones((3, 2), dtype=int), labels=[("a",), (), ("b",)], source="t.csv")
    corpus.doc_names = ["line 2", "line 3", "line 4"]
    assert detect_task(corpus) == "multilabel"
    assert auto_task_warning(corpus, "multilabel") == (
        "1 document carries no label (first: t.csv, line 3) and the others one each: read as multi-label data; "
        "for classification give them labels or drop them")
    corpus.labels = [("a", "b"), (), ("b",)]  # truly multi-label
    assert auto_task_warning(corpus, "multilabel") is None


# -- command line and readers for every task --------------------------------------------------
def _run(capsys, *argv):
    from medlda.cli import main

    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


CLI_FAST = ["--iters", "25", "--topics", "6", "--seed", "0", "--alpha-sum", "1", "--sampler", "light", "--json"]


def test_cli_multilabel_bow_reports_f1_and_predicts_label_sets(tmp_path, capsys):
    from medlda.data.readers import write_bow

    corpus, truth = make_multilabel_corpus(700, 6, n_labels=4, words_per_topic=20, random_state=3)
    keep = np.flatnonzero(truth.Y.sum(1) > 0)
    corpus = corpus.subset(keep)
    train, test = write_bow(corpus.subset(np.arange(450)), tmp_path / "tr.txt"), \
        write_bow(corpus.subset(np.arange(450, corpus.n_docs)), tmp_path / "te.txt")
    code, out, err = _run(capsys, "train", "--train", train, "--test", test, "--c", "1", "--margin", "1",
                          "--out", tmp_path / "m.npz", *CLI_FAST)
    assert code == 0, err
    result = json.loads(out)
    assert result["f1_micro"] > 0.7 and 0 <= result["f1_macro"] <= 1 and "accuracy" not in result
    code, out, err = _run(capsys, "predict", "--model", tmp_path / "m.npz", "--input", test, "--json")
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
    code, out, err = _run(capsys, "train", "--train", tmp_path / "train.dat", "--test", tmp_path / "test.dat",
                          "--c", "10", *CLI_FAST)
    assert code == 0, err
    result = json.loads(out)
    assert result["r2"] > 0.6 and result["loss"] == "epsilon" and "accuracy" not in result
    code, out, err = _run(capsys, "train", "--train", tmp_path / "train.dat", "--loss", "hinge", *CLI_FAST)
    assert code == 2 and "does not fit a regression task" in err
    code, out, err = _run(capsys, "train", "--train", tmp_path / "train.dat", "--positive-cost", "2", *CLI_FAST)
    assert code == 2 and "--positive-cost is for classification" in err


def test_cli_multiclass_logistic_ovr(tmp_path, capsys):
    from medlda.data.readers import write_bow

    corpus, _ = make_supervised_corpus(600, 6, words_per_topic=20, n_classes=3, random_state=2)
    train = write_bow(corpus.subset(np.arange(450)), tmp_path / "tr.txt")
    test = write_bow(corpus.subset(np.arange(450, 600)), tmp_path / "te.txt")
    code, out, err = _run(capsys, "train", "--train", train, "--test", test, "--loss", "logistic",
                          "--strategy", "ovr", "--c", "10", "--n-jobs", "1", *CLI_FAST)
    assert code == 0, err
    result = json.loads(out)
    assert result["accuracy"] > 0.75 and result["strategy"] == "ovr" and result["loss"] == "logistic"


def test_lda_c_collection_archive_and_errors(tmp_path):
    from files import make_tar
    from medlda.exceptions import InputFormatError
    from medlda.data.readers import guess_format, read_corpus

    files = {"hotel/voc.dat": "1 good\n2 bad\n3 room\n", "hotel/train_review.dat": "2 0.5 1:2 3:1\n1 -0.9 2:4\n",
             "hotel/test_review.dat": "1 0.1 3:2\n"}
    archive = make_tar(tmp_path / "h.tar.gz", files)
    assert guess_format(archive) == "ldac"
    train = read_corpus(archive, subset="train")
    assert train.n_docs == 2 and list(train.vocabulary) == ["good", "bad", "room"]
    assert np.allclose(train.real_labels(), [0.5, -0.9])
    test = read_corpus(archive, subset="test", vocabulary=train.vocabulary)
    assert list(test.word_ids) == [2, 2]
    bad = make_tar(tmp_path / "bad.tar.gz", dict(files, **{"hotel/test_review.dat": "2 0.1 3:2\n"}))
    with pytest.raises(InputFormatError, match=r"bad.tar.gz:hotel/test_review.dat, line 1: N_TERMS"):
        read_corpus(bad, subset="test")


def test_reuters_sgml_parsing(tmp_path):
    from files import make_tar
    from medlda.data.readers import guess_format, read_corpus

    def doc(newid, split, topics, body, flag="YES"):
        ds = "".join(f"<D>{t}</D>" for t in topics)
        return (f'<REUTERS TOPICS="{flag}" LEWISSPLIT="{split}" CGISPLIT="X" OLDID="1" NEWID="{newid}">\n'
                f"<TOPICS>{ds}</TOPICS>\n<TEXT><TITLE>T{newid} &amp; more</TITLE><BODY>{body}</BODY></TEXT>\n</REUTERS>\n")
    sgm = (doc(1, "TRAIN", ["grain", "wheat"], "wheat grain harvest harvest") + doc(2, "TRAIN", ["oil"], "crude oil")
           + doc(3, "TEST", ["grain"], "grain harvest") + doc(4, "TEST", ["oil", "gold"], "crude oil gold")
           + doc(5, "TRAIN", ["grain"], "skipped", flag="NO") + doc(6, "NOT-USED", ["grain"], "skipped"))
    archive = make_tar(tmp_path / "r.tar.gz", {"reuters21578/reut2-000.sgm": sgm})
    assert guess_format(archive) == "reuters"
    from medlda.data.text import make_vectorizer
    train = read_corpus(archive, subset="train", vectorizer=make_vectorizer(news=False, min_df=1))
    assert train.labels == [("grain",), ("oil",)]  # wheat and gold are not in both splits
    assert "harvest" in set(train.vocabulary) and "skipped" not in set(train.vocabulary)
    test = read_corpus(archive, subset="test", vocabulary=train.vocabulary)
    assert test.labels == [("grain",), ("oil",)]


def test_reuters_unprocessed_text_is_kept():
    """<TEXT TYPE="UNPROC"> documents have no TITLE or BODY: their text is the TEXT element's."""
    from medlda.data.readers.reuters import parse_sgml

    sgm = ('<REUTERS TOPICS="YES" LEWISSPLIT="TRAIN" CGISPLIT="X" OLDID="1" NEWID="7">\n'
           '<TOPICS><D>money-supply</D></TOPICS>\n<UNKNOWN>&#5;RM</UNKNOWN>\n'
           '<TEXT TYPE="UNPROC">&#2;\nFEDERAL RESERVE WEEKLY REPORT\n Bank borrowings...680 &amp; more\n</TEXT>\n'
           '</REUTERS>\n')
    (doc,) = parse_sgml(sgm)
    assert doc.topics == ("money-supply",)
    assert "FEDERAL RESERVE WEEKLY REPORT" in doc.text and "borrowings...680 & more" in doc.text
    assert "RM" not in doc.text  # the UNKNOWN routing block is not text


@pytest.mark.slow
def test_benchmark_archives_load(shared_data):
    from medlda.data.readers import read_corpus

    hotel = read_corpus(shared_data / "hotel-reviews.tar.gz", subset="train")
    assert (hotel.n_docs, hotel.n_words) == (2500, 12000)
    assert set(np.round(hotel.real_labels(), 4)) == {-0.9575, -0.2644, 0.1411, 0.4288, 0.6519}
    from medlda.data.readers.reuters import modapte_subset
    texts, labels, categories, _ = modapte_subset(shared_data / "reuters21578.tar.gz", "test")
    assert (len(texts), len(categories)) == (3019, 90)
