"""Outputs that would destroy something: an output naming an input of the same command (by any
name), two outputs naming one file, leftover temporary files of killed writes, a full disk or a
refused permission, and label names that are not UTF-8. Each ends in one line on stderr (exit 2)
with every input unchanged, or in a correct file."""

from __future__ import annotations

import errno
import io
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from cli_helpers import FAST, run

from medlda.cli import main
from medlda.io import atomic
from medlda.io.atomic import WriteError, atomic_write, is_leftover_name, remove_leftovers


def _one_line_error(code: int, err: str) -> str:
    err = "".join(line for line in err.splitlines(keepends=True) if not line.endswith(" ...\n"))  # the stages
    assert code == 2 and err.startswith("medlda: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


@pytest.fixture
def inputs(tmp_path, saved_model, bow_files):
    """Copies of a saved model and of the test documents, and their bytes, in a fresh folder."""
    model, docs = tmp_path / "m.npz", tmp_path / "t.txt"
    model.write_bytes(saved_model.read_bytes())
    docs.write_bytes(bow_files[1].read_bytes())
    return model, docs, {model: model.read_bytes(), docs: docs.read_bytes()}


def _unchanged(before: dict) -> bool:
    return all(path.read_bytes() == data for path, data in before.items())


@pytest.mark.parametrize("command", ["predict", "transform"])
@pytest.mark.parametrize("target", ["model", "docs", "model by a relative name", "docs by a hard link",
                                    "model by a symbolic link"])
def test_an_output_naming_an_input_is_refused(capsys, inputs, monkeypatch, command, target):
    model, docs, before = inputs
    monkeypatch.chdir(model.parent)
    out = {"model": model, "docs": docs, "model by a relative name": "./sub/../m.npz"}.get(target)
    (model.parent / "sub").mkdir()
    if target == "docs by a hard link":
        out = model.parent / "alias.txt"
        os.link(docs, out)
    elif target == "model by a symbolic link":
        out = model.parent / "link.npz"
        out.symlink_to(model)
    code, _, err = run(capsys, command, "--model", model, "--input", docs, "--out", out)
    err = _one_line_error(code, err)
    flag = "--input" if "docs" in target else "--model"
    assert f"is the file {flag} reads; writing it would overwrite that input" in err
    assert _unchanged(before)


def test_train_refuses_outputs_over_its_data_or_each_other(capsys, tmp_path, bow_files):
    data, test = tmp_path / "d.txt", tmp_path / "t.txt"
    data.write_bytes(bow_files[0].read_bytes())
    test.write_bytes(bow_files[1].read_bytes())
    before = {data: data.read_bytes(), test: test.read_bytes()}
    cases = [(["--out", data], "--out"), (["--trace", data], "--trace"), (["--checkpoint", data], "--checkpoint"),
             (["--test", test, "--out", test], "--out")]
    for flags, flag in cases:
        code, _, err = run(capsys, "train", "--train", data, *flags, *FAST)
        assert "reads; writing it would overwrite that input" in _one_line_error(code, err) and flag in err
    model = tmp_path / "m.npz"
    code, _, err = run(capsys, "train", "--train", data, "--out", model, "--trace", model, *FAST)
    assert "--trace and --out name the same file" in _one_line_error(code, err)
    same = tmp_path / "x" / ".." / "m.npz"
    code, _, err = run(capsys, "train", "--train", data, "--out", model, "--checkpoint", same, *FAST)
    assert "--checkpoint and --out name the same file" in _one_line_error(code, err)
    assert _unchanged(before) and not model.exists()


def test_an_output_inside_an_input_folder_is_refused(capsys, tmp_path):
    folder = tmp_path / "news"
    for label in ("pos", "neg"):
        (folder / label).mkdir(parents=True)
        (folder / label / "a.txt").write_text("apple pear apple\n")
    code, _, err = run(capsys, "train", "--train", folder, "--out", folder / "pos" / "m.npz", *FAST)
    assert "lies inside the folder --train" in _one_line_error(code, err)
    assert sorted(p.name for p in (folder / "pos").iterdir()) == ["a.txt"]


def test_plot_refuses_to_draw_over_its_model(capsys, inputs):
    pytest.importorskip("matplotlib")
    model, _, before = inputs
    code, _, err = run(capsys, "plot", "--model", model, "--kind", "topics", "--out", model)
    assert "is the file --model reads" in _one_line_error(code, err) and _unchanged(before)


# -- leftovers of killed writes -------------------------------------------------------------
def test_only_stale_temporary_files_of_the_target_are_removed(tmp_path):
    """Of files that look like leftovers, only unlocked regular files of this target's exact
    pattern, old enough, are removed: never a recent one, a locked one (a live writer), a link, a
    folder, another target's or a name of another pattern."""
    target = tmp_path / "m.npz"
    old = time.time() - 3600

    def made(name: str, age: float | None = old) -> str:
        (tmp_path / name).write_text("partial")
        if age is not None:
            os.utime(tmp_path / name, (age, age))
        return name

    stale = [made(".m.npz.abcd1234.tmp"), made(".m.npz.q_9z0000.tmp")]
    kept = [made(".m.npz.rcnt5678.tmp", age=None), made(".m.npz.abc.tmp"), made(".m.npz.abcd12345.tmp"),
            made(".other.npz.abcd1234.tmp"), made("m.npz.abcd1234.tmp"), made(".m.npz.ABCD1234.tmp"),
            made(".m.npz.abcd1234.tmp.bak"), made("keep.txt")]
    locked = made(".m.npz.lock0000.tmp")
    (tmp_path / ".m.npz.dir00000.tmp").mkdir()
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("not ours")
    (tmp_path / ".m.npz.link0000.tmp").symlink_to(elsewhere)
    os.utime(tmp_path / ".m.npz.link0000.tmp", (old, old), follow_symlinks=False)
    kept += [locked, ".m.npz.dir00000.tmp", ".m.npz.link0000.tmp", "elsewhere.txt"]
    import fcntl

    with open(tmp_path / locked, "rb") as writer:
        fcntl.flock(writer.fileno(), fcntl.LOCK_EX)  # a writer of another process, alive
        atomic_write(target, lambda f: f.write(b"new"))
    assert target.read_bytes() == b"new"
    names = {p.name for p in tmp_path.iterdir()}
    assert not names & set(stale)
    assert set(kept) <= names and elsewhere.read_text() == "not ours"
    assert {n for n in names if is_leftover_name(n, "m.npz")} == {".m.npz.rcnt5678.tmp", locked,
                                                                  ".m.npz.dir00000.tmp", ".m.npz.link0000.tmp"}


_WRITER = textwrap.dedent("""
    import sys, time
    from medlda.io.atomic import atomic_write
    def slow(f):
        f.write(b"partial")
        f.flush()
        print("writing", flush=True)
        time.sleep(600)
    atomic_write(sys.argv[1], slow)
""")


@pytest.mark.slow
def test_a_killed_write_leaves_a_file_the_next_write_removes(tmp_path, monkeypatch):
    """A writer killed mid-write (kill -9) leaves its temporary file and the old file; the next
    write removes the temporary file (a live writer's is kept: the test above)."""
    target = tmp_path / "m.npz"
    target.write_bytes(b"old")
    writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(target)], stdout=subprocess.PIPE)
    try:
        assert writer.stdout.readline() == b"writing\n"
        temps = [p for p in tmp_path.iterdir() if is_leftover_name(p.name, "m.npz")]
        assert len(temps) == 1 and temps[0].read_bytes() == b"partial"
        assert remove_leftovers(target) == []  # locked: the writer is alive
        writer.send_signal(signal.SIGKILL)
        writer.wait()
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()
        writer.stdout.close()
    assert target.read_bytes() == b"old" and temps[0].exists()
    monkeypatch.setattr(atomic, "STALE_SECONDS", 0.0)  # the next run, long after the kill
    atomic_write(target, lambda f: f.write(b"new"))
    assert target.read_bytes() == b"new" and not temps[0].exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.npz"]


