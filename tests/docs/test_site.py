"""The documentation site builds without a warning, and the README stays short.

``mkdocs build --strict`` turns every warning into an error: a page missing from the nav or a nav
entry without its page, a broken link or anchor between pages, an API reference entry
(``::: medlda.X``) that does not resolve, a docstring griffe cannot read, a snippet file (the
changelog) that is absent. So this one build checks the whole site; it needs the docs extra
(``pip install -e ".[docs]"``, as CI installs it).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README_MAX_LINES = 120


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
