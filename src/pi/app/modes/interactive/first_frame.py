"""The interactive UI's first frame, drawn from what is cheap before the session is built.

Building the session (settings and credentials models, the model registry, tools, the agent and its
providers) costs most of a second of imports. The first frame only needs the header, an empty editor
and the footer's location and model id, which come from the version, `settings.json`, the `--model`
flags, the working directory and `.git/HEAD`. So `pi` in a terminal draws that frame at once, on the
alternate screen with raw input (keys typed meanwhile wait in the terminal's input queue and reach the
editor when the UI starts), and `take_over()` hands the same terminal to the interactive app, whose
first render replaces the frame with the full one (token totals, context gauge, thinking level).

Anything written to stderr in between (config warnings) is held and printed on the normal screen at the
hand-over, where it was printed before. `close()` gives the terminal back untouched on an error exit.
The frame is skipped whenever the cheap facts could differ from the session's: the regular renderer,
project settings that trust has not been decided for, a theme that is not built in, `quietStartup`.
"""

from __future__ import annotations

import atexit
import io
import json
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from pi.app.args import Args
    from pi.tui.terminal import TtyTerminal
    from pi.tui.theme import ColorMode, Theme


def _read_settings(path: Path) -> dict[str, Any] | None:
    """The top-level settings of `path`; {} when missing, None when unreadable (the session will say why)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def cheap_settings(args: Args, cwd: Path, agent_dir: Path) -> dict[str, Any] | None:
    """Global settings merged with trusted project settings; None when they cannot be known cheaply."""
    settings = _read_settings(agent_dir / "settings.json")
    project = cwd / ".pi" / "settings.json"
    if settings is None or (project.exists() and args.approve is not True):
        return None
    if project.exists():
        local = _read_settings(project)
        if local is None:
            return None
        settings = {**settings, **local}
    return settings


def model_label(args: Args, settings: dict[str, Any]) -> str | None:
    """The model id the footer will show, when the flags or settings name it exactly (no pattern to resolve)."""
    if args.model:
        if not args.provider or any(ch in args.model for ch in "*?[:"):
            return None
        return args.model
    if args.provider or args.models is not None or settings.get("enabledModels"):
        return None
    model = settings.get("defaultModel")
    return model if isinstance(model, str) and model and settings.get("defaultProvider") else None


def _theme(args: Args, settings: dict[str, Any], environ: dict[str, str]) -> Theme | None:
    from pi.tui.theme import builtin_theme
    from pi.tui.theme_system import system_theme

    name = args.use_theme or settings.get("theme") or "system"
    truecolor = environ.get("COLORTERM") in ("truecolor", "24bit") or environ.get("PI_TRUE_COLOR") == "1"
    mode: ColorMode = "truecolor" if truecolor else "256"
    if name == "system":
        return system_theme(None, mode, environ)
    if name == "dark" or name == "light":
        return builtin_theme("dark" if name == "dark" else "light", mode)
    return None


class FirstFrame:
    """The terminal showing the first frame, and the stderr text held until the app takes over."""

    def __init__(self, terminal: TtyTerminal) -> None:
        self.terminal = terminal
        self.held = io.StringIO()
        self.released = False
        self._stderr: TextIO = sys.stderr
        sys.stderr = self.held
        # The CLI's log handler writes warnings to stderr too: hold them as well.
        self._handlers = [
            h
            for h in logging.getLogger("pi").handlers
            if isinstance(h, logging.StreamHandler) and h.stream is self._stderr
        ]
        for handler in self._handlers:
            handler.setStream(self.held)

    def _release_stderr(self) -> str:
        """Stop holding; the held text, once (empty on a second call)."""
        if self.released:
            return ""
        self.released = True
        if sys.stderr is self.held:
            sys.stderr = self._stderr
        for handler in self._handlers:
            handler.setStream(self._stderr)
        self._handlers = []
        return self.held.getvalue()

    def take_over(self) -> TtyTerminal:
        """The terminal for the interactive app; held warnings go to the normal screen first."""
        held = self._release_stderr()
        if held:
            term = self.terminal
            term.write(term.leave_fullscreen_sequence())
            sys.stderr.write(held)
            sys.stderr.flush()
        return self.terminal

    def close(self) -> None:
        """Give the terminal back as it was found (an exit before the app started) and print what was held."""
        held = self._release_stderr()
        self.terminal.restore()
        if held:
            sys.stderr.write(held)
            sys.stderr.flush()


def show_first_frame(args: Args, cwd: Path, agent_dir: Path, version: str) -> FirstFrame | None:
    """Draw the first frame on the process's terminal, or return None when it cannot be drawn faithfully."""
    settings = cheap_settings(args, cwd, agent_dir)
    if settings is None or settings.get("quietStartup") is True:
        return None
    if (args.tui_mode or settings.get("tuiMode") or "fullscreen") != "fullscreen":
        return None
    model = model_label(args, settings)
    environ = dict(os.environ)
    theme = _theme(args, settings, environ)
    if model is None or theme is None:
        return None
    from pi.tui.terminal import SYNC_BEGIN, SYNC_END, TtyTerminal

    terminal = TtyTerminal()
    atexit.register(terminal.restore)  # idempotent: nothing left on however the process ends
    terminal.set_raw(True)
    terminal.modes.setdefault("raw", "")
    rows = _frame_rows(theme, terminal.columns, terminal.rows, agent_dir, version, cwd, model, settings)
    body = "".join(f"\x1b[{index + 1};1H{line}" for index, line in enumerate(rows) if line)
    terminal.write(terminal.enter_fullscreen_sequence(mouse=False) + SYNC_BEGIN + body + SYNC_END)
    return FirstFrame(terminal)


def _frame_rows(
    theme: Theme,
    width: int,
    height: int,
    agent_dir: Path,
    version: str,
    cwd: Path,
    model: str,
    settings: dict[str, Any],
) -> list[str]:
    """Header at the top; the empty editor and the footer's two lines at the bottom."""
    from pi.app.modes.interactive.footer import git_branch
    from pi.app.modes.interactive.header import Header
    from pi.tui.component import CURSOR_MARKER
    from pi.tui.editor import Editor
    from pi.tui.keybindings import load_keybindings
    from pi.tui.text_width import truncate_to_width, visible_width

    keybindings = load_keybindings(agent_dir / "keybindings.json")
    top = Header(theme, keybindings, version).render(width)
    padding = settings.get("editorPaddingX")
    pad = min(3, max(0, padding)) if isinstance(padding, int) and not isinstance(padding, bool) else 0
    editor = Editor(theme, keybindings, padding_x=pad, terminal_rows=height).render(width)
    editor = [line.replace(CURSOR_MARKER, "") for line in editor]  # the app places the cursor itself
    home = os.path.expanduser("~")
    location = str(cwd)
    if home and (location == home or location.startswith(home + "/")):
        location = "~" + location[len(home) :]
    branch = git_branch(cwd)
    if branch:
        location += f" ({branch})"
    right = truncate_to_width(model, max(1, width - 2))
    footer = [theme.dim(truncate_to_width(location, width)), theme.dim(" " * (width - visible_width(right)) + right)]
    bottom = [*editor, *footer]
    rows = [*top[: max(0, height - len(bottom))]]
    rows += [""] * (height - len(rows) - len(bottom))
    return [*rows, *bottom][-height:]


__all__ = ["FirstFrame", "cheap_settings", "model_label", "show_first_frame"]
