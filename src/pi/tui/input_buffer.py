"""Splitting raw terminal input into complete key sequences.

A read from stdin can hold several keys, half an escape sequence, a terminal reply, a mouse report
or a whole paste. The buffer hands out one complete unit at a time: a character, a CSI/SS3/OSC/DCS/
APC sequence, or a bracketed paste (start marker, text, end marker) as a single string. A lone ESC
or a cut-off sequence waits for more bytes and is released by `flush()` once the escape timeout has
passed (the caller owns the clock, so the buffer stays pure and easy to drive from an event loop).
"""

from __future__ import annotations

import codecs
import os
import re
from collections.abc import Mapping

__all__ = ["PASTE_END", "PASTE_START", "InputBuffer", "escape_timeout_ms"]

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"

# Kitty key release: the event type 3 follows the modifiers (`CSI code;mods:3u`, `CSI 1;mods:3A`).
_RELEASE_RE = re.compile(r"^\x1b\[[\d:]*;\d*:3(?:;[\d:]*)?[u~A-Z]$")


def escape_timeout_ms(environ: Mapping[str, str] | None = None) -> float:
    """`PI_TUI_ESC_TIMEOUT` in ms: 10 by default, 100 over SSH."""
    env = os.environ if environ is None else environ
    raw = env.get("PI_TUI_ESC_TIMEOUT", "")
    try:
        value = float(raw)
        if value >= 0:
            return value
    except ValueError:
        pass
    return 100.0 if env.get("SSH_CONNECTION") or env.get("SSH_TTY") else 10.0


class InputBuffer:
    """Accumulates input and yields complete sequences."""

    def __init__(self, keep_releases: bool = False, timeout_ms: float | None = None) -> None:
        self.keep_releases = keep_releases
        self.timeout_ms = escape_timeout_ms() if timeout_ms is None else timeout_ms
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""

    def has_pending(self) -> bool:
        """Whether an incomplete sequence waits for more input (or for `flush`)."""
        return bool(self._pending)

    def in_paste(self) -> bool:
        return self._pending.startswith(PASTE_START)

    def feed(self, data: bytes | str) -> list[str]:
        """Add input; return the sequences that are now complete."""
        text = self._decoder.decode(data) if isinstance(data, bytes) else data
        self._pending += text
        return self._drain(final=False)

    def flush(self) -> list[str]:
        """Release whatever waits as it is (called when the escape timeout passed). A paste keeps waiting."""
        if self.in_paste():
            return []
        return self._drain(final=True)

    def _drain(self, final: bool) -> list[str]:
        out: list[str] = []
        text = self._pending
        i = 0
        n = len(text)
        while i < n:
            ch = text[i]
            if ch != "\x1b":
                # Runs of plain characters are split into one character each.
                out.append(ch)
                i += 1
                continue
            end = _sequence_end(text, i)
            if end < 0:
                if not final:
                    break
                end = _flush_end(text, i)
            seq = text[i:end]
            i = end
            if seq == PASTE_START:
                close = text.find(PASTE_END, i)
                if close < 0:  # the paste goes on in a later read; keep it whole
                    i -= len(seq)
                    break
                out.append(seq + text[i:close] + PASTE_END)
                i = close + len(PASTE_END)
                continue
            if not self.keep_releases and _RELEASE_RE.match(seq):
                continue
            out.append(seq)
        self._pending = text[i:]
        return out


def _flush_end(text: str, start: int) -> int:
    """On timeout: a lone ESC is the Escape key; ESC + one char is Alt+char; otherwise take the rest."""
    if start + 1 >= len(text):
        return start + 1
    if text[start + 1] == "\x1b":
        return start + 1
    if text[start + 1] in "[O]P_^X":
        return len(text)
    return start + 2


def _sequence_end(text: str, start: int) -> int:
    """Index just past the escape sequence starting at `start`, or -1 if it is not complete yet."""
    n = len(text)
    if start + 1 >= n:
        return -1
    kind = text[start + 1]
    if kind == "[":
        if text.startswith("M", start + 2):  # X10 mouse report: CSI M and three bytes
            return start + 6 if start + 5 < n else -1
        return _csi_end(text, start + 2)
    if kind == "O":
        return start + 3 if start + 2 < n else -1
    if kind in "]P_^X":
        return _string_end(text, start + 2)
    if kind == "\x1b":
        # ESC ESC: Alt with an escape sequence, or two Escape presses.
        if start + 2 >= n:
            return -1
        if text[start + 2] in "[O":
            return _sequence_end(text, start + 1)
        return start + 1
    return start + 2  # Alt + character


def _csi_end(text: str, i: int) -> int:
    n = len(text)
    while i < n:
        c = text[i]
        o = ord(c)
        if 0x40 <= o <= 0x7E:
            return i + 1
        if 0x20 <= o <= 0x3F:
            i += 1
            continue
        return i  # malformed: end the sequence before the stray character
    return -1


def _string_end(text: str, i: int) -> int:
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\x07":
            return i + 1
        if c == "\x1b":
            if i + 1 >= n:
                return -1
            if text[i + 1] == "\\":
                return i + 2
            return i  # unterminated string cut by a new escape
        i += 1
    return -1
