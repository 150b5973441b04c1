"""Command-line entry point of `pi`.

Start-up time is a feature: this module imports only the standard library at import time, and
`--version` / `--help` are answered before anything heavier is loaded.
"""

from __future__ import annotations

import sys

USAGE = """\
pi - a minimal terminal coding agent

Usage:
  pi [options] [@files...] [messages...]

Options:
  --version, -v            Print the version and exit
  --help, -h               Show this help and exit
"""


def main(argv: list[str] | None = None) -> int:
    """Run `pi` with `argv` (defaults to the process arguments) and return the exit code."""
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("--help", "-h"):
        sys.stdout.write(USAGE)
        return 0
    if args[0] in ("--version", "-v"):
        from pi.version import __version__

        sys.stdout.write(f"{__version__}\n")
        return 0
    sys.stderr.write(f"pi: unknown option or command: {args[0]}\nRun 'pi --help' for the options.\n")
    return 1