# -- full disks and refused permissions ------------------------------------------------------
@pytest.mark.parametrize("failure, reason", [(errno.ENOSPC, "No space left on device"),
                                             (errno.EDQUOT, "Disk quota exceeded"),
                                             (errno.EACCES, "Permission denied")])
def test_a_failed_write_is_one_line_and_keeps_the_old_file(capsys, inputs, monkeypatch, failure, reason):
    model, docs, before = inputs
    out = model.parent / "labels.txt"
    out.write_text("old labels\n")

    def refuse(fd):
        raise OSError(failure, os.strerror(failure))

    monkeypatch.setattr(os, "fsync", refuse)
    code, _, err = run(capsys, "predict", "--model", model, "--input", docs, "--out", out)
    err = _one_line_error(code, err)
    assert f"{out}: cannot write it ({reason}); the file that was there is unchanged" in err
    assert out.read_text() == "old labels\n" and _unchanged(before)
    assert not [p for p in out.parent.iterdir() if is_leftover_name(p.name, out.name)]


def test_a_failed_model_save_raises_write_error_naming_the_file(saved_model, tmp_path, monkeypatch):
    from medlda.io.model_file import load_model

    model = load_model(saved_model)
    path = tmp_path / "m.npz"

    def refuse(src, dst):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(WriteError, match=r"m\.npz: cannot write it \(Read-only file system\)$") as raised:
        model.save(path)
    assert isinstance(raised.value, OSError) and raised.value.errno == errno.EROFS
    assert not path.exists() and not list(tmp_path.iterdir())


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into any folder")
def test_a_folder_without_write_permission_is_named(capsys, inputs):
    model, docs, _ = inputs
    locked = model.parent / "ro"
    locked.mkdir(mode=0o500)
    code, _, err = run(capsys, "predict", "--model", model, "--input", docs, "--out", locked / "p.txt")
    assert "directory" in _one_line_error(code, err) and "is not writable" in err


