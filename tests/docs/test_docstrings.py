"""The public API's docstrings: each has the numpydoc sections its kind needs, and its Examples run.

``public_api.PUBLIC`` lists what the API reference documents (docs/api): each object and, for a
class, its public methods defined in medlda (those inherited from scikit-learn, such as
``get_params`` or a mixin's ``score``, are scikit-learn's to document). Every docstring among them
needs a summary line and an Examples section; a class, Parameters when it takes any and Attributes
when it builds any (an estimator, a dataclass, an exception with fields); a function or method,
Parameters when it takes any and Returns (or Yields) when it gives anything. Each object's
examples run as doctests, in the module's namespace, in a fresh temporary folder.
"""

from __future__ import annotations

import dataclasses
import doctest
import importlib
import inspect
import re
from typing import Any, Callable

import matplotlib
import pytest

from public_api import PUBLIC, public_objects

matplotlib.use("Agg")  # the plots' examples draw without a display

SECTION = re.compile(r"^(\S[^\n]*)\n-+$", re.MULTILINE)


def sections(doc: str | None) -> list[str]:
    """The numpydoc section headings of ``doc``, in order (a heading is a line underlined by dashes
    of its length)."""
    text = inspect.cleandoc(doc or "")
    return [m.group(1).strip() for m in SECTION.finditer(text) if len(m.group(0).split("\n")[1]) == len(m.group(1))]


def builds_attributes(cls: type) -> bool:
    """Whether instances of ``cls`` carry attributes of their own: an estimator (fitted ``*_``), a
    dataclass, or a class with its own ``__init__``."""
    return dataclasses.is_dataclass(cls) or "__init__" in vars(cls) or hasattr(cls, "parameters")


def takes_parameters(func: Callable) -> bool:
    params = [p for name, p in inspect.signature(func).parameters.items() if name not in ("self", "cls")]
    return bool(params)


def gives_something(func: Callable) -> bool:
    annotation = inspect.signature(func).return_annotation
    return annotation not in (None, "None", inspect.Signature.empty)


def missing_sections(obj: Any, examples: bool = True) -> list[str]:
    """The numpydoc sections ``obj``'s docstring lacks (empty: complete); a missing docstring or
    summary line is reported as "summary"."""
    doc = inspect.getdoc(obj)
    if not doc or not doc.splitlines()[0].strip():
        return ["summary"]
    found = set(sections(doc))
    need = ["Examples"] if examples else []
    if inspect.isclass(obj):
        if builds_attributes(obj):
            need.append("Attributes")
            init = obj.__init__
            if init is not object.__init__ and takes_parameters(init):
                need.append("Parameters")
    else:
        if takes_parameters(obj):
            need.append("Parameters")
        if gives_something(obj):
            need.append("Returns" if "Yields" not in found else "Yields")
    return [s for s in need if s not in found]


DOCUMENTED = public_objects()


@pytest.mark.parametrize("name, obj, examples", DOCUMENTED, ids=[d[0] for d in DOCUMENTED])
def test_docstring_has_its_sections(name, obj, examples):
    assert missing_sections(obj, examples) == [], f"{name}'s docstring lacks these numpydoc sections"


def test_section_checker_rejects_incomplete_docstrings():
    """The checker is not vacuous: each fake lacks one section, and exactly that one is reported."""

    def complete(n: int) -> int:
        """Double.

        Parameters
        ----------
        n : int
            A number.

        Returns
        -------
        int
            Twice n.

        Examples
        --------
        >>> complete(2)
        4
        """
        return 2 * n

    def no_returns(n: int) -> int:
        """Double.

        Parameters
        ----------
        n : int
            A number.

        Examples
        --------
        >>> no_returns(2)
        4
        """
        return 2 * n

    def no_examples() -> int:
        """Two.

        Returns
        -------
        int
            Two.
        """
        return 2

    @dataclasses.dataclass
    class NoAttributes:
        """A box.

        Parameters
        ----------
        size : int
            Its size.

        Examples
        --------
        >>> NoAttributes(1).size
        1
        """

        size: int

    assert missing_sections(complete) == []
    assert missing_sections(no_returns) == ["Returns"]
    assert missing_sections(no_examples) == ["Examples"]
    assert missing_sections(no_examples, examples=False) == []
    assert missing_sections(NoAttributes) == ["Attributes"]
    assert missing_sections(lambda: None) == ["summary"]
    no_underline = complete.__doc__.replace("-------\n", "\n")  # "Returns" no longer a heading
    assert "Returns" not in sections(no_underline)


def _doctests(obj: Any, name: str) -> list[doctest.DocTest]:
    module = importlib.import_module(obj.__module__)
    finder = doctest.DocTestFinder(recurse=False)
    return [t for t in finder.find(obj, name, module=module, globs=dict(vars(module))) if t.examples]


@pytest.mark.slow
@pytest.mark.parametrize("path", PUBLIC)
def test_examples_run(path, tmp_path, monkeypatch):
    """Every Examples section of ``path`` and of its public methods runs and shows what it says."""
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)
    targets = [(n, o) for n, o, _ in DOCUMENTED if n == path or n.startswith(path + ".")]
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report: list[str] = []
    for name, obj in targets:
        for test in _doctests(obj, name):
            runner.run(test, out=report.append)
        plt.close("all")
    assert runner.summarize(verbose=False).failed == 0, "".join(report)
