"""medlda plot end to end: each kind of figure written to a file, and what it refuses."""

from __future__ import annotations

import numpy as np
import pytest
from cli_helpers import FAST, run

from medlda.cli import main
from medlda.data.readers import write_bow
from medlda.data.synthetic import make_multilabel_corpus

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_cli_plot_writes_each_kind(capsys, tmp_path, three_classes):
    pytest.importorskip("matplotlib")
    model, train, test, y_test = three_classes
    path = tmp_path / "m.npz"
    model.save(path)
    test = test.subset(np.arange(test.n_docs))  # a copy: the fixture is shared
    test.labels = [(str(v),) for v in y_test]
    data = write_bow(test, tmp_path / "test.txt")
    for kind, extra in [("trace", []), ("topics", ["--topic-ids", "0,2"]), ("class-topics", []),
                        ("map", ["--input", data, "--method", "pca"]), ("confusion", ["--input", data]),
                        ("explain", ["--input", data, "--doc", "3", "--n-topics", "2"])]:
        out = tmp_path / f"{kind}.png"
        code = main(["plot", "--model", str(path), "--kind", kind, "--out", str(out), *map(str, extra)])
        err = capsys.readouterr().err
        assert code == 0, err
        assert out.read_bytes()[:8] == PNG_MAGIC and f"figure written to {out}" in err
    for argv, message in [(["--kind", "map"], "--kind map needs --input"),
                          (["--kind", "trace", "--input", str(data)], "draws the model alone"),
                          (["--kind", "predictions", "--input", str(data)], "needs a MedLDARegressor"),
                          (["--kind", "topics", "--topic-ids", "x"], "'x' is not a topic id"),
                          (["--kind", "trace", "--dpi", "0"], "--dpi must be positive"),
                          (["--kind", "explain", "--input", str(data), "--doc", "500"], "no document 'line 500'"),
                          (["--kind", "trace", "--out", str(tmp_path / "f.doc")], "unknown figure format")]:
        out = [] if "--out" in argv else ["--out", str(tmp_path / "bad.png")]
        code = main(["plot", "--model", str(path), *argv, *out])
        assert code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "bad.png").exists() and not (tmp_path / "f.doc").exists()


def _multilabel_model(capsys, tmp_path):
    """A multi-label model and its training data (bow)."""
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


def test_plot_doc_counts_documents_as_predict_ids_names_them(capsys, tmp_path, three_classes, monkeypatch):
    """--doc N is 'line N' of the file, as predict --ids prints it, blank lines counted; by name too."""
    pytest.importorskip("matplotlib")
    from medlda.reporting import plots

    model, _, test, y_test = three_classes
    path = tmp_path / "m.npz"
    model.save(path)
    test = test.subset(np.arange(6))  # a copy: the fixture is shared
    test.labels = [(str(v),) for v in y_test[:6]]
    lines = write_bow(test, tmp_path / "t.txt").read_text().splitlines()
    data = tmp_path / "gap.txt"
    data.write_text("\n".join([lines[0], "", *lines[1:]]) + "\n")  # line 2 empty: skipped
    titles = []
    monkeypatch.setattr(plots, "save_figure",
                        lambda fig, out, dpi=150: titles.append(fig.axes[0].get_title(loc="left")))
    base = ["plot", "--model", path, "--kind", "explain", "--input", data, "--out", tmp_path / "e.png"]
    for doc in ("3", "line 3"):
        code, _, err = run(capsys, *base, "--doc", doc)
        assert code == 0, err
    code, out, err = run(capsys, "predict", "--model", path, "--input", data, "--ids", "--quiet")
    assert code == 0, err
    predicted = dict(line.split("\t") for line in out.splitlines())
    assert len(titles) == 2 and titles[0] == titles[1]
    assert titles[0].startswith(f"line 3: predicted {predicted['line 3']}, ahead of ")
    code, _, err = run(capsys, *base, "--doc", "2")
    assert code == 2 and "no document 'line 2'" in err and "empty documents are skipped" in err
