"""Small text helpers shared by the transcript components: durations, paths, key hints, panels.

Kept in one place so that every card words and pads things the same way (the `~` shortening of a
path, the dim key inside a muted hint, the blank-lined panel a block sits on).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from pi.tui.text_width import pad_to_width, truncate_to_width, visible_width, wrap_text_with_ansi

if TYPE_CHECKING:
    from pi.tui.theme import Theme

#: The default key of the `expandTools` action, as hints print it.
EXPAND_KEY = "ctrl+o"


def format_duration(seconds: float) -> str:
    """`4.2s` under a minute, `1m 30s` under an hour, `2h 3m 4s` above."""
    seconds = max(0.0, seconds)
    if round(seconds, 1) < 60:
        return f"{seconds:.1f}s"
    total = int(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes}m {secs}s"
    return f"{minutes}m {secs}s"


def format_tokens(count: int) -> str:
    """A token count with thousands separators (`12,345`), as the summaries print it."""
    return f"{count:,}"


def shorten_path(path: str, home: str | None = None) -> str:
    """`path` with the home directory written as `~`."""
    home = home if home is not None else os.path.expanduser("~")
    if home and home != "/" and (path == home or path.startswith(home.rstrip("/") + "/")):
        return "~" + path[len(home.rstrip("/")) :]
    return path


def key_hint(theme: Theme, key: str, description: str) -> str:
    """`ctrl+o to expand`: the key dim, the description muted."""
    return theme.fg("dim", key) + theme.fg("muted", f" {description}")


def expand_hint(theme: Theme, prefix: str, key: str = EXPAND_KEY, action: str = "to expand") -> str:
    """`<prefix> <key> to expand)` with the prefix muted; prefix carries the opening text, e.g. `... (4 more lines,`."""
    return theme.fg("muted", prefix) + " " + theme.fg("dim", key) + theme.fg("muted", f" {action})")


def content_text(content: Any, separator: str = "\n") -> str:
    """The text of message content as extensions and session entries hand it over: a string, or the
    text of its blocks (dicts or objects) joined by `separator`; blocks without text are skipped."""
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        text = block.get("text") if isinstance(block, dict) else getattr(block, "text", None)
        if isinstance(text, str):
            parts.append(text)
    return separator.join(parts)


def wrap(text: str, width: int) -> list[str]:
    """Word-wrapped lines of at most `width` cells (an empty text gives no lines)."""
    if not text:
        return []
    return wrap_text_with_ansi(text, max(1, width))


def cut(line: str, width: int) -> str:
    """One line cut to `width` cells."""
    return line if visible_width(line) <= width else truncate_to_width(line, width, "")


def panel(
    lines: Sequence[str],
    width: int,
    pad_x: int,
    pad_y: int,
    style: Callable[[str], str] | None,
) -> list[str]:
    """Lines inside padding, every row filled to `width` and styled (the card and summary panels)."""
    pad = " " * pad_x
    blank = " " * width
    rows = [blank] * pad_y
    rows.extend(pad_to_width(pad + line, width) for line in lines)
    rows.extend([blank] * pad_y)
    if style is not None:
        rows = [style(row) for row in rows]
    return rows


def inner_width(width: int, pad_x: int) -> int:
    """Room for content between the horizontal paddings (at least one cell)."""
    return max(1, width - 2 * pad_x)


__all__ = [
    "EXPAND_KEY",
    "content_text",
    "cut",
    "expand_hint",
    "format_duration",
    "format_tokens",
    "inner_width",
    "key_hint",
    "panel",
    "shorten_path",
    "wrap",
]
