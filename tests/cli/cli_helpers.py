"""What the command-line tests share: quick training flags, running a command, reading its parser."""

from __future__ import annotations

import argparse

from medlda.cli import main
from medlda.cli.parser import build_parser

FAST = ["--iters", "30", "--topics", "5", "--seed", "0", "--c", "1", "--margin", "1", "--alpha-sum", "1"]


def run(capsys, *argv):
    """(exit code, stdout, stderr) of ``medlda *argv``."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def subparser(name: str) -> argparse.ArgumentParser:
    """The argparse parser of sub-command ``name``."""
    actions = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return actions[0].choices[name]


def option_help(command: str, flag: str) -> str:
    return next(a.help for a in subparser(command)._actions if flag in a.option_strings) or ""
