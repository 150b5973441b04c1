"""What the interactive mode needs besides the session: settings, paths, look and feel, startup flags.

The CLI builds one `InteractiveContext` from its arguments; tests build one directly (with a
`FakeTerminal`). Everything here is read once at startup; live changes (theme, TUI mode) go through
the app.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from msgspec import Struct, field

if TYPE_CHECKING:
    from pi.ai.types import ImageContent
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.terminal import Terminal
    from pi.tui.theme import Theme

TuiMode = Literal["fullscreen", "regular"]


class InteractiveContext(Struct):
    """Startup inputs of the interactive mode (see the module docstring)."""

    agent_dir: Path
    cwd: Path
    version: str = "0.0.0"
    tui_mode: TuiMode = "fullscreen"
    theme: Theme | None = None
    """None: chosen from the `theme` setting (`system` asks the terminal for its palette)."""
    theme_name: str | None = None
    """`--theme` for this run; None: the `theme` setting."""
    keybindings: KeybindingsManager | None = None
    """None: `<agent-dir>/keybindings.json` over the defaults."""
    verbose: bool = False
    initial_prompt: str | None = None
    initial_images: list[ImageContent] = field(default_factory=list)
    no_session: bool = False
    session_dir: str | None = None
    """A non-default `--session-dir`, repeated in the resume hint."""
    model_scope: list[str] = field(default_factory=list)
    """Model ids of `--models` / `enabledModels`, for the `Model scope:` line."""
    startup_warnings: list[str] = field(default_factory=list)
    """Warnings found before the UI started, shown in the chat (without the `Warning: ` prefix)."""
    startup_notices: list[str] = field(default_factory=list)
    """Dim lines shown after the resources and the resumed messages (the untrusted-project notice)."""
    terminal: Terminal | None = None
    """None: the process's own terminal (stdin/stdout)."""
    extra: dict[str, Any] = field(default_factory=dict)


__all__ = ["InteractiveContext", "TuiMode"]
