"""Every example in README.md and docs/**/*.md runs as written.

What is an example:
- a fenced block whose info string is ``bash``, ``sh``, ``shell`` or ``console``: each command in
  it (lines joined at a trailing backslash; a ``console`` block's commands are its ``$ `` lines,
  the rest being their output; ``#`` comments left to the shell) runs with bash;
- an inline code span in prose that starts with ``medlda `` or ``python3 -m medlda`` and gives a
  flag (``--x``), e.g. `medlda info --model model.npz`: a command too, unless it is a template
  (holds ``|``, ``{``, ``[``, ``...`` or a bare upper-case placeholder such as ``FILE``);
- a fenced ``python`` block: the python blocks of one file run in order in one namespace, as a
  reader pastes them into one session (the README's plotting block uses its pipeline).

A block is left out when the line before its opening fence is ``<!-- no-run: why -->`` (for what
cannot run here: a cluster, hours of benchmark); the test reports each such block with its reason.
Steps that set up the environment (``pip install``, running the test suite itself) are left out
of a command chain, the rest of it runs.

How they run: all of a file's examples in one temporary folder, in the order the file gives them
(a later command reads the model an earlier one saved), with the benchmark archives of
``../shared/data`` linked into it under their own names and ``$DATA`` naming that folder, and
small fixture files the examples name (``docs.txt``, ``new.txt``, ``test.txt``, ``labeled.txt``,
``tickets.csv``, ``new.jsonl``: see ``_write_fixtures``). Examples that name an archive are
skipped with a reason when the shared data is absent.

Quick: OpenMP runs on one thread (``OMP_NUM_THREADS=1``: on two shared cores t-SNE's threads
wait on each other for minutes); a plain ``medlda ...`` command (no shell syntax) runs in this
process as ``medlda.cli.main(argv)``, sparing a start-up per example, anything else with bash; and
the training iterations and the inference sweeps for test documents are cut to
``MEDLDA_EXAMPLE_ITERS`` (default 2): ``--iters``, ``--infer-burn`` and ``--infer-avg`` of
``medlda train`` (``--iters`` of ``medlda demo``) replaced or added, ``max_iter``,
``n_infer_burn`` and ``n_infer_avg`` given to the estimators a python block builds. Nothing else
is changed. ``MEDLDA_EXAMPLE_ITERS=0`` runs every example with its own settings.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
ARCHIVES = ("20news-bydate.tar.gz", "reuters21578.tar.gz", "hotel-reviews.tar.gz")
SHELL = {"bash", "sh", "shell", "console"}
NO_RUN = re.compile(r"<!--\s*no-run\b:?\s*(.*?)\s*-->")
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")
SETUP = re.compile(r"^(python3? -m )?(pip|pytest)\b")
TEMPLATE = re.compile(r"[|{}\[\]]|\.\.\.|(?<![\w-])[A-Z]{2,}\b")
ITERS = int(os.environ.get("MEDLDA_EXAMPLE_ITERS", "2"))
TIMEOUT = 600


@dataclass
class Example:
    """One example: ``kind`` 'shell' or 'python', its text, where it is (``file:line``), and
    the reason it is not run (None: it runs)."""

    kind: str
    text: str
    where: str
    skip: str | None = None


def doc_files() -> list[Path]:
    """README.md and every Markdown file under docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def extract(path: Path) -> list[Example]:
    """The examples of one Markdown file, in order (see the module's docstring)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    name = path.relative_to(ROOT)
    examples, i, prose = [], 0, []
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            prose.append((i + 1, lines[i]))
            i += 1
            continue
        examples.extend(_inline(prose, name))
        prose = []
        indent, marker, info = fence.groups()
        end = i + 1
        while end < len(lines) and not lines[end].strip().startswith(marker):
            end += 1
        body = [line[len(indent):] if line.startswith(indent) else line.lstrip() for line in lines[i + 1:end]]
        previous = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        no_run = NO_RUN.search(previous)
        skip = None if no_run is None else (no_run.group(1) or "marked no-run")
        where = f"{name}:{i + 1}"
        if info.lower() in SHELL:
            examples.extend(Example("shell", cmd, f"{name}:{n}", skip)
                            for n, cmd in _commands(body, i + 2, info.lower() == "console"))
        elif info.lower() in ("python", "py", "python3"):
            examples.append(Example("python", "\n".join(body), where, skip))
        i = end + 1
    examples.extend(_inline(prose, name))
    return examples


def _commands(body: list[str], first: int, console: bool) -> list[tuple[int, str]]:
    """The commands of a shell block whose first line is line ``first`` of its file, with their
    lines: continuation lines joined; for a console block only the ``$``-prompted lines; a compound
    statement (``for ... done``) kept whole."""
    commands, current, start = [], "", 0
    for n, line in enumerate(body, first):
        if console:
            if not current and not line.startswith("$ "):
                continue
            line = line[2:] if line.startswith("$ ") else line
        if not current:
            if not line.strip() or line.strip().startswith("#"):
                continue
            start = n
        piece = line.strip() if current.endswith(" ") else line.rstrip()
        if piece.endswith("\\"):
            current += piece.rstrip("\\").rstrip() + " "
            continue
        current += piece
        words = re.findall(r"\w+", "\n".join(part.split("#")[0] for part in current.split("\n")))
        opened = sum(w in ("for", "while", "until", "if", "case") for w in words)
        if opened > sum(w in ("done", "fi", "esac") for w in words):
            current += "\n"
            continue
        commands.append((start, current.strip()))
        current = ""
    return commands


def _inline(prose: list[tuple[int, str]], name: Path) -> list[Example]:
    """Commands in inline code spans of the prose between fences (a span may cross a line break)."""
    text = "\n".join(line for _, line in prose)
    found = []
    for match in re.finditer(r"`([^`]+)`", text):
        span = " ".join(match.group(1).split())
        if not re.match(r"(python3? -m )?medlda \w", span) or " --" not in span or TEMPLATE.search(span):
            continue
        line = prose[text.count("\n", 0, match.start())][0]
        found.append(Example("shell", span, f"{name}:{line}"))
    return found


def runnable(command: str) -> str:
    """``command`` without its setup steps (pip, pytest) and with the training iterations cut to
    ``ITERS``; '' when nothing is left."""
    parts = [p.strip() for p in re.split(r"&&", command)]
    parts = [p for p in parts if p and not SETUP.match(p)]
    return " && ".join(_fewer_iterations(p) for p in parts)


QUICK_FLAGS = {"train": ("--iters", "--infer-burn", "--infer-avg"), "demo": ("--iters",)}
QUICK_PARAMS = ("max_iter", "n_infer_burn", "n_infer_avg")


def _fewer_iterations(command: str) -> str:
    """``medlda train`` and ``demo`` with their training iterations (and train's inference sweeps
    for test documents) set to ``ITERS``."""
    which = re.match(r"(python3? -m )?medlda (train|demo)\b", command)
    if ITERS <= 0 or not which:
        return command
    comment = ""
    if " #" in command:
        command, comment = command.split(" #", 1)
        comment = "  #" + comment
    command = re.sub(r"\s--(iters|max-iter|infer-burn|infer-avg)[ =]\d+", "", command.rstrip())
    return f"{command} " + " ".join(f"{flag} {ITERS}" for flag in QUICK_FLAGS[which.group(2)]) + comment


def python_source(text: str) -> str:
    """A python block with ``max_iter``, ``n_infer_burn`` and ``n_infer_avg`` set to ``ITERS`` in
    each estimator it builds (their own values replaced)."""
    if ITERS <= 0:
        return text
    out, pos = [], 0
    for match in re.finditer(r"\b(MedLDAClassifier|MedLDARegressor|LDA)\(", text):
        if match.start() < pos:
            continue
        depth, end = 1, match.end()
        while end < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        args = text[match.end():end - 1]
        for param in QUICK_PARAMS:
            if re.search(rf"\b{param}\s*=", args):
                args = re.sub(rf"\b{param}\s*=\s*\d+", f"{param}={ITERS}", args)
            else:
                args = f"{param}={ITERS}" + (", " + args if args.strip() else "")
        out.append(text[pos:match.end()] + args + ")")
        pos = end
    return "".join(out) + text[pos:]


def needs_data(text: str) -> bool:
    return "$DATA" in text or any(name in text for name in ARCHIVES)


WORDS = {
    "alt.atheism": "god atheism atheist belief evidence religion exist reason moral argument morality",
    "talk.religion.misc": "jesus christian bible church christ faith people koresh truth scripture",
}


def _write_fixtures(folder: Path) -> None:
    """The user files the examples name, small: raw texts on the binary 20 Newsgroups classes'
    words (``docs.txt``, ``test.txt``) and labeled bag-of-words documents of those classes
    (``labeled.txt``); a table of support tickets (``tickets.csv``, the text in ``body``, the queue
    in ``queue``) and new tickets to label (``new.jsonl``, ``new.txt``)."""
    import json

    import numpy as np

    rng = np.random.default_rng(0)
    vocab = {c: w.split() for c, w in WORDS.items()}

    def text(label: str, n: int = 12) -> str:
        return " ".join(rng.choice(vocab[label], n))

    labels = list(WORDS) * 30
    (folder / "docs.txt").write_text("".join(text(c) + "\n" for c in labels))
    (folder / "test.txt").write_text("".join(text(c) + "\n" for c in labels[:20]))
    (folder / "labeled.txt").write_text("".join(
        f"{c} " + " ".join(f"{w}:{k}" for w, k in zip(*np.unique(text(c).split(), return_counts=True))) + "\n"
        for c in labels[:20]))
    queues = {"billing": "invoice payment refund charge card account bill price",
              "technical": "error crash login password server install update screen"}
    rows = ["body,queue"] + [f"{' '.join(rng.choice(w.split(), 10))},{q}" for q, w in queues.items() for _ in range(25)]
    (folder / "tickets.csv").write_text("\n".join(rows) + "\n")
    (folder / "new.txt").write_text("".join(" ".join(rng.choice(w.split(), 8)) + "\n" for w in queues.values()))
    (folder / "new.jsonl").write_text("".join(
        json.dumps({"body": " ".join(rng.choice(w.split(), 8))}) + "\n" for w in queues.values()))


def _workdir(tmp_path: Path) -> Path:
    if SHARED_DATA.is_dir():
        for archive in SHARED_DATA.iterdir():
            if archive.name in ARCHIVES:
                (tmp_path / archive.name).symlink_to(archive)
    _write_fixtures(tmp_path)
    return tmp_path


def _env(folder: Path) -> dict:
    env = dict(os.environ, DATA=str(SHARED_DATA), MPLBACKEND="Agg", RAY_USAGE_STATS_ENABLED="0", OMP_NUM_THREADS="1")
    scripts = str(Path(sys.executable).parent)  # the `medlda` script beside this python
    env["PATH"] = scripts + os.pathsep + env.get("PATH", "")
    return env


def one_openmp_thread():
    """OpenMP (t-SNE's maps) on one thread: on two shared cores its spinning threads wait on each
    other for minutes."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(1, user_api="openmp")


def _run_command(command: str, folder: Path, where: str, capsys) -> None:
    """A plain ``medlda ...`` command (no shell syntax: variables, pipes, redirections, chains)
    runs in this process, as ``medlda.cli.main(argv)`` in ``folder``, which spares a start-up
    per example; anything else runs with bash, and so does a command that starts a Ray cluster
    (which is the process's own)."""
    argv = shlex.split(command, comments=True)
    lead = 3 if argv[:3] in (["python3", "-m", "medlda"], ["python", "-m", "medlda"]) else int(argv[:1] == ["medlda"])
    if not lead or re.search(r"[$|<>;&`]", command.split(" #")[0]) or "ray" in argv:
        return _run_shell(command, folder, where)
    from medlda.cli import main

    cwd = os.getcwd()
    os.chdir(folder)
    try:
        with one_openmp_thread():
            code = main(argv[lead:])
    except SystemExit as stop:  # argparse's usage errors
        code = stop.code
    finally:
        os.chdir(cwd)
    out, err = capsys.readouterr()
    if code != 0:
        pytest.fail(f"{where}: example failed (exit {code}):\n$ {command}\n--- stdout\n{out[-3000:]}\n"
                    f"--- stderr\n{err[-3000:]}", pytrace=False)


def _run_shell(command: str, folder: Path, where: str) -> None:
    done = subprocess.run(["bash", "-c", "set -eo pipefail\n" + command], cwd=folder, env=_env(folder),
                          capture_output=True, text=True, timeout=TIMEOUT)
    if done.returncode != 0:
        pytest.fail(f"{where}: example failed (exit {done.returncode}):\n$ {command}\n"
                    f"--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}", pytrace=False)


def _run_python(source: str, namespace: dict, folder: Path, where: str) -> None:
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        with one_openmp_thread():
            exec(compile(source, where, "exec"), namespace)
    except Exception as exc:  # noqa: BLE001 - reported with the example
        pytest.fail(f"{where}: python example failed: {type(exc).__name__}: {exc}\n{source}", pytrace=False)
    finally:
        os.chdir(cwd)


FILES = doc_files()


@pytest.mark.slow
@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_examples_run(path, tmp_path, monkeypatch, capsys):
    """Run the file's examples in order; report those left out and why."""
    examples = extract(path)
    if not any(e.skip is None for e in examples):
        pytest.skip(f"{path.name}: no runnable example")
    if not SHARED_DATA.is_dir() and any(needs_data(e.text) for e in examples if e.skip is None):
        pytest.skip(f"benchmark data not found at {SHARED_DATA}: the examples of {path.name} read it")
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    folder = _workdir(tmp_path)
    namespace: dict = {"__name__": "__example__"}
    left_out, timings = [], []
    for example in examples:
        if example.skip is not None:
            left_out.append(f"{example.where}: {example.skip}")
            continue
        start = time.perf_counter()
        if example.kind == "python":
            _run_python(python_source(example.text), namespace, folder, example.where)
        elif command := runnable(example.text):
            _run_command(command, folder, example.where, capsys)
        timings.append(f"{time.perf_counter() - start:6.1f} s  {example.where}")
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")
    print(*timings, *(f"not run: {line}" for line in left_out), sep="\n")  # shown with -rP


def test_extractor_finds_commands_and_markers(tmp_path):
    """The extractor: continuation lines, console prompts, inline spans, templates, no-run markers,
    setup steps and the iteration cut."""
    doc = tmp_path / "x.md"
    doc.write_text(
        "Run `medlda info --model m.npz` or `medlda plot --kind a|b`, and `medlda topics`.\n\n"
        "```bash\nmedlda train --train a.txt \\\n    --iters 80 --out m.npz  # save\n# a comment\n"
        "pip install -e . && medlda demo\n```\n\n"
        "<!-- no-run: needs a cluster -->\n```sh\nmedlda train --backend ray\n```\n\n"
        "```console\n$ medlda info --model m.npz\nestimator: MedLDAClassifier\n```\n\n"
        "```python\nm = LDA(n_components=3, max_iter=50)\n```\n", encoding="utf-8")
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        found = extract(doc)
    finally:
        ROOT = saved
    assert [(e.kind, e.text, e.skip) for e in found] == [
        ("shell", "medlda info --model m.npz", None),
        ("shell", "medlda train --train a.txt --iters 80 --out m.npz  # save", None),
        ("shell", "pip install -e . && medlda demo", None),
        ("shell", "medlda train --backend ray", "needs a cluster"),
        ("shell", "medlda info --model m.npz", None),
        ("python", "m = LDA(n_components=3, max_iter=50)", None),
    ]
    assert found[1].where == "x.md:4"
    if ITERS > 0:
        assert runnable(found[1].text) == (f"medlda train --train a.txt --out m.npz --iters {ITERS} "
                                           f"--infer-burn {ITERS} --infer-avg {ITERS}  # save")
        assert runnable(found[2].text) == f"medlda demo --iters {ITERS}"
        quick = f"n_infer_avg={ITERS}, n_infer_burn={ITERS}"
        assert python_source(found[-1].text) == f"m = LDA({quick}, n_components=3, max_iter={ITERS})"
        assert python_source("LDA()") == f"LDA({quick}, max_iter={ITERS})"


def _flags_known(command: str) -> list[str]:
    """The flags of a command left out of the runs that its program does not define: a benchmark
    script's (its source, and the modules of benchmarks/ it imports, name each one) or a medlda
    sub-command's (its parser)."""
    used = set(re.findall(r"(?<![\w-])--[a-z][\w-]*", re.sub(r"(^|\s)#.*", "", command)))
    script = re.match(r"python3? (benchmarks/\w+\.py)", command.strip())
    if script:
        path = ROOT / script.group(1)
        source = path.read_text(encoding="utf-8")
        for name in re.findall(r"^from (\w+) import|^import (\w+)", source, re.M):
            local = ROOT / "benchmarks" / f"{name[0] or name[1]}.py"
            if local.is_file():
                source += local.read_text(encoding="utf-8")
        return sorted(flag for flag in used if f'"{flag}"' not in source)
    sub = re.match(r"(?:python3? -m )?medlda (\w+)", command.strip())
    if sub:
        from medlda.cli.parser import build_parser

        parser = build_parser([sub.group(1)])
        actions = next(a for a in parser._actions if a.choices and sub.group(1) in a.choices).choices[sub.group(1)]
        known = {s for action in actions._actions for s in action.option_strings}
        return sorted(used - known)
    return []


def test_examples_left_out_name_flags_that_exist():
    """A command marked no-run (a benchmark, a template) still names only flags its program has."""
    wrong = [f"{e.where}: {flag}" for path in FILES for e in extract(path) if e.skip is not None and e.kind == "shell"
             for flag in _flags_known(e.text)]
    assert wrong == []
    assert _flags_known("python benchmarks/bench_samplers.py --ks 100 --nope  # --also") == ["--nope"]
    assert _flags_known("medlda train --train x --topics K --bogus") == ["--bogus"]
