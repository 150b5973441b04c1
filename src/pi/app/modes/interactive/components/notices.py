"""One-line notices in the transcript (status, warning, error) and extension messages.

Each notice is a blank line and then its text, word-wrapped and padded; the text changes only
through `set_text`, so the lines are cached per width.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pi.app.modes.interactive.components.extension_messages import DefaultCustomPanel
from pi.app.modes.interactive.components.formatting import inner_width, wrap

if TYPE_CHECKING:
    from pi.tui.theme import Theme


class _Notice:
    """A blank line, then `prefix + text` in one theme colour, padded by `pad` cells."""

    _token = "text"
    _prefix = ""

    def __init__(self, text: str, theme: Theme, output_pad: int = 1) -> None:
        self._text = text
        self.theme = theme
        self.pad = output_pad
        self._cache: tuple[int, list[str]] | None = None

    @property
    def text(self) -> str:
        return self._text

    def set_text(self, text: str) -> None:
        if text != self._text:
            self._text = text
            self._cache = None

    def invalidate(self) -> None:
        self._cache = None

    def render(self, width: int) -> list[str]:
        if self._cache is not None and self._cache[0] == width:
            return self._cache[1]
        pad = self.pad if width > 2 * self.pad else 0
        body = wrap(self.theme.fg(self._token, self._prefix + self._text), inner_width(width, pad))
        lines = ["", *(" " * pad + line for line in body)] if body else []
        self._cache = (width, lines)
        return lines


class StatusLine(_Notice):
    """A dim status line (`Tool output: expanded`); the chat replaces one status by the next."""

    _token = "dim"


class WarningLine(_Notice):
    """`Warning: <text>` in the warning colour, always padded by one cell."""

    _token = "warning"
    _prefix = "Warning: "

    def __init__(self, text: str, theme: Theme, output_pad: int = 1) -> None:
        super().__init__(text, theme, 1)


class ErrorLine(_Notice):
    """`Error: <text>` in the error colour, padded by `outputPad`."""

    _token = "error"
    _prefix = "Error: "


def content_text(content: str | Sequence[Any]) -> str:
    """The text of message content: a string, or the text blocks joined (images as a placeholder)."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(str(getattr(block, "text", "")))
        elif kind == "image":
            parts.append(f"[Image: {getattr(block, 'mime_type', 'image')}]")
    return "\n".join(parts)


class CustomMessageView(DefaultCustomPanel):
    """An extension message given as session content, drawn as the default custom-message panel
    (bold `[<customType>]`, a blank line, markdown) with padding 1."""

    def __init__(self, custom_type: str, content: str | Sequence[Any], theme: Theme) -> None:
        super().__init__(custom_type, content_text(content), theme)

    def set_content(self, content: str | Sequence[Any]) -> None:
        self.set_text(content_text(content))


__all__ = ["CustomMessageView", "ErrorLine", "StatusLine", "WarningLine", "content_text"]
