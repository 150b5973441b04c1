"""Blocks commands add to the chat: an accent one-liner, a titled text block, a bordered panel.

`/new` says `✓ New session started` in the accent colour; `/session` shows a titled block;
`/hotkeys` and `/changelog` show their content between two rules; `/reload` shows a box in the
editor's place while it works.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pi.tui.text_width import truncate_to_width, visible_width, wrap_text_with_ansi

if TYPE_CHECKING:
    from pi.tui.component import Component
    from pi.tui.theme import Theme


def _wrapped(lines: Sequence[str], width: int, pad: int) -> list[str]:
    out: list[str] = []
    for line in lines:
        if not line:
            out.append("")
            continue
        out.extend(" " * pad + part for part in wrap_text_with_ansi(line, max(1, width - 2 * pad)))
    return out


class TextBlock:
    """A blank line, then lines padded by one cell and wrapped to the width."""

    def __init__(self, lines: Sequence[str], pad: int = 1) -> None:
        self.lines = list(lines)
        self.pad = pad

    def invalidate(self) -> None:
        return None

    def render(self, width: int) -> list[str]:
        return ["", *_wrapped(self.lines, width, self.pad)]


def accent_line(theme: Theme, text: str) -> TextBlock:
    return TextBlock([theme.fg("accent", text)])


class BorderedPanel:
    """A rule, a bold title, the content (text lines or a component), a rule."""

    def __init__(self, theme: Theme, title: str, content: Sequence[str] | Component, *, pad: int = 1) -> None:
        self.theme = theme
        self.title = title
        self.content = content
        self.pad = pad

    def invalidate(self) -> None:
        if not isinstance(self.content, Sequence):
            self.content.invalidate()

    def render(self, width: int) -> list[str]:
        rule = self.theme.fg("border", "─" * width)
        if isinstance(self.content, Sequence):
            body = [*_wrapped(self.content, width, self.pad), ""] if self.content else []
        else:
            body = self.content.render(width)
        lines = [rule, " " * self.pad + self.theme.bold(self.title), *body, rule]
        return [line if visible_width(line) <= width else truncate_to_width(line, width, "") for line in lines]


class WaitBox:
    """A rule, a blank line, a muted message, a blank line, a rule: shown in the editor's place
    while a command works (`/reload`), so the wait is visible and typing cannot reach the editor;
    it takes every key and does nothing with it."""

    def __init__(self, theme: Theme, text: str) -> None:
        self.theme = theme
        self.text = text
        self.focused = False

    def invalidate(self) -> None:
        return None

    def handle_input(self, data: str) -> bool:
        return True

    def render(self, width: int) -> list[str]:
        rule = self.theme.fg("border", "─" * width)
        return [rule, "", *_wrapped([self.theme.fg("muted", self.text)], width, 1), "", rule]


__all__ = ["BorderedPanel", "TextBlock", "WaitBox", "accent_line"]
