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


__all__ = ["parse_partial_json", "parse_streaming_json"]
