"""Joining the session's extensions to the terminal UI.

`attach_extensions(app)` gives the session a `TerminalExtensionUI` (mode `tui`, which starts the
extensions' session) and connects what extensions registered to the app: their commands join the
`/` menu (a name taken by a built-in command is left out, with a warning) with their argument
completions; their shortcuts run from the keyboard (reserved keys are refused, as
`resolve_shortcuts` decides); their message and tool renderers draw in the transcript; and their
errors appear in the chat as `Extension "<path>" error: <error>` with the stack dimmed below.
Everything is read from the runner when used, so a `/reload` takes effect without re-attaching.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pi.tui.autocomplete import Completion, SlashCommand

if TYPE_CHECKING:
    from pi.app.agent_session import AgentSession
    from pi.app.extensions.extension import RegisteredShortcut
    from pi.app.extensions.runner import ExtensionRunner
    from pi.app.modes.interactive.app import InteractiveApp
    from pi.app.modes.interactive.extension_ui import TerminalExtensionUI
    from pi.tui.component import Component
    from pi.tui.keybindings import KeybindingsManager

logger = logging.getLogger(__name__)
_SCOPE_TAGS = {"user": "u", "project": "p", "temporary": "t"}
SHUTDOWN_TIMEOUT = 5.0
COMPLETION_CACHE_SIZE = 64


def conflict_warning(name: str) -> str:
    return f"Extension command '/{name}' conflicts with built-in interactive command. Skipping in autocomplete."


class ExtensionUIBinding:
    """The app's side of the extensions (see the module docstring)."""

    def __init__(self, app: InteractiveApp) -> None:
        from pi.app.modes.interactive.extension_ui import TerminalExtensionUI

        self.app = app
        self.ui: TerminalExtensionUI = TerminalExtensionUI(app, self._ui_error)
        self._warned: set[str] = set()
        self._shown_custom: set[int] = set()
        self._unsubscribe: list[Any] = []
        self._shortcuts: dict[str, RegisteredShortcut] | None = None
        self._completed: dict[tuple[str, str], list[Completion] | None] = {}
        """Answers of async argument completers, by (command, argument text)."""
        """Key -> shortcut in effect; rebuilt after a bind or reload."""

    @property
    def runner(self) -> ExtensionRunner | None:
        return self.app.session.extension_runner

    # --- connecting ------------------------------------------------------------------------------
    def install(self) -> None:
        """Set the hooks on the app's parts; each reads the runner when it runs."""
        app = self.app
        registry = app.commands.registry
        registry.extension_commands = self.slash_commands
        registry.extension_arguments = self.complete_argument
        app.keys.extension_keys = self.handle_key
        app.chat.tool_renderer_hook = self.tool_renderer
        app.chat.custom_message_hook = self.custom_message_view
        self._unsubscribe.append(app.session.subscribe(self._on_session_event))
        self._unsubscribe.append(app.session.on_extension_error(self._show_extension_error))

    async def close(self) -> None:
        """At exit: extensions get `session_shutdown` (bounded, so a hanging handler cannot keep pi open)."""
        import asyncio

        try:
            await asyncio.wait_for(self.app.session.shutdown_extensions("quit"), SHUTDOWN_TIMEOUT)
        except Exception as error:  # a timeout or a failing handler must not stop the exit
            logger.warning("extension shutdown failed: %s", error)
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()

    async def bind(self) -> None:
        """Hand the UI to the session (emits `session_start`), then report load-time warnings."""
        session = self.app.session
        await session.bind_extensions(ui=self.ui, mode="tui")
        session.set_extension_shutdown_handler(self.request_shutdown)
        self.list_extensions()
        self.warn_conflicts()

    def list_extensions(self) -> None:
        """The `[Extensions]` list under the header: every loaded extension except built-ins and hidden ones."""
        runner = self.runner
        active = runner.registry.active() if runner is not None else []
        view = self.app.resources_view
        self._shortcuts = None
        view.extensions = [e.path for e in active if not e.hidden and e.builtin_name is None]
        view.invalidate()
        has_transformers = any(e.markdown_transformer is not None for e in active)
        self.app.chat.markdown_hook = self.transform_markdown if has_transformers else None
        self.app.request_render()

    def transform_markdown(self, message_type: str, text: str, streaming: bool) -> str:
        """The extensions' markdown transformers over `text` (display only)."""
        runner = self.runner
        if runner is None:
            return text
        context = {
            "message_type": message_type,
            "is_streaming": streaming,
            "available_width": self.app.terminal.columns,
        }
        return runner.registry.transform_markdown(text, context)

    async def reload(self) -> None:
        """`/reload`: clear what the old extension instances drew, start fresh ones, show their problems."""
        self.ui.reset()
        self._warned.clear()
        for diagnostic in await self.app.session.reload_extensions():
            text = diagnostic.message
            (self.app.show_error if diagnostic.level == "error" else self.app.show_warning)(text)
        self.list_extensions()
        self.warn_conflicts()

    def request_shutdown(self) -> None:
        """`ctx.shutdown()`: quit once the agent is idle and its queues have drained."""

        async def when_idle() -> None:
            await self.app.session.wait_for_idle()
            self.app.quit()

        self.app.spawn(when_idle())

    def warn_conflicts(self) -> None:
        """Warnings for commands hidden behind built-ins and for refused or replaced shortcuts."""
        runner = self.runner
        if runner is None:
            return
        self.slash_commands()
        _, diagnostics = self._shortcut_table()
        for diagnostic in diagnostics:
            self._warn_once(diagnostic.message)

    def _warn_once(self, text: str) -> None:
        if text not in self._warned:
            self._warned.add(text)
            self.app.show_warning(text)

    # --- errors ----------------------------------------------------------------------------------
    def _show_extension_error(self, info: Any) -> None:
        path = getattr(info, "extension_path", "?")
        self.app.show_error(f'Extension "{path}" error: {getattr(info, "error", info)}')
        stack = getattr(info, "stack", None)
        if isinstance(stack, str) and stack.strip():
            lines = [line for line in stack.rstrip().split("\n")[1:] if line.strip()]
            if lines:
                from pi.tui.component import Text

                self.app.show_notice(Text(self.app.theme.dim("\n".join(lines)), padding_x=1))

    def _ui_error(self, where: str, error: BaseException) -> None:
        import asyncio

        text = f"Extension {where} error: {error}"
        logger.warning("%s", text)
        try:
            asyncio.get_running_loop().call_soon(self.app.show_error, text)
        except RuntimeError:
            return

    # --- commands ----------------------------------------------------------------------------------
    def slash_commands(self) -> list[SlashCommand]:
        runner = self.runner
        if runner is None:
            return []
        builtin = {info.name for info in self.app.commands.registry.builtins()}
        rows = []
        for name, command in runner.registry.commands():
            extension = runner.registry.find(command.extension_path)
            if name in builtin:
                if getattr(extension, "builtin_name", None) is None:  # a built-in's own command (/llama, /mcp)
                    self._warn_once(conflict_warning(name))
                continue
            scope = getattr(getattr(extension, "source_info", None), "scope", "")
            rows.append(SlashCommand(name, command.description or "", "", _SCOPE_TAGS.get(scope, "")))
        return rows

    def complete_argument(self, name: str, text: str) -> Sequence[Completion] | None:
        runner = self.runner
        if runner is None:
            return None
        command = runner.registry.command(name)
        if command is None or command.get_argument_completions is None:
            return None
        try:
            answer = command.get_argument_completions(text)
        except Exception as error:
            runner.registry.report(command.extension_path, "get_argument_completions", error)
            return None
        if inspect.isawaitable(answer):
            # The editor completes synchronously: answer from what an earlier call found, and let
            # this one refresh the list when it is done.
            key = (name, text)
            if key in self._completed:
                _close(answer)
                return self._completed[key]
            self.app.spawn(self._complete_later(key, answer, command.extension_path))
            return None
        return _completions(answer)

    async def _complete_later(self, key: tuple[str, str], answer: Any, path: str) -> None:
        try:
            found = _completions(await answer)
        except Exception as error:
            runner = self.runner
            if runner is not None:
                runner.registry.report(path, "get_argument_completions", error)
            return
        if len(self._completed) > COMPLETION_CACHE_SIZE:
            self._completed.clear()
        self._completed[key] = found
        editor = self.app.editor
        if found and editor.get_text().endswith(f"/{key[0]} {key[1]}"):
            editor.after_change(typed=True, keep_history=True)
            self.app.request_render()

    # --- shortcuts ---------------------------------------------------------------------------------
    def _shortcut_table(self) -> tuple[dict[str, RegisteredShortcut], list[Any]]:
        from pi.app.extensions.shortcuts import resolve_shortcuts

        runner = self.runner
        if runner is None:
            return {}, []
        shortcuts = [s for ext in runner.registry.active() for s in ext.shortcuts.values()]
        if not shortcuts:
            return {}, []
        return resolve_shortcuts(shortcuts, self.app.keybindings.bindings)

    def handle_key(self, data: str) -> bool:
        """Run the extension shortcut bound to `data`, if any."""
        runner = self.runner
        if runner is None:
            return False
        if self._shortcuts is None:
            self._shortcuts = self._shortcut_table()[0]
        table = self._shortcuts
        if not table:
            return False
        from pi.tui.keys import matches_key

        for key, shortcut in table.items():
            if matches_key(data, key):
                self.app.spawn(self._run_shortcut(runner, shortcut))
                return True
        return False

    async def _run_shortcut(self, runner: ExtensionRunner, shortcut: RegisteredShortcut) -> None:
        extension = runner.registry.find(shortcut.extension_path)
        ctx = runner.context_factory(extension) if runner.context_factory is not None and extension else None
        try:
            result = shortcut.handler(ctx)
            if inspect.isawaitable(result):
                await result
        except Exception as error:
            runner.registry.report(shortcut.extension_path, f"shortcut:{shortcut.key}", error)

    # --- renderers ---------------------------------------------------------------------------------
    def tool_renderer(self, tool_name: str) -> Any:
        runner = self.runner
        if runner is None:
            return None
        slots = runner.registry.tool_renderers(tool_name)
        if not isinstance(slots, dict) or not (slots.get("render_call") or slots.get("render_result")):
            return None
        from pi.app.modes.interactive.components.extension_tool_renderer import ExtensionToolRenderer

        return ExtensionToolRenderer(slots, self._ui_error, self.app.chat.output_pad)

    def custom_message_view(self, message: Any) -> Component | None:
        if getattr(message, "display", True) is False:
            return None
        from pi.app.modes.interactive.components.extension_messages import CustomMessageView

        runner = self.runner
        custom_type = getattr(message, "custom_type", None)
        renderer = runner.registry.message_renderer(custom_type) if runner is not None and custom_type else None
        return CustomMessageView(
            message,
            self.app.theme,
            renderer,
            expanded=self.app.chat.tools_expanded,
            output_pad=self.app.chat.output_pad,
            on_error=self._ui_error,
        )

    def _on_session_event(self, event: Any) -> None:
        kind = getattr(event, "type", None)
        if kind == "entry_appended":
            self._show_entry(getattr(event, "entry", None))
            return
        if kind != "message_start":
            return
        message = getattr(event, "message", None)
        if getattr(message, "role", None) != "custom" or id(message) in self._shown_custom:
            return
        self._shown_custom.add(id(message))
        view = self.custom_message_view(message)
        if view is not None:
            self.app.chat.add(view)
            self.app.request_render()

    def _show_entry(self, entry: Any) -> None:
        runner = self.runner
        custom_type = getattr(entry, "custom_type", None)
        if runner is None or getattr(entry, "type", None) != "custom" or not custom_type:
            return
        renderer = runner.registry.entry_renderer(custom_type)
        if renderer is None:
            return
        from pi.app.modes.interactive.components.extension_messages import CustomEntryView

        chat = self.app.chat
        chat.add(
            CustomEntryView(entry, self.app.theme, renderer, expanded=chat.tools_expanded, on_error=self._ui_error)
        )
        self.app.request_render()


