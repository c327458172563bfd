"""Mutation check: plant each one-line bug of ``tools/mutations.py`` in a scratch copy of the
working tree and run the tests that should catch it.

Usage (from the repository root)::

    python tools/mutation_check.py --list                # each mutation, whether it applies, its tests
    python tools/mutation_check.py                       # baseline, then every mutation
    python tools/mutation_check.py --only eta_last_sample 'partial_*' --jobs 2
    python tools/mutation_check.py --no-baseline --out /tmp/mutations --timeout 1800

For each mutation, ``src``, ``tests``, ``benchmarks``, ``pyproject.toml`` and any top-level
``conftest.py`` of the working tree are copied into a temporary directory (removed afterwards;
no ``__pycache__`` and no numba cache files), the mutation's old text (which must occur exactly
once, else the script stops before running anything) is replaced there, and

    python -m pytest -q -x -p no:cacheprovider [-k SELECT] TESTS

runs in the copy with ``PYTHONPATH=<copy>/src`` (checked: ``medlda`` is imported from the copy)
and a fresh, empty ``NUMBA_CACHE_DIR``, so no compiled kernel of the unmutated code can hide the
bug. Outcomes: **caught** (a selected test failed), **missed** (all passed), **error** (test files
missing, nothing selected, a collection error, or the mutated code does not compile or import:
not a valid mutation), **timeout**, and **invalid** (a selected test fails without the mutation
too). The baseline (on by default) first collects each mutation's selection in an unmutated copy
and runs all of it once: a mutation whose tests fail there is invalid. The catch rate is
caught / (caught + missed).

Each run's pytest output goes to ``OUT/<name>.log`` (the baseline's to ``OUT/baseline.log``), each
row as it finishes to ``OUT/rows.jsonl`` and the whole run to ``OUT/summary.json``; OUT is
``benchmarks/out/mutations`` unless ``--out`` says otherwise (git-ignored). Exit status 0 when
every mutation run is caught, 1 otherwise, 2 when a mutation no longer applies.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from mutations import MUTATIONS, Mutation

ROOT = Path(__file__).resolve().parents[1]
COPIED = ("src", "tests", "benchmarks", "pyproject.toml", "conftest.py")
SKIPPED_NAMES = {"__pycache__", ".pytest_cache", ".ruff_cache"}
SKIPPED_SUFFIXES = (".pyc", ".nbi", ".nbc", ".egg-info")
# a failure that means the mutated code does not run at all, not that a test noticed a wrong result
CRASH = re.compile(r"numba\.core\.errors|TypingError|LoweringError|SyntaxError|IndentationError|NameError|"
                   r"ImportError|ModuleNotFoundError")
SUMMARY_LINE = re.compile(r"^(FAILED|ERROR) (.+?)(?: - (.*))?$")
PYTEST = ("-m", "pytest", "-q", "-p", "no:cacheprovider")
BASELINE_TIMEOUTS = 4  # the baseline runs every selection at once: this many times --timeout


@dataclass
class Row:
    """One run's outcome (``status``: caught, missed, error, timeout, invalid, passed, failed)."""

    name: str
    status: str
    seconds: float = 0.0
    first_failure: str = ""
    detail: str = ""
    n_tests: int | None = None
    path: str = ""
    tests: list[str] = field(default_factory=list)
    select: str | None = None


# -- checks and the scratch copy -----------------------------------------------------------------
def problem(m: Mutation, root: Path = ROOT) -> str | None:
    """Why ``m`` cannot be applied to the tree at ``root`` (None: it can)."""
    if not m.path.startswith("src/"):
        return f"{m.path} is not under src/"
    target = root / m.path
    if not target.is_file():
        return f"{m.path} does not exist"
    if m.old == m.new:
        return "old and new text are the same"
    count = target.read_text().count(m.old)
    return None if count == 1 else f"old text occurs {count} times in {m.path} (must be exactly once)"


