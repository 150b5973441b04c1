"""Where the library's log records go when `pi` runs as a program: stderr, in pi's diagnostic style.

The library only logs (``logging.getLogger("pi.…")``); a program embedding it keeps its own logging
setup. The executable routes warnings and errors to the terminal as ``Warning: …`` / ``Error: …``,
everything down to debug with ``--verbose``.
"""

from __future__ import annotations

import logging
import sys


class CliLogFormatter(logging.Formatter):
    """Library log records as pi prints diagnostics: ``Warning: ...`` / ``Error: ...``; tracebacks with --verbose."""

    def __init__(self, verbose: bool) -> None:
        super().__init__("%(message)s")
        self.verbose = verbose

    def format(self, record: logging.LogRecord) -> str:
        label = "Error" if record.levelno >= logging.ERROR else "Warning"
        text = f"{label}: {record.getMessage()}"
        if self.verbose and record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        return text


def configure_cli_logging(verbose: bool) -> None:
    """The library logs; the CLI decides what reaches the terminal: warnings and errors, on stderr."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(CliLogFormatter(verbose))
    logger = logging.getLogger("pi")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG if verbose else logging.WARNING)
    logger.propagate = False