# -- names that are not UTF-8 ----------------------------------------------------------------
def test_latin1_label_folders_train_predict_and_print(capsys, tmp_path, monkeypatch):
    """Label folders named in Latin-1 train, and predict writes and prints each label as the
    model holds it (a name kept as its bytes comes back as those bytes), never an encoding error."""
    from medlda.io.model_file import load_model

    root = tmp_path / "news"
    words = {b"caf\xe9": "coffee cup bean roast espresso milk", b"th\xe9": "tea leaf green pot kettle herbal"}
    for label, vocab in words.items():
        folder = os.path.join(os.fsencode(root), label)
        os.makedirs(folder)
        for i in range(12):
            text = " ".join(vocab.split()[j % 6] for j in range(i, i + 20))
            with open(os.path.join(folder, b"%d.txt" % i), "w") as fh:
                fh.write(text + "\n")
    model, out = tmp_path / "m.npz", tmp_path / "labels.txt"
    assert main([*map(str, ["train", "--train", root, "--out", model, "--quiet"]), *FAST]) == 0
    capsys.readouterr()
    names = {str(c).encode("utf-8", "surrogateescape") for c in load_model(model).classes_}
    assert sorted(n[:2] for n in names) == [b"ca", b"th"]
    assert main(["predict", "--model", str(model), "--input", str(root), "--out", str(out)]) == 0
    lines = out.read_bytes().splitlines()
    assert len(lines) == 24 and set(lines) <= names
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", write_through=True)
    monkeypatch.setattr(sys, "stdout", stdout)
    assert main(["predict", "--model", str(model), "--input", str(root)]) == 0
    assert sorted(stdout.buffer.getvalue().splitlines()) == sorted(lines)
    assert stdout.errors == "strict"  # restored after the command


def test_names_held_as_bytes_are_written_back_as_those_bytes(tmp_path):
    from medlda.io.atomic import write_lines

    write_lines(tmp_path / "p.txt", [os.fsdecode(b"caf\xe9"), "th\u00e9"])
    assert (tmp_path / "p.txt").read_bytes() == b"caf\xe9\nth\xc3\xa9\n"


def test_text_utf8_cannot_hold_is_an_error_naming_file_and_line(tmp_path):
    from medlda.exceptions import MedLDAError
    from medlda.io.atomic import write_lines

    with pytest.raises(MedLDAError, match=r"p\.txt, line 2: cannot be written as UTF-8"):
        write_lines(tmp_path / "p.txt", ["fine", "lone \ud800 surrogate"])
    assert not list(tmp_path.iterdir())
