"""medlda report end to end: the page written from a saved model and labeled documents, and the
outputs it refuses."""

from __future__ import annotations

import numpy as np
import pytest
from cli_helpers import run

from medlda.data.readers import write_bow


@pytest.mark.slow
def test_cli_report_writes_one_page_and_never_over_an_input(capsys, tmp_path, three_classes):
    pytest.importorskip("matplotlib")
    model, _, test, y_test = three_classes
    path = tmp_path / "m.npz"
    model.save(path)
    test = test.subset(np.arange(test.n_docs))  # a copy: the fixture is shared
    test.labels = [(str(v),) for v in y_test]
    data = write_bow(test, tmp_path / "test.txt")
    out = tmp_path / "report.html"
    code, _, err = run(capsys, "report", "--model", path, "--input", data, "--out", out, "--method", "pca")
    assert code == 0, err
    assert f"report written to {out}" in err
    page = out.read_text()
    for heading in ("Topics that weigh most for each class", "Document map", "Confusion matrix", "Training curves"):
        assert f"<h2>{heading}</h2>" in page
    assert f"documents: {test.n_docs:,} from {data}" in page
    for target, flag in ((data, "--input"), (path, "--model")):
        before = target.read_bytes()
        code, _, err = run(capsys, "report", "--model", path, "--input", data, "--out", target)
        assert code != 0 and f"is the file {flag} reads" in err
        assert target.read_bytes() == before
    code, _, err = run(capsys, "report", "--model", path, "--out", tmp_path / "no-such-dir" / "r.html")
    assert code != 0 and "does not exist" in err
