"""Commands that move between or describe sessions: /new, /resume, /name, /session, /compact, /clone, /fork.

Each one uses the session's own methods (`new_session`, `switch_session`, `fork`, `clone`,
`compact`, `set_session_name`) and then asks the app to redraw the transcript of where it landed.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from pi.app.modes.interactive.commands.blocks import TextBlock, accent_line
from pi.app.modes.interactive.commands.model_commands import default_thinking_level
from pi.app.modes.interactive.commands.session_info import session_info_lines
from pi.app.modes.interactive.pickers.fork_picker import ForkPicker
from pi.app.modes.interactive.pickers.session_picker import Scope, SessionPicker, delete_session_file

if TYPE_CHECKING:
    from pi.app.modes.interactive.commands.api import InteractiveApi
    from pi.app.modes.interactive.commands.registry import Handler
    from pi.session.listing import SessionInfo

NEW_SESSION = "✓ New session started"
NAME_USAGE = "Usage: /name <name>"


def startup_thinking_level(api: InteractiveApi) -> str:
    """The level a new session starts with: the model's override in `modelThinkingLevels`, else the default."""
    model = api.session.model
    overrides = api.settings.get("modelThinkingLevels")
    if model is not None and isinstance(overrides, dict):
        level = overrides.get(f"{model.provider}/{model.id}")
        if isinstance(level, str):
            return level
    return default_thinking_level(api)


async def cmd_new(api: InteractiveApi, args: str) -> None:
    await api.session.new_session()
    api.session.set_thinking_level(startup_thinking_level(api))
    api.rebuild_chat()
    api.show_notice(accent_line(api.theme, NEW_SESSION))


def load_sessions(api: InteractiveApi, scope: Scope) -> list[SessionInfo]:
    """This folder's sessions, or every project's."""
    from pi.session.listing import list_all_sessions, list_sessions

    manager = api.session.session
    if scope == "all":
        return list_all_sessions(api.agent_dir)
    return list_sessions(manager.get_cwd(), manager.get_session_dir(), api.agent_dir)


def rename_session_file(api: InteractiveApi, info: SessionInfo, name: str) -> None:
    """Name the current session through the session; any other file gets a session-info entry appended."""
    from pi.session.manager import SessionManager

    if api.session.session_file == str(info.path):
        api.session.set_session_name(name)
    else:
        SessionManager.open(info.path).append_session_info(name)


async def _resume(api: InteractiveApi, info: SessionInfo) -> None:
    await api.session.switch_session(str(info.path))
    api.rebuild_chat()
    here = api.session.session.get_cwd()
    api.show_status("Resumed session" if not info.cwd or info.cwd == here else f"Resumed session in {info.cwd}")


def _resume_path(api: InteractiveApi, info: SessionInfo, path: str) -> None:
    """Resume `info`, or the fork made of it for the current directory (`path` then differs)."""
    if path == str(info.path):
        api.spawn(_resume(api, info))
        return

    async def resume_fork() -> None:
        await api.session.switch_session(path)
        api.rebuild_chat()
        api.show_status("Resumed session")

    api.spawn(resume_fork())


def open_session_picker(api: InteractiveApi) -> None:
    def chosen(info: SessionInfo) -> None:
        from pi.app.modes.interactive.missing_cwd import ask_in_app

        api.close_selector()
        switch = partial(_resume_path, api, info)
        if not ask_in_app(api, info.path, Path(info.path).absolute().parent, switch, cancelled_status):
            api.spawn(_resume(api, info))

    def cancelled_status() -> None:
        api.show_status("Resume cancelled")

    def cancelled() -> None:
        api.close_selector()
        cancelled_status()

    picker = SessionPicker(
        lambda scope: load_sessions(api, scope),
        api.theme,
        api.keybindings,
        on_select=chosen,
        on_cancel=cancelled,
        on_rename=lambda info, name: rename_session_file(api, info, name),
        on_delete=delete_session_file,
        current_path=api.session.session_file,
    )
    api.show_selector(picker)


async def cmd_resume(api: InteractiveApi, args: str) -> None:
    open_session_picker(api)


async def cmd_name(api: InteractiveApi, args: str) -> None:
    from pi.session.ids import normalize_session_name

    session = api.session
    if not args:
        if session.session_name:
            api.show_status(f"Session name: {session.session_name}")
        else:
            api.show_warning(NAME_USAGE)
        return
    name = normalize_session_name(args)
    if not name:
        api.show_warning(NAME_USAGE)
        return
    session.set_session_name(name)
    api.show_status(f"Session name set: {name}")
    if name != args:
        api.show_warning(f'Session name was normalized from "{args}" to "{name}"')


async def cmd_session(api: InteractiveApi, args: str) -> None:
    api.show_notice(TextBlock(session_info_lines(api.session, api.theme)))


async def cmd_compact(api: InteractiveApi, args: str) -> None:
    from pi.session.compaction import CompactionCancelledError, CompactionError

    try:
        await api.session.compact(args or None)
    except CompactionCancelledError:
        api.show_error("Compaction cancelled")
        return
    except CompactionError as exc:
        api.show_error(f"Compaction failed: {exc}")
        return
    api.rebuild_chat()


async def cmd_clone(api: InteractiveApi, args: str) -> None:
    if api.session.session.get_leaf_id() is None or not api.session.messages:
        api.show_status("Nothing to clone yet")
        return
    await api.session.clone()
    api.rebuild_chat()
    api.show_status("Cloned to new session")


async def _fork(api: InteractiveApi, entry_id: str) -> None:
    result = await api.session.fork(entry_id)
    api.rebuild_chat()
    api.set_editor_text(str(result.get("text", "")))
    api.show_status("Forked to new session")


def open_fork_picker(api: InteractiveApi) -> None:
    """Show the fork picker (also what Esc Esc opens with `doubleEscapeAction: "fork"`)."""
    messages = api.session.fork_messages()
    if not messages:
        api.show_status("No messages to fork from")
        return

    def chosen(entry_id: str) -> None:
        api.close_selector()
        api.spawn(_fork(api, entry_id))

    api.show_selector(ForkPicker(messages, api.theme, api.keybindings, on_select=chosen, on_cancel=api.close_selector))


async def cmd_fork(api: InteractiveApi, args: str) -> None:
    open_fork_picker(api)


async def cmd_tree(api: InteractiveApi, args: str) -> None:
    from pi.app.modes.interactive.commands.tree_command import open_tree

    open_tree(api)


HANDLERS: dict[str, Handler] = {
    "new": cmd_new,
    "resume": cmd_resume,
    "name": cmd_name,
    "session": cmd_session,
    "compact": cmd_compact,
    "clone": cmd_clone,
    "fork": cmd_fork,
    "tree": cmd_tree,
}

__all__ = [
    "HANDLERS",
    "NAME_USAGE",
    "NEW_SESSION",
    "load_sessions",
    "open_fork_picker",
    "open_session_picker",
    "rename_session_file",
    "startup_thinking_level",
]
