"""Collapsible panels: compaction summaries, branch summaries and skill cards.

All three sit on a `customMessageBg` panel with padding 1 under a bold `customMessageLabel` label.
Collapsed they show one line with the expand hint; expanded, a bold heading and the text as
markdown in `customMessageText`. `ctrl+o` toggles them together with the tool cards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi.app.modes.interactive.components.formatting import EXPAND_KEY, format_tokens, inner_width, panel, wrap
from pi.tui.markdown import Markdown

if TYPE_CHECKING:
    from pi.tui.theme import Theme


class _SummaryPanel:
    """The shared panel: label row, blank, then the collapsed line or the heading and markdown."""

    def __init__(self, body: str, theme: Theme, *, expanded: bool = False, expand_key: str = EXPAND_KEY) -> None:
        self.theme = theme
        self.expanded = expanded
        self.expand_key = expand_key
        self._body = body
        self._markdown: Markdown | None = None
        self._cache: tuple[int, list[str]] | None = None

    def set_expanded(self, expanded: bool) -> None:
        if expanded != self.expanded:
            self.expanded = expanded
            self._cache = None

    def invalidate(self) -> None:
        if self._markdown is not None:
            self._markdown.invalidate()
        self._cache = None

    def _label(self) -> str:
        raise NotImplementedError

    def _collapsed(self) -> str:
        raise NotImplementedError

    def _heading(self) -> str:
        raise NotImplementedError

    def _hint(self, text: str) -> str:
        theme = self.theme
        return (
            theme.fg("customMessageText", f"{text} (")
            + theme.fg("dim", self.expand_key)
            + theme.fg("customMessageText", " to expand)")
        )

    def _content(self, inner: int) -> list[str]:
        """Lines under the label row (the default: a blank line, then collapsed or expanded text)."""
        theme = self.theme
        lines = [""]
        if not self.expanded:
            lines.extend(wrap(self._collapsed(), inner))
            return lines
        lines.extend(wrap(theme.fg("customMessageText", theme.bold(self._heading())), inner))
        if self._body.strip():
            lines.append("")
            lines.extend(self._body_markdown().render(inner))
        return lines

    def _body_markdown(self) -> Markdown:
        if self._markdown is None:
            theme = self.theme
            self._markdown = Markdown(self._body, theme, base_style=lambda s: theme.fg("customMessageText", s))
        return self._markdown

    def render(self, width: int) -> list[str]:
        if self._cache is not None and self._cache[0] == width:
            return self._cache[1]
        theme = self.theme
        inner = inner_width(width, 1)
        body = wrap(theme.fg("customMessageLabel", theme.bold(self._label())), inner)
        body.extend(self._content(inner))
        lines = ["", *panel(body, width, 1, 1, lambda s: theme.bg("customMessageBg", s))]
        self._cache = (width, lines)
        return lines


class CompactionView(_SummaryPanel):
    """`[compaction]` / `Compacted from N tokens (ctrl+o to expand)`; expanded, the summary."""

    def __init__(
        self,
        tokens_before: int,
        summary: str,
        theme: Theme,
        *,
        expanded: bool = False,
        expand_key: str = EXPAND_KEY,
    ) -> None:
        super().__init__(summary, theme, expanded=expanded, expand_key=expand_key)
        self.tokens_before = tokens_before

    def _label(self) -> str:
        return "[compaction]"

    def _collapsed(self) -> str:
        return self._hint(f"Compacted from {format_tokens(self.tokens_before)} tokens")

    def _heading(self) -> str:
        return f"Compacted from {format_tokens(self.tokens_before)} tokens"


class BranchSummaryView(_SummaryPanel):
    """`[branch]` / `Branch summary (ctrl+o to expand)`; expanded, the summary."""

    def __init__(self, summary: str, theme: Theme, *, expanded: bool = False, expand_key: str = EXPAND_KEY) -> None:
        super().__init__(summary, theme, expanded=expanded, expand_key=expand_key)

    def _label(self) -> str:
        return "[branch]"

    def _collapsed(self) -> str:
        return self._hint("Branch summary")

    def _heading(self) -> str:
        return "Branch summary"


class SkillCard(_SummaryPanel):
    """`[skill] <name> (ctrl+o to expand)` on one row; expanded, `[skill]`, the bold name and the content."""

    def __init__(
        self, name: str, content: str, theme: Theme, *, expanded: bool = False, expand_key: str = EXPAND_KEY
    ) -> None:
        super().__init__(content, theme, expanded=expanded, expand_key=expand_key)
        self.name = name

    def _label(self) -> str:
        return "[skill]"

    def _heading(self) -> str:
        return self.name

    def _collapsed(self) -> str:
        return ""

    def render(self, width: int) -> list[str]:
        if self.expanded:
            return super().render(width)
        if self._cache is not None and self._cache[0] == width:
            return self._cache[1]
        theme = self.theme
        line = (
            theme.fg("customMessageLabel", theme.bold("[skill]"))
            + " "
            + theme.fg("customMessageText", self.name)
            + theme.fg("dim", f" ({self.expand_key} to expand)")
        )
        body = wrap(line, inner_width(width, 1))
        lines = ["", *panel(body, width, 1, 1, lambda s: theme.bg("customMessageBg", s))]
        self._cache = (width, lines)
        return lines


__all__ = ["BranchSummaryView", "CompactionView", "SkillCard"]
