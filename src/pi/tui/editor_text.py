"""Text units for the editor: grapheme clusters, atomic paste markers and word boundaries.

The cursor never lands inside a grapheme (an emoji ZWJ sequence, a letter with combining marks)
or inside a paste marker, and word moves and word deletes use Unicode character classes: a run of
letters/digits is a word, a run of punctuation is a word, whitespace separates.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Container

PASTE_MARKER_RE = re.compile(r"\[paste #(\d+) (?:\+\d+ lines|\d+ chars)\]")

_ZWJ = "\u200d"


def _extends(ch: str) -> bool:
    """True when ``ch`` belongs to the grapheme before it."""
    code = ord(ch)
    if 0xFE00 <= code <= 0xFE0F or 0x1F3FB <= code <= 0x1F3FF or 0xE0020 <= code <= 0xE007F:
        return True
    return unicodedata.category(ch) in ("Mn", "Me", "Mc")


def _is_regional(ch: str) -> bool:
    return 0x1F1E6 <= ord(ch) <= 0x1F1FF


def grapheme_bounds(text: str) -> list[int]:
    """Offsets where grapheme clusters start, plus ``len(text)`` at the end."""
    bounds: list[int] = []
    i = 0
    n = len(text)
    while i < n:
        bounds.append(i)
        ch = text[i]
        i += 1
        if ch == "\r" and i < n and text[i] == "\n":
            i += 1
            continue
        if _is_regional(ch) and i < n and _is_regional(text[i]):
            i += 1
        while i < n:
            nxt = text[i]
            if _extends(nxt):
                i += 1
            elif nxt == _ZWJ:
                i += 1
                if i < n:
                    i += 1
            else:
                break
    bounds.append(n)
    return bounds


def _plain(text: str) -> bool:
    """Printable ASCII without markers: every character is its own unit."""
    return text.isascii() and "[paste #" not in text and (text.isprintable() or "\n" in text)


def unit_bounds(text: str, markers: Container[int]) -> list[int]:
    """Grapheme bounds with each known paste marker (``[paste #N …]``, N in ``markers``) as one unit."""
    if _plain(text):
        return list(range(len(text) + 1))
    spans = [(m.start(), m.end()) for m in PASTE_MARKER_RE.finditer(text) if int(m.group(1)) in markers]
    if not spans:
        return grapheme_bounds(text)
    bounds: list[int] = []
    pos = 0
    for start, end in spans:
        if start > pos:
            bounds.extend(b + pos for b in grapheme_bounds(text[pos:start])[:-1])
        bounds.append(start)
        pos = end
    if pos < len(text):
        bounds.extend(b + pos for b in grapheme_bounds(text[pos:])[:-1])
    bounds.append(len(text))
    return bounds


def marker_spans(text: str, markers: Container[int]) -> list[tuple[int, int]]:
    """Spans of the known paste markers in ``text``."""
    return [(m.start(), m.end()) for m in PASTE_MARKER_RE.finditer(text) if int(m.group(1)) in markers]


def char_class(ch: str) -> int:
    """0 whitespace, 1 punctuation/symbol, 2 word character (letters, digits, marks, ``_``)."""
    if ch.isspace():
        return 0
    if ch == "_" or ch.isalnum():
        return 2
    category = unicodedata.category(ch)
    if category[0] in ("L", "N", "M"):
        return 2
    return 1


def _unit_class(text: str, start: int, end: int, markers: Container[int]) -> int:
    if end - start > 1 and text[start] == "[" and PASTE_MARKER_RE.fullmatch(text, start, end):
        return 3
    return char_class(text[start])


def word_left(text: str, col: int, markers: Container[int]) -> int:
    """Offset of the start of the word before ``col`` (skipping whitespace first)."""
    bounds = unit_bounds(text, markers)
    idx = bounds.index(col) if col in bounds else _floor(bounds, col)
    while idx > 0 and _unit_class(text, bounds[idx - 1], bounds[idx], markers) == 0:
        idx -= 1
    if idx == 0:
        return 0
    cls = _unit_class(text, bounds[idx - 1], bounds[idx], markers)
    if cls == 3:
        return bounds[idx - 1]
    while idx > 0 and _unit_class(text, bounds[idx - 1], bounds[idx], markers) == cls:
        idx -= 1
    return bounds[idx]


def word_right(text: str, col: int, markers: Container[int]) -> int:
    """Offset of the end of the word after ``col`` (skipping whitespace first)."""
    bounds = unit_bounds(text, markers)
    idx = bounds.index(col) if col in bounds else _floor(bounds, col)
    last = len(bounds) - 1
    while idx < last and _unit_class(text, bounds[idx], bounds[idx + 1], markers) == 0:
        idx += 1
    if idx == last:
        return len(text)
    cls = _unit_class(text, bounds[idx], bounds[idx + 1], markers)
    if cls == 3:
        return bounds[idx + 1]
    while idx < last and _unit_class(text, bounds[idx], bounds[idx + 1], markers) == cls:
        idx += 1
    return bounds[idx]


def _floor(bounds: list[int], col: int) -> int:
    idx = 0
    for i, b in enumerate(bounds):
        if b <= col:
            idx = i
    return idx


def prev_unit(text: str, col: int, markers: Container[int]) -> int:
    """Start of the unit before ``col``."""
    if _plain(text):
        return max(0, col - 1)
    bounds = unit_bounds(text, markers)
    before = [b for b in bounds if b < col]
    return before[-1] if before else 0


def next_unit(text: str, col: int, markers: Container[int]) -> int:
    """End of the unit starting at ``col``."""
    if _plain(text):
        return min(len(text), col + 1)
    bounds = unit_bounds(text, markers)
    after = [b for b in bounds if b > col]
    return after[0] if after else len(text)


def snap(text: str, col: int, markers: Container[int]) -> int:
    """``col`` moved back to the nearest unit start (never inside a grapheme or marker)."""
    if _plain(text):
        return max(0, min(col, len(text)))
    bounds = unit_bounds(text, markers)
    return bounds[_floor(bounds, min(col, len(text)))]
