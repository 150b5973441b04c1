"""The user's message: markdown on a full-width `userMessageBg` panel, text kept as typed.

A message that starts with an expanded skill (`<skill name=… location=…>…</skill>`, what
`/skill:name` sends) shows a skill card first and then the user's own words. OSC 133 prompt marks
(`A` before, `B`/`C` after) travel as zero-width prefixes so fullscreen prompt jumps can find the
block; renderers that do not use them strip them like any other escape.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pi.app.modes.interactive.components.formatting import EXPAND_KEY, inner_width, panel
from pi.app.modes.interactive.components.summaries import SkillCard
from pi.tui.markdown import Markdown

if TYPE_CHECKING:
    from pi.tui.theme import Theme

_SKILL_RE = re.compile(r'^<skill name="([^"]*)" location="([^"]*)">\n(.*?)\n</skill>(?:\n\n(.*))?$', re.DOTALL)
OSC133_A = "\x1b]133;A\x07"
OSC133_B = "\x1b]133;B\x07"
OSC133_C = "\x1b]133;C\x07"


def split_skill_block(text: str) -> tuple[str, str, str] | None:
    """(name, content, rest) of a message that begins with an expanded skill, else None."""
    match = _SKILL_RE.match(text)
    if match is None:
        return None
    return match.group(1), match.group(3), match.group(4) or ""


class UserMessageView:
    """A user message: blank line, padding row, markdown in `userMessageText`, padding row."""

    def __init__(
        self,
        text: str,
        theme: Theme,
        output_pad: int = 1,
        *,
        expanded: bool = False,
        expand_key: str = EXPAND_KEY,
        prompt_marks: bool = True,
    ) -> None:
        self.theme = theme
        self.pad = output_pad
        self.prompt_marks = prompt_marks
        skill = split_skill_block(text)
        self.skill: SkillCard | None = None
        if skill is not None:
            name, content, text = skill
            self.skill = SkillCard(name, content, theme, expanded=expanded, expand_key=expand_key)
        self.text = text
        self._markdown = Markdown(text, theme, base_style=lambda s: theme.fg("userMessageText", s), keep_escapes=True)
        self._cache: tuple[int, list[str]] | None = None

    def set_expanded(self, expanded: bool) -> None:
        """Only a skill card reacts to `ctrl+o`."""
        if self.skill is not None:
            self.skill.set_expanded(expanded)
            self._cache = None

    def invalidate(self) -> None:
        self._markdown.invalidate()
        if self.skill is not None:
            self.skill.invalidate()
        self._cache = None

    def render(self, width: int) -> list[str]:
        if self._cache is not None and self._cache[0] == width:
            return self._cache[1]
        lines: list[str] = []
        if self.skill is not None:
            lines.extend(self.skill.render(width))
        if self.text.strip():
            pad = self.pad if width > 2 * self.pad else 0
            body = self._markdown.render(inner_width(width, pad))
            theme = self.theme
            lines.append("")
            lines.extend(panel(body, width, pad, 1, lambda s: theme.bg("userMessageBg", s)))
        if self.prompt_marks and lines:
            first = 1 if len(lines) > 1 else 0
            lines[first] = OSC133_A + lines[first]
            lines[-1] = lines[-1] + OSC133_B + OSC133_C
        self._cache = (width, lines)
        return lines


__all__ = ["UserMessageView", "split_skill_block"]
