"""The screen, top to bottom: header, resources, chat (the document); pending area, status, widgets,
editor and footer (the dock). In fullscreen the document scrolls above the fixed dock; in regular
mode the two are one inline stack.

`EditorSlot` is the dock part that shows the editor, or a selector in its place, and puts the
working indicator (spinner and label) into the editor's top rule while the agent works.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pi.tui.component import Component, Container, Focusable, Spacer
from pi.tui.loader import Spinner

if TYPE_CHECKING:
    from pi.app.modes.interactive.chat_view import ChatView
    from pi.app.modes.interactive.footer import Footer
    from pi.app.modes.interactive.header import Header, ResourcesView
    from pi.app.modes.interactive.queue_view import PendingArea
    from pi.tui.editor import Editor

#: Keys the application sees before the editor (returns True when it used the key).
KeyHandler = Callable[[str], bool]


class EditorSlot:
    """The editor (or the active selector) with the working indicator; the focused dock component.

    `before_editor` gets every key first (application shortcuts), the editor next, and
    `after_editor` gets the keys the editor did not use (Escape, Ctrl+C, Ctrl+D on empty).
    """

    def __init__(self, editor: Editor, request_render: Callable[[], None]) -> None:
        self.editor = editor
        self.selector: Component | None = None
        self.spinner = Spinner(request_render)
        self.working_label: str | None = None
        self.before_editor: KeyHandler | None = None
        self.after_editor: KeyHandler | None = None
        self.focused = True
        self.working_text: Callable[[str, str], str | None] | None = None
        """Extensions' say on the working indicator: (spinner frame, label) -> rule text, None for a plain rule."""

    @property
    def captures_scroll_keys(self) -> bool:
        """A selector (a list) takes PageUp/PageDown itself instead of scrolling the transcript."""
        return self.selector is not None or self.editor.is_autocomplete_open()

    def set_working(self, label: str | None) -> None:
        """Show `label` with a spinner in the top rule (None: a plain rule)."""
        self.working_label = label
        if label is None:
            self.spinner.stop()
            self.editor.working_label = None
        else:
            self.spinner.start()

    def invalidate(self) -> None:
        self.editor.invalidate()
        if self.selector is not None:
            self.selector.invalidate()

    def handle_input(self, data: str) -> bool:
        if self.selector is not None:
            if isinstance(self.selector, Focusable):
                return self.selector.handle_input(data)
            return False
        if self.before_editor is not None and self.before_editor(data):
            return True
        if self.editor.handle_input(data):
            return True
        return self.after_editor is not None and self.after_editor(data)

    def render(self, width: int) -> list[str]:
        if self.selector is not None:
            return self.selector.render(width)
        if self.working_label is not None:
            frame = self.spinner.frame()
            text: str | None = f"{frame} {self.working_label}".rstrip()
            if self.working_text is not None:
                text = self.working_text(frame, self.working_label)
            self.editor.working_label = text
        return self.editor.render(width)


class Layout:
    """The component tree: `document` and `dock` containers handed to the TUI."""

    def __init__(
        self,
        header: Header,
        resources: ResourcesView,
        chat: ChatView,
        pending: PendingArea,
        slot: EditorSlot,
        footer: Footer,
    ) -> None:
        self.header = header
        self.resources = resources
        self.chat = chat
        self.pending = pending
        self.status = Container()
        """A loader line, used only when the editor cannot host the working indicator."""
        self.widgets_above = Container([Spacer(1)])
        self.slot = slot
        self.widgets_below = Container()
        self.footer = footer
        self.header_area = Container([header])
        self.document = Container([self.header_area, resources, chat])
        self.dock = Container([pending, self.status, self.widgets_above, slot, self.widgets_below, footer])


__all__ = ["EditorSlot", "KeyHandler", "Layout"]
