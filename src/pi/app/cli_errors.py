"""The exceptions that end a `pi` run with a message rather than a traceback."""

from __future__ import annotations


class CliError(Exception):
    """Ends `pi` with this message on stderr and exit code 1."""


class SessionDeclined(Exception):
    """The user said no to forking another project's session: nothing to do, exit 0."""


__all__ = ["CliError", "SessionDeclined"]
