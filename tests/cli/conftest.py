"""Fixtures of the command-line tests: a saved classifier and a table of scored texts."""

import numpy as np
import pytest
from cli_helpers import FAST

from medlda.cli import main


@pytest.fixture(scope="session")
def saved_model(tmp_path_factory, bow_files):
    """A classifier trained on ``bow_files`` and saved."""
    path = tmp_path_factory.mktemp("saved") / "m.npz"
    assert main(["train", "--train", str(bow_files[0]), "--out", str(path), "--quiet", *FAST]) == 0
    return path


@pytest.fixture(scope="session")
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
