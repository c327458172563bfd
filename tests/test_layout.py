"""The package's layout holds: every module imports on its own, data flows one way between the
layers, no private name is imported across modules, and modules stay small."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "medlda"

# what each layer may import from medlda (its own package always): kernels at the bottom, the
# command line at the top; a layer never imports one above it
ALLOWED = {
    "_version": set(),
    "exceptions": set(),
    "limits": {"exceptions"},
    "_kernels": set(),
    "losses": set(),
    "io": {"_version", "exceptions", "limits", "losses"},
    "data": {"exceptions", "limits", "io"},
    "samplers": {"_kernels", "exceptions", "limits"},
    "engine": {"_kernels", "samplers", "losses", "io", "exceptions", "limits", "_version"},
    "evaluation": {"data", "exceptions"},
    "models": {"_kernels", "samplers", "engine", "losses", "data", "evaluation", "io", "reporting", "exceptions",
               "limits"},
    "reporting": {"data", "evaluation", "io", "exceptions"},
    "cli": {"_version", "data", "evaluation", "io", "limits", "losses", "models", "reporting", "samplers", "exceptions",
            "engine", "__init__"},
    "__init__": {"_version", "data", "models", "io"},
    "__main__": {"cli"},
}
MAX_LINES, MAX_KERNEL_LINES = 400, 500


def _modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if "__pycache__" not in p.parts)


def _name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _layer(module: str) -> str:
    parts = module.split(".")
    return "__init__" if len(parts) == 1 else parts[1]


def _imports(path: Path) -> list[tuple[str, list[str], bool]]:
    """(module imported, names imported, at module level) of every medlda import in ``path``."""
    tree = ast.parse(path.read_text())
    top = {id(node) for node in tree.body}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "medlda":
            out.append((node.module, [a.name for a in node.names], id(node) in top))
        elif isinstance(node, ast.Import):
            out += [(a.name, [], id(node) in top) for a in node.names if a.name.split(".")[0] == "medlda"]
    return out


def test_every_module_imports_on_its_own():
    """Each module first in a fresh interpreter: an import cycle fails whichever module starts it."""
    names = [_name(p) for p in _modules() if p.name != "__main__.py"]
    code = ("import importlib, sys\n"
            f"for name in {names!r}:\n"
            "    for loaded in [m for m in sys.modules if m == 'medlda' or m.startswith('medlda.')]:\n"
            "        del sys.modules[loaded]\n"
            "    try:\n"
            "        importlib.import_module(name)\n"
            "    except Exception as exc:\n"
            "        print(f'{name}: {type(exc).__name__}: {exc}')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stdout == "", done.stdout + done.stderr


def test_layers_import_only_the_layers_below_them():
    wrong = []
    for path in _modules():
        module = _name(path)
        layer = _layer(module)
        for target, _, _ in _imports(path):
            other = _layer(target) if target != "medlda" else "__init__"
            if other != layer and other not in ALLOWED[layer]:
                wrong.append(f"{module} imports {target}")
    assert wrong == []


def test_no_private_name_is_imported_across_modules():
    wrong = [f"{_name(path)} imports {name} from {target}" for path in _modules()
             for target, names, _ in _imports(path) for name in names
             if name.startswith("_") and not name.startswith("__")]
    assert wrong == []


def test_modules_are_small_or_say_why():
    long = []
    for path in _modules():
        lines = path.read_text().splitlines()
        limit = MAX_KERNEL_LINES if "_kernels" in path.parts else MAX_LINES
        if len(lines) > limit and "lines:" not in lines[0]:
            long.append(f"{_name(path)}: {len(lines)} lines")
    assert long == []


@pytest.mark.parametrize("layer", ["_kernels", "samplers", "engine", "models", "data", "evaluation", "io"])
def test_library_layers_import_at_module_level(layer):
    """Function-local imports only for optional dependencies and the command line's start-up."""
    local = [f"{_name(path)} imports {target} inside a function" for path in _modules()
             if _layer(_name(path)) == layer for target, _, top in _imports(path) if not top]
    assert local == []