def missing_tests(m: Mutation, root: Path = ROOT) -> list[str]:
    """The test files ``m`` names that do not exist under ``root``."""
    return sorted({t.split("::")[0] for t in m.tests if not (root / t.split("::")[0]).exists()})


def _ignore(directory: str, names: list[str]) -> set[str]:
    skipped = {n for n in names if n in SKIPPED_NAMES or n.endswith(SKIPPED_SUFFIXES)}
    if Path(directory).resolve() == ROOT / "benchmarks":
        skipped.add("out")
    return skipped


def scratch_copy(mutation: Mutation | None) -> Path:
    """A temporary copy of the tree with ``mutation`` applied (None: unmutated)."""
    scratch = Path(tempfile.mkdtemp(prefix="medlda-mutation-"))
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, scratch / name, ignore=_ignore)
        elif source.is_file():
            shutil.copy2(source, scratch / name)
    if mutation is not None:
        target = scratch / mutation.path
        text = target.read_text()
        if text.count(mutation.old) != 1:
            shutil.rmtree(scratch, ignore_errors=True)
            raise RuntimeError(f"{mutation.name}: {problem(mutation, ROOT)}")
        target.write_text(text.replace(mutation.old, mutation.new))
    return scratch


def _env(scratch: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(scratch / "src"), env.get("PYTHONPATH")) if p)
    env["NUMBA_CACHE_DIR"] = str(scratch / "numba-cache")
    (scratch / "numba-cache").mkdir(exist_ok=True)
    env.pop("PYTEST_ADDOPTS", None)
    return env


def _run(cmd: list[str], scratch: Path, timeout: float) -> tuple[int | None, str, float]:
    """(exit code or None on timeout, stdout and stderr, seconds) of ``cmd`` run in ``scratch``; on
    timeout its whole process group is killed (tests that start processes included)."""
    tic = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=scratch, env=_env(scratch), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        code = None
    return code, out, time.perf_counter() - tic


def check_import(scratch: Path) -> None:
    """Stop unless ``medlda`` imports from the copy (an installed copy would hide every mutation)."""
    code, out, _ = _run([sys.executable, "-c", "import medlda; print(medlda.__file__)"], scratch, 300)
    where = out.strip().splitlines()[-1] if out.strip() else ""
    if code != 0 or not Path(where).resolve().is_relative_to(scratch.resolve()):
        raise RuntimeError(f"medlda does not import from the scratch copy {scratch}: {out.strip()[-2000:]}")


def failures(out: str) -> list[tuple[str, str, str]]:
    """(kind, node id, message) of each FAILED / ERROR line of pytest's short summary."""
    return [(m[1], m[2], m[3] or "") for m in map(SUMMARY_LINE.match, out.splitlines()) if m]


# -- baseline ----------------------------------------------------------------------------------
def collect(m: Mutation, scratch: Path, timeout: float) -> tuple[list[str] | None, str]:
    """The node ids ``m`` selects in ``scratch`` (None and why when they cannot be collected)."""
    cmd = [sys.executable, *PYTEST, "--collect-only", *(["-k", m.select] if m.select else []), *m.tests]
    code, out, _ = _run(cmd, scratch, timeout)
    ids = [line.strip() for line in out.splitlines() if "::" in line and not line.startswith(("ERROR", "FAILED"))]
    if code == 0 and ids:
        return ids, ""
    why = {5: "selects no tests", 4: "a node id was not found", 2: "collection error", None: "collect timed out"}
    return None, f"{why.get(code, f'collect exit {code}')}: {out.strip()[-600:]}"


