"""Extension widgets: keyed blocks shown above or below the editor (`ctx.ui.set_widget`).

A widget is either lines of text (at most ten are shown, then `... (widget truncated)`) or a
component an extension's factory built. Widgets keep the order in which their keys first appeared;
setting a key again replaces the widget in place, `None` removes it. Above the editor there is always
one blank line first (the only line when there are no widgets); below, nothing when empty.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi.app.modes.interactive.components.extension_guard import ErrorReporter, GuardedComponent
from pi.tui.component import Container, Spacer
from pi.tui.text_width import truncate_to_width

if TYPE_CHECKING:
    from pi.tui.component import Component
    from pi.tui.theme import Theme

MAX_WIDGET_LINES = 10
TRUNCATED = "... (widget truncated)"


class TextWidget:
    """String lines with one column of padding on the left, cut to the width."""

    def __init__(self, lines: list[str], theme: Theme) -> None:
        shown = [line.replace("\t", "   ") for line in lines[:MAX_WIDGET_LINES]]
        self.truncated = len(lines) > MAX_WIDGET_LINES
        self.lines = shown
        self.theme = theme
        self._cache: tuple[int, list[str]] | None = None

    def invalidate(self) -> None:
        self._cache = None

    def render(self, width: int) -> list[str]:
        if self._cache is not None and self._cache[0] == width:
            return self._cache[1]
        out = [truncate_to_width(" " + line, width) for line in self.lines]
        if self.truncated:
            out.append(self.theme.fg("muted", truncate_to_width(" " + TRUNCATED, width)))
        self._cache = (width, out)
        return out


def text_lines(content: Any) -> list[str] | None:
    """The lines of a text widget (a string or a sequence of strings), None when `content` is not text."""
    if isinstance(content, str):
        return content.split("\n")
    if isinstance(content, list | tuple) and all(isinstance(line, str) for line in content):
        return [part for line in content for part in line.split("\n")]
    return None


class WidgetArea:
    """The widgets of one placement, shown through `container` (a container of the layout's dock)."""

    def __init__(self, container: Container, *, leading_spacer: bool) -> None:
        self.container = container
        self.leading_spacer = leading_spacer
        self.widgets: dict[str, Component] = {}

    def set(self, key: str, component: Component | None) -> None:
        old = self.widgets.get(key)
        if isinstance(old, GuardedComponent) and old is not component:
            old.dispose()
        if component is None:
            self.widgets.pop(key, None)
        else:
            self.widgets[key] = component
        self._rebuild()

    def clear(self) -> None:
        for key in list(self.widgets):
            self.set(key, None)

    def _rebuild(self) -> None:
        self.container.clear()
        if self.leading_spacer:
            self.container.add(Spacer(1))
        for component in self.widgets.values():
            self.container.add(component)


def build_widget(key: str, content: Any, theme: Theme, tui: Any, on_error: ErrorReporter | None) -> Component | None:
    """The component for `content`: text lines, or a factory `(tui, theme) -> component`; None removes.

    A factory that raises is reported and shows nothing; anything else is a `TypeError` telling the
    author what `set_widget` accepts.
    """
    if content is None:
        return None
    lines = text_lines(content)
    if lines is not None:
        return TextWidget(lines, theme)
    if not callable(content):
        raise TypeError(f'set_widget("{key}"): expected a list of strings, a factory (tui, theme) or None')
    where = f'widget "{key}"'
    try:
        inner = content(tui, theme)
    except Exception as error:
        if on_error is not None:
            on_error(where, error)
        return None
    if inner is None:
        return None
    return GuardedComponent(inner, where, on_error)


__all__ = ["MAX_WIDGET_LINES", "TRUNCATED", "TextWidget", "WidgetArea", "build_widget", "text_lines"]
