"""Command line: ``medlda train | predict | evaluate | transform | info | topics | plot | report | demo``.
Only this layer prints. Importing it, and ``medlda --help`` or ``--version``, import no numerical
library: a sub-command imports what it needs when it runs."""

from __future__ import annotations

import sys

from medlda.cli.parser import build_parser, command_named
from medlda.exceptions import MedLDAError

__all__ = ["CLIError", "main"]


def __getattr__(name: str):
    if name == "CLIError":  # defined beside the readers it reports on (medlda.cli.common)
        from medlda.cli.common import CLIError

        return CLIError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (0 ok, 2 bad input or usage)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser([command] if (command := command_named(argv)) else [])
    args = parser.parse_args(argv)
    errors = _bytes_as_read(sys.stdout)
    try:
        return args.func(args)
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (MedLDAError, ValueError, NotImplementedError, OSError) as exc:
        print(f"medlda: error: {exc}", file=sys.stderr)
        return 2
    finally:
        if errors is not None:
            sys.stdout.reconfigure(errors=errors)


def _bytes_as_read(stream) -> str | None:
    """Let ``stream`` print names read from the file system that are not UTF-8 (label folders,
    file names: Python holds their bytes as lone surrogates) as those bytes, as it read them;
    return its former error handler to restore (None: left as it was)."""
    if getattr(stream, "errors", None) != "strict" or not hasattr(stream, "reconfigure"):
        return None
    try:
        stream.reconfigure(errors="surrogateescape")
    except (ValueError, OSError):  # a stream that cannot change
        return None
    return "strict"


if __name__ == "__main__":
    sys.exit(main())
