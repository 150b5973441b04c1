"""/login → Sign in with an API key: pi's provider names and order, and where each key comes from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi.app.modes.interactive.commands.account_commands import login_options, show_provider_picker
from tests.app.interactive.test_commands_fakes import FakeApi, make_env

KEY_VARIABLES = ("ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN", "MISTRAL_API_KEY", "ZAI_API_KEY")


@pytest.fixture(autouse=True)
def _no_keys_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def _selected_row(api: FakeApi, query: str) -> str:
    """The row the search `query` puts the cursor on."""
    show_provider_picker(api, "api_key", query)
    return next(line.rstrip() for line in api.screen() if line.startswith(" → "))


def test_display_names_featured_first_then_by_name_ignoring_case(tmp_path: Path) -> None:
    api = FakeApi(make_env(tmp_path))
    names = [o.name for o in login_options(api, "api_key")]
    assert names[:2] == ["Radius", "OpenRouter"]
    assert names[2:] == sorted(names[2:], key=str.casefold)
    for name in ("Ant Ling", "Moonshot AI", "OpenCode Zen", "Z.AI", "Kimi For Coding", "llama.cpp"):
        assert name in names
    assert "moonshotai" not in names and "OpenAI Codex" not in names  # Codex signs in with an account only
    assert names.index("Kimi For Coding") < names.index("llama.cpp") < names.index("Meta")

    show_provider_picker(api, "api_key")
    rows = [line.rstrip() for line in api.screen() if "configured" in line]
    assert rows[:4] == [
        " → Radius ✦ • not configured",
        "   OpenRouter ✦ • not configured",
        "   Ant Ling • not configured",
        "   Anthropic • not configured",
    ]


def test_status_says_where_the_key_comes_from(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = make_env(tmp_path)
    models_path = env.agent_dir / "models.json"
    models = json.loads(models_path.read_text())
    models["providers"].update(
        {
            "xai": {"apiKey": "xai-literal"},
            "groq": {"apiKey": "!printf groq"},
            "deepseek": {"apiKey": "${DS_TOKEN}"},
            "zai": {"apiKey": "$ZAI_TOKEN_UNSET"},
        }
    )
    models_path.write_text(json.dumps(models))
    env.session.model_registry.reload()  # as a start or /reload reads it
    monkeypatch.setenv("MISTRAL_API_KEY", "m")
    monkeypatch.setenv("DS_TOKEN", "d")
    monkeypatch.delenv("ZAI_TOKEN_UNSET", raising=False)
    auth = env.session.model_registry.auth
    auth.set_api_key("openai", "sk-stored")
    auth.set_runtime_api_key("cerebras", "sk-flag")
    auth.set_oauth("openrouter", {"access": "a", "refresh": "r", "expires": 1})
    api = FakeApi(env)

    assert _selected_row(api, "mistral") == " → Mistral ✓ env: MISTRAL_API_KEY"
    assert _selected_row(api, "xai") == " → xAI ✓ models_json_key"
    assert _selected_row(api, "groq") == " → Groq ✓ models_json_command"
    assert _selected_row(api, "deepseek") == " → DeepSeek ✓ env: DS_TOKEN"
    assert _selected_row(api, "Z.AI") == " → Z.AI • not configured"  # its variable is not set
    assert _selected_row(api, "openai") == " → OpenAI ✓ stored"
    assert _selected_row(api, "cerebras") == " → Cerebras ✓ runtime"
    assert _selected_row(api, "openrouter") == " → OpenRouter ✦ • account configured"
