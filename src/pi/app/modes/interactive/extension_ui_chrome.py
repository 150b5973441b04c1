"""The parts of the screen an extension may replace or restyle: header, footer, editor, working line.

Each replacement keeps what it replaced, so `None` puts pi's own part back. Factories are called as
`header(tui, theme)`, `footer(tui, theme, footer_data)` and `editor(tui, theme, keybindings)`. A
replacement editor must be a `pi.tui.editor.Editor` (subclass it to change how it behaves): the app
keeps using it for history, submit, bash mode and autocomplete, and the text typed so far moves over.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from pi.app.modes.interactive.components.extension_guard import ErrorReporter, GuardedComponent
from pi.app.modes.interactive.footer import git_branch
from pi.app.modes.interactive.session_binding import WORKING
from pi.tui.editor import Editor

if TYPE_CHECKING:
    from pi.app.modes.interactive.app import InteractiveApp
    from pi.tui.component import Component

DEFAULT_HIDDEN_THINKING_LABEL = "Thinking..."
DEFAULT_INDICATOR_INTERVAL_MS = 80


class FooterData:
    """What a replacement footer may read: the git branch, extension statuses, provider count."""

    def __init__(self, app: InteractiveApp) -> None:
        self._app = app

    def get_git_branch(self) -> str | None:
        return git_branch(self._app.session.cwd)

    def get_extension_statuses(self) -> dict[str, str]:
        return dict(self._app.footer.statuses)

    def get_available_provider_count(self) -> int:
        return len({m.provider for m in self._app.session.model_registry.available_models()})


class WorkingIndicator:
    """An extension's working message, visibility and spinner frames for the editor's top rule."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.message: str | None = None
        self.visible = True
        self.frames: Sequence[str] | None = None
        self.interval = DEFAULT_INDICATOR_INTERVAL_MS / 1000

    def reset(self) -> None:
        """pi's own message, spinner and visibility again."""
        self.message = None
        self.visible = True
        self.set_indicator(None)

    def set_indicator(self, indicator: Any) -> None:
        """None: pi's spinner; a list of frames, or `{"frames": [...], "interval_ms": n}`."""
        if indicator is None:
            self.frames = None
            self.interval = DEFAULT_INDICATOR_INTERVAL_MS / 1000
            return
        frames = indicator.get("frames") if isinstance(indicator, dict) else indicator
        interval = indicator.get("interval_ms", indicator.get("intervalMs")) if isinstance(indicator, dict) else None
        if isinstance(frames, str) or not all(isinstance(f, str) for f in frames or []):
            raise TypeError("set_working_indicator: expected None, a list of frame strings or {frames, interval_ms}")
        self.frames = list(frames or [])
        if isinstance(interval, int | float) and not isinstance(interval, bool) and interval > 0:
            self.interval = interval / 1000

    def text(self, frame: str, label: str) -> str | None:
        """The rule text for pi's (frame, label); None hides the indicator."""
        if not self.visible:
            return None
        if self.message is not None and label == WORKING:
            label = self.message
        if self.frames is not None:
            frame = self.frames[int(self.clock() / self.interval) % len(self.frames)] if self.frames else ""
        return f"{frame} {label}".strip()


class Chrome:
    """Replacements of header, footer and editor, kept so that `None` restores pi's own."""

    def __init__(self, app: InteractiveApp, on_error: ErrorReporter) -> None:
        self.app = app
        self.on_error = on_error
        self.working = WorkingIndicator()
        self._header_children: list[Component] | None = None
        self._footer: Component | None = None
        self._editor: Editor | None = None
        self.editor_factory: Any = None

    def _build(self, factory: Any, where: str, *args: Any) -> GuardedComponent | None:
        if not callable(factory):
            raise TypeError(f"{where}: expected a factory function or None")
        try:
            inner = factory(*args)
        except Exception as error:
            self.on_error(where, error)
            return None
        return GuardedComponent(inner, where, self.on_error) if inner is not None else None

    def set_header(self, factory: Any) -> None:
        area = self.app.layout.header_area
        if self._header_children is None:
            self._header_children = list(area.children)
        built = None if factory is None else self._build(factory, "header", self.app.tui, self.app.theme)
        self._dispose(area.children)
        area.clear()
        for child in [built] if built is not None else self._header_children:
            area.add(child)
        if built is None:
            self._header_children = None
        self.app.tui.request_render(full=True)

    def set_footer(self, factory: Any) -> None:
        dock = self.app.layout.dock
        current = self._footer if self._footer is not None else self.app.footer
        built = None
        if factory is not None:
            built = self._build(factory, "footer", self.app.tui, self.app.theme, FooterData(self.app))
        replacement: Component = built if built is not None else self.app.footer
        if current in dock.children:
            dock.children[dock.children.index(current)] = replacement
        self._dispose([current])
        self._footer = built
        self.app.tui.request_render(full=True)

    @staticmethod
    def _dispose(children: Sequence[Any]) -> None:
        for child in children:
            if isinstance(child, GuardedComponent):
                child.dispose()

    def set_editor(self, factory: Any) -> None:
        app = self.app
        if factory is None:
            if self._editor is not None:
                self._swap_editor(self._editor)
                self._editor = None
            self.editor_factory = None
            return
        if not callable(factory):
            raise TypeError("set_editor_component: expected a factory (tui, theme, keybindings) or None")
        editor = factory(app.tui, app.theme, app.keybindings)
        if not isinstance(editor, Editor):
            raise TypeError("set_editor_component: the factory must return a pi.tui.editor.Editor (or a subclass)")
        if self._editor is None:
            self._editor = app.editor
        self._swap_editor(editor)
        self.editor_factory = factory

    def _swap_editor(self, editor: Editor) -> None:
        app = self.app
        old = app.editor
        if editor is old:
            return
        editor.set_text(old.get_text())
        for text in old.history:
            editor.add_to_history(text)
        editor.autocomplete = old.autocomplete
        editor.on_submit = old.on_submit
        editor.thinking_level = old.thinking_level
        editor.terminal_rows = old.terminal_rows
        editor.working_label = old.working_label
        app.editor = editor
        app.slot.editor = editor
        app.tui.request_render(full=True)

    def set_hidden_thinking_label(self, label: str | None) -> None:
        from pi.app.modes.interactive.components.assistant_message import AssistantMessageView

        text = DEFAULT_HIDDEN_THINKING_LABEL if label is None else label
        chat = self.app.chat
        chat.hidden_label = text
        for child in chat.children:
            if isinstance(child, AssistantMessageView):
                child.set_hidden_label(text)
        self.app.request_render()


__all__ = ["DEFAULT_HIDDEN_THINKING_LABEL", "Chrome", "FooterData", "WorkingIndicator"]
