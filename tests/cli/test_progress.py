"""What the command line shows while it works: a line per stage on a pipe, a clock or a bar on a
terminal (one that reports no width too), nothing with --quiet or --json, never on stdout."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import textwrap

import pytest
from cli_helpers import FAST, run

from medlda.engine.progress import FALLBACK_COLUMNS, FALLBACK_ROWS, bar_layout


def test_each_stage_is_a_line_on_stderr_of_a_pipe(capsys, tmp_path, bow_files):
    train, test = bow_files
    model = tmp_path / "m.npz"
    code, out, err = run(capsys, "train", "--train", train, "--test", test, "--out", model, *FAST)
    assert code == 0, err
    stages = [line for line in err.splitlines() if line.endswith(" ...")]
    assert stages == [f"reading {train} (bow) ...", f"reading {test} (bow) ...",
                      "training MedLDAClassifier: 5 topics, 30 iterations on 500 documents ...",
                      "predicting 200 test documents ..."]
    assert " ..." not in out
    code, out, err = run(capsys, "predict", "--model", model, "--input", test)
    assert code == 0 and [line for line in err.splitlines() if line.endswith(" ...")] == [
        f"reading {test} (bow) ...", "predicting 200 documents ..."]
    assert len(out.splitlines()) == 200


@pytest.mark.parametrize("flag", ["--quiet", "--json"])
def test_quiet_and_json_show_no_stage(capsys, tmp_path, bow_files, flag):
    train, test = bow_files
    code, out, err = run(capsys, "train", "--train", train, "--test", test, *FAST, flag)
    assert code == 0 and " ..." not in err and " ..." not in out
    if flag == "--json":
        json.loads(out)


def _on_terminal(code: str, columns: int) -> str:
    """What ``code`` writes to a terminal ``columns`` wide (0: one that reports no width)."""
    import fcntl
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24 if columns else 0, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], stdin=subprocess.DEVNULL,
                          stdout=follower, stderr=follower, env=env, timeout=120)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert done.returncode == 0
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.slow
@pytest.mark.parametrize("columns", [0, 100])
def test_a_terminal_shows_a_clock_and_bars_whatever_width_it_reports(columns):
    shown = _on_terminal("""
        import argparse, sys, time
        from tqdm.auto import tqdm
        from medlda.cli.progress import stage
        from medlda.engine.progress import ProgressBar, bar_layout
        print(bar_layout(), file=sys.stderr)
        with stage(argparse.Namespace(), "reading x.tar.gz"):
            time.sleep(1.2)
        bar = ProgressBar(3, desc="MedLDAClassifier")
        bar._bar.update(3)
        bar.close()
        """, columns)
    layout = {"ncols": FALLBACK_COLUMNS, "nrows": FALLBACK_ROWS} if columns == 0 else {"dynamic_ncols": True}
    assert str(layout) in shown
    assert "reading x.tar.gz ... 00:01" in shown and "reading x.tar.gz ... done in 00:01" in shown
    assert "MedLDAClassifier: 100%" in shown and "3/3" in shown


def test_a_bar_off_a_terminal_keeps_tqdms_own_width():
    assert bar_layout(open(os.devnull, "w")) == {"dynamic_ncols": True}