def extension_shortcut_rows(session: AgentSession, keybindings: KeybindingsManager) -> list[tuple[str, str]]:
    """(key label, description) of each extension shortcut in effect, for `/hotkeys`."""
    runner = session.extension_runner
    if runner is None:
        return []
    from pi.app.extensions.shortcuts import resolve_shortcuts
    from pi.tui.keybindings import format_key

    shortcuts = [s for ext in runner.registry.active() for s in ext.shortcuts.values()]
    table, _ = resolve_shortcuts(shortcuts, keybindings.bindings)
    return [(format_key(k, capitalize=True, macos=keybindings.macos), s.description or "") for k, s in table.items()]


def _close(awaitable: Any) -> None:
    close = getattr(awaitable, "close", None)
    if callable(close):
        close()


def _completions(answer: Any) -> list[Completion] | None:
    from pi.app.modes.interactive.extension_ui_autocomplete import completion_item

    if not isinstance(answer, list | tuple):
        return None
    items = [item for item in (completion_item(raw) for raw in answer) if item is not None]
    return items or None


async def attach_extensions(app: InteractiveApp) -> ExtensionUIBinding | None:
    """Connect the session's extensions to `app`; None (and nothing imported) when none are loaded."""
    session = app.session
    try:
        await session.load_extensions()  # done already by the CLI; SDK sessions may not have loaded yet
    except Exception as error:
        logger.exception("loading extensions failed")
        app.show_error(f"Extensions could not load: {error}")
        return None
    if session.extension_runner is None:
        return None
    binding = ExtensionUIBinding(app)
    binding.install()
    try:
        await binding.bind()
    except Exception as error:  # the UI stays usable without them
        logger.exception("binding extensions to the terminal UI failed")
        app.show_error(f"Extensions could not start: {error}")
    return binding


__all__ = ["ExtensionUIBinding", "attach_extensions", "conflict_warning", "extension_shortcut_rows"]
