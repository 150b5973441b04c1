"""Validate (and coerce) tool-call arguments, with errors written for the model to act on.

The error text has pi's exact frame: ``Validation failed for tool "<name>":``, one ``  - path: problem``
line per problem, a blank line, ``Received arguments:`` and the arguments as 2-space-indented JSON.
Models read it and resend a corrected call, so it must name every problem at once.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any


class ToolValidationError(ValueError):
    """The arguments did not fit the tool's schema; `str()` is the text for the model."""


def format_validation_failure(tool_name: str, problems: Sequence[tuple[str, str]], arguments: Any) -> str:
    """pi's error frame; `problems` are (path or "root", message) pairs."""
    lines = [f'Validation failed for tool "{tool_name}":']
    lines.extend(f"  - {path or 'root'}: {message}" for path, message in problems)
    lines.append("")
    lines.append("Received arguments:")
    lines.append(json.dumps(arguments, indent=2, ensure_ascii=False, default=str))
    return "\n".join(lines)


__all__ = ["ToolValidationError", "format_validation_failure"]
