"""The /login and /logout provider lists: pi's short provider names, one order over every option,
the rows and frame pi draws, and where each key comes from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi.app.modes.interactive.commands.account_commands import cmd_logout, login_options, show_provider_picker
from pi.app.modes.interactive.pickers.login_providers import (
    LOGIN_TITLE,
    LOGOUT_TITLE,
    LoginProviderPicker,
    ProviderOption,
)
from pi.app.oauth.provider_names import display_name
from pi.tui.keybindings import KeybindingsManager
from pi.tui.theme import builtin_theme
from tests.app.interactive.test_commands_fakes import FakeApi, make_env, strip
from tests.app.oauth.test_login_terminal import PI_ACCOUNT_PICKER

PI_ACCOUNT_LIST = [
    "Radius",
    "OpenRouter",
    "Anthropic",
    "GitHub Copilot",
    "Kimi For Coding",
    "Meta",
    "OpenAI",
    "OpenAI Codex",
    "xAI",
]
"""pi 1.6.0's /login → "Sign in with an account" list, top to bottom."""
THEME = builtin_theme("dark")

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


def test_account_logins_go_by_the_providers_short_name_in_pis_order(tmp_path: Path) -> None:
    api = FakeApi(make_env(tmp_path))
    options = login_options(api, "oauth")
    assert [o.name for o in options] == PI_ACCOUNT_LIST
    assert [o.id for o in options if o.featured] == ["radius", "openrouter"]
    anthropic = next(o for o in options if o.id == "anthropic")
    assert (anthropic.method_name, anthropic.subscription) == ("Anthropic (Claude Pro/Max)", True)
    assert all(o.name == display_name(o.id) for o in options)

    show_provider_picker(api, "oauth")
    screen = api.screen(120)
    # From the search prompt (at the first column, as pi draws it) down: pi 1.6.0's own screen.
    assert screen[4:16] == PI_ACCOUNT_PICKER[2:]
    assert screen[16:] == ["─" * 120]  # no key-hint line


def test_the_whole_list_is_sorted_once_account_above_api_key(tmp_path: Path) -> None:
    api = FakeApi(make_env(tmp_path))
    options = login_options(api)
    assert [(o.name, o.auth_type) for o in options[:4]] == [
        ("Radius", "oauth"),
        ("Radius", "api_key"),
        ("OpenRouter", "oauth"),
        ("OpenRouter", "api_key"),
    ]
    rest = [o.name for o in options[4:]]
    assert rest == sorted(rest, key=str.casefold)
    for provider in ("anthropic", "openai", "kimi-coding", "meta", "xai"):
        kinds = [o.auth_type for o in options if o.id == provider]
        assert kinds == ["oauth", "api_key"], provider
        first = next(i for i, o in enumerate(options) if o.id == provider)
        assert options[first + 1].id == provider  # the two options of a provider sit together
    assert [o.auth_type for o in options if o.id == "openai-codex"] == ["oauth"]  # an account login only
    assert {o.id for o in options if o.featured} == {"radius", "openrouter"}


def test_a_mixed_list_labels_each_kind_and_the_search_knows_the_method_name(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    env.session.model_registry.auth.set_oauth("anthropic", {"access": "a", "refresh": "r", "expires": 1})
    api = FakeApi(env, theme=THEME)
    show_provider_picker(api, None, "claude")
    rows = [line for line in api.screen() if "[" in line]
    assert rows[0] == " → Anthropic [subscription] ✓ stored"
    show_provider_picker(api, None, "anthropic")
    rows = [line for line in api.screen() if "[" in line]
    assert {row[3:] for row in rows[:2]} == {
        "Anthropic [subscription] ✓ stored",
        "Anthropic [API key] • subscription configured",
    }
    raw = api.selector.render(110) if api.selector is not None else []
    assert any(THEME.fg("muted", " [API key]") in line for line in raw)
    assert any(THEME.fg("muted", " [subscription]") in line for line in raw)


def _option(provider: str, auth_type: str = "api_key") -> ProviderOption:
    return ProviderOption(provider, display_name(provider), "api_key" if auth_type == "api_key" else "oauth")


def _picker(title: str, options: list[ProviderOption], query: str = "") -> LoginProviderPicker:
    return LoginProviderPicker(
        title, options, THEME, KeybindingsManager(), on_select=lambda o: None, on_cancel=lambda: None, query=query
    )


def test_picker_rows_scroll_info_and_frame() -> None:
    ids = ["radius", "anthropic", "deepseek", "google", "groq", "mistral", "openai", "xai", "zai"]
    options = [_option("openrouter", "oauth")] + [_option(i) for i in ids]
    picker = _picker(LOGIN_TITLE, options)
    raw = picker.render(60)
    lines = [strip(line) for line in raw]
    assert lines[:6] == ["─" * 60, "", " Select provider to configure:", "", ">", ""]
    assert lines[6] == " → OpenRouter [account] • not configured"
    assert lines[7] == "   Radius [API key] • not configured"
    assert lines[14] == "   (1/10)"
    assert raw[14] == " " + THEME.fg("muted", "  (1/10)")
    assert lines[15:] == ["", "─" * 60]
    assert not any("navigate" in line or "cancel" in line for line in lines)
    for _ in range(9):
        picker.handle_input("\x1b[B")
    lines = [strip(line) for line in picker.render(60)]
    assert lines[13] == " → Z.AI [API key] • not configured" and lines[14] == "   (10/10)"


def test_picker_empty_messages() -> None:
    for title, message in (
        (LOGIN_TITLE, "No providers available"),
        (LOGOUT_TITLE, "No providers logged in. Use /login first."),
    ):
        raw = _picker(title, []).render(80)
        assert [strip(line) for line in raw][6:] == [f"   {message}", "", "─" * 80]
        assert raw[6] == " " + THEME.fg("muted", f"  {message}")
    raw = _picker(LOGIN_TITLE, [_option("openai")], query="zzzq").render(80)
    assert [strip(line) for line in raw][4:] == ["> zzzq", "", "   No matching providers", "", "─" * 80]
    assert raw[6] == " " + THEME.fg("muted", "  No matching providers")


async def test_logout_lists_stored_logins_by_short_name_featured_first(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    auth = env.session.model_registry.auth
    auth.set_api_key("zai", "k")
    auth.set_oauth("anthropic", {"access": "a", "refresh": "r", "expires": 1})
    auth.set_oauth("openrouter", {"access": "k", "refresh": "", "expires": 1})
    api = FakeApi(env)
    await cmd_logout(api, "")
    rows = [line for line in api.screen() if "configured" in line]
    assert rows == [
        " → OpenRouter ✦ [account] ✓ configured",
        "   Anthropic [subscription] ✓ configured",
        "   Z.AI [API key] ✓ configured",
    ]
    api.press("\x1b[B", "\r")
    assert api.texts("status")[-1] == "Logged out of Anthropic"
