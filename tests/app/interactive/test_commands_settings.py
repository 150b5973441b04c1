"""/settings through the command: values saved as pi saves them, live effects on the session and the app."""

from __future__ import annotations

from pathlib import Path

from pi.app.modes.interactive.commands.registry import CommandRegistry
from pi.app.modes.interactive.pickers.settings_items import SETTING_DEFS
from pi.app.modes.interactive.pickers.settings_panel import SettingsPanel
from tests.app.interactive.test_commands_fakes import DOWN, ENTER, ESC, UP, FakeApi, make_env, strip


async def _settings(api: FakeApi) -> SettingsPanel:
    assert await CommandRegistry(api.session).execute(api, "/settings")
    assert isinstance(api.selector, SettingsPanel)
    return api.selector


def _search(api: FakeApi, text: str) -> None:
    """Type a search (no spaces: Space changes the selected item)."""
    for ch in text:
        api.press(ch)


def test_there_are_33_items_without_image_support() -> None:
    assert len([d for d in SETTING_DEFS if not d.images_only]) == 33
    assert SETTING_DEFS[0].label == "Auto-compact" and SETTING_DEFS[-1].label == "Theme"


async def test_auto_compact_is_saved_nested_and_applied_to_the_session(tmp_path: Path) -> None:
    env = make_env(tmp_path, {"compaction": {"keepRecentTokens": 10}})
    api = FakeApi(env)
    await _settings(api)
    api.press(ENTER)
    assert api.texts("status") == ["Auto-compact: false"]
    assert env.saved_settings()["compaction"] == {"keepRecentTokens": 10, "enabled": False}
    assert env.session.auto_compaction_enabled is False
    assert ("compaction.enabled", False) in api.applied


async def test_steering_mode_and_idle_timeout(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _settings(api)
    _search(api, "steering")
    api.press(ENTER)
    assert env.session.steering_mode == "all"
    assert env.saved_settings()["steeringMode"] == "all"
    api.press(ESC)
    await _settings(api)
    _search(api, "timeout")
    api.press(ENTER)
    assert api.texts("status")[-1] == "HTTP idle timeout: 10 min"
    assert env.saved_settings()["httpIdleTimeoutMs"] == 600000


async def test_quiet_startup_keeps_json_types(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _settings(api)
    _search(api, "quiet")
    api.press(ENTER)
    assert env.saved_settings()["quietStartup"] is True
    api.press(ENTER)
    assert env.saved_settings()["quietStartup"] == "header"
    api.press(ENTER)
    assert env.saved_settings()["quietStartup"] is False


async def test_per_model_thinking_level_submenu(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _settings(api)
    _search(api, "thinkinglevel")
    api.press(ENTER)
    assert "Default thinking level per model" in api.screen()
    _search(api, "claude")
    api.press(ENTER)
    assert "Thinking level for fakea/fake-claude" in api.screen()
    api.press(DOWN, DOWN, ENTER)  # off, minimal, low
    assert env.saved_settings()["modelThinkingLevels"] == {"fakea/fake-claude": "low"}
    assert api.texts("status")[-1] == "Thinking level for fakea/fake-claude: low"
    assert any(line.strip().endswith("1 override") for line in api.screen())
    api.press(ENTER)
    _search(api, "claude")
    api.press(ENTER, UP, ENTER)  # the last row: clear
    assert env.saved_settings()["modelThinkingLevels"] == {}


async def test_theme_submenu_previews_and_restores(tmp_path: Path) -> None:
    env = make_env(tmp_path, {"theme": "dark"})
    api = FakeApi(env)
    await _settings(api)
    _search(api, "theme")
    api.press(ENTER)
    api.press(DOWN)
    assert api.applied[-1] == ("theme", "light")
    api.press(ESC)
    assert api.applied[-1] == ("theme", "dark")
    assert env.saved_settings()["theme"] == "dark"
    api.press(ENTER, DOWN, ENTER)
    assert env.saved_settings()["theme"] == "light"
    assert api.texts("status")[-1] == "Theme: light"
    assert any(strip(line).endswith("light") for line in api.screen() if "Theme" in line)
