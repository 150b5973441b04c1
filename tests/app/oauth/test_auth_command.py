from __future__ import annotations

import io
import json
from pathlib import Path

import msgspec.structs
import pytest

from pi.app.oauth.auth_command import run_auth_command
from pi.app.oauth.flows.base import OAuthContext
from pi.app.oauth.provider_names import display_name
from pi.app.oauth.providers import ProviderTable
from tests.app.oauth.conftest import FakeClock, ScriptedInteraction
from tests.support.http_server import ScriptedServer, json_response


def _run(agent: Path, *argv: str, **kwargs: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_auth_command(list(argv), agent, out, err, **kwargs)  # type: ignore[arg-type]
    return code, out.getvalue(), err.getvalue()


def _write_auth(agent: Path, data: dict[str, object]) -> None:
    agent.mkdir(parents=True, exist_ok=True)
    (agent / "auth.json").write_text(json.dumps(data))


def test_logout_with_nothing_stored_exits_zero(tmp_path: Path) -> None:
    code, out, _ = _run(tmp_path, "logout", "openrouter")
    assert code == 0
    assert "No stored credentials for OpenRouter." in out


def test_display_name_is_the_short_name_then_the_flows_then_the_id() -> None:
    from pi.app.oauth.extension_flow import register_extension_oauth
    from pi.app.oauth.registry import unregister_oauth_flows

    assert [display_name(p) for p in ("anthropic", "openai-codex", "openrouter", "kimi-coding", "zai")] == [
        "Anthropic",
        "OpenAI Codex",
        "OpenRouter",
        "Kimi For Coding",
        "Z.AI",
    ]
    assert display_name("no-such-provider") == "no-such-provider"
    register_extension_oauth("acme-names", {"name": "Acme (team plan)", "login": print, "refresh_token": print}, "t")
    try:
        assert display_name("acme-names") == "Acme (team plan)"  # not in the table: its login's name
    finally:
        unregister_oauth_flows("t")


def test_logout_and_list_use_the_short_names(tmp_path: Path) -> None:
    _write_auth(tmp_path, {"anthropic": {"type": "oauth", "access": "a", "refresh": "r", "expires": 1}})
    assert _run(tmp_path, "list") == (0, "anthropic\taccount login\tAnthropic\n", "")
    code, out, _ = _run(tmp_path, "logout", "anthropic")
    assert (code, out) == (0, f"Logged out of Anthropic. Removed its credentials from {tmp_path / 'auth.json'}\n")


def test_logout_removes_only_that_entry(tmp_path: Path) -> None:
    _write_auth(tmp_path, {"openrouter": {"type": "api_key", "key": "k"}, "xai": {"type": "api_key", "key": "x"}})
    assert _run(tmp_path, "logout", "openrouter")[0] == 0
    assert list(json.loads((tmp_path / "auth.json").read_text())) == ["xai"]


def test_login_argument_errors(tmp_path: Path) -> None:
    ui = ScriptedInteraction()
    code, _, err = _run(tmp_path, "login", "nope", interaction=ui)
    assert code == 1
    assert err.startswith('Unknown provider "nope".\nProviders: ')
    assert "github-copilot" in err
    code, _, err = _run(tmp_path, "login", "anthropic", "--api-key", "--no-browser", interaction=ui)
    assert (code, err) == (1, "--no-browser only applies to account sign-in; omit it with --api-key.\n")
    code, _, err = _run(tmp_path, "login", "github-copilot", "--api-key", interaction=ui)
    assert (code, err) == (1, "GitHub Copilot has no API key login. Omit --api-key to sign in.\n")


def test_login_without_a_terminal_is_refused(tmp_path: Path) -> None:
    code, _, err = _run(tmp_path, "login", "anthropic", input=io.StringIO(""))
    assert code == 1
    assert err == '"pi auth login <provider> [--api-key] [--no-browser]" requires an interactive terminal\n'


def test_api_key_login_then_list_and_check(tmp_path: Path) -> None:
    ui = ScriptedInteraction(secrets=["sk-stored"])
    code, out, _ = _run(tmp_path, "login", "anthropic", "--api-key", interaction=ui)
    assert code == 0
    assert out == f"Saved API key for Anthropic. Credentials saved to {tmp_path / 'auth.json'}\n"
    code, out, _ = _run(tmp_path, "list")
    assert "anthropic\tAPI key" in out and "sk-stored" not in out
    assert _run(tmp_path, "check", "--provider", "anthropic") == (0, "ready\n", "")
    code, out, _ = _run(tmp_path, "check", "--provider", "anthropic", "--json")
    assert json.loads(out) == {"provider": "anthropic", "status": "ready", "source": "auth.json"}
    assert _run(tmp_path, "print-api-key", "--provider", "anthropic") == (0, "sk-stored\n", "")


def test_check_not_ready_and_invalid(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XAI_API_KEY", raising=False)
    assert _run(tmp_path, "check", "--provider", "xai")[0:2] == (1, "not_ready\n")
    _write_auth(tmp_path, {"xai": {"type": "weird"}})
    assert _run(tmp_path, "check", "--model", "xai/grok-4")[0:2] == (2, "invalid\n")
    code, _, err = _run(tmp_path, "print-api-key")
    assert (code, err) == (1, "Error: Credential printing requires --provider <provider> or --model <model>\n")


def test_check_invalid_when_the_refresh_is_refused(tmp_path: Path, stub: ScriptedServer) -> None:
    clock = FakeClock()
    table = ProviderTable()
    ctx = OAuthContext(msgspec.structs.replace(table, anthropic=table.anthropic.with_base(stub.url)), clock)
    _write_auth(tmp_path, {"anthropic": {"type": "oauth", "access": "a", "refresh": "r", "expires": 0}})
    assert _run(tmp_path, "check", "--provider", "anthropic", "--no-refresh", context=ctx)[0:2] == (1, "not_ready\n")
    stub.queue(json_response(400, {"error": "invalid_grant"}))
    code, out, _ = _run(tmp_path, "check", "--provider", "anthropic", "--json", context=ctx)
    assert code == 2
    assert json.loads(out)["message"] == "OAuth refresh failed for anthropic"


def test_print_bearer_token_duration_rules(tmp_path: Path) -> None:
    code, _, err = _run(tmp_path, "print-bearer-token", "--provider", "anthropic", "--min-expiry", "soon")
    assert (code, err) == (1, "Error: --min-expiry must use a duration such as 30m or 1h\n")
    clock = FakeClock()
    expires = int(clock.now() * 1000) + 3_600_000
    _write_auth(tmp_path, {"anthropic": {"type": "oauth", "access": "tok", "refresh": "r", "expires": expires}})
    ctx = OAuthContext(clock=clock)
    assert _run(tmp_path, "print-bearer-token", "--provider", "anthropic", "--min-expiry", "30m", context=ctx) == (
        0,
        "tok\n",
        "",
    )


def test_unknown_subcommand(tmp_path: Path) -> None:
    code, _, err = _run(tmp_path, "frobnicate")
    assert code == 1
    assert err.startswith('Unknown auth command "frobnicate". Use "pi auth login", ')


def test_failed_and_cancelled_logins(tmp_path: Path, stub: ScriptedServer) -> None:
    table = ProviderTable()
    ctx = OAuthContext(msgspec.structs.replace(table, openrouter=table.openrouter.with_base(stub.url)), FakeClock())
    stub.queue(json_response(200, {}))
    code, _, err = _run(tmp_path, "login", "openrouter", interaction=ScriptedInteraction(pasted="c"), context=ctx)
    assert (code, err) == (1, 'Failed to log in to OpenRouter: OpenRouter OAuth response carries no "key"\n')
    code, _, err = _run(tmp_path, "login", "github-copilot", interaction=ScriptedInteraction(), context=ctx)
    assert (code, err) == (1, "Login cancelled.\n")
    assert not (tmp_path / "auth.json").exists() or "openrouter" not in (tmp_path / "auth.json").read_text()


def test_account_login_names_the_other_method_and_no_browser_selects_it(tmp_path: Path, stub: ScriptedServer) -> None:
    table = ProviderTable()
    anthropic = msgspec.structs.replace(table.anthropic.with_base(stub.url), callback_port=0)
    ctx = OAuthContext(msgspec.structs.replace(table, anthropic=anthropic), FakeClock())
    token = {"access_token": "a", "refresh_token": "r", "expires_in": 3600}
    stub.queue(json_response(200, token), json_response(200, token))

    ui = ScriptedInteraction(pasted="code1")
    code, out, _ = _run(tmp_path, "login", "anthropic", interaction=ui, context=ctx)
    assert code == 0
    assert out == f"Logged in to Anthropic. Credentials saved to {tmp_path / 'auth.json'}\n"
    hint = 'To use "Copy code login (headless)" instead, run "pi auth login anthropic --no-browser"'
    assert ("instructions", hint) in ui.events
    assert "redirect_uri=http%3A%2F%2Flocalhost" in ui.urls()[0]

    ui = ScriptedInteraction(pasted="code2")
    assert _run(tmp_path, "login", "anthropic", "--no-browser", interaction=ui, context=ctx)[0] == 0
    assert "redirect_uri=https%3A%2F%2Fplatform.claude.com%2Foauth%2Fcode%2Fcallback" in ui.urls()[0]
    stored = json.loads((tmp_path / "auth.json").read_text())["anthropic"]
    assert (stored["type"], stored["access"]) == ("oauth", "a")