def baseline(mutations: list[Mutation], out_dir: Path, timeout: float) -> tuple[Row, dict[str, Row]]:
    """Collect each mutation's selection in an unmutated copy and run them all once; returns the
    baseline's row and a row for each mutation that cannot be run (error or invalid)."""
    scratch = scratch_copy(None)
    bad: dict[str, Row] = {}
    try:
        check_import(scratch)
        selected: dict[str, list[str]] = {}
        for m in mutations:
            ids, why = collect(m, scratch, timeout)
            if ids is None:
                bad[m.name] = Row(m.name, "error", detail=f"baseline: {why}")
            else:
                selected[m.name] = ids
        union = sorted({i for ids in selected.values() for i in ids})
        row = Row("(baseline)", "passed", n_tests=len(union), tests=union)
        if not union:
            return row, bad
        code, out, seconds = _run([sys.executable, *PYTEST, *union], scratch, timeout * BASELINE_TIMEOUTS)
        (out_dir / "baseline.log").write_text(out)
        row.seconds = seconds
        failed = {node for _, node, _ in failures(out)}
        if code is None or code not in (0, 1) or (code == 1 and not failed):
            row.status, row.detail = "failed", f"pytest exit {code}: {out.strip()[-600:]}"
            for name in selected:
                bad.setdefault(name, Row(name, "invalid", detail="baseline run did not finish"))
            return row, bad
        if failed:
            row.status, row.first_failure = "failed", min(failed)
            row.detail = f"{len(failed)} failing without mutation: {', '.join(sorted(failed))}"
        for name, ids in selected.items():
            hit = sorted(failed.intersection(ids))
            if hit:
                bad[name] = Row(name, "invalid", first_failure=hit[0], detail=f"fails without the mutation: {hit}")
        return row, bad
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


# -- one mutation --------------------------------------------------------------------------------
def run_mutation(m: Mutation, out_dir: Path, timeout: float) -> Row:
    """Apply ``m`` in a scratch copy, run its tests there, classify the outcome."""
    row = Row(m.name, "error", path=m.path, tests=list(m.tests), select=m.select)
    missing = missing_tests(m)
    if missing:
        row.detail = f"missing test files: {', '.join(missing)}"
        return row
    scratch = scratch_copy(m)
    try:
        check_import(scratch)
        cmd = [sys.executable, *PYTEST, "-x", *(["-k", m.select] if m.select else []), *m.tests]
        code, out, row.seconds = _run(cmd, scratch, timeout)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    (out_dir / f"{m.name}.log").write_text(out)
    found = failures(out)
    if found:
        kind, row.first_failure, message = found[0]
        row.detail = (f"{kind}: {message}" if message else kind)[:300]
    crash = [line for line in out.splitlines() if line.startswith("E ") and CRASH.search(line)]
    if code is None:
        row.status, row.detail = "timeout", f"no result in {timeout:.0f} s"
    elif code == 0:
        row.status = "missed"
    elif code == 1 and found and not crash:
        row.status = "caught"
    elif code == 1 and crash:
        row.detail = f"mutated code does not run: {crash[0][:300]}"
    else:
        reasons = {2: "interrupted (collection error)", 3: "pytest internal error", 4: "usage error or node id not "
                   "found", 5: "no tests selected"}
        row.detail = f"pytest exit {code}, {reasons.get(code, 'unknown')}: {out.strip()[-300:]}"
    counts = re.findall(r"(\d+) (passed|failed|errors?)\b", out)
    row.n_tests = sum(int(n) for n, _ in counts) if counts else None
    return row


# -- reporting -----------------------------------------------------------------------------------
def print_table(rows: list[Row]) -> None:
    width = max([len(r.name) for r in rows] + [8])
    print(f"\n{'mutation':<{width}}  {'status':<8} {'seconds':>8}  first failure / detail")
    for r in rows:
        note = r.first_failure or r.detail
        print(f"{r.name:<{width}}  {r.status:<8} {r.seconds:8.1f}  {note[:110]}")


def summary(rows: list[Row]) -> dict:
    counts = {s: sum(r.status == s for r in rows) for s in ("caught", "missed", "error", "timeout", "invalid")}
    valid = counts["caught"] + counts["missed"]
    counts["catch_rate"] = counts["caught"] / valid if valid else None
    counts["mutations"] = len(rows)
    return counts


