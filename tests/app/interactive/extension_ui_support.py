"""An InteractiveApp whose session loads inline extensions, on the frame-checked FakeTerminal."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from pi.ai.faux import FauxProvider
from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry
from pi.app.modes.interactive.app import InteractiveApp
from pi.app.modes.interactive.context import InteractiveContext
from pi.app.modes.interactive.extension_ui import TerminalExtensionUI
from pi.app.resources import Resources
from pi.app.sdk import CreateSessionOptions, create_agent_session
from pi.app.settings import SettingsManager
from pi.session.manager import SessionManager
from pi.tui.keybindings import KeybindingsManager
from pi.tui.theme import builtin_theme
from tests.app.interactive.core_support import FrameCheckedTerminal, Harness

ENTER = "\r"
ESC = "\x1b"
UP = "\x1b[A"
DOWN = "\x1b[B"
TAB = "\t"
CTRL_C = "\x03"
CTRL_D = "\x04"
CTRL_O = "\x0f"
EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "extensions"


def example(name: str) -> str:
    return str(EXAMPLES / name)


def make_extension_app(
    faux: FauxProvider,
    tmp_path: Path,
    factories: Sequence[Callable[..., Any] | dict[str, Any]] = (),
    *,
    columns: int = 100,
    rows: int = 30,
    mode: str = "fullscreen",
    tools: list[Any] | None = None,
    paths: Sequence[str] = (),
) -> Harness:
    """The app on a faux-model session that loads `factories` as inline extensions and `paths` as `-e`
    files (nothing is discovered)."""
    auth = AuthStorage.in_memory()
    auth.set_runtime_api_key(faux.model.provider, "test")
    session = create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=tmp_path / "agent",
            model=faux.model,
            thinking_level="off",
            tools=tools or [],
            settings=SettingsManager.in_memory({"retry": {"baseDelayMs": 1}}),
            auth=auth,
            model_registry=ModelRegistry(auth, None),
            resources=Resources(),
            session_manager=SessionManager.in_memory(str(tmp_path)),
            extension_factories=list(factories),
            extension_paths=list(paths),
            discover_extensions=False,
        )
    )
    terminal = FrameCheckedTerminal(columns, rows)
    context = InteractiveContext(
        agent_dir=tmp_path / "agent",
        cwd=tmp_path,
        version="1.2.3",
        tui_mode="regular" if mode == "regular" else "fullscreen",
        theme=builtin_theme("dark"),
        keybindings=KeybindingsManager(),
        terminal=terminal,
    )
    app = InteractiveApp(session, context, terminal, builtin_theme("dark"), KeybindingsManager())
    terminal.app = app
    return Harness(app, terminal, faux)


def ui_of(h: Harness) -> TerminalExtensionUI:
    """The `ctx.ui` the app attached (a fresh one when the session has no extensions)."""
    binding = h.app.extension_ui
    return binding.ui if binding is not None else TerminalExtensionUI(h.app)


async def settle(future: Awaitable[Any], timeout: float = 10.0) -> Any:
    return await asyncio.wait_for(future, timeout)


__all__ = [
    "CTRL_C",
    "CTRL_D",
    "CTRL_O",
    "DOWN",
    "ENTER",
    "ESC",
    "EXAMPLES",
    "TAB",
    "UP",
    "example",
    "make_extension_app",
    "settle",
    "ui_of",
]
