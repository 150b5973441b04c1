"""Word wrap of the editor's text into visual lines, and cursor placement on them.

Each logical line wraps at the last space that fits (a word longer than the line is broken
between graphemes); paste markers are never split unless they alone are wider than the line.
"""

from __future__ import annotations

from collections.abc import Container
from itertools import pairwise

from msgspec import Struct

from pi.tui.editor_text import unit_bounds
from pi.tui.text_width import visible_width


class VisualLine(Struct, frozen=True):
    """Part of logical line ``line``: offsets ``start``..``end`` into it, and the line's text offset."""

    line: int
    start: int
    end: int
    offset: int
    last: bool


def _unit_width(unit: str) -> int:
    return visible_width(unit) if not unit.isascii() or unit == "\t" else len(unit)


def wrap_ascii(text: str, width: int) -> list[tuple[int, int]]:
    """``wrap_line`` for printable ASCII (one cell per character), with string searches only."""
    spans: list[tuple[int, int]] = []
    start = 0
    n = len(text)
    while n - start > width:
        if text[start + width] == " ":
            end = start + width + 1  # the overflowing space stays on this line
        else:
            k = text.rfind(" ", start, start + width)
            end = k + 1 if k != -1 else start + width
        spans.append((start, end))
        start = end
    spans.append((start, n))
    return spans


_wrap_cache: dict[tuple[str, int], list[tuple[int, int]]] = {}


def wrap_line(text: str, width: int, markers: Container[int]) -> list[tuple[int, int]]:
    """(start, end) offsets of the visual lines of one logical line."""
    width = max(1, width)
    if not text:
        return [(0, 0)]
    if text.isascii() and text.isprintable() and "[paste #" not in text:
        if len(text) <= width:
            return [(0, len(text))]
        key = (text, width)
        spans = _wrap_cache.get(key)
        if spans is None:
            if len(_wrap_cache) > 256:
                _wrap_cache.clear()
            spans = _wrap_cache[key] = wrap_ascii(text, width)
        return spans
    return wrap_units(text, width, markers)


def wrap_units(text: str, width: int, markers: Container[int]) -> list[tuple[int, int]]:
    """The general word wrap over grapheme/marker units (any text)."""
    bounds = unit_bounds(text, markers)
    spans: list[tuple[int, int]] = []
    start = 0
    used = 0
    last_break = -1  # offset just after the last space on the current visual line
    i = 0
    while i < len(bounds) - 1:
        a, b = bounds[i], bounds[i + 1]
        unit = text[a:b]
        w = _unit_width(unit)
        if used + w <= width:
            used += w
            if unit == " ":
                last_break = b
            i += 1
            continue
        if used == 0:
            # A unit wider than the whole line (a long marker): split it by cells.
            cut = a
            cells = 0
            while cut < b and cells + _unit_width(text[cut]) <= width:
                cells += _unit_width(text[cut])
                cut += 1
            cut = max(cut, a + 1)
            spans.append((start, cut))
            start = cut
            bounds[i] = cut  # the rest of the unit is looked at again on the next line
            continue
        if unit == " " and used <= width:
            # An overflowing space stays at the end of the line, in the cursor's spare column.
            spans.append((start, b))
            start = b
            used = 0
            last_break = -1
            i += 1
            continue
        if unit != " " and last_break > start:
            spans.append((start, last_break))
            start = last_break
        else:
            spans.append((start, a))
            start = a
        used = visible_width(text[start:a]) if start < a else 0
        last_break = -1
    spans.append((start, len(text)))
    return spans


def layout(text: str, width: int, markers: Container[int]) -> list[VisualLine]:
    """All visual lines of the text for ``width`` cells."""
    result: list[VisualLine] = []
    offset = 0
    for index, line in enumerate(text.split("\n")):
        spans = wrap_line(line, width, markers)
        for n, (start, end) in enumerate(spans):
            result.append(VisualLine(index, start, end, offset, n == len(spans) - 1))
        offset += len(line) + 1
    return result


def cursor_row(lines: list[VisualLine], cursor: int) -> int:
    """Index of the visual line that shows the cursor offset."""
    for row, vl in enumerate(lines):
        start = vl.offset + vl.start
        end = vl.offset + vl.end
        if start <= cursor < end or (cursor == end and vl.last):
            return row
    return max(0, len(lines) - 1)


def offset_at_column(text: str, vl: VisualLine, column: int, markers: Container[int]) -> int:
    """Text offset on visual line ``vl`` closest to (not past) display column ``column``."""
    line = text[vl.offset : vl.offset + vl.end]
    bounds = [b for b in unit_bounds(line, markers) if vl.start <= b <= vl.end]
    used = 0
    best = vl.start
    for a, b in pairwise(bounds):
        w = visible_width(line[a:b])
        if used + w > column:
            break
        used += w
        best = b
    if not vl.last and best == vl.end and vl.end > vl.start:
        # The end of a wrapped visual line is the start of the next one: stay on this line.
        best = bounds[-2] if len(bounds) >= 2 else vl.start
    return vl.offset + best
