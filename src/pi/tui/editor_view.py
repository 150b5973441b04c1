"""Drawing the editor: the rules above and below, the wrapped text window and the cursor.

The top rule can carry a label (the working indicator, ``── ⠸ Working ───…``); both rules carry
a centred `` ↑ N more `` / `` ↓ N more `` when the text is scrolled. The cursor is a reverse-video
cell preceded by ``CURSOR_MARKER`` so the terminal's cursor can follow it (IME placement).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi.tui.component import CURSOR_MARKER
from pi.tui.editor_layout import VisualLine
from pi.tui.editor_text import grapheme_bounds
from pi.tui.text_width import truncate_to_width, visible_width

if TYPE_CHECKING:
    from pi.tui.theme import Theme

RULE = "─"


def visible_line_budget(terminal_rows: int) -> int:
    """Text lines the editor shows before it scrolls: ``max(5, floor(rows * 0.3))``."""
    return max(5, (terminal_rows * 3) // 10)


def rule_line(width: int, theme: Theme, token: str, *, label: str | None = None, indicator: str | None = None) -> str:
    """A full-width rule, optionally with ``── label `` at the left and a centred indicator."""
    prefix = ""
    if label:
        prefix = f"{RULE * 2} {label} "
        if visible_width(prefix) + 1 > width:
            spinner = label.split(" ", 1)[0]
            prefix = f"{RULE * 2} {spinner} "
            if visible_width(prefix) > width:
                prefix = ""
    used = visible_width(prefix)
    if indicator and used + visible_width(indicator) <= width:
        ind_w = visible_width(indicator)
        left = max(used, (width - ind_w) // 2)
        text = prefix + RULE * (left - used) + indicator + RULE * (width - left - ind_w)
    else:
        text = prefix + RULE * max(0, width - used)
    return theme.fg(token, text)


def draw_line(text: str, vl: VisualLine, cursor_col: int | None, focused: bool) -> str:
    """One visual line of text with the cursor (reverse video) at ``cursor_col`` if given."""
    segment = text[vl.start : vl.end]
    if cursor_col is None:
        return segment
    col = cursor_col - vl.start
    before = segment[:col]
    rest = segment[col:]
    bounds = grapheme_bounds(rest)
    under = rest[: bounds[1]] if len(bounds) > 1 else ""
    after = rest[len(under) :]
    marker = CURSOR_MARKER if focused else ""
    if not focused:
        return segment
    return before + marker + "\x1b[7m" + (under or " ") + "\x1b[0m" + after


def frame_content(
    lines: list[str],
    width: int,
    padding_x: int,
) -> list[str]:
    """Content lines padded to the full width (left and right padding included)."""
    pad = " " * padding_x
    inner = max(1, width - 2 * padding_x)
    out = []
    for line in lines:
        w = visible_width(line)
        if w > inner:
            line = truncate_to_width(line, inner, "")
            w = visible_width(line)
        out.append(pad + line + " " * (inner - w) + pad)
    return out
