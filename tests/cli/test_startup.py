"""Start-up of the command line: ``import medlda``, ``import medlda.cli``, ``medlda --help`` and
``medlda --version`` import no numerical library (NumPy, SciPy, scikit-learn, numba, polyagamma)
and none of medlda's estimators, samplers or kernels; each is checked in a fresh interpreter,
and the same probe sees them once something does import them. A sub-command run in a fresh
interpreter still finds what it needs, the estimators a model file names included."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from medlda.cli import main

HEAVY = ("numpy", "scipy", "sklearn", "numba", "polyagamma", "medlda._kernels", "medlda.samplers", "medlda.models",
         "medlda.data", "medlda.engine")
PROBE = ("import json, sys\n{code}\n"
         f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]), file=sys.stderr)\n")


def _heavy_after(code: str) -> list[str]:
    """The heavy modules a fresh interpreter holds after running ``code``."""
    done = subprocess.run([sys.executable, "-c", PROBE.format(code=code)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stderr.splitlines()[-1])


def _main(*argv: str) -> str:
    return f"from medlda.cli import main\ntry:\n    main({list(argv)!r})\nexcept SystemExit:\n    pass"


@pytest.mark.parametrize("code", ["import medlda", "import medlda.cli", "import medlda.cli.parser",
                                  _main("--version"), _main("--help"), _main("no-such-command")])
def test_help_and_version_import_nothing_heavy(code):
    assert _heavy_after(code) == []


@pytest.mark.slow
def test_the_probe_sees_heavy_imports():
    """The check above can fail: a sub-command's help imports the estimators' declarations (and
    with them NumPy and numba)."""
    assert {"numpy", "numba", "medlda.models"} <= set(_heavy_after(_main("train", "--help")))


def test_version_and_help_print_at_once(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out.startswith("medlda ")
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for command in ("train", "predict", "evaluate", "transform", "info", "topics", "plot", "demo"):
        assert command in out


def test_train_offers_scikit_learn_names_beside_its_own(capsys):
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    out = capsys.readouterr().out
    assert "--topics K, --n-components K" in out and "--iters N, --max-iter N" in out


@pytest.mark.slow
def test_a_model_file_loads_in_a_fresh_command(saved_model):
    """``medlda info`` in a fresh interpreter: the command imports the estimators the file names."""
    done = subprocess.run([sys.executable, "-m", "medlda", "info", "--model", str(saved_model), "--json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["estimator"] == "MedLDAClassifier"
