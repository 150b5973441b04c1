"""/login in the running interactive app on the in-process terminal emulator, against loopback stubs."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from pi.app.modes.interactive.commands import account_commands
from tests.app.interactive.core_support import faux_provider, make_app
from tests.support.http_server import ScriptedServer, json_response

ENTER, ESC, CTRL_D = "\r", "\x1b", "\x04"


async def test_sign_in_without_a_model_selects_the_providers_default(
    tmp_path: Path, stub: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_OAUTH_ENDPOINTS", json.dumps({"openrouter": stub.url}))
    opened: list[str] = []
    monkeypatch.setattr(account_commands, "open_in_browser", opened.append)
    stub.queue(json_response(200, {"key": "sk-or-v1-from-the-terminal"}))
    with faux_provider() as faux:
        h = make_app(faux, tmp_path, no_model=True)
        await h.start()
        await h.wait("No model available")
        h.type("/login")
        h.keys(ENTER)
        await h.wait("Select authentication method:")
        h.keys(ENTER)
        await h.wait("Select provider to configure:")
        h.type("openrouter")
        await h.wait("→ OpenRouter ✦ • not configured")
        h.keys(ENTER)
        screen = await h.wait("Login to OpenRouter")
        await h.wait("Paste the authorization code or the full redirect URL:")
        assert opened and opened[0].startswith(f"{stub.url}/auth?")
        callback = parse_qs(urlsplit(opened[0]).query)["callback_url"][0]
        async with httpx.AsyncClient() as client:
            page = await client.get(callback, params={"code": "terminal-code"})
        assert page.status_code == 200
        screen = await h.wait("Logged in to OpenRouter. Selected moonshotai/kimi-k2.7-code.")
        assert "Login to OpenRouter" not in screen
        assert h.app.session.model is not None and h.app.session.model.provider == "openrouter"
        h.keys(CTRL_D)
        assert await h.finished() == 0
        h.check_frames()


async def test_escape_on_the_sign_in_screen_goes_back_to_the_method_choice(
    tmp_path: Path, stub: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_OAUTH_ENDPOINTS", json.dumps({"openrouter": stub.url}))
    monkeypatch.setattr(account_commands, "open_in_browser", lambda url: None)
    with faux_provider() as faux:
        h = make_app(faux, tmp_path)
        await h.start()
        h.type("/login openrouter")
        h.keys(ENTER)
        await h.wait("Select authentication method for OpenRouter:")  # it has both kinds of login
        h.keys(ENTER)
        await h.wait("Paste the authorization code or the full redirect URL:")
        h.keys(ESC)
        await h.wait(lambda s: "Login to OpenRouter" not in s and "Select authentication method for" in s)
        h.keys(ESC)
        await h.wait(lambda s: "Select authentication method" not in s)
        h.keys(CTRL_D)
        assert await h.finished() == 0
        assert stub.requests == []
        h.check_frames()


PI_ACCOUNT_PICKER = [
    " Select provider to configure:",
    "",
    ">",
    "",
    " → Radius ✦ • not configured",
    "   OpenRouter ✦ • not configured",
    "   Anthropic • not configured",
    "   GitHub Copilot • not configured",
    "   Kimi For Coding • not configured",
    "   Meta • not configured",
    "   OpenAI • not configured",
    "   OpenAI Codex • not configured",
    "   (1/9)",
    "",
]
"""pi 1.6.0's screen after /login → "Sign in with an account", at 120x40, title to the bottom rule."""


async def test_account_provider_list_reads_as_pis(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pi.ai.env_api_keys import env_var_names
    from pi.app.oauth.provider_names import oauth_flows

    for provider in oauth_flows():
        for name in env_var_names(provider):
            monkeypatch.delenv(name, raising=False)
    with faux_provider() as faux:
        h = make_app(faux, tmp_path, columns=120, rows=40)
        await h.start()
        h.type("/login")
        h.keys(ENTER)
        await h.wait("Select authentication method:")
        h.keys(ENTER)
        screen = await h.wait(lambda s: "Select provider to configure:" in s and "(1/9)" in s)
        lines = [line.rstrip() for line in screen.split("\n")]
        top = lines.index(" Select provider to configure:")
        assert lines[top : top + len(PI_ACCOUNT_PICKER)] == PI_ACCOUNT_PICKER
        assert lines[top + len(PI_ACCOUNT_PICKER)] == "─" * 120  # the bottom rule: no key-hint line
        assert not any("navigate" in line for line in lines)
        h.type("claude")  # the search matches the sign-in's own name too
        await h.wait(lambda s: "> claude" in s and "(1/9)" not in s)
        assert "→ Anthropic • not configured" in h.screen()
        h.keys(ESC)
        await h.wait("Select authentication method:")
        h.keys(ESC)
        await h.wait(lambda s: "Select authentication method" not in s)
        h.keys(CTRL_D)
        assert await h.finished() == 0
        h.check_frames()
