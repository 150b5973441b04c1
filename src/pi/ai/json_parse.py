"""Parse tool-call arguments while they are still streaming in.

Models stream arguments as JSON text in fragments; the UI wants to show them as they grow. A strict
parse is tried first; otherwise a small tolerant parser reads as far as the text goes, closing open
strings, arrays and objects, and drops a trailing key that has no value yet. Anything unreadable
gives ``{}``, so `arguments` is always an object.
"""

from __future__ import annotations

import json
import re
from typing import Any

_PLAIN_RUN = re.compile(r'[^"\\]+')
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class _Incomplete(Exception):
    """The text ended inside a value."""


class _Partial:
    __slots__ = ("pos", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def skip_ws(self) -> None:
        text, pos = self.text, self.pos
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        self.pos = pos

    def value(self) -> Any:
        self.skip_ws()
        if self.pos >= len(self.text):
            raise _Incomplete
        ch = self.text[self.pos]
        if ch == "{":
            return self.obj()
        if ch == "[":
            return self.arr()
        if ch == '"':
            return self.string()
        return self.scalar()

    def obj(self) -> dict[str, Any]:
        self.pos += 1
        out: dict[str, Any] = {}
        while True:
            self.skip_ws()
            if self.pos >= len(self.text):
                return out
            ch = self.text[self.pos]
            if ch == "}":
                self.pos += 1
                return out
            if ch == ",":
                self.pos += 1
                continue
            if ch != '"':
                raise ValueError("expected a key")
            try:
                key = self.string(allow_partial=False)
            except _Incomplete:
                return out
            self.skip_ws()
            if self.pos >= len(self.text):
                return out
            if self.text[self.pos] != ":":
                raise ValueError("expected ':'")
            self.pos += 1
            try:
                out[key] = self.value()
            except _Incomplete:
                return out

    def arr(self) -> list[Any]:
        self.pos += 1
        out: list[Any] = []
        while True:
            self.skip_ws()
            if self.pos >= len(self.text):
                return out
            ch = self.text[self.pos]
            if ch == "]":
                self.pos += 1
                return out
            if ch == ",":
                self.pos += 1
                continue
            try:
                out.append(self.value())
            except _Incomplete:
                return out

    def string(self, allow_partial: bool = True) -> str:
        text = self.text
        pos = self.pos + 1
        parts: list[str] = []
        while pos < len(text):
            run = _PLAIN_RUN.match(text, pos)
            if run is not None:
                # Whole runs of ordinary characters at once: a long argument (a file to write) is
                # re-parsed after every fragment, and a loop per character made that quadratic in Python.
                parts.append(run.group())
                pos = run.end()
                continue
            ch = text[pos]
            if ch == '"':
                self.pos = pos + 1
                return "".join(parts)
            if ch == "\\":
                if pos + 1 >= len(text):
                    break
                esc = text[pos + 1]
                if esc == "u":
                    digits = text[pos + 2 : pos + 6]
                    if len(digits) < 4:
                        break
                    code = int(digits, 16)
                    if 0xD800 <= code <= 0xDBFF:
                        # Characters outside the BMP arrive as two escapes; join them, or wait
                        # for the second rather than show a lone surrogate that cannot be encoded.
                        tail = text[pos + 6 : pos + 12]
                        if len(tail) < 6 and "\\u".startswith(tail[:2]):
                            break
                        low = int(tail[2:], 16) if tail[:2] == "\\u" and len(tail) == 6 else -1
                        if 0xDC00 <= low <= 0xDFFF:
                            parts.append(chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)))
                            pos += 12
                            continue
                    parts.append(chr(code))
                    pos += 6
                    continue
                parts.append(_ESCAPES.get(esc, esc))
                pos += 2
                continue
            parts.append(ch)
            pos += 1
        self.pos = len(text)
        if not allow_partial:
            raise _Incomplete
        return "".join(parts)

    def scalar(self) -> Any:
        text = self.text
        start = self.pos
        pos = start
        while pos < len(text) and text[pos] not in ",]} \t\r\n":
            pos += 1
        token = text[start:pos]
        self.pos = pos
        if pos >= len(text):
            # The token may still grow ("tr" -> "true", "12" -> "123"); accept only what is certain.
            for word, value in (("true", True), ("false", False), ("null", None)):
                if token == word:
                    return value
            try:
                return json.loads(token)
            except ValueError:
                raise _Incomplete from None
        return json.loads(token)


def parse_streaming_json(text: str | None) -> dict[str, Any]:
    """Best-effort object from possibly incomplete JSON text; ``{}`` when nothing can be read."""
    if text is None or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        try:
            value = _Partial(text).value()
        except (ValueError, _Incomplete, IndexError):
            return {}
    return value if isinstance(value, dict) else {}


__all__ = ["parse_streaming_json"]
