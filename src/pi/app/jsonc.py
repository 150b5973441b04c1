"""JSON with comments (``//`` and ``/* */``) and trailing commas, as hand-edited config files use it.

The text is turned into plain JSON of the same length before `json.loads` sees it: comments and
trailing commas become spaces (newlines kept), so a syntax error still points at the line and
column the user sees in their editor. A leading byte-order mark is dropped.
"""

from __future__ import annotations

import json
from typing import Any


def strip_jsonc(text: str) -> str:
    """`text` with comments and trailing commas blanked out; everything inside strings is kept."""
    out = list(text)
    i, n = 0, len(text)
    last_comma: int | None = None
    while i < n:
        ch = text[i]
        if ch == '"':
            last_comma = None
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        if ch == "/" and i + 1 < n and text[i + 1] in "/*":
            end = text.find("\n", i) if text[i + 1] == "/" else text.find("*/", i + 2)
            end = n if end < 0 else (end if text[i + 1] == "/" else end + 2)
            for j in range(i, end):
                if out[j] != "\n":
                    out[j] = " "
            i = end
            continue
        if ch == ",":
            last_comma = i
        elif ch in "}]" and last_comma is not None:
            out[last_comma] = " "
            last_comma = None
        elif not ch.isspace():
            last_comma = None
        i += 1
    return "".join(out)


def loads_jsonc(text: str) -> Any:
    """Parse JSONC text; raises `json.JSONDecodeError` (a ValueError) like `json.loads`."""
    return json.loads(strip_jsonc(text.removeprefix("\ufeff")))


__all__ = ["loads_jsonc", "strip_jsonc"]
