"""Parse tool-call arguments while they are still streaming in.

Models stream arguments as JSON text in fragments, and the UI shows them as they grow. pydantic's
JSON parser reads a prefix of a document as far as it goes (``allow_partial="trailing-strings"``
keeps a string that is still being written, drops a key whose value has not started, and closes open
arrays and objects), in native code, fast enough to run after every fragment. Anything that is not
an object, or not JSON at all, reads as "nothing yet".
"""

from __future__ import annotations

import json
from typing import Any

from pydantic_core import from_json


def parse_partial_json(text: str | None) -> dict[str, Any] | None:
    """The object a (possibly incomplete) JSON text holds so far; None when it is not readable as one."""
    if text is None or not text.strip():
        return None
    try:
        value = from_json(text, allow_partial="trailing-strings")
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def parse_streaming_json(text: str | None) -> dict[str, Any]:
    """Best-effort object from possibly incomplete JSON text; ``{}`` when nothing can be read.

    A complete document that pydantic refuses (a lone escaped surrogate such as ``"\\ud83d"``) is
    still read by the standard parser, so a final set of arguments is never lost over one character.
    """
    value = parse_partial_json(text)
    if value is None and text is not None and text.strip():
        try:
            loaded = json.loads(text)
        except ValueError:
            return {}
        value = loaded if isinstance(loaded, dict) else None
    return {} if value is None else value


_VALID_ESCAPES = frozenset('"\\/bfnrt')
_HEX = frozenset("0123456789abcdefABCDEF")
_CONTROL_ESCAPES = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def repair_json_strings(text: str) -> str:
    """`text` with its string literals made valid: raw control characters escaped, and a backslash
    that starts no valid escape (``\\d`` in a regex, a ``\\u`` without four hex digits) doubled."""
    out: list[str] = []
    in_string = False
    i = 0
    while i < len(text):
        char = text[i]
        if not in_string:
            out.append(char)
            in_string = char == '"'
        elif char == '"':
            out.append(char)
            in_string = False
        elif char == "\\":
            following = text[i + 1] if i + 1 < len(text) else ""
            if following == "u" and len(text) >= i + 6 and all(c in _HEX for c in text[i + 2 : i + 6]):
                out.append(text[i : i + 6])
                i += 5
            elif following and following in _VALID_ESCAPES:
                out.append(text[i : i + 2])
                i += 1
            else:
                out.append("\\\\")
        elif ord(char) < 0x20:
            out.append(_CONTROL_ESCAPES.get(char, f"\\u{ord(char):04x}"))
        else:
            out.append(char)
        i += 1
    return "".join(out)


def parse_tool_call_arguments(text: str | None) -> tuple[dict[str, Any], str | None]:
    """The complete arguments text of a finished tool call: ``(arguments, None)``, or ``({}, error)``.

    Unlike `parse_streaming_json`, no readable prefix is kept: once the call is complete, text that
    is not a JSON object is the model's mistake, and the error (which quotes the text) is what the
    model is told so that it can send the call again. Broken escapes inside strings are repaired
    first rather than dropping the fields they are in.
    """
    if text is None or not text.strip():
        return {}, None
    try:
        try:
            value = json.loads(text)
        except ValueError:
            repaired = repair_json_strings(text)
            if repaired == text:
                raise
            value = json.loads(repaired)
        if not isinstance(value, dict):
            raise ValueError("Tool arguments must be a JSON object")
    except ValueError as error:
        return {}, f"{error}\n\nReceived arguments:\n{text}"
    return value, None


__all__ = ["parse_partial_json", "parse_streaming_json", "parse_tool_call_arguments", "repair_json_strings"]
