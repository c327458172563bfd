"""Command-line flags derived from the estimators' declared parameters (``medlda.models.params``).

``medlda train`` offers every parameter that declares a flag, under the parameter's own name as
its destination, with the declared choices, bounds and help; a flag left out means "the
estimator's default", so defaults are written once, in the declaration. The declarations are
imported when a parser needs them: they read the sampler and loss registries, which import the
kernels, and ``medlda --help`` should not wait for those.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Callable

from medlda.exceptions import LimitError
from medlda.limits import Limit

if TYPE_CHECKING:
    from medlda.models.params import Number, Param

# parameters of which ``medlda train`` takes several values, comma-separated, and compares them on a
# validation part of the training data (``medlda.cli.select``), as it does several --topics
COMPARED = ("c", "loss", "epsilon", "sigma2", "alpha_sum", "background_topics", "combine")


def number(text: str, kind: type, what: str):
    """``kind(text)``, or the argparse error 'not {what}'."""
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None


def int_at_least(minimum: int, why: str = "", limit: Limit | None = None) -> Callable[[str], int]:
    """argparse type: an integer of at least ``minimum`` (``why``: the reason, said in the error)
    and at most ``limit`` (``medlda.limits``: the error names its environment variable)."""
    def parse(text: str) -> int:
        value = number(text, int, "an integer")
        if value < minimum:
            reason = f" ({why})" if why else ""
            raise argparse.ArgumentTypeError(f"must be at least {minimum}{reason}, got {value}")
        if limit is not None:
            try:
                limit.check(value)
            except LimitError as exc:
                raise argparse.ArgumentTypeError(str(exc)) from None
        return value
    return parse


def real_in(rule: Number) -> Callable[[str], float | str]:
    """argparse type: a number that ``rule`` accepts (finite, in its range), or 'auto' where the
    rule takes it; the error states the rule as the estimator's own check does."""
    def parse(text: str) -> float | str:
        if rule.auto and text == "auto":
            return text
        value = number(text, float, "a number")
        if not rule.accepts(value):
            raise argparse.ArgumentTypeError(f"must be {rule.phrase()}, got {text}")
        return value
    return parse


def several(parse: Callable[[str], object]) -> Callable[[str], list]:
    """argparse type: one value or several, comma-separated, each read by ``parse``; no repeats."""
    def parse_all(text: str) -> list:
        items = [item.strip() for item in text.split(",")]
        if not all(items):
            raise argparse.ArgumentTypeError(f"an empty value in {text!r}")
        values = [parse(item) for item in items]
        if len(set(values)) < len(values):
            raise argparse.ArgumentTypeError(f"a value given twice in {text!r}")
        return values
    return parse_all


def one_of(choices: list[str]) -> Callable[[str], str]:
    """argparse type: one of ``choices``."""
    def parse(text: str) -> str:
        if text not in choices:
            raise argparse.ArgumentTypeError(f"invalid choice: {text!r} (choose from {', '.join(choices)})")
        return text
    return parse


def flag_of(name: str) -> str:
    """The command-line flag of a declared parameter."""
    from medlda.models.params import PARAMS

    return PARAMS[name].flag or name


def _argument(param: Param) -> dict:
    """``add_argument`` keywords for ``param``'s flag."""
    from medlda.models.params import REGRESSOR_PARAMS, Custom, Number, Options

    rule = param.rule
    shared = param.name in REGRESSOR_PARAMS  # the estimators differ: each keeps its own default
    default = None if shared or param.default == "auto" else param.default
    kwargs: dict = {"dest": param.name, "default": default}
    if param.metavar:
        kwargs["metavar"] = param.metavar
    if isinstance(rule, Options):
        kwargs["choices"] = sorted({*rule.choices(), *(REGRESSOR_PARAMS[param.name].rule.choices() if shared else ())})
    elif isinstance(rule, Number) and rule.integer:
        kwargs["type"] = int_at_least(int(rule.low), limit=rule.limit)
    elif isinstance(rule, Number):
        kwargs["type"] = real_in(rule)
    elif param.default is False:
        kwargs = {"dest": param.name, "action": "store_true"}
    elif param.name == "class_weight":
        kwargs["choices"] = ["balanced"]
    elif param.name == "n_jobs":
        kwargs["type"] = int
    elif param.name == "random_state":
        kwargs["type"] = int_at_least(0)
    elif not isinstance(rule, Custom):
        raise TypeError(f"no command-line form for {param.name}")
    help_text = param.help or param.doc
    if default not in (None, False):
        help_text += f" (default {default})"
    if param.name in COMPARED:
        choices = kwargs.pop("choices", None)
        kwargs["type"] = several(one_of(choices) if choices else kwargs["type"])
        help_text += "; several, comma-separated, are compared as several --topics are"
    kwargs["help"] = help_text.replace("%", "%%")
    return kwargs


def add_parameter_flags(parser: argparse.ArgumentParser, skip: tuple[str, ...] = ()) -> None:
    """Add the flag of every declared parameter that has one (and its aliases), but those in ``skip``."""
    from medlda.models.params import PARAMS

    for param in PARAMS.values():
        if param.flag and param.name not in skip:
            parser.add_argument(param.flag, *param.aliases, **_argument(param))


def estimator_arguments(args: argparse.Namespace, estimator: type, setting: dict | None = None) -> dict:
    """The parameters of ``estimator`` given on the command line (flags left out are not passed),
    with the values of ``setting`` (one combination of several values of ``COMPARED``
    parameters) in place of the lists given; a parameter given one value takes it."""
    setting = setting or {}
    chosen = {}
    for name, param in estimator.parameters.items():
        value = setting.get(name, getattr(args, name, None))
        if isinstance(value, list):  # a COMPARED parameter given one value
            (value,) = value
        if param.flag and value is not None and name != "n_components":
            chosen[name] = value
    return chosen
