"""Griffe extension for the API reference (mkdocs.yml): the estimators as Python sees them.

An estimator class declares its parameters once (``parameters = declared(...)``, medlda.models.params);
when the class is created, ``TopicModel.__init_subclass__`` (medlda.models.base) gives it its
``__init__`` and appends the Parameters section to its docstring. Griffe reads the source without
running it, so it sees neither: for each class that assigns ``parameters`` in its body, this
extension imports the class and takes its docstring and the signature of its ``__init__``, and
the scikit-learn methods users call on it (``SKLEARN``: their docstrings and signatures), which
would otherwise need griffe to read all of scikit-learn. Only those classes are imported; the rest
of the package is read from source.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

import griffe

# the scikit-learn methods of the estimators that the reference shows (the pages pick per class)
SKLEARN = ("fit_transform", "get_params", "score", "set_output")

KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: griffe.ParameterKind.positional_only,
    inspect.Parameter.POSITIONAL_OR_KEYWORD: griffe.ParameterKind.positional_or_keyword,
    inspect.Parameter.VAR_POSITIONAL: griffe.ParameterKind.var_positional,
    inspect.Parameter.KEYWORD_ONLY: griffe.ParameterKind.keyword_only,
    inspect.Parameter.VAR_KEYWORD: griffe.ParameterKind.var_keyword,
}


class DeclaredParameters(griffe.Extension):
    """Docstring and ``__init__`` signature of the classes that declare ``parameters``; Sphinx
    roles (``:func:`name```) in any docstring shown as code, as Markdown has no roles."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = code_from_roles(obj.docstring.value)

    def on_class_members(self, *, cls: griffe.Class, **kwargs: Any) -> None:
        if "parameters" not in cls.members or cls.name == "TopicModel":
            return
        runtime = griffe.dynamic_import(cls.path)
        old = cls.docstring
        cls.docstring = griffe.Docstring(
            code_from_roles(inspect.cleandoc(runtime.__doc__ or "")), lineno=old.lineno if old else cls.lineno,
            endlineno=old.endlineno if old else cls.lineno, parent=cls,
            parser=old.parser if old else None, parser_options=old.parser_options if old else None)
        cls.set_member("__init__", method(cls, "__init__", runtime.__init__, with_docstring=False))
        for name in SKLEARN:
            function = getattr(runtime, name, None)
            if name not in cls.members and (getattr(function, "__module__", None) or "").startswith("sklearn."):
                cls.set_member(name, method(cls, name, function))
        # the parameters are documented once, in the class's Parameters section
        cls.del_member("parameters")


def method(cls: griffe.Class, name: str, function: Any, with_docstring: bool = True) -> griffe.Function:
    """The griffe method ``name`` of ``cls`` made from a runtime function: its signature (defaults
    as their repr) and, with ``with_docstring``, its docstring, parsed as the class's."""
    parameters = griffe.Parameters(*(
        griffe.Parameter(p.name, kind=KINDS[p.kind],
                         default=None if p.default is inspect.Parameter.empty else repr(p.default))
        for p in inspect.signature(function).parameters.values()))
    result = griffe.Function(name, lineno=cls.lineno, endlineno=cls.lineno, parameters=parameters)
    doc = inspect.getdoc(function) if with_docstring else None
    if doc and function.__module__.startswith("sklearn."):
        doc = markdown_from_rst(doc)
    if doc:
        old = cls.docstring
        result.docstring = griffe.Docstring(doc, parent=result, parser=old.parser if old else None,
                                            parser_options=old.parser_options if old else None)
    return result


def markdown_from_rst(doc: str) -> str:
    """A scikit-learn docstring (numpydoc, with Sphinx markup) readable as Markdown: paragraphs that
    are Sphinx directives (``.. versionadded::``) or point into scikit-learn's own site (a bare
    ``:ref:`target```) left out; ``:ref:`text <target>``` as its text; ``:math:`x``` and
    ``:func:`~a.b.c``` (any role) as code."""
    kept = [p for p in re.split(r"\n\s*\n", doc)
            if not p.lstrip().startswith(".. ") and not re.search(r":ref:`[^`<]+`", p)]
    doc = "\n\n".join(kept)
    return code_from_roles(re.sub(r":ref:`([^`<]*?)\s*<[^`>]*>`", r"\1", doc))


def code_from_roles(doc: str) -> str:
    """``:func:`~a.b.c``` (any Sphinx role) as the code span ``c``; without ``~``, the name as written."""
    doc = re.sub(r":\w+:`~(?:[\w.]*\.)?([^`]+)`", r"`\1`", doc)
    return re.sub(r":\w+:`([^`]+)`", r"`\1`", doc)
