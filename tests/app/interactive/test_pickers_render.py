"""Pickers rendered at 110 columns against the reference captures' visible text."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from pi.app.modes.interactive.commands.registry import CommandRegistry
from pi.app.modes.interactive.pickers.fork_picker import ForkPicker
from pi.app.modes.interactive.pickers.model_selector import ModelSelector
from pi.app.modes.interactive.pickers.scoped_models import ScopedModelsPicker
from pi.app.modes.interactive.pickers.session_picker import SessionPicker
from pi.app.modes.interactive.pickers.settings_panel import SettingsPanel
from pi.app.modes.interactive.pickers.thinking_selector import ThinkingSelector
from pi.session.listing import SessionInfo
from pi.tui.keybindings import KeybindingsManager
from pi.tui.theme import Theme, builtin_theme
from tests.app.interactive.test_commands_fakes import ENTER, FakeApi, capture_lines, make_env, strip

KB = KeybindingsManager()


def _render(
    component: ModelSelector | ThinkingSelector | SettingsPanel | ScopedModelsPicker | ForkPicker | SessionPicker,
) -> list[str]:
    lines = component.render(110)
    assert all(len(strip(line)) <= 110 for line in lines)
    return [strip(line) for line in lines]


def _matches_capture(mine: list[str], capture: str, anchor: int = 2) -> None:
    """`mine` appears in the capture as consecutive lines, aligned on the line at `anchor`."""
    lines = capture_lines(capture)
    start = lines.index(mine[anchor]) - anchor
    assert lines[start : start + len(mine)] == mine


def _noop(*_args: object) -> None:
    return None


def test_model_selector_matches_capture_20(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    models = env.session.model_registry.available_models()
    selector = ModelSelector(
        models,
        Theme.plain(),
        KB,
        current=env.session.model,
        default=("fakea", "fake-claude"),
        on_select=_noop,
        on_cancel=_noop,
    )
    _matches_capture(_render(selector), "20-model-picker.txt")
    selector.list.search.handle_input("m")
    for ch in "od":
        selector.handle_input(ch)
    _matches_capture(_render(selector), "20b-model-picker-search.txt")


def test_thinking_selector_matches_capture_67() -> None:
    selector = ThinkingSelector(
        ["off", "minimal", "low", "medium", "high"],
        Theme.plain(),
        KB,
        current="minimal",
        default="medium",
        on_select=_noop,
        on_cancel=_noop,
    )
    _matches_capture(_render(selector), "67-thinking-selector.txt")


def test_settings_panel_matches_captures_48_to_50(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    applied: list[tuple[str, object, str]] = []
    panel = SettingsPanel(
        env.session.settings, Theme.plain(), KB, on_applied=lambda *a: applied.append(a), on_cancel=_noop
    )
    _matches_capture(_render(panel), "48-settings.txt", anchor=3)
    for ch in "tui":
        panel.handle_input(ch)
    _matches_capture(_render(panel), "49-settings-search-tui.txt", anchor=3)
    panel.handle_input(ENTER)
    _matches_capture(_render(panel), "50-settings-tui-mode-submenu.txt", anchor=3)
    assert applied == [("tuiMode", "regular", "TUI mode: regular")]
    assert env.saved_settings()["tuiMode"] == "regular"


def test_scoped_models_matches_capture_61(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    picker = ScopedModelsPicker(
        env.session.model_registry.available_models(),
        None,
        Theme.plain(),
        KB,
        on_change=_noop,
        on_save=_noop,
        on_cancel=_noop,
    )
    _matches_capture(_render(picker), "61-scoped-models.txt")


def test_fork_picker_matches_capture_68() -> None:
    texts = [
        "Give me an overview of this project",
        "Tell me a long story",
        "please be brief",
        "then list the files",
        "Another long one",
        "Third long one",
        "regular mode prompt",
    ]
    picker = ForkPicker(
        [{"entryId": str(i), "text": t} for i, t in enumerate(texts)],
        Theme.plain(),
        KB,
        on_select=_noop,
        on_cancel=_noop,
    )
    mine = _render(picker)
    _matches_capture(mine, "68-fork-selector.txt", anchor=1)
    assert "› regular mode prompt" in mine


NOW = datetime(2026, 12, 1, 8, 40, tzinfo=UTC)


def _info(
    path: str, first: str, count: int, minutes: int, *, name: str | None = None, parent: str | None = None
) -> SessionInfo:
    moment = NOW - timedelta(minutes=minutes, seconds=5)
    return SessionInfo(Path(path), path, "/w", name, parent, moment, moment, count, first, first)


def test_session_picker_matches_captures_70_and_71() -> None:
    sessions = [
        _info("/s/a.jsonl", "Tell me a long story", 22, 2, name="demo session"),
        _info("/s/b.jsonl", "Tell me a long story", 12, 3, parent="/s/a.jsonl"),
        _info("/s/c.jsonl", "Give me an overview of this project", 3, 5),
    ]
    picker = SessionPicker(
        lambda scope: sessions,
        Theme.plain(),
        KB,
        on_select=_noop,
        on_cancel=_noop,
        on_rename=_noop,
        on_delete=_noop,
        current_path="/s/b.jsonl",
        now=lambda: NOW,
    )
    mine = _render(picker)
    _matches_capture(mine, "70-resume-picker.txt")
    picker.handle_input("\x13")
    assert _render(picker)[2].endswith("Name: All  Sort: Recent")
    picker.handle_input("\t")
    assert _render(picker)[2].startswith("Resume Session (All)")


def test_startup_session_picker_has_no_rename_hint() -> None:
    sessions = [_info("/s/a.jsonl", "hello there", 3, 1)]
    picker = SessionPicker(lambda scope: sessions, Theme.plain(), KB, on_select=_noop, on_cancel=_noop, now=lambda: NOW)
    assert _render(picker)[4] == "ctrl+s sort · ctrl+n named · ctrl+d delete · ctrl+p path (off)"
    assert _render(picker)[4] in capture_lines("113-startup-resume-picker.txt")


async def test_pickers_render_in_colour_within_width(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env, theme=builtin_theme("dark"))
    registry = CommandRegistry(env.session)
    for command in ("/model", "/thinking", "/settings", "/scoped-models", "/login", "/resume", "/trust"):
        assert await registry.execute(api, command)
        assert api.selector is not None
        for width in (110, 60, 20):
            assert all(len(strip(line)) <= width for line in api.selector.render(width))
        api.close_selector()
