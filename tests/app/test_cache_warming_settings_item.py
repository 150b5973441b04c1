"""/settings "Cache warming": cycles off/streaming/idle, saves to the global file, applies at once."""

from __future__ import annotations

from pathlib import Path

from pi.app.modes.interactive.commands.registry import CommandRegistry
from pi.app.modes.interactive.pickers.settings_panel import SettingsPanel
from tests.app.interactive.test_commands_fakes import ENTER, FakeApi, make_env


async def test_the_cache_warming_item_cycles_and_the_session_follows(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    assert env.session.cache_warming.mode() == "idle"
    assert await CommandRegistry(api.session).execute(api, "/settings")
    assert isinstance(api.selector, SettingsPanel)
    for ch in "warming":
        api.press(ch)
    api.press(ENTER)
    assert api.texts("status")[-1] == "Cache warming: off"
    assert env.saved_settings()["cacheWarming"] == "off"
    assert env.session.cache_warming.mode() == "off"
    api.press(ENTER)
    assert api.texts("status")[-1] == "Cache warming: streaming"
    assert env.session.cache_warming.mode() == "streaming"
