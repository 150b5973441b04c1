"""What the terminal hears about pi's work besides the screen (tui.md §12.10).

OSC 9;4 progress (indeterminate while the agent works, cleared afterwards) only with the
`terminal.showTerminalProgress` setting; OSC 7501 program status (`working`, then `done` or `error`)
only when the terminal answered the status query or `PI_PROGRAM_STATUS=1` forces it (`0` turns it
off, and then the query is not even sent).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi.app.modes.interactive.app import InteractiveApp


def prepare_status_query(app: InteractiveApp) -> None:
    """Ask the terminal whether it takes program status (before the TUI starts)."""
    app.terminal.query_program_status = app.terminal.environ.get("PI_PROGRAM_STATUS") != "0"


def _progress_enabled(app: InteractiveApp) -> bool:
    terminal = app.settings.get("terminal")
    return isinstance(terminal, dict) and terminal.get("showTerminalProgress") is True


def report_working(app: InteractiveApp, working: bool, *, error: bool = False) -> None:
    """The agent started (True) or settled (False; `error` when its last reply failed)."""
    term = app.terminal
    if _progress_enabled(app):
        term.set_progress(working)
    term.set_program_status("working" if working else "error" if error else "done")


__all__ = ["prepare_status_query", "report_working"]
