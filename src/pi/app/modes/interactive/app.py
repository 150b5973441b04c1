"""InteractiveApp: the terminal UI of one session, from the first frame to the resume hint.

It owns the terminal and the TUI, builds the layout, turns keys into actions (`keys_dispatch`, `key_actions`),
session events into screen changes (`session_binding`), and the editor's text into prompts, queued
messages, `!` commands or slash commands. Slash-command handlers and pickers see it through the
`InteractiveApi` surface (`session`, `settings`, `theme`, `chat`, `show_selector`, ...).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pi.app.modes.interactive.chat_view import ChatView
from pi.app.modes.interactive.footer import Footer
from pi.app.modes.interactive.header import Header, ResourcesView
from pi.app.modes.interactive.keys_dispatch import KeyDispatch
from pi.app.modes.interactive.layout import EditorSlot, Layout
from pi.app.modes.interactive.local_commands import LocalCommands
from pi.app.modes.interactive.pasted_images import PastedImages
from pi.app.modes.interactive.project_files import list_project_files
from pi.app.modes.interactive.queue_view import PendingArea, QueueView
from pi.app.modes.interactive.session_binding import SessionBinding
from pi.app.modes.interactive.startup import no_model_help, tmux_warnings
from pi.app.modes.interactive.user_bash import UserBashRunner
from pi.tui.autocomplete import AutocompleteProvider
from pi.tui.editor import Editor
from pi.tui.tui import TUI

if TYPE_CHECKING:
    from pi.app.agent_session import AgentSession
    from pi.app.modes.interactive.commands.api import ScreenSnapshot
    from pi.app.modes.interactive.context import InteractiveContext
    from pi.app.modes.interactive.extension_ui_binding import ExtensionUIBinding
    from pi.tui.component import Component, Focusable
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.search import TranscriptSearch
    from pi.tui.selection import Selection
    from pi.tui.terminal import Terminal
    from pi.tui.theme import Theme

logger = logging.getLogger(__name__)


class InteractiveApp:
    """See the module docstring. `run()` returns the exit code."""

    def __init__(
        self,
        session: AgentSession,
        context: InteractiveContext,
        terminal: Terminal,
        theme: Theme,
        keybindings: KeybindingsManager,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.session = session
        self.context = context
        self.settings = session.settings
        self.terminal = terminal
        self.theme = theme
        self.keybindings = keybindings
        self.clock = clock
        self.home = os.path.expanduser("~")
        settings = self.settings
        output_pad = 0 if settings.get("outputPad") == 0 else 1
        self.commands = LocalCommands(self)
        self.autocomplete = AutocompleteProvider(
            self.commands.slash_commands,
            cwd=str(session.cwd),
            home=self.home,
            argument_completer=self.commands.registry.complete_argument,
            list_files=list_project_files,
        )
        self.editor = Editor(
            theme,
            keybindings,
            autocomplete=self.autocomplete,
            on_submit=self._on_editor_submit,
            padding_x=_int_setting(settings.get("editorPaddingX"), 0, 0, 3),
            autocomplete_max_visible=_int_setting(settings.get("autocompleteMaxVisible"), 5, 3, 20),
            terminal_rows=terminal.rows,
        )
        self.editor.thinking_level = session.thinking_level
        self.chat = ChatView(
            theme,
            session.cwd,
            output_pad=output_pad,
            hide_thinking=settings.get("hideThinkingBlock") is True,
            tool_names=lambda: {tool.name for tool in session.tools},
        )
        quiet = settings.get("quietStartup")
        if context.verbose:
            quiet = False
        self.header = Header(theme, keybindings, context.version)
        self.resources_view = ResourcesView(
            session.resources, theme, session.cwd, self.home, show_lists=quiet not in (True, "header")
        )
        self.queue = QueueView(theme, keybindings)
        self.pending = PendingArea(self.queue)
        self.footer = Footer(session, theme, self.home)
        self.slot = EditorSlot(self.editor, self.request_render)
        self.layout = Layout(self.header, self.resources_view, self.chat, self.pending, self.slot, self.footer)
        if quiet is True:
            self.layout.header_area.clear()
        self.tui = TUI(
            terminal,
            self.layout.document,
            self.layout.dock,
            mode=context.tui_mode,
            keybindings=keybindings,
            theme=theme,
            scrollbar=_scrollbar_setting(settings.get("fullscreenScrollbar")),
            crash_log_path=context.agent_dir / "pi-tui-crash.log",
            wheel_lines=settings.get("fullscreenWheelScrollLines", "auto"),
        )
        self.tui.set_min_rows(self.slot)
        self.keys = KeyDispatch(self, clock)
        self.slot.before_editor = self.keys.before_editor
        self.slot.after_editor = self.keys.after_editor
        self.binding = SessionBinding(self)
        self.chat.on_tick_needed = self.ensure_ticking
        self.bash = UserBashRunner(self)
        self.pasted_images = PastedImages(session.cwd)
        self.exit_code = 0
        self._done: asyncio.Future[int] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._unsubscribe: Callable[[], None] | None = None
        self._ticker: asyncio.Task[None] | None = None
        self.selection: Selection | None = None
        self.starting = True
        self.chat_session_id: str | None = session.session_id
        """The session whose messages the chat shows (a `session_start` for it needs no redraw)."""
        """Until extensions are attached, Enter keeps the text (`Startup is still in progress`)."""
        self.search: TranscriptSearch | None = None
        self.extension_ui: ExtensionUIBinding | None = None
        """The extensions' side of the UI (`ctx.ui`, their commands, shortcuts, renderers), once attached."""

    # --- lifecycle ------------------------------------------------------------------------------
    async def run(self) -> int:
        """Show the UI until the user quits; returns the exit code (0 for a normal quit)."""
        loop = asyncio.get_running_loop()
        self._done = loop.create_future()
        term = self.terminal
        term.on_terminate = self._on_terminate
        self.tui.on_fatal = self._on_fatal
        self._unsubscribe = self.session.subscribe(self.binding)
        if self.context.model_scope:
            line = f"Model scope: {', '.join(self.context.model_scope)} (Ctrl+P to cycle)"
            if self.tui.mode == "regular":
                term.write(self.theme.dim(line) + "\r\n")
            else:
                self.header.scope_line = line
        self._show_startup()
        from pi.app.modes.interactive.terminal_status import prepare_status_query

        prepare_status_query(self)
        self.tui.start(query_palette=self.theme.source == "system")
        from pi.app.modes.interactive.theme_live import follow_terminal_palette
        from pi.app.modes.interactive.transcript_mouse import enable_transcript_mouse

        follow_terminal_palette(self)

        self.selection, self.search = enable_transcript_mouse(self)
        previous_resize = term.on_resize
        term.on_resize = lambda: self._on_resize(previous_resize)
        self.tui.set_focus(self.slot)
        self.update_title()
        from pi.app.modes.interactive.extension_ui_binding import attach_extensions

        self.extension_ui = await attach_extensions(self)
        self.starting = False
        if self.context.initial_prompt:
            self.submit_text(self.context.initial_prompt, images=self.context.initial_images)
        self.request_render()
        try:
            code = await self._done
        finally:
            await self._shutdown()
        return code

    def _on_resize(self, previous: Callable[[], None] | None) -> None:
        self.editor.terminal_rows = self.terminal.rows
        if previous is not None:
            previous()

    def _show_startup(self) -> None:
        """The resumed messages, notices and warnings, and What's New, in pi's startup order."""
        if self.session.messages:
            self.chat.rebuild(self.session.messages)
            for text in _user_history(self.session.messages):
                self.editor.add_to_history(text)
        for text in self.context.startup_notices:
            self.chat.add_status(text)
        for text in self.context.startup_warnings:
            self.chat.add_warning(text)
        for text in tmux_warnings(self.terminal.environ):
            self.chat.add_warning(text)
        if self.session.model is None:
            self.chat.add_warning(no_model_help(self.context.agent_dir))
        from pi.app.modes.interactive.whats_new import whats_new

        notes = whats_new(self)
        if notes is not None:
            self.chat.add_notice(notes)
        from pi.app.packages.update_notice import extension_updates_panel

        updates = extension_updates_panel(self)
        if updates is not None:
            self.chat.add_notice(updates)

    async def _shutdown(self) -> None:
        if self.extension_ui is not None:
            await self.extension_ui.close()
        if self._unsubscribe is not None:
            self._unsubscribe()
        self.slot.set_working(None)
        self.binding.stop_retry_countdown()
        if self.bash.running:
            self.session.abort_bash()
        if self.session.is_streaming:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.session.abort(), 2.0)
        for task in [*self._tasks, *([self._ticker] if self._ticker is not None else [])]:
            task.cancel()
        resume_only = self.settings.get("fullscreenExitOutput") == "resume-hint"
        self.tui.stop("resume-hint" if resume_only else "transcript")
        hint = self.resume_hint()
        if hint:
            self.terminal.write(hint)

    def resume_hint(self) -> str:
        """`To resume this session:` (dim) and the command, when the session file exists and has messages."""
        if self.context.no_session or not self.session.messages:
            return ""
        path = self.session.session_file
        if path is None or not Path(path).exists():
            return ""
        command = "pi "
        if self.context.session_dir:
            command += f"--session-dir {self.context.session_dir} "
        command += f"--session {self.session.session_id}"
        return f"{self.theme.dim('To resume this session:')}\r\n{command}\r\n"

    def quit(self, code: int = 0) -> None:
        """End the UI (the terminal is restored and the resume hint printed by `run`)."""
        if self._done is not None and not self._done.done():
            self._done.set_result(code)

    def _on_terminate(self, signum: int) -> None:
        self.quit(129 if self.terminal.dead else 0)

    def _on_fatal(self, exc: BaseException) -> None:
        logger.error("the interactive UI stopped: %s", exc)
        self.quit(1)

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run `coro` in the background; failures are shown in the chat, never lost."""
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            self.show_error(str(exc) or type(exc).__name__)

    # --- InteractiveApi -----------------------------------------------------------------------------
    @property
    def agent_dir(self) -> Path:
        return self.context.agent_dir

    def show_notice(self, component: Component) -> None:
        self.chat.add_notice(component)
        self.request_render()

    def rebuild_chat(self) -> None:
        self.chat.rebuild(self.session.messages)
        self.chat_session_id = self.session.session_id
        self.queue.set_queues(self.session.steering_queue, self.session.follow_up_queue)
        self.editor.thinking_level = self.session.thinking_level
        self.footer.refresh()
        self.update_title()
        self.tui.request_render(full=True)

    async def reload_resources(self) -> None:
        from pi.tui.keybindings import load_keybindings

        # Draw what the command put up (the `Reloading…` box) before loading blocks the loop.
        self.tui.render_now()

        self.keybindings.bindings.update(load_keybindings(self.agent_dir / "keybindings.json").bindings)
        if self.extension_ui is not None:
            await self.extension_ui.reload()
        self.resources_view.resources = self.session.resources
        self.resources_view.invalidate()
        self.tui.invalidate()

    def apply_setting(self, key: str, value: Any) -> None:
        from pi.app.modes.interactive.live_settings import apply_setting

        apply_setting(self, key, value)

    def terminal_appearance(self) -> Literal["light", "dark"]:
        from pi.app.modes.interactive.theme_live import terminal_appearance

        return terminal_appearance(self)

    def screen_snapshot(self) -> ScreenSnapshot:
        from pi.app.modes.interactive.commands.api import ScreenSnapshot

        width = self.terminal.columns
        lines = self.layout.document.render(width) + self.layout.dock.render(width)
        return ScreenSnapshot(width, self.terminal.rows, lines)

    def request_render(self) -> None:
        self.tui.request_render()

    def show_status(self, text: str) -> None:
        self.chat.add_status(text)
        self.request_render()

    def show_warning(self, text: str) -> None:
        self.chat.add_warning(text)
        self.request_render()

    def show_error(self, text: str) -> None:
        self.chat.add_error(text)
        self.request_render()

    def set_editor_text(self, text: str) -> None:
        self.editor.set_text(text)
        self.request_render()

    def get_editor_text(self) -> str:
        return self.editor.get_text()

    def show_selector(self, component: Focusable) -> None:
        """Show a selector in the editor's place; it gets the keys until `close_selector`."""
        self.slot.selector = component
        component.focused = True
        self.tui.request_render(full=self.tui.mode == "regular")

    def close_selector(self) -> None:
        self.slot.selector = None
        self.tui.request_render(full=self.tui.mode == "regular")

    def set_tools_expanded(self, expanded: bool, announce: bool = False) -> None:
        self.chat.set_tools_expanded(expanded)
        self.header.set_expanded(expanded)
        self.resources_view.set_expanded(expanded)
        for block in self.pending.bash_blocks:
            setter = getattr(block, "set_expanded", None)
            if setter is not None:
                setter(expanded)
        if announce:
            self.chat.add_status(f"Tool output: {'expanded' if expanded else 'collapsed'}")
        self.tui.request_render(full=True)

    def copy_to_clipboard(self, text: str) -> None:
        """OSC 52: the terminal puts `text` on the system clipboard (works over SSH and in tmux)."""
        import base64

        self.terminal.write(f"\x1b]52;c;{base64.b64encode(text.encode()).decode()}\x07")

    def ensure_ticking(self) -> None:
        """Redraw a few times a second while a tool timer or a `!` spinner runs, and only then."""
        if self._ticker is None or self._ticker.done():
            self._ticker = asyncio.ensure_future(self._tick())

    async def _tick(self) -> None:
        while self.bash.running or self.chat.needs_tick():
            await asyncio.sleep(0.08)
            self.request_render()

    def set_working(self, label: str | None) -> None:
        self.slot.set_working(label)
        self.request_render()

    def update_title(self) -> None:
        name = self.session.session_name
        base = self.session.cwd.name
        title = f"π - {name} - {base}" if name else f"π - {base}"
        self.terminal.set_title("".join(ch if ch >= " " else " " for ch in title))

    # --- the editor's text --------------------------------------------------------------------------
    def _on_editor_submit(self, text: str) -> None:
        if self.starting:  # Enter before setup finished: keep the text for later
            self.editor.set_text(text)
            self.show_status("Startup is still in progress")
            return
        self.submit_text(text)

    def submit_from_editor(self, *, follow_up: bool) -> None:
        """Alt+Enter: queue a follow-up while working; submit as Enter does when idle."""
        text = self.editor.get_expanded_text().strip()
        if not text:
            return
        if follow_up and self.session.is_streaming and not text.startswith(("/", "!")):
            self.editor.clear()
            self.editor.add_to_history(text)
            self.spawn(self._prompt(text, None, "followUp"))
            return
        self.editor.submit()

    def submit_text(self, text: str, images: list[Any] | None = None) -> None:
        """Enter: a slash command, a `!` command, or a prompt (a steer while the agent works)."""
        text = text.strip()
        if not text:
            return
        if text.startswith("/") and self.commands.try_run(text):
            self.editor.add_to_history(text)
            self.pasted_images.clear()
            return
        if text.startswith("!") and text.lstrip("!").strip():
            self.editor.add_to_history(text)
            self.pasted_images.clear()
            self.bash.start(text)
            return
        self.editor.add_to_history(text)
        from pi.app.modes.interactive.compaction_queue import compacting, hold_for_compaction

        if compacting(self):
            hold_for_compaction(self, text)
            return
        self.spawn(self._prompt(text, images, "steer" if self.session.is_streaming else None))

    async def _prompt(self, text: str, images: list[Any] | None, behavior: Literal["steer", "followUp"] | None) -> None:
        """Send `text` with its images, and those of image files pasted into it (`pasted_images`)."""
        from pi.app.agent_session import NoApiKeyError

        setting = self.settings.get("images")
        auto_resize = not (isinstance(setting, dict) and setting.get("autoResize") is False)
        images = [*(images or []), *await self.pasted_images.take(text, auto_resize=auto_resize)]
        try:
            await self.session.prompt(text, images or None, streaming_behavior=behavior, source="interactive")
        except NoApiKeyError as exc:
            self.show_error(str(exc))

    # --- `!` commands --------------------------------------------------------------------------------
    def bash_output(self, delta: str) -> None:
        self.bash.output(delta)

    def flush_pending_bash(self) -> None:
        """Blocks started while the agent worked move from the pending area into the chat."""
        for block in self.pending.bash_blocks:
            self.chat.add(block)
        self.pending.bash_blocks.clear()


def _user_history(messages: list[Any]) -> list[str]:
    out = []
    for message in messages:
        if getattr(message, "role", None) == "user":
            content = message.content
            text = content if isinstance(content, str) else "".join(getattr(b, "text", "") or "" for b in content)
            if text.strip():
                out.append(text)
    return out


def _int_setting(value: object, default: int, low: int, high: int) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
        return value
    return default


def _scrollbar_setting(value: object) -> Any:
    return value if value in ("auto", "always", "hidden") else "auto"


__all__ = ["InteractiveApp"]
