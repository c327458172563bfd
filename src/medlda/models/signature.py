"""An estimator's ``__init__`` made from its declared parameters (``medlda.models.params``), and
the former names of parameters, accepted for one more release with a FutureWarning.

scikit-learn reads an estimator's parameters from the signature of its ``__init__``
(``get_params``, ``set_params``, ``clone``, ``repr``), so the signature holds the current names
only. A former name given to ``__init__`` or ``set_params`` is stored under its current name, so
``get_params`` and ``clone`` give the estimator back unchanged; read or assigned as an
attribute, it reads or assigns the current one.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Callable

from medlda.models.params import Param

REMOVAL = "0.3"  # the release without the former names


def former_names(params: dict[str, Param]) -> dict[str, str]:
    """Former name -> current name of each of ``params`` that has one."""
    return {p.former: p.name for p in params.values() if p.former}


def renamed_message(owner: str, old: str, new: str) -> str:
    """The FutureWarning of a former parameter name."""
    return (f"{owner}: the parameter {old!r} is deprecated and will be removed in medlda {REMOVAL}; "
            f"use {new!r} (scikit-learn's name), which takes the same values")


def current_names(owner: str, given: dict, params: dict[str, Param], stacklevel: int = 2) -> dict:
    """``given`` keyword arguments with each former name replaced by its current one, warning
    (FutureWarning) at the caller ``stacklevel`` frames up; TypeError if both names are given."""
    renamed = {old: new for old, new in former_names(params).items() if old in given}
    if not renamed:
        return given
    out = dict(given)
    for old, new in renamed.items():
        if new in given:
            raise TypeError(f"{owner}: got both {old!r} and {new!r}, two names of the same parameter; give {new!r}")
        warnings.warn(renamed_message(owner, old, new), FutureWarning, stacklevel=stacklevel + 1)
        out[new] = out.pop(old)
    return out


class FormerName:
    """A former parameter name as an attribute: it reads and assigns the current one, with a
    FutureWarning."""

    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        warnings.warn(renamed_message(type(obj).__name__, self.old, self.new), FutureWarning, stacklevel=2)
        return getattr(obj, self.new)

    def __set__(self, obj, value) -> None:
        warnings.warn(renamed_message(type(obj).__name__, self.old, self.new), FutureWarning, stacklevel=2)
        setattr(obj, self.new, value)


def make_init(params: dict[str, Param]) -> Callable[..., None]:
    """An assign-only ``__init__`` taking ``params`` (the first positionally or by keyword, the rest
    by keyword only) with their declared defaults, and their former names by keyword; its
    signature, which names the current ones, is what scikit-learn's ``get_params``, ``clone`` and
    ``repr`` read."""
    first, *rest = params.values()
    kind = inspect.Parameter
    signature = inspect.Signature(
        [kind("self", kind.POSITIONAL_OR_KEYWORD), kind(first.name, kind.POSITIONAL_OR_KEYWORD, default=first.default)]
        + [kind(p.name, kind.KEYWORD_ONLY, default=p.default) for p in rest])

    def __init__(self, *args, **kwargs) -> None:
        kwargs = current_names(type(self).__name__, kwargs, params)
        try:
            bound = signature.bind(self, *args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{type(self).__name__}: {exc}") from None
        bound.apply_defaults()
        for name in params:
            setattr(self, name, bound.arguments[name])

    __init__.__signature__ = signature  # type: ignore[attr-defined]
    return __init__
