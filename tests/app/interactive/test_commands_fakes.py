"""A recording InteractiveApi over a real AgentSession on the faux model, for the command and picker tests.

The session has two providers from models.json (`fake/fake-model`, `fakea/fake-claude` with
reasoning) served by faux providers, and settings.json on disk, so tests can check what is saved.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pi.ai.faux import FauxProvider, register_faux_provider
from pi.app.agent_session import AgentSession
from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry
from pi.app.modes.interactive.commands.api import ScreenSnapshot
from pi.app.resources import Resources
from pi.app.sdk import CreateSessionOptions, create_agent_session
from pi.app.settings import SettingsManager
from pi.session.manager import SessionManager
from pi.tui.component import Component, Focusable
from pi.tui.keybindings import KeybindingsManager
from pi.tui.theme import Theme

ENTER, ESC, CTRL_S, DOWN, UP, TAB = "\r", "\x1b", "\x13", "\x1b[B", "\x1b[A", "\t"


@dataclass
class Env:
    session: AgentSession
    plain: FauxProvider
    reasoning: FauxProvider
    agent_dir: Path
    cwd: Path

    @property
    def settings_file(self) -> Path:
        return self.agent_dir / "settings.json"

    def saved_settings(self) -> dict[str, Any]:
        return json.loads(self.settings_file.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def make_env(
    tmp_path: Path, settings: dict[str, Any] | None = None, resources: Resources | None = None, persist: bool = False
) -> Env:
    plain = register_faux_provider(provider="fake", models=["fake-model"])
    reasoning = register_faux_provider(provider="fakea", models=["fake-claude"])
    agent_dir, cwd = tmp_path / "agent", tmp_path / "work"
    agent_dir.mkdir(parents=True, exist_ok=True)
    cwd.mkdir(parents=True, exist_ok=True)
    models = {
        "providers": {
            "fake": {
                "baseUrl": "http://127.0.0.1:9",
                "api": plain.api,
                "apiKey": "k",
                "models": [{"id": "fake-model"}],
            },
            "fakea": {
                "baseUrl": "http://127.0.0.1:9",
                "api": reasoning.api,
                "apiKey": "k",
                "models": [{"id": "fake-claude", "reasoning": True}],
            },
        }
    }
    (agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
    base = {"defaultProvider": "fakea", "defaultModel": "fake-claude", **(settings or {})}
    (agent_dir / "settings.json").write_text(json.dumps(base, indent=2) + "\n", encoding="utf-8")
    auth = AuthStorage(agent_dir / "auth.json")
    registry = ModelRegistry(auth, agent_dir / "models.json")
    model = registry.find("fakea", "fake-claude")
    assert model is not None, registry.errors
    manager = SessionManager.create(str(cwd), agent_dir=agent_dir) if persist else None
    session = create_agent_session(
        CreateSessionOptions(
            cwd=cwd,
            agent_dir=agent_dir,
            model=model,
            thinking_level="medium",
            tools=[],
            settings=SettingsManager.create(cwd, agent_dir),
            auth=auth,
            model_registry=registry,
            resources=resources or Resources(),
            session_manager=manager or SessionManager.in_memory(str(cwd)),
        )
    )
    return Env(session, plain, reasoning, agent_dir, cwd)


@dataclass
class FakeApi:
    """Records what commands ask of the app."""

    env: Env
    theme: Theme = field(default_factory=Theme.plain)
    keybindings: KeybindingsManager = field(default_factory=KeybindingsManager)
    events: list[tuple[str, str]] = field(default_factory=list)
    notices: list[Component] = field(default_factory=list)
    selector: Focusable | None = None
    editor_text: str = ""
    clipboard: list[str] = field(default_factory=list)
    clipboard_error: OSError | None = None
    applied: list[tuple[str, Any]] = field(default_factory=list)
    spawned: list[Coroutine[Any, Any, None]] = field(default_factory=list)
    rebuilt: int = 0
    reloads: int = 0
    selector_during_reload: Focusable | None = None
    reload_error: Exception | None = None
    quit_called: bool = False
    appearance: Literal["light", "dark"] = "dark"
    snapshot: ScreenSnapshot = field(default_factory=lambda: ScreenSnapshot(110, 35, ["line one", "wide ✓"]))

    @property
    def session(self) -> AgentSession:
        return self.env.session

    @property
    def settings(self) -> SettingsManager:
        return self.env.session.settings

    @property
    def agent_dir(self) -> Path:
        return self.env.agent_dir

    def show_status(self, text: str) -> None:
        self.events.append(("status", text))

    def show_warning(self, text: str) -> None:
        self.events.append(("warning", text))

    def show_error(self, text: str) -> None:
        self.events.append(("error", text))

    def show_notice(self, component: Component) -> None:
        self.notices.append(component)
        self.events.append(("notice", "\n".join(component.render(110))))

    def rebuild_chat(self) -> None:
        self.rebuilt += 1

    def show_selector(self, component: Focusable) -> None:
        self.selector = component

    def close_selector(self) -> None:
        self.selector = None

    def set_editor_text(self, text: str) -> None:
        self.editor_text = text

    def get_editor_text(self) -> str:
        return self.editor_text

    def request_render(self) -> None:
        return None

    def quit(self) -> None:
        self.quit_called = True

    def set_tools_expanded(self, expanded: bool) -> None:
        self.events.append(("tools_expanded", str(expanded)))

    def copy_to_clipboard(self, text: str) -> None:
        if self.clipboard_error is not None:
            raise self.clipboard_error
        self.clipboard.append(text)

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        self.spawned.append(coro)

    def set_working(self, label: str | None) -> None:
        self.events.append(("working", str(label)))

    async def run_spawned(self) -> None:
        while self.spawned:
            await asyncio.wait_for(self.spawned.pop(0), 30)

    async def reload_resources(self) -> None:
        self.reloads += 1
        self.selector_during_reload = self.selector
        if self.reload_error is not None:
            raise self.reload_error

    def apply_setting(self, key: str, value: Any) -> None:
        self.applied.append((key, value))

    def screen_snapshot(self) -> ScreenSnapshot:
        return self.snapshot

    def terminal_appearance(self) -> Literal["light", "dark"]:
        return self.appearance

    # -- helpers for tests ---------------------------------------------------------------------
    def press(self, *keys: str) -> None:
        for key in keys:
            assert self.selector is not None, "no selector is open"
            self.selector.handle_input(key)

    def type(self, text: str) -> None:
        self.press(*text)

    def screen(self, width: int = 110) -> list[str]:
        assert self.selector is not None
        return [strip(line) for line in self.selector.render(width)]

    def texts(self, kind: str) -> list[str]:
        return [text for k, text in self.events if k == kind]


def strip(line: str) -> str:
    import re

    return re.sub(r"\x1b\[[0-9;]*m|\x1b_[^\x07]*\x07", "", line).rstrip()


def capture_lines(name: str) -> list[str]:
    path = Path("/work/shared/spec/tui-captures") / name
    return [line.rstrip() for line in path.read_text(encoding="utf-8").splitlines()]


__all__ = ["CTRL_S", "DOWN", "ENTER", "ESC", "TAB", "UP", "Env", "FakeApi", "capture_lines", "make_env", "strip"]
