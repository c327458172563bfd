"""Type hints of the public API: every public function and method is annotated, and mypy accepts
the public modules (pyproject.toml's [tool.mypy]: which files, and the libraries read without types)."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

from public_api import public_objects

ROOT = Path(__file__).resolve().parents[1]


def unannotated(func: Callable) -> list[str]:
    """The parameters of ``func`` without a type hint (bar self and cls), and "return" when its
    return type is not given."""
    signature = inspect.signature(func)
    missing = [name for name, p in signature.parameters.items()
               if name not in ("self", "cls") and p.annotation is inspect.Parameter.empty]
    if signature.return_annotation is inspect.Signature.empty:
        missing.append("return")
    return missing


def annotated_callables() -> list[tuple[str, Callable]]:
    """Every public function and method; a class's own constructor too, unless it is an estimator
    (whose ``__init__`` is generated from its declared parameters, medlda.models.params)."""
    out = []
    for name, obj, _ in public_objects():
        if not inspect.isclass(obj):
            out.append((name, obj))
        elif "__init__" in vars(obj) and not hasattr(obj, "parameters"):
            out.append((f"{name}.__init__", obj.__init__))
    return out


CALLABLES = annotated_callables()


@pytest.mark.parametrize("name, func", CALLABLES, ids=[c[0] for c in CALLABLES])
def test_public_callable_is_annotated(name, func):
    assert unannotated(func) == [], f"{name} lacks type hints"


def test_annotation_check_finds_what_is_missing():
    def bare(a, b: int = 0):
        return a

    def typed(self, a: Any) -> None:
        return None

    assert unannotated(bare) == ["a", "return"]
    assert unannotated(typed) == []
    assert len(CALLABLES) > 60  # the public API is there to check (methods included)


@pytest.mark.slow
def test_mypy_accepts_the_public_api(tmp_path):
    """mypy with the project's configuration and a fresh cache (a stale cache cannot pass it)."""
    result = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")],
                            cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success" in result.stdout
