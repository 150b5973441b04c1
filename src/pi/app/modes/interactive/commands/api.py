"""InteractiveApi: what a slash command or picker may ask of the running interactive app.

Handlers never reach into the app's layout or terminal: they change the session through its own
methods and ask the app, through this protocol, to show messages, replace the editor with a
picker, or apply a setting live. The app implements it; tests implement it with a recorder.
"""

from __future__ import annotations

from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from msgspec import Struct, field

if TYPE_CHECKING:
    from pi.app.agent_session import AgentSession
    from pi.app.settings import SettingsManager
    from pi.tui.component import Component, Focusable
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.theme import Theme


class ScreenSnapshot(Struct):
    """What `/debug` writes about the screen: its size and every rendered line."""

    width: int
    height: int
    lines: list[str] = field(default_factory=list)


class InteractiveApi(Protocol):
    """The interactive app as commands and pickers see it."""

    @property
    def session(self) -> AgentSession:
        """The session commands act on (it changes file on /new, /resume, /fork, but stays one object)."""
        ...

    @property
    def settings(self) -> SettingsManager: ...

    @property
    def theme(self) -> Theme: ...

    @property
    def keybindings(self) -> KeybindingsManager: ...

    @property
    def agent_dir(self) -> Path:
        """The agent directory (settings.json, auth.json, sessions/, pi-debug.log)."""
        ...

    # -- transcript ----------------------------------------------------------------------------
    def show_status(self, text: str) -> None:
        """A dim status line in the chat; a status right after a status replaces it."""
        ...

    def show_warning(self, text: str) -> None:
        """`Warning: <text>` in the chat."""
        ...

    def show_error(self, text: str) -> None:
        """`Error: <text>` in the chat."""
        ...

    def show_notice(self, component: Component) -> None:
        """A block (bordered panel, table) appended to the chat."""
        ...

    def rebuild_chat(self) -> None:
        """Clear the transcript and render the session's current messages again (header and resources stay).

        Called after the session moved (new, resume, fork, clone, import, tree navigation).
        """
        ...

    # -- editor and selectors --------------------------------------------------------------------
    def show_selector(self, component: Focusable) -> None:
        """Put `component` in the editor's place and give it the keyboard (the footer stays)."""
        ...

    def close_selector(self) -> None:
        """Put the editor back and focus it."""
        ...

    def set_editor_text(self, text: str) -> None: ...

    def get_editor_text(self) -> str: ...

    def request_render(self) -> None: ...

    # -- app -------------------------------------------------------------------------------------
    def quit(self) -> None:
        """Leave the interactive mode as Ctrl+D does (exit output, resume hint)."""
        ...

    def set_tools_expanded(self, expanded: bool) -> None: ...

    def copy_to_clipboard(self, text: str) -> None:
        """Copy with the native tool or OSC 52; raises OSError when neither is possible."""
        ...

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run a coroutine on the app's loop (picker callbacks are synchronous); its errors are shown."""
        ...

    async def reload_resources(self) -> None:
        """Reload keybindings, extensions, skills, prompts, themes and context files, and list them again."""
        ...

    def apply_setting(self, key: str, value: Any) -> None:
        """A UI setting was changed and saved (`tuiMode`, `theme`, `hideThinkingBlock`, ...): apply it now."""
        ...

    def terminal_appearance(self) -> Literal["light", "dark"]:
        """Whether the terminal looks light or dark (which half of a `light/dark` theme pair shows)."""
        ...

    def set_working(self, label: str | None) -> None:
        """Show `label` with the spinner in the editor's top rule (None: a plain rule again)."""
        ...

    def screen_snapshot(self) -> ScreenSnapshot:
        """The terminal size and the lines of the last frame (for `/debug`)."""
        ...


__all__ = ["InteractiveApi", "ScreenSnapshot"]
