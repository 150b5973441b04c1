"""The script's optional first line `// @options: {"max_output_tokens": N, "timeout_ms": N}`.

The line is replaced by an empty one so error line numbers still match the model's source. Bad
options fail the call before anything runs, with a message saying what to change.
"""

from __future__ import annotations

import json
import re

from msgspec import Struct

DEFAULT_MAX_OUTPUT_TOKENS = 10000
DEFAULT_TIMEOUT_MS = 120000
OPTIONS_LINE = re.compile(r"^\s*//\s*@options:(.*)$")
KEYS = ("max_output_tokens", "timeout_ms")
SOURCE_GRAMMAR = r"""
start: header_and_body | body
header_and_body: HEADER LINE_BREAK BODY
body: BODY

HEADER: /[ \t]*\/\/ @options:[^\r\n]*/
LINE_BREAK: /\r?\n/
BODY: /[\s\S]+/
"""
"""Lark grammar (OpenAI grammar-constrained tool input) for the tool's `code`: raw JavaScript with an optional
options line first. Only the layout is fixed here; `parse_script` still checks the options and the code."""
CONSTRAINED_SAMPLING = {"type": "grammar", "variants": {"openai_lark": SOURCE_GRAMMAR}}


class ScriptOptionsError(ValueError):
    """The script cannot run as given; the message says why."""


class ScriptSource(Struct, frozen=True):
    """The code to run and its limits."""

    code: str
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS
    timeout_ms: int = DEFAULT_TIMEOUT_MS


def _positive(options: dict[str, object], key: str, default: int) -> int:
    value = options.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ScriptOptionsError(f"@options {key} must be a positive integer, got {json.dumps(value)}")
    return value


def parse_script(code: object, default_timeout_ms: int = DEFAULT_TIMEOUT_MS) -> ScriptSource:
    """The script and its options, or `ScriptOptionsError`."""
    if not isinstance(code, str) or not code.strip():
        raise ScriptOptionsError("code must be a non-empty string of JavaScript")
    lines = code.split("\n")
    for number, line in enumerate(lines[1:], start=2):
        if OPTIONS_LINE.match(line):
            raise ScriptOptionsError(
                f"The // @options: line must be the first line of the script (found on line {number})"
            )
    match = OPTIONS_LINE.match(lines[0])
    if match is None:
        return ScriptSource(code=code, timeout_ms=default_timeout_ms)
    try:
        options = json.loads(match.group(1))
    except json.JSONDecodeError as error:
        raise ScriptOptionsError(f"The // @options: line is not valid JSON: {error.msg}") from error
    if not isinstance(options, dict):
        raise ScriptOptionsError('The // @options: line must hold a JSON object, e.g. {"timeout_ms": 30000}')
    unknown = [k for k in options if k not in KEYS]
    if unknown:
        raise ScriptOptionsError(
            f"Unknown @options key(s): {', '.join(unknown)}. Allowed: max_output_tokens, timeout_ms"
        )
    body = "\n".join(["", *lines[1:]])
    if not body.strip():
        raise ScriptOptionsError("The script has an // @options: line but no code")
    return ScriptSource(
        code=body,
        max_output_tokens=_positive(options, "max_output_tokens", DEFAULT_MAX_OUTPUT_TOKENS),
        timeout_ms=_positive(options, "timeout_ms", default_timeout_ms),
    )


__all__ = [
    "CONSTRAINED_SAMPLING",
    "DEFAULT_MAX_OUTPUT_TOKENS",
    "DEFAULT_TIMEOUT_MS",
    "SOURCE_GRAMMAR",
    "ScriptOptionsError",
    "ScriptSource",
    "parse_script",
]
