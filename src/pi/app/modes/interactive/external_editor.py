"""Ctrl+G: edit the prompt in an external editor (`externalEditor`, `$VISUAL`, `$EDITOR`, or nano).

pi gives the terminal to the editor (fullscreen leaves the alternate screen and prints the
document first), writes the prompt with paste markers expanded to `<tmp>/pi-editor-XXXXXX/prompt.md`,
waits for the editor, and on exit code 0 takes the file back without one trailing newline. The
whole UI waits meanwhile: the editor owns the keyboard.
"""

from __future__ import annotations

import contextlib
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi.app.modes.interactive.app import InteractiveApp


def editor_command(setting: object, environ: dict[str, str]) -> str:
    if isinstance(setting, str) and setting.strip():
        return setting.strip()
    return environ.get("VISUAL") or environ.get("EDITOR") or "nano"


def _release_terminal(app: InteractiveApp) -> list[str]:
    tui, term = app.tui, app.terminal
    if tui.mode == "fullscreen":
        width = term.columns
        lines = app.layout.document.render(width) + app.layout.dock.render(width)
        term.write(term.leave_fullscreen_sequence() + "\r\n".join(lines) + "\x1b[0m\r\n")
    else:
        term.write(tui.regular.end())
    return term.suspend_modes()


def _take_terminal(app: InteractiveApp, active: list[str]) -> None:
    tui, term = app.tui, app.terminal
    term.resume_modes(active)
    if tui.mode == "fullscreen":
        term.write(term.enter_fullscreen_sequence())
    else:
        term.write(term.cursor_sequence(False))
    tui.request_render(full=True)


def run_external_editor(app: InteractiveApp) -> None:
    """See the module docstring; failures leave the prompt as it was and say why in the chat."""
    command = editor_command(app.settings.get("externalEditor"), dict(app.terminal.environ))
    directory = Path(tempfile.mkdtemp(prefix="pi-editor-"))
    path = directory / "prompt.md"
    path.write_text(app.editor.get_expanded_text(), encoding="utf-8")
    active = _release_terminal(app)
    term = app.terminal
    term.write(f"Launching external editor: {command}\r\nPi will resume when the editor exits.\r\n")
    try:
        try:
            argv = [*shlex.split(command), str(path)]
            code = subprocess.run(argv, check=False).returncode
        except (OSError, ValueError):
            code = None
        _take_terminal(app, active)
        if code is None:
            app.show_error(f"Failed to launch external editor: {command}")
        elif code != 0:
            app.show_warning(f"External editor exited with code {code}; prompt unchanged")
        else:
            text = path.read_text(encoding="utf-8", errors="replace")
            app.set_editor_text(text[:-1] if text.endswith("\n") else text)
    finally:
        with contextlib.suppress(OSError):
            shutil.rmtree(directory)


__all__ = ["editor_command", "run_external_editor"]
