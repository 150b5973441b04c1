"""The assistant's message: thinking and text blocks as markdown, then how the turn ended.

While a reply streams, `update` is called every frame with the whole partial message. Each content
block keeps its own Markdown component, which re-parses only its unfinished tail, so a frame costs
the block that is growing and nothing else; an unchanged message hands back the same line list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi.app.modes.interactive.components.formatting import inner_width, wrap
from pi.tui.markdown import Markdown

if TYPE_CHECKING:
    from pi.ai.types import AssistantMessage
    from pi.tui.theme import Theme

BUG_HINT = "If this looks like a pi bug, /bug sends a report to the developers."
ABORTED = "Operation aborted"
TRUNCATED = "Response was truncated before completion."


class AssistantMessageView:
    """Thinking (italic `thinkingText`, or a label when hidden) and text blocks, then the ending."""

    def __init__(
        self,
        theme: Theme,
        *,
        hide_thinking: bool = False,
        hidden_label: str = "Thinking...",
        output_pad: int = 1,
        bug_hint: bool = True,
    ) -> None:
        self.theme = theme
        self.hide_thinking = hide_thinking
        self.hidden_label = hidden_label
        self.pad = output_pad
        self.bug_hint = bug_hint
        self.message: AssistantMessage | None = None
        self.finished = False
        self._blocks: list[tuple[str, Markdown]] = []
        self._parts: list[list[str]] = []
        self._cache: tuple[int, list[str]] | None = None
        self._ending_key: tuple[str, ...] = ()
        self._hidden: tuple[int, str, list[str]] | None = None

    # --- state -------------------------------------------------------------------------------

    def update(self, message: AssistantMessage) -> None:
        """The partial message so far (called per frame while streaming)."""
        self.message = message
        theme = self.theme
        kept: list[tuple[str, Markdown]] = []
        index = 0
        for block in message.content:
            if block.type == "text":
                kind, text = "text", block.text.strip()
            elif block.type == "thinking":
                kind, text = "thinking", block.thinking.strip()
            else:
                continue
            if index < len(self._blocks) and self._blocks[index][0] == kind:
                markdown = self._blocks[index][1]
                markdown.set_text(text)
            elif kind == "text":
                markdown = Markdown(text, theme, padding_x=self.pad)
            else:
                markdown = Markdown(
                    text, theme, padding_x=self.pad, base_style=lambda s: theme.italic(theme.fg("thinkingText", s))
                )
            kept.append((kind, markdown))
            index += 1
        if len(kept) != len(self._blocks) or any(a is not b for (_, a), (_, b) in zip(kept, self._blocks, strict=True)):
            self._cache = None
        self._blocks = kept
        ending = self._ending()
        if ending != self._ending_key:
            self._ending_key = ending
            self._cache = None

    def finish(self, message: AssistantMessage) -> None:
        """The final message (same rendering as the last update, plus the ending)."""
        self.update(message)
        self.finished = True

    def set_hide_thinking(self, hide: bool) -> None:
        if hide != self.hide_thinking:
            self.hide_thinking = hide
            self._cache = None

    def set_hidden_label(self, label: str) -> None:
        if label != self.hidden_label:
            self.hidden_label = label
            self._cache = None

    def set_bug_hint(self, show: bool) -> None:
        """Whether an error ending carries the `/bug` hint (not while a retry is coming)."""
        if show != self.bug_hint:
            self.bug_hint = show
            self._cache = None

    def invalidate(self) -> None:
        for _, markdown in self._blocks:
            markdown.invalidate()
        self._cache = None

    # --- rendering ---------------------------------------------------------------------------

    def _ending(self) -> tuple[str, ...]:
        """Ending lines as plain strings: empty while nothing ended badly."""
        message = self.message
        if message is None or any(block.type == "toolCall" for block in message.content):
            return ()
        reason = message.stop_reason
        if reason == "aborted":
            text = message.error_message or ""
            return (text if text.startswith("Aborted after") else ABORTED,)
        if reason == "error":
            error = f"Error: {message.error_message or 'Unknown error'}"
            return (error, BUG_HINT) if self.bug_hint else (error,)
        if reason == "length":
            return (TRUNCATED,)
        return ()

    def _ending_lines(self, width: int) -> list[str]:
        ending = self._ending()
        if not ending:
            return []
        theme = self.theme
        pad = self.pad if width > 2 * self.pad else 0
        inner = inner_width(width, pad)
        prefix = " " * pad
        lines = [""]
        lines.extend(prefix + line for line in wrap(theme.fg("error", ending[0]), inner))
        if len(ending) > 1:
            lines.append("")
            lines.extend(prefix + line for line in wrap(theme.dim(ending[1]), inner))
        return lines

    def _block_parts(self, width: int) -> list[list[str]]:
        pad = self.pad if width > 2 * self.pad else 0
        parts: list[list[str]] = []
        for kind, markdown in self._blocks:
            if not markdown.text:
                parts.append([])
            elif kind == "thinking" and self.hide_thinking:
                parts.append(self._hidden_lines(width, pad))
            else:
                parts.append(markdown.render(width))
        return parts

    def _hidden_lines(self, width: int, pad: int) -> list[str]:
        """The hidden-thinking label, one list object per width and label (so caches still hit)."""
        if self._hidden is None or self._hidden[0] != width or self._hidden[1] != self.hidden_label:
            theme = self.theme
            label = theme.italic(theme.fg("thinkingText", self.hidden_label)) if self.hidden_label else ""
            lines = [" " * pad + line for line in wrap(label, inner_width(width, pad))]
            self._hidden = (width, self.hidden_label, lines)
        return self._hidden[2]

    def render(self, width: int) -> list[str]:
        parts = self._block_parts(width)
        cache = self._cache
        if (
            cache is not None
            and cache[0] == width
            and len(parts) == len(self._parts)
            and all(a is b for a, b in zip(parts, self._parts, strict=True))
        ):
            return cache[1]
        lines: list[str] = []
        kinds = [kind for kind, _ in self._blocks]
        visible = [bool(part) for part in parts]
        if any(visible):
            lines.append("")
        for index, part in enumerate(parts):
            lines.extend(part)
            if part and kinds[index] == "thinking" and any(visible[index + 1 :]):
                lines.append("")
        lines.extend(self._ending_lines(width))
        self._parts = parts
        self._cache = (width, lines)
        return lines


__all__ = ["ABORTED", "BUG_HINT", "TRUNCATED", "AssistantMessageView"]
