"""medlda train --optimize-alpha: the model file keeps the learned prior, and predict uses it."""

from __future__ import annotations

import json

import numpy as np
from cli_helpers import FAST, run

from medlda.io.model_file import load_model


def test_train_with_a_learned_alpha_saves_it(capsys, tmp_path, bow_files):
    train, test = bow_files
    model = tmp_path / "model.npz"
    code, _, err = run(capsys, "train", "--train", train, "--optimize-alpha", "--out", model, "--quiet", *FAST)
    assert code == 0, err
    loaded = load_model(model)
    assert loaded.optimize_alpha is True and loaded.alpha_.shape == (5,)
    assert np.all(loaded.alpha_ > 0) and not np.allclose(loaded.alpha_, loaded.alpha_[0])
    code, out, err = run(capsys, "predict", "--model", model, "--input", test, "--json")
    assert code == 0, err
    assert json.loads(out)["accuracy"] > 0.85
