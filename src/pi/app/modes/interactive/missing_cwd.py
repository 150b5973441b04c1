"""A session whose stored working directory is gone: continue here, fork into here, or cancel.

A session runs in the directory its header names. When that directory no longer exists (it was
deleted or renamed), opening the session with `--session`, `/resume` or `/import` asks first:

- `Continue in {cwd} (asks again next time)`: the session is used as it is, running in the current
  directory; its file still names the old directory, so the question comes back next time.
- `Fork into {cwd} (new session ID, original kept)`: a copy of the session is written for the current
  directory and continued; the original file is untouched.
- `Cancel` (or Esc): the session is not opened.

Non-interactive modes report the same situation as an error before any request (see the CLI).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi.app.agent_session import AgentSession
    from pi.app.modes.interactive.commands.api import InteractiveApi
    from pi.app.modes.interactive.pickers.dialogs import SelectDialog
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.theme import Theme


class CwdChoice(Enum):
    CONTINUE = "continue"
    FORK = "fork"
    CANCEL = "cancel"


def missing_cwd_title(session_cwd: str) -> str:
    return f"Session cwd does not exist: {session_cwd}"


def missing_cwd_options(cwd: str) -> list[tuple[CwdChoice, str]]:
    return [
        (CwdChoice.CONTINUE, f"Continue in {cwd} (asks again next time)"),
        (CwdChoice.FORK, f"Fork into {cwd} (new session ID, original kept)"),
        (CwdChoice.CANCEL, "Cancel"),
    ]


def stored_cwd_if_missing(session_file: str | Path | None) -> str | None:
    """The cwd named by the header of `session_file` when that directory does not exist (else None)."""
    if session_file is None:
        return None
    from pi.session.storage import read_header

    header = read_header(session_file)
    if header is None or not header.cwd or Path(header.cwd).is_dir():
        return None
    return header.cwd


def _dialog(
    session_cwd: str, cwd: str, theme: Theme, keybindings: KeybindingsManager, done: Callable[[CwdChoice], None]
) -> SelectDialog:
    from pi.app.modes.interactive.pickers.dialogs import SelectDialog

    options = missing_cwd_options(cwd)
    return SelectDialog(
        missing_cwd_title(session_cwd),
        [label for _, label in options],
        theme,
        keybindings,
        on_select=lambda index: done(options[index][0]),
        on_cancel=lambda: done(CwdChoice.CANCEL),
    )


def fork_into(session_file: str | Path, session_cwd: str, cwd: str, session_dir: Path | None, agent_dir: Path) -> str:
    """Copy the session into a new file for `cwd`; returns its path.

    The copy goes to `cwd`'s own session folder, unless the session lives in a folder of the user's
    choosing (`--session-dir`, `sessionDir`), which then holds the copy too.
    """
    from pi.session.manager import SessionManager
    from pi.session.storage import default_session_dir

    custom = session_dir is not None and session_dir != default_session_dir(session_cwd, agent_dir)
    forked = SessionManager.fork_from(session_file, cwd, session_dir if custom else None, agent_dir)
    path = forked.get_session_file()
    if path is None:
        raise ValueError(f"Cannot fork {session_file}: the copy has no file")
    return str(path)


async def resolve_at_startup(session: AgentSession, agent_dir: Path, *, tui_mode: str, theme_name: str | None) -> bool:
    """Before the UI opens on a `--session` whose cwd is gone: ask, and fork when asked to.

    Returns False when the user cancelled (the UI does not open).
    """
    manager = session.session
    session_cwd = stored_cwd_if_missing(session.session_file)
    if session_cwd is None or not manager.get_entries():
        return True
    cwd = str(session.cwd)
    choice = await _ask_on_own_screen(session_cwd, cwd, agent_dir, session.settings.get("theme"), theme_name, tui_mode)
    if choice is CwdChoice.CANCEL:
        return False
    if choice is CwdChoice.FORK and session.session_file is not None:
        path = fork_into(session.session_file, session_cwd, cwd, manager.get_session_dir(), agent_dir)
        await session.switch_session(path)
    return True


async def _ask_on_own_screen(
    session_cwd: str, cwd: str, agent_dir: Path, settings_theme: object, theme_name: str | None, tui_mode: str
) -> CwdChoice:
    from pi.app.modes.interactive import resolve_theme
    from pi.app.modes.interactive.context import InteractiveContext
    from pi.app.modes.interactive.own_screen_dialog import ask_on_own_screen
    from pi.tui.keybindings import load_keybindings
    from pi.tui.terminal import TtyTerminal

    term = TtyTerminal()
    theme = resolve_theme(
        InteractiveContext(agent_dir=agent_dir, cwd=Path(cwd), theme_name=theme_name), settings_theme, term
    )
    keybindings = load_keybindings(agent_dir / "keybindings.json")
    return await ask_on_own_screen(
        term,
        theme,
        tui_mode,
        lambda done: _dialog(session_cwd, cwd, theme, keybindings, done),
        CwdChoice.CANCEL,
    )


def ask_in_app(
    api: InteractiveApi,
    session_file: str | Path,
    session_dir: Path | None,
    on_path: Callable[[str], None],
    on_cancel: Callable[[], None],
) -> bool:
    """Before switching to `session_file` from inside the UI: ask when its cwd is gone.

    Returns False when no question is needed (the caller switches right away). Otherwise the dialog
    takes the editor's place and `on_path` gets the file to switch to (the session itself, or the
    fork), or `on_cancel` is called. `session_dir`: the folder the session is kept in (None: a file
    from elsewhere, whose fork goes to the current directory's own folder).
    """
    session_cwd = stored_cwd_if_missing(session_file)
    if session_cwd is None:
        return False
    cwd = str(api.session.cwd)

    def done(choice: CwdChoice) -> None:
        api.close_selector()
        if choice is CwdChoice.CANCEL:
            on_cancel()
        elif choice is CwdChoice.CONTINUE:
            on_path(str(session_file))
        else:
            try:
                path = fork_into(session_file, session_cwd, cwd, session_dir, api.agent_dir)
            except (OSError, ValueError) as exc:
                api.show_error(f"Failed to fork session: {exc}")
                return
            on_path(path)

    api.show_selector(_dialog(session_cwd, cwd, api.theme, api.keybindings, done))
    return True


__all__ = [
    "CwdChoice",
    "ask_in_app",
    "fork_into",
    "missing_cwd_options",
    "missing_cwd_title",
    "resolve_at_startup",
    "stored_cwd_if_missing",
]
