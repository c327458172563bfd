"""Command line: ``medlda train | predict | evaluate | transform | info | topics | plot | demo``.
Only this layer prints."""

from __future__ import annotations

import sys

from medlda.cli.common import CLIError
from medlda.cli.parser import build_parser
from medlda.exceptions import MedLDAError

__all__ = ["CLIError", "main"]


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (0 ok, 2 bad input or usage)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (MedLDAError, ValueError, FileNotFoundError, NotImplementedError, IsADirectoryError,
            PermissionError) as exc:
        print(f"medlda: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
