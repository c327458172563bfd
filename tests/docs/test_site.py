"""The documentation site builds without a warning, and the README stays short.

``mkdocs build --strict`` turns every warning into an error: a page missing from the nav or a nav
entry without its page, a broken link or anchor between pages, an API reference entry
(``::: medlda.X``) that does not resolve, a docstring griffe cannot read, a snippet file (the
changelog) that is absent. So this one build checks the whole site; it needs the docs extra
(``pip install -e ".[docs]"``, as CI installs it). The build cannot see what the reference leaves
out: the pages list each class's members by name, so ``test_api_pages_list_the_public_api`` checks
them against the public API of tests/public_api.py.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from public_api import HOOKS, PUBLIC, public_methods, resolve

ROOT = Path(__file__).resolve().parents[2]
README_MAX_LINES = 120
ENTRY = re.compile(r"^::: ([\w.]+)\n((?:[ \t]+.*\n|\n(?=[ \t]))*)", re.MULTILINE)


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None,
                    reason='mkdocs is not installed (pip install -e ".[docs]")')
def test_site_builds_strict(tmp_path):
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}"
    assert (tmp_path / "site" / "api" / "estimators" / "index.html").is_file()


def test_readme_is_short():
    n_lines = len((ROOT / "README.md").read_text(encoding="utf-8").splitlines())
    assert n_lines <= README_MAX_LINES, (f"README.md has {n_lines} lines, more than {README_MAX_LINES}: "
                                         "move the detail into docs/")


def reference_entries() -> dict[str, list[str] | None]:
    """Each ``::: path`` entry of docs/api/*.md with the names of its ``members:`` option (None
    when it has no list, so griffe shows every public member)."""
    entries = {}
    for page in sorted((ROOT / "docs" / "api").glob("*.md")):
        for match in ENTRY.finditer(page.read_text(encoding="utf-8") + "\n"):
            listed = re.search(r"^(\s*)members:\s*\n((?:\1\s+- .*\n)+)", match.group(2), re.MULTILINE)
            entries[match.group(1)] = re.findall(r"- (\w+)", listed.group(2)) if listed else None
    return entries


def test_api_pages_list_the_public_api():
    entries = reference_entries()
    missing = []
    for name in PUBLIC:
        obj = resolve(name)
        path = f"{obj.__module__}.{obj.__qualname__}"
        module = entries.get(obj.__module__, [])
        if path not in entries and (module is None or obj.__name__ not in module):
            missing.append(f"{name} (no '::: {path}' entry in docs/api)")
            continue
        if inspect.isclass(obj) and path in entries and entries[path] is not None:
            missing += [f"{name}.{method} (not in the members of '::: {path}')"
                        for method in sorted(set(public_methods(obj)) - HOOKS - set(entries[path]))]
    assert not missing, "the API reference leaves out:\n" + "\n".join(missing)
