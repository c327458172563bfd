"""medlda demo end to end, from the function and from the installed module."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from cli_helpers import run, subparser


def test_demo_prints_accuracy_and_topics(capsys):
    code, out, _ = run(capsys, "demo", "--docs", "500", "--topics", "4", "--iters", "30")
    assert code == 0
    assert "test accuracy:" in out and "topic 3 (" in out and "class 1:" in out
    acc = float(out.split("\ntest accuracy:")[1].split()[0])
    assert acc > 0.8


@pytest.mark.slow
def test_installed_entry_point_runs():
    done = subprocess.run([sys.executable, "-m", "medlda.cli", "demo", "--docs", "300", "--topics", "3",
                           "--iters", "10", "--json"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "accuracy" in json.loads(done.stdout)


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
    assert stop.value.code == 2 and f"argument {flag}" in err and f": {match}" in err and "Traceback" not in err


def test_every_demo_option_says_its_default():
    for action in subparser("demo")._actions:
        if action.dest not in ("help", "json", "quiet"):
            assert action.help and "default" in action.help, action.dest
            assert str(action.default) in action.help, action.dest
