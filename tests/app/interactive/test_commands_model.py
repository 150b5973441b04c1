"""/model, /thinking and /scoped-models against a real session: messages, session state, settings.json."""

from __future__ import annotations

from pathlib import Path

from pi.app.modes.interactive.commands.registry import CommandRegistry
from pi.app.modes.interactive.pickers.model_selector import ModelSelector
from tests.app.interactive.test_commands_fakes import CTRL_S, DOWN, ENTER, ESC, FakeApi, make_env


async def _run(api: FakeApi, text: str) -> None:
    assert await CommandRegistry(api.session).execute(api, text)


async def test_model_selector_enter_switches_the_session_only(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    before = env.settings_file.read_text()
    await _run(api, "/model")
    assert isinstance(api.selector, ModelSelector)
    api.type("mod")
    api.press(ENTER)
    assert api.selector is None
    assert api.texts("status") == ["Model: fake-model"]
    assert env.session.model is not None and env.session.model.id == "fake-model"
    assert env.settings_file.read_text() == before


async def test_model_selector_ctrl_s_also_saves_the_default(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _run(api, "/model")
    api.press(DOWN, CTRL_S)
    assert api.texts("status") == ["Model: fake-model", "Default model: fake/fake-model"]
    saved = env.saved_settings()
    assert (saved["defaultProvider"], saved["defaultModel"]) == ("fake", "fake-model")


async def test_model_with_exact_reference_switches_without_selector(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _run(api, "/model fake/fake-model")
    assert api.selector is None and api.texts("status") == ["Model: fake-model"]
    await _run(api, "/model fake-claude")
    assert api.texts("status")[-1] == "Model: fake-claude"


async def test_model_with_partial_reference_opens_selector_with_search(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _run(api, "/model claude")
    assert isinstance(api.selector, ModelSelector)
    assert "> claude" in api.screen()
    api.press(ESC)
    assert api.selector is None and api.events == []
    assert env.session.model is not None and env.session.model.id == "fake-claude"


async def test_thinking_with_level_and_unknown_level(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _run(api, "/thinking high")
    assert api.texts("status") == ["Thinking level: high"]
    assert env.session.thinking_level == "high"
    await _run(api, "/thinking bogus")
    levels = ", ".join(env.session.available_thinking_levels())
    assert api.texts("error") == [f'Unknown thinking level "bogus". Available levels: {levels}.']
    await _run(api, "/model fake/fake-model")
    await _run(api, "/thinking high")
    assert api.texts("error")[-1] == 'Unknown thinking level "high". Available levels: off.'


async def test_thinking_selector_enter_and_ctrl_s(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    before = env.settings_file.read_text()
    await _run(api, "/thinking")
    api.press(DOWN, ENTER)
    assert api.texts("status") == ["Thinking level: high"]
    assert env.settings_file.read_text() == before
    await _run(api, "/thinking")
    api.press("\x1b[A", "\x1b[A", CTRL_S)
    assert api.texts("status")[-2:] == ["Thinking level: low", "Default thinking level: low"]
    assert env.saved_settings()["defaultThinkingLevel"] == "low"


async def test_scoped_models_is_session_only_until_ctrl_s(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _run(api, "/scoped-models")
    assert "  Enter toggle · Ctrl+A all · Ctrl+X clear" in "\n".join(api.screen())
    api.press(ENTER)  # the first row (fake-model) is turned off
    assert [m.id for m, _ in env.session.scoped_models] == ["fake-claude"]
    assert "enabledModels" not in env.saved_settings()
    assert env.session.cycle_model() is None  # one model in scope: nothing to cycle to
    api.press(ENTER, CTRL_S)  # back on, then save: all enabled
    assert api.selector is None
    assert env.saved_settings()["enabledModels"] is None
    await _run(api, "/scoped-models")
    api.press("\x18", ENTER, CTRL_S)  # Ctrl+X clears all, then enable the first row only
    assert env.saved_settings()["enabledModels"] == ["fake/fake-model"]
