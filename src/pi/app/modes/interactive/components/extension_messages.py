"""Extension messages in the transcript: custom messages and custom entries.

A custom message (`pi.send_message(..., display=True)`) is drawn by the renderer an extension
registered for its `custom_type` — `renderer(message, {"expanded": bool}, theme)` returning a
component, a string or lines — or, without one (or when it returns None), as a `customMessageBg`
panel: bold `[<customType>]` in `customMessageLabel`, a blank line, the content as markdown in
`customMessageText`. A renderer that raises is reported and the panel is drawn instead. The
expand key re-asks the renderer with the new `expanded`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi.app.modes.interactive.components.extension_guard import ErrorReporter, GuardedComponent
from pi.app.modes.interactive.components.formatting import content_text, inner_width, panel, wrap
from pi.tui.markdown import Markdown

if TYPE_CHECKING:
    from pi.tui.theme import Theme


class DefaultCustomPanel:
    """The panel drawn for a custom message without a renderer."""

    def __init__(self, custom_type: str, text: str, theme: Theme, output_pad: int = 1) -> None:
        self.custom_type = custom_type
        self.theme = theme
        self.pad = output_pad
        self._markdown = Markdown(text, theme, base_style=lambda s: theme.fg("customMessageText", s))
        self._cache: tuple[int, list[str]] | None = None

    def set_text(self, text: str) -> None:
        self._markdown.set_text(text)
        self._cache = None

    def invalidate(self) -> None:
        self._markdown.invalidate()
        self._cache = None

    def render(self, width: int) -> list[str]:
        if self._cache is not None and self._cache[0] == width:
            return self._cache[1]
        theme = self.theme
        pad = self.pad if width > 2 * self.pad else 0
        inner = inner_width(width, pad)
        label = theme.fg("customMessageLabel", theme.bold(f"[{self.custom_type}]"))
        body = [*wrap(label, inner), "", *self._markdown.render(inner)]
        lines = ["", *panel(body, width, pad, 1, lambda s: theme.bg("customMessageBg", s))]
        self._cache = (width, lines)
        return lines


class CustomMessageView:
    """One custom message: the extension's rendering when it has one, else the default panel."""

    def __init__(
        self,
        message: Any,
        theme: Theme,
        renderer: Callable[..., Any] | None,
        *,
        expanded: bool = False,
        output_pad: int = 1,
        on_error: ErrorReporter | None = None,
    ) -> None:
        self.message = message
        self.theme = theme
        self.renderer = renderer
        self.expanded = expanded
        self.on_error = on_error
        custom_type = str(getattr(message, "custom_type", None) or _field(message, "customType") or "custom")
        self.custom_type = custom_type
        self._panel = DefaultCustomPanel(custom_type, content_text(_field(message, "content")), theme, output_pad)
        self._view: Any = None
        self._build()

    def _build(self) -> None:
        self._view = self._panel
        if self.renderer is None:
            return
        where = f'message renderer "{self.custom_type}"'
        try:
            built = self.renderer(self.message, {"expanded": self.expanded}, self.theme)
        except Exception as error:
            if self.on_error is not None:
                self.on_error(where, error)
            return
        if built is not None:
            self._view = GuardedComponent(built, where, self.on_error)

    def set_expanded(self, expanded: bool) -> None:
        if expanded != self.expanded:
            self.expanded = expanded
            self._build()

    def invalidate(self) -> None:
        self._view.invalidate()

    def render(self, width: int) -> list[str]:
        lines: list[str] = self._view.render(width)
        return lines


class CustomEntryView:
    """A custom entry (`pi.append_entry`) drawn by its entry renderer: `renderer(entry, {"expanded"}, theme)`.

    Entries are not part of the model's context; only the ones with a renderer are shown, and a
    renderer answering None shows nothing.
    """

    def __init__(
        self,
        entry: Any,
        theme: Theme,
        renderer: Callable[..., Any],
        *,
        expanded: bool = False,
        on_error: ErrorReporter | None = None,
    ) -> None:
        self.entry = entry
        self.theme = theme
        self.renderer = renderer
        self.expanded = expanded
        self.on_error = on_error
        self.where = f'entry renderer "{getattr(entry, "custom_type", "custom")}"'
        self._view: GuardedComponent | None = None
        self._build()

    def _build(self) -> None:
        self._view = None
        try:
            built = self.renderer(self.entry, {"expanded": self.expanded}, self.theme)
        except Exception as error:
            if self.on_error is not None:
                self.on_error(self.where, error)
            return
        if built is not None:
            self._view = GuardedComponent(built, self.where, self.on_error)

    def set_expanded(self, expanded: bool) -> None:
        if expanded != self.expanded:
            self.expanded = expanded
            self._build()

    def invalidate(self) -> None:
        if self._view is not None:
            self._view.invalidate()

    def render(self, width: int) -> list[str]:
        return self._view.render(width) if self._view is not None else []


def _field(message: Any, name: str) -> Any:
    if isinstance(message, dict):
        return message.get(name)
    snake = "".join("_" + ch.lower() if ch.isupper() else ch for ch in name)
    return getattr(message, snake, None)


__all__ = ["CustomEntryView", "CustomMessageView", "DefaultCustomPanel"]
