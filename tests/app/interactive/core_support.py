"""An InteractiveApp on a FakeTerminal and the faux model, with a check run on every frame.

`FrameCheckedTerminal` re-renders the whole component tree on a fresh terminal after each frame the
app writes and compares the two screens (spinner glyphs aside): a differential frame must leave
the screen exactly as a full redraw would. It also records any line wider than the terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pi.ai.faux import FauxProvider
from pi.app.modes.interactive.app import InteractiveApp
from pi.app.modes.interactive.context import InteractiveContext
from pi.tui.fake_terminal import FakeTerminal
from pi.tui.keybindings import KeybindingsManager
from pi.tui.terminal import SYNC_END
from pi.tui.text_width import visible_width
from pi.tui.theme import builtin_theme
from pi.tui.tui import TUI
from tests.support.faux_session import make_faux_session

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TIMEOUT = 10.0


def _normalize(rows: list[str]) -> list[str]:
    table = str.maketrans(SPINNER, SPINNER[0] * len(SPINNER))
    return [row.translate(table) for row in rows]


class FrameCheckedTerminal(FakeTerminal):
    """See the module docstring; `mismatches` and `too_wide` must stay empty."""

    def __init__(self, columns: int = 100, rows: int = 30) -> None:
        super().__init__(columns, rows, environ={"TERM": "xterm-256color"})
        self.app: InteractiveApp | None = None
        self.frames_checked = 0
        self.mismatches: list[tuple[list[str], list[str]]] = []
        self.too_wide: list[str] = []

    def write(self, data: str) -> None:
        super().write(data)
        app = self.app
        if app is None or not data.endswith(SYNC_END) or not app.tui.running:
            return
        width = self.columns
        lines = app.layout.document.render(width) + app.layout.dock.render(width)
        self.too_wide.extend(line for line in lines if visible_width(line) > width)
        shadow = FakeTerminal(width, self.rows, environ=dict(self.environ))
        fresh = TUI(shadow, app.layout.document, app.layout.dock, mode=app.tui.mode, theme=app.theme)
        fresh.set_min_rows(app.slot)
        fresh.scroll = app.tui.scroll
        fresh.start()
        fresh.running = False
        if app.tui.mode == "fullscreen":
            got, want = _normalize(self.display()), _normalize(shadow.display())
        else:
            got = _tail(_normalize(self.scrollback() + self.display()))
            want = _tail(_normalize(shadow.scrollback() + shadow.display()))
        self.frames_checked += 1
        if got != want:
            self.mismatches.append((got, want))


def _tail(rows: list[str]) -> list[str]:
    """The rows without trailing blank ones."""
    while rows and not rows[-1]:
        rows.pop()
    return rows


class Harness:
    """The app running as a task; `keys()` feeds input, `wait()` polls the screen."""

    def __init__(self, app: InteractiveApp, terminal: FrameCheckedTerminal, faux: FauxProvider) -> None:
        self.app = app
        self.terminal = terminal
        self.faux = faux
        self.task: asyncio.Task[int] | None = None

    async def start(self) -> None:
        self.task = asyncio.ensure_future(self.app.run())
        await self.wait(lambda s: "───" in s)

    def keys(self, *sequences: str) -> None:
        for seq in sequences:
            self.terminal.feed_bytes(seq)
        self.terminal.flush_input()

    def type(self, text: str) -> None:
        for ch in text:
            self.terminal.feed_bytes(ch)

    def screen(self) -> str:
        return "\n".join(self.terminal.display())

    async def wait(self, check: str | Callable[[str], bool], timeout: float = TIMEOUT) -> str:
        predicate = (lambda s: check in s) if isinstance(check, str) else check
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            text = self.screen()
            if predicate(text):
                return text
            if loop.time() > deadline:
                raise AssertionError(f"timed out waiting for {check!r}; screen:\n{text}")
            if self.task is not None and self.task.done():
                raise AssertionError(f"the app ended early; screen:\n{text}")
            await asyncio.sleep(0.01)

    async def finished(self) -> int:
        assert self.task is not None
        return await asyncio.wait_for(self.task, TIMEOUT)

    def check_frames(self) -> None:
        assert self.terminal.frames_checked > 0
        assert not self.terminal.too_wide, self.terminal.too_wide[:3]
        if self.terminal.mismatches:
            got, want = self.terminal.mismatches[0]
            diff = [f"{i}: {g!r} != {w!r}" for i, (g, w) in enumerate(zip(got, want, strict=False)) if g != w]
            raise AssertionError("frame differs from a full redraw:\n" + "\n".join(diff[:10]))


@contextlib.contextmanager
def faux_provider(tokens_per_second: float | None = None) -> Iterator[FauxProvider]:
    faux = FauxProvider(tokens_per_second=tokens_per_second).register()
    try:
        yield faux
    finally:
        faux.unregister()


def _modelless_session(tmp_path: Path) -> Any:
    """A session with no model at all: no key, no models.json."""
    from pi.app.auth import AuthStorage
    from pi.app.model_registry import ModelRegistry
    from pi.app.resources import Resources
    from pi.app.sdk import CreateSessionOptions, create_agent_session
    from pi.app.settings import SettingsManager
    from pi.session.manager import SessionManager

    auth = AuthStorage.in_memory()
    return create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=tmp_path / "agent",
            tools=[],
            settings=SettingsManager.in_memory({}),
            auth=auth,
            model_registry=ModelRegistry(auth, None),
            resources=Resources(),
            session_manager=SessionManager.in_memory(str(tmp_path)),
        )
    )


def make_app(
    faux: FauxProvider,
    tmp_path: Path,
    *,
    columns: int = 100,
    rows: int = 30,
    mode: str = "fullscreen",
    settings: dict[str, Any] | None = None,
    no_model: bool = False,
) -> Harness:
    session = _modelless_session(tmp_path) if no_model else make_faux_session(faux, tmp_path, settings)
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


__all__ = ["FrameCheckedTerminal", "Harness", "faux_provider", "make_app"]
