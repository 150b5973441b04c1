"""Validate (and coerce) tool-call arguments, with errors written for the model to act on.

The error text has pi's exact frame: ``Validation failed for tool "<name>":``, one ``  - path: problem``
line per problem, a blank line, ``Received arguments:`` and the arguments as 2-space-indented JSON.
Models read it and resend a corrected call, so it must name every problem at once.

Paths are dotted (``edits.0.old_text``), the newer pi's style; a missing property is reported at its
own path (``options.mode: must have required property 'mode'``), so the model sees where it belongs.
A tool's parameters are a pydantic model, whose lax mode already turns "5" into 5.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

Problem = tuple[str, str]
"""(dotted path, or "" for the arguments object itself; message)."""


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


def validate_model_arguments(tool_name: str, params_model: type[BaseModel], arguments: dict[str, Any]) -> BaseModel:
    """`arguments` as an instance of `params_model`; raises ToolValidationError in pi's frame.

    Validation runs on a deep copy so that the params a tool receives (and may mutate) share nothing
    with the arguments stored in the conversation.
    """
    try:
        return params_model.model_validate(copy.deepcopy(arguments))
    except ValidationError as error:
        problems: list[Problem] = []
        for item in error.errors(include_url=False):
            path = ".".join(str(part) for part in item["loc"])
            if item["type"] == "missing" and item["loc"]:
                problems.append((path, f"must have required property '{item['loc'][-1]}'"))
            else:
                problems.append((path, item["msg"]))
        raise ToolValidationError(format_validation_failure(tool_name, problems, arguments)) from None


def check_tool_call_arguments(tool_name: str, arguments_error: str | None) -> None:
    """Raise ToolValidationError when the model's arguments text could not be read at all.

    Called before `validate_model_arguments` with the call's `arguments_error`; the text says
    ``Invalid arguments for tool "<name>": <parse error>`` and quotes what the model sent.
    """
    if arguments_error:
        raise ToolValidationError(f'Invalid arguments for tool "{tool_name}": {arguments_error}')


__all__ = ["ToolValidationError", "check_tool_call_arguments", "format_validation_failure", "validate_model_arguments"]