def list_mutations(mutations: list[Mutation]) -> int:
    worst = 0
    for m in mutations:
        issue = problem(m)
        missing = missing_tests(m)
        worst = max(worst, 2 if issue else 0)
        state = issue or ("applies; missing tests " + ", ".join(missing) if missing else "applies")
        print(f"{m.name}\n  {m.path}: {state}\n  why: {m.why}\n  tests: {' '.join(m.tests)}"
              + (f"  -k {m.select!r}" if m.select else ""))
    return worst


def chosen(patterns: list[str] | None) -> list[Mutation]:
    if not patterns:
        return list(MUTATIONS)
    picked = [m for m in MUTATIONS if any(fnmatch.fnmatchcase(m.name, p) for p in patterns)]
    unknown = [p for p in patterns if not any(fnmatch.fnmatchcase(m.name, p) for m in MUTATIONS)]
    if unknown:
        raise SystemExit(f"no mutation matches {unknown}; --list shows them")
    return picked


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="+", metavar="NAME", help="mutations to run (names or shell patterns)")
    parser.add_argument("--list", action="store_true", help="list the mutations and check they apply; run nothing")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out" / "mutations",
                        help="where logs, rows.jsonl and summary.json go")
    parser.add_argument("--jobs", type=int, default=1, help="mutations run at the same time")
    parser.add_argument("--baseline", action=argparse.BooleanOptionalAction, default=True,
                        help="first run the selected tests without mutation (default: on)")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per pytest run")
    args = parser.parse_args(argv)
    mutations = chosen(args.only)
    names = [m.name for m in MUTATIONS]
    if len(set(names)) != len(names):
        raise SystemExit("mutation names must be unique")
    if args.list:
        return list_mutations(mutations)
    stale = [f"{m.name}: {p}" for m in mutations if (p := problem(m))]
    if stale:
        print("mutations that no longer apply (fix tools/mutations.py):\n  " + "\n  ".join(stale), file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    rows_file = args.out / "rows.jsonl"
    rows_file.write_text("")

    def record(row: Row) -> Row:
        with rows_file.open("a") as f:
            f.write(json.dumps(asdict(row)) + "\n")
        print(f"  {row.name}: {row.status} ({row.seconds:.1f} s) {row.first_failure or row.detail[:120]}", flush=True)
        return row

    started = time.strftime("%Y-%m-%dT%H:%M:%S")
    base_row, rows_by_name = None, {}
    if args.baseline:
        print(f"baseline: collecting and running the tests of {len(mutations)} mutations unmutated", flush=True)
        base_row, rows_by_name = baseline([m for m in mutations if not missing_tests(m)], args.out, args.timeout)
        record(base_row)
        for m in mutations:  # the mutations the baseline rules out, with their own fields
            if m.name in rows_by_name:
                row = rows_by_name[m.name]
                row.path, row.tests, row.select = m.path, list(m.tests), m.select
                record(row)
    to_run = [m for m in mutations if m.name not in rows_by_name]
    print(f"running {len(to_run)} mutations, {args.jobs} at a time", flush=True)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for row in pool.map(lambda m: record(run_mutation(m, args.out, args.timeout)), to_run):
            rows_by_name[row.name] = row
    rows = [rows_by_name[m.name] for m in mutations]
    print_table(([base_row] if base_row else []) + rows)
    totals = summary(rows)
    rate = "n/a" if totals["catch_rate"] is None else f"{totals['catch_rate']:.0%}"
    print(f"\ncaught {totals['caught']} of {totals['caught'] + totals['missed']} valid mutations ({rate}); "
          f"error {totals['error']}, timeout {totals['timeout']}, invalid {totals['invalid']}")
    (args.out / "summary.json").write_text(json.dumps({
        "started": started, "python": sys.version.split()[0], "baseline": asdict(base_row) if base_row else None,
        "summary": totals, "rows": [asdict(r) for r in rows]}, indent=1))
    print(f"rows in {args.out / 'rows.jsonl'}, summary in {args.out / 'summary.json'}")
    return 0 if totals["caught"] == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
