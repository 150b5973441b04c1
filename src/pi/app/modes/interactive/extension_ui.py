"""`ctx.ui` in the terminal: what an extension shows or asks, on the interactive app's own components.

`TerminalExtensionUI` implements `pi.app.extensions.ui.UIContext`. Dialogs (`select`, `confirm`,
`input`, `editor`) take the editor's place until answered, cancelled with Esc (or Ctrl+C), timed out
or aborted; `custom` shows an extension's component inline or as an overlay; statuses go to the
footer's third line, widgets above or below the editor; the header, footer and editor can be
replaced. Nothing an extension hands over may take the UI down: its components are fenced
(`GuardedComponent`) and their failures reported through `on_error`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi.app.modes.interactive.components.extension_widgets import WidgetArea, build_widget
from pi.app.modes.interactive.extension_ui_chrome import Chrome
from pi.app.modes.interactive.extension_ui_dialogs import DialogHost

if TYPE_CHECKING:
    from pi.ai.abort import AbortSignal
    from pi.app.extensions.ui import NotifyType, WidgetPlacement
    from pi.app.modes.interactive.app import InteractiveApp
    from pi.app.modes.interactive.extension_ui_autocomplete import ExtensionAutocomplete
    from pi.tui.theme import Theme

logger = logging.getLogger(__name__)
PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
BUILTIN_THEMES = ("dark", "light")
InputHandler = Callable[[str], Any]


def _input_result(result: Any) -> tuple[bool, str | None]:
    """(consume, replacement data) from what an `on_terminal_input` handler returned."""
    if isinstance(result, bool):
        return result, None
    if isinstance(result, dict):
        data = result.get("data")
        return bool(result.get("consume")), data if isinstance(data, str) else None
    if result is None:
        return False, None
    return bool(getattr(result, "consume", False)), getattr(result, "data", None)


class TerminalExtensionUI:
    """See the module docstring. `on_error(where, error)` is told about failing extension UI code."""

    def __init__(self, app: InteractiveApp, on_error: Callable[[str, BaseException], None] | None = None) -> None:
        self.app = app
        self._on_error = on_error
        self.dialogs = DialogHost(app)
        self.chrome = Chrome(app, self.report)
        self.above = WidgetArea(app.layout.widgets_above, leading_spacer=True)
        self.below = WidgetArea(app.layout.widgets_below, leading_spacer=False)
        self._autocomplete: ExtensionAutocomplete | None = None
        self._theme: Any = None
        self._replaying = False
        self._input_removers: list[Callable[[], None]] = []
        app.slot.working_text = self.chrome.working.text

    def reset(self) -> None:
        """Take back everything extensions put on the screen (before a reload starts them afresh)."""
        self.app.footer.statuses.clear()
        self.app.footer.invalidate()
        self.above.clear()
        self.below.clear()
        self.chrome.set_header(None)
        self.chrome.set_footer(None)
        self.chrome.set_editor(None)
        self.chrome.working.reset()
        self.chrome.set_hidden_thinking_label(None)
        if self._autocomplete is not None:
            self._autocomplete.providers.clear()
        for remove in self._input_removers:
            remove()
        self._input_removers.clear()
        self.app.tui.request_render(full=True)

    # --- errors ------------------------------------------------------------------------------
    def report(self, where: str, error: BaseException) -> None:
        """Show a failure of extension UI code in the chat, after the frame being drawn."""
        if self._on_error is not None:
            self._on_error(where, error)
            return
        text = f"Extension {where} error: {error}"
        try:
            asyncio.get_running_loop().call_soon(self.app.show_error, text)
        except RuntimeError:
            logger.error("%s", text)

    # --- theme -------------------------------------------------------------------------------
    @property
    def theme(self) -> Any:
        return self._theme if self._theme is not None else self.app.theme

    def _offered_themes(self) -> list[Path]:
        from pi.app.modes.interactive.theme_files import session_themes

        return session_themes(self.app.session, self.app.agent_dir)

    def get_all_themes(self) -> list[dict[str, Any]]:
        themes: list[dict[str, Any]] = [{"name": name, "path": None} for name in BUILTIN_THEMES]
        seen = set(BUILTIN_THEMES)
        for path in self._offered_themes():
            if path.stem not in seen:
                seen.add(path.stem)
                themes.append({"name": path.stem, "path": str(path)})
        return themes

    def _load_theme(self, name: str) -> Theme:
        """A theme by name among the session's theme files (raises `ThemeError` or `OSError`)."""
        from pi.app.modes.interactive.theme_files import theme_dirs, theme_target
        from pi.tui.theme import load_theme

        dirs = theme_dirs(self.app.agent_dir, self.app.session.cwd)
        target, search = theme_target(name, self._offered_themes(), dirs)
        return load_theme(target, search, self.app.theme.color_mode)

    def get_theme(self, name: str) -> Any:
        from pi.tui.theme import ThemeError

        try:
            return self._load_theme(name)
        except (ThemeError, OSError):
            return None

    def set_theme(self, theme: Any) -> dict[str, Any]:
        """Switch the theme by name or `Theme`; `{success, error?}`."""
        from pi.tui.theme import Theme, ThemeError

        if isinstance(theme, Theme):
            self._theme = theme
            apply = getattr(self.app, "set_theme", None)
            if callable(apply):
                apply(theme)
            self.app.tui.invalidate()
            self.app.tui.request_render(full=True)
            return {"success": True}
        if not isinstance(theme, str):
            return {"success": False, "error": "set_theme expects a theme name or a Theme"}
        try:
            self._theme = self._load_theme(theme)
        except (ThemeError, OSError) as error:
            return {"success": False, "error": str(error)}
        self.app.apply_setting("theme", theme)
        self.app.tui.request_render(full=True)
        return {"success": True}

    # --- dialogs -----------------------------------------------------------------------------
    async def select(
        self, title: str, options: Sequence[str], *, signal: AbortSignal | None = None, timeout_ms: int | None = None
    ) -> str | None:
        from pi.app.modes.interactive.pickers.dialogs import SelectDialog

        choices = [str(option) for option in options]

        def build(answer: Callable[[Any], None]) -> Any:
            return SelectDialog(
                title,
                choices,
                self.app.theme,
                self.app.keybindings,
                on_select=lambda index: answer(choices[index]),
                on_cancel=lambda: answer(None),
            )

        result: str | None = await self.dialogs.ask(
            build, None, signal=signal, timeout_ms=timeout_ms, set_title=_set_title, title=title
        )
        return result

    async def confirm(
        self, title: str, message: str, *, signal: AbortSignal | None = None, timeout_ms: int | None = None
    ) -> bool:
        from pi.app.modes.interactive.pickers.dialogs import confirm_dialog

        def build(answer: Callable[[Any], None]) -> Any:
            return confirm_dialog(title, message, self.app.theme, self.app.keybindings, answer)

        result = await self.dialogs.ask(
            build, False, signal=signal, timeout_ms=timeout_ms, set_title=_set_title, title=title
        )
        return bool(result)

    async def input(
        self,
        title: str,
        placeholder: str | None = None,
        *,
        signal: AbortSignal | None = None,
        timeout_ms: int | None = None,
    ) -> str | None:
        from pi.app.modes.interactive.components.extension_dialogs import InputDialog

        def build(answer: Callable[[Any], None]) -> Any:
            return InputDialog(
                title,
                self.app.theme,
                self.app.keybindings,
                placeholder=placeholder,
                on_submit=answer,
                on_cancel=lambda: answer(None),
            )

        result: str | None = await self.dialogs.ask(
            build, None, signal=signal, timeout_ms=timeout_ms, set_title=_set_title, title=title
        )
        return result

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        from pi.app.modes.interactive.components.extension_dialogs import EditorDialog

        def build(answer: Callable[[Any], None]) -> Any:
            return EditorDialog(
                title,
                self.app.theme,
                self.app.keybindings,
                prefill=prefill,
                on_submit=answer,
                on_cancel=lambda: answer(None),
                terminal_rows=self.app.terminal.rows,
            )

        result: str | None = await self.dialogs.ask(build, None)
        return result

    async def custom(
        self,
        factory: Callable[..., Any],
        *,
        overlay: bool = False,
        overlay_options: Any = None,
        on_handle: Callable[[Any], None] | None = None,
        blocked: bool = False,
    ) -> Any:
        from pi.app.modes.interactive.extension_ui_custom import run_custom

        return await run_custom(
            self.app,
            self.dialogs,
            factory,
            overlay=overlay,
            overlay_options=overlay_options,
            on_handle=on_handle,
            blocked=blocked,
            on_error=self.report,
        )

    # --- notices, status, widgets, title -----------------------------------------------------
    def notify(self, message: str, type: NotifyType | None = None) -> None:
        if type == "error":
            self.app.show_error(message)
        elif type == "warning":
            self.app.show_warning(message)
        else:
            self.app.show_status(message)

    def set_status(self, key: str, text: str | None) -> None:
        statuses = self.app.footer.statuses
        if text is None:
            statuses.pop(key, None)
        else:
            statuses[key] = str(text)
        self.app.footer.invalidate()
        self.app.request_render()

    def set_widget(self, key: str, content: Any, *, placement: WidgetPlacement | None = None) -> None:
        area = self.below if placement == "belowEditor" else self.above
        other = self.above if area is self.below else self.below
        if key in other.widgets:
            other.set(key, None)
        area.set(key, build_widget(key, content, self.theme, self.app.tui, self.report))
        self.app.request_render()

    def set_title(self, title: str) -> None:
        self.app.terminal.set_title(str(title))

    # --- the editor ----------------------------------------------------------------------------
    def set_editor_text(self, text: str) -> None:
        self.app.set_editor_text(text)

    def paste_to_editor(self, text: str) -> None:
        """Insert `text` at the cursor as a paste (long pastes collapse into a marker, as typed ones do)."""
        self.app.editor.handle_input(PASTE_START + text + PASTE_END)
        self.app.request_render()

    def get_editor_text(self) -> str:
        return self.app.get_editor_text()

    def set_editor_component(self, factory: Any) -> None:
        self.chrome.set_editor(factory)

    def get_editor_component(self) -> Any:
        return self.chrome.editor_factory

    def add_autocomplete_provider(self, provider: Any) -> Callable[[], None] | None:
        from pi.app.modes.interactive.extension_ui_autocomplete import ExtensionAutocomplete

        if self._autocomplete is None:
            base = self.app.editor.autocomplete
            if base is None:
                return None
            self._autocomplete = ExtensionAutocomplete(base, self.report)
            self.app.editor.autocomplete = self._autocomplete
        return self._autocomplete.add(provider)

    # --- raw input -----------------------------------------------------------------------------
    def on_terminal_input(self, handler: InputHandler) -> Callable[[], None]:
        """`handler(data)` sees every key sequence first; `{consume: True}` stops it, `{data: ...}` rewrites it."""

        def listener(data: str) -> bool:
            if self._replaying:
                return False
            try:
                consume, replacement = _input_result(handler(data))
            except Exception as error:
                self.report("terminal input handler", error)
                return False
            if replacement is not None and replacement != data:
                self._replaying = True
                try:
                    self.app.tui.handle_input(replacement)
                finally:
                    self._replaying = False
                return True
            return consume

        remove = self.app.tui.add_input_listener(listener)
        self._input_removers.append(remove)
        return remove

    # --- header, footer, working line, thinking, tools ----------------------------------------
    def set_header(self, factory: Any) -> None:
        self.chrome.set_header(factory)

    def set_footer(self, factory: Any) -> None:
        self.chrome.set_footer(factory)

    def set_working_message(self, message: str | None = None) -> None:
        self.chrome.working.message = message
        self.app.request_render()

    def set_working_visible(self, visible: bool) -> None:
        self.chrome.working.visible = bool(visible)
        self.app.request_render()

    def set_working_indicator(self, indicator: Any = None) -> None:
        self.chrome.working.set_indicator(indicator)
        self.app.request_render()

    def set_hidden_thinking_label(self, label: str | None = None) -> None:
        self.chrome.set_hidden_thinking_label(label)

    def set_tools_expanded(self, expanded: bool) -> None:
        self.app.set_tools_expanded(bool(expanded))

    def get_tools_expanded(self) -> bool:
        return bool(self.app.chat.tools_expanded)


def _set_title(component: Any, title: str) -> None:
    component.title = title
    invalidate = getattr(component, "invalidate", None)
    if callable(invalidate):
        invalidate()


__all__ = ["TerminalExtensionUI"]
