"""/login and /logout in the interactive UI, with the sign-in flows pointed at loopback stubs.

The commands run against a recording app (`FakeApi`) over a real session; the login runs as the
background task the command spawns, and the test drives the sign-in screen with keys while it waits.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from pi.app.auth import AuthStorage
from pi.app.llama.config import DEFAULT_SERVER_URL, resolve_router, stored_entry
from pi.app.modes.interactive.commands import account_commands
from pi.app.modes.interactive.commands.llama_login import KEY_PROMPT, URL_PROMPT
from pi.app.modes.interactive.commands.registry import CommandRegistry
from pi.app.modes.interactive.pickers.login_dialog import LoginDialog
from pi.app.modes.interactive.pickers.login_providers import LoginProviderPicker
from tests.app.interactive.test_commands_fakes import DOWN, ENTER, ESC, FakeApi, make_env
from tests.support.http_server import ScriptedServer, json_response

TIMEOUT = 20.0


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    urls: list[str] = []
    monkeypatch.setattr(account_commands, "open_in_browser", urls.append)
    return urls


@pytest.fixture
def endpoints(monkeypatch: pytest.MonkeyPatch, stub: ScriptedServer) -> ScriptedServer:
    table = {"anthropic": stub.url, "github_copilot": stub.url, "openrouter": stub.url}
    monkeypatch.setenv("PI_OAUTH_ENDPOINTS", json.dumps(table))
    return stub


async def _command(api: FakeApi, text: str) -> None:
    assert await CommandRegistry(api.session).execute(api, text)


async def _until(api: FakeApi, check: Callable[[FakeApi], bool], what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while not check(api):
        if loop.time() > deadline:
            shown = api.screen() if api.selector is not None else None
            raise AssertionError(f"timed out waiting for {what}; screen: {shown}; events: {api.events}")
        await asyncio.sleep(0.01)


def _shows(text: str) -> Callable[[FakeApi], bool]:
    return lambda api: api.selector is not None and any(text in line for line in api.screen())


async def _open_login(api: FakeApi, provider_query: str) -> asyncio.Future[None]:
    """/login → account → search the provider → Enter; returns the running login."""
    await _command(api, "/login")
    api.press(ENTER)
    assert isinstance(api.selector, LoginProviderPicker)
    api.type(provider_query)
    api.press(ENTER)
    assert isinstance(api.selector, LoginDialog)
    return asyncio.ensure_future(api.run_spawned())


async def test_method_and_provider_pickers(tmp_path: Path) -> None:
    api = FakeApi(make_env(tmp_path))
    await _command(api, "/login")
    screen = api.screen()
    assert screen[2] == " Select authentication method:"
    assert screen[4:7] == [
        " → Sign in with an account",
        "   Sign in with an API key",
        "   Sign in with Radius • not configured",
    ]
    api.press(ENTER)
    screen = api.screen()
    assert screen[2] == " Select provider to configure:"
    assert screen[4] == ">"  # the search prompt, at the first column
    assert screen[6:9] == [
        " → Radius ✦ • not configured",
        "   OpenRouter ✦ • not configured",
        "   Anthropic • not configured",
    ]
    assert "   GitHub Copilot • not configured" in screen
    assert not any("navigate" in line for line in screen)  # this picker shows no key hints
    api.type("copilot")
    assert [line for line in api.screen() if "•" in line] == [" → GitHub Copilot • not configured"]
    api.type("\x7f" * len("copilot") + "claude")  # the search also knows the sign-in's own name
    assert [line for line in api.screen() if "•" in line] == [" → Anthropic • not configured"]
    api.press(ESC)  # back to the methods
    assert api.screen()[2] == " Select authentication method:"
    api.press(ESC)
    assert api.selector is None and api.events == []


async def test_browser_login_completes_through_the_callback(
    tmp_path: Path, endpoints: ScriptedServer, opened: list[str]
) -> None:
    """Check 49 through the UI: authorize URL shape, JSON token request, stored entry."""
    env = make_env(tmp_path)
    api = FakeApi(env)
    running = await _open_login(api, "anthropic")
    await _until(api, _shows("Browser login (default)"), "the method select")
    api.press(ENTER)
    await _until(api, lambda a: bool(opened), "the browser to open")
    url = opened[0]
    assert _shows("https://claude.ai/oauth/authorize?")(api) is False  # the stub's host is shown instead
    query = parse_qs(urlsplit(url).query)
    assert query["code"] == ["true"] and query["code_challenge_method"] == ["S256"]
    assert _shows("Paste the authorization code or the full redirect URL:")(api)
    endpoints.queue(
        json_response(200, {"access_token": "sk-ant-oat01-ui", "refresh_token": "r-ui", "expires_in": 3600})
    )
    async with httpx.AsyncClient() as client:
        page = await client.get(query["redirect_uri"][0], params={"code": "the-code", "state": query["state"][0]})
    assert page.status_code == 200
    await asyncio.wait_for(running, TIMEOUT)
    token_request = endpoints.requests[0].json()
    assert token_request["grant_type"] == "authorization_code" and token_request["code"] == "the-code"
    assert token_request["state"] == query["state"][0] == token_request["code_verifier"]
    stored = json.loads((env.agent_dir / "auth.json").read_text())["anthropic"]
    assert (stored["type"], stored["access"], stored["refresh"]) == ("oauth", "sk-ant-oat01-ui", "r-ui")
    assert api.selector is None
    assert api.texts("status") == [f"Logged in to Anthropic. Credentials saved to {env.agent_dir / 'auth.json'}"]
    assert oct(os.stat(env.agent_dir / "auth.json").st_mode & 0o777) == "0o600"
    assert api.texts("warning") == [account_commands.ANTHROPIC_SUBSCRIPTION_WARNING]


async def test_pasting_the_redirect_url_wins_the_race_and_closes_the_server(
    tmp_path: Path, endpoints: ScriptedServer, opened: list[str]
) -> None:
    """Check 55 (last part), in the UI: the paste completes the login while the callback server waits."""
    env = make_env(tmp_path, settings={"warnings": {"anthropicExtraUsage": False}})
    api = FakeApi(env)
    running = await _open_login(api, "anthropic")
    await _until(api, _shows("Browser login (default)"), "the method select")
    api.press(ENTER)
    await _until(api, lambda a: bool(opened) and _shows("full redirect URL")(a), "the paste prompt")
    query = parse_qs(urlsplit(opened[0]).query)
    redirect = query["redirect_uri"][0]
    endpoints.queue(json_response(200, {"access_token": "sk-ant-oat01-pasted", "refresh_token": "r", "expires_in": 60}))
    api.type(f"{redirect}?code=pasted-code&state={query['state'][0]}")
    api.press(ENTER)
    await asyncio.wait_for(running, TIMEOUT)
    assert endpoints.requests[0].json()["code"] == "pasted-code"
    assert json.loads((env.agent_dir / "auth.json").read_text())["anthropic"]["access"] == "sk-ant-oat01-pasted"
    assert api.texts("warning") == []  # warnings.anthropicExtraUsage: false
    with pytest.raises(httpx.ConnectError):
        httpx.get(redirect, timeout=5)  # the callback server is gone


async def test_escape_cancels_the_login_and_goes_back(
    tmp_path: Path, endpoints: ScriptedServer, opened: list[str]
) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    running = await _open_login(api, "anthropic")
    await _until(api, _shows("Browser login (default)"), "the method select")
    api.press(DOWN, ENTER)  # copy-code login: the paste prompt only
    await _until(api, _shows("code#state"), "the copy-code instructions")
    api.press(ESC)
    await asyncio.wait_for(running, TIMEOUT)
    assert isinstance(api.selector, LoginProviderPicker)  # back where the login was started
    assert endpoints.requests == [] and not (env.agent_dir / "auth.json").exists()
    assert api.texts("error") == []


async def test_device_code_screen_for_copilot(tmp_path: Path, endpoints: ScriptedServer, opened: list[str]) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    endpoints.queue(
        json_response(
            200,
            {
                "device_code": "dev-1",
                "user_code": "ABCD-1234",
                "verification_uri": "https://github.com/login/device",
                "interval": 1,
                "expires_in": 900,
            },
        ),
        json_response(200, {"access_token": "ghu_ui", "token_type": "bearer"}),
        json_response(
            200, {"token": "tid=9;exp=9;proxy-ep=proxy.business.githubcopilot.com", "expires_at": 4_000_000_000}
        ),
        json_response(200, {"data": [{"id": "gpt-6.1-sol", "model_picker_enabled": True}]}),
    )
    running = await _open_login(api, "copilot")
    await _until(api, _shows("GitHub Enterprise URL/domain (blank for github.com)"), "the Enterprise prompt")
    api.press(ENTER)
    await _until(api, _shows("Enter code: ABCD-1234"), "the device code")
    screen = api.screen()
    assert " https://github.com/login/device" in screen and " Waiting for authentication..." in screen
    assert " (enter to open browser and copy code)" in screen
    api.press(ENTER)
    assert api.clipboard == ["ABCD-1234"] and opened == ["https://github.com/login/device"]
    assert " Code copied to clipboard" in api.screen()
    await asyncio.wait_for(running, TIMEOUT)
    stored = json.loads((env.agent_dir / "auth.json").read_text())["github-copilot"]
    assert stored["refresh"] == "ghu_ui" and stored["availableModelIds"] == ["gpt-6.1-sol"]
    assert api.texts("status")[-1].startswith("Logged in to GitHub Copilot. Credentials saved to ")


async def test_api_key_login_and_logout(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _command(api, "/login")
    api.press(DOWN, ENTER)
    api.type("fake")
    assert api.screen()[api.screen().index("> fake") + 2].startswith(" → fake")
    api.press(ENTER)
    running = asyncio.ensure_future(api.run_spawned())
    await _until(api, _shows("Enter API key for fake:"), "the key prompt")
    api.type("sk-secret-typed")
    assert not any("sk-secret-typed" in line for line in api.screen())  # masked
    api.press(ENTER)
    await asyncio.wait_for(running, TIMEOUT)
    assert json.loads((env.agent_dir / "auth.json").read_text())["fake"] == {
        "type": "api_key",
        "key": "sk-secret-typed",
    }
    assert api.texts("status")[-1] == f"Saved API key for fake. Credentials saved to {env.agent_dir / 'auth.json'}"

    env.session.model_registry.auth.set_oauth("openrouter", {"access": "k", "refresh": "", "expires": 1})
    await _command(api, "/logout")
    screen = api.screen()
    assert screen[2] == " Select provider to logout:"
    rows = [line for line in screen if "configured" in line]
    assert rows == [" → OpenRouter ✦ [account] ✓ configured", "   fake [API key] ✓ configured"]  # featured first
    api.press(ENTER)
    assert api.texts("status")[-1] == "Logged out of OpenRouter"
    await _command(api, "/logout")
    api.press(ENTER)
    assert api.texts("status")[-1] == (
        "Removed stored API key for fake. Environment variables and models.json config are unchanged."
    )
    assert json.loads((env.agent_dir / "auth.json").read_text()) == {}


async def _llama_login(api: FakeApi, url: str, key: str | None = None) -> None:
    """/login → API key → llama.cpp, answering the URL prompt (it comes first) and, unless `key` is
    None, the key prompt; returns when the login has ended."""
    await _command(api, "/login")
    api.press(DOWN, ENTER)
    api.type("llama")
    api.press(ENTER)
    running = asyncio.ensure_future(api.run_spawned())
    await _until(api, _shows(URL_PROMPT), "the router URL prompt")
    api.type(url)
    api.press(ENTER)
    if key is not None:
        await _until(api, _shows(KEY_PROMPT), "the key prompt")
        api.type(key)
        api.press(ENTER)
    await asyncio.wait_for(running, TIMEOUT)


async def test_llama_login_asks_for_the_router_url_then_a_key(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _llama_login(api, "http://127.0.0.1:8080/v1/", key="")  # a router started without --api-key
    path = env.agent_dir / "auth.json"
    assert json.loads(path.read_text())["llama.cpp"] == {
        "type": "api_key",
        "env": {"LLAMA_BASE_URL": "http://127.0.0.1:8080"},
    }
    assert api.texts("status")[-1] == (
        f"Saved the llama.cpp router (/llama lists and loads its models). Credentials saved to {path}"
    )
    # The keyless entry is a credential pi reads without complaint, and it names the router.
    fresh = AuthStorage(path)
    assert fresh.credential("llama.cpp") is not None and fresh.errors == []
    config = resolve_router(stored_entry(env.agent_dir), environ={})
    assert config is not None and (config.server_url, config.api_key) == ("http://127.0.0.1:8080", "local")

    await _llama_login(api, "", key="router-key")  # the default URL
    assert json.loads(path.read_text())["llama.cpp"] == {
        "type": "api_key",
        "key": "router-key",
        "env": {"LLAMA_BASE_URL": DEFAULT_SERVER_URL},
    }


async def test_llama_login_refuses_a_url_that_is_not_http(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _llama_login(api, "ftp://router:1")
    assert "Run /login again with an http:// or https:// URL." in api.texts("error")[-1]
    assert "ftp://router:1" in api.texts("error")[-1]
    assert not (env.agent_dir / "auth.json").exists()


async def test_footer_and_session_info_mark_subscription_use(tmp_path: Path) -> None:
    from pi.app.modes.interactive.commands.session_info import session_info_lines
    from pi.app.modes.interactive.footer import Footer
    from pi.tui.theme import Theme

    env = make_env(tmp_path)
    session = env.session
    footer = Footer(session, Theme.plain(), str(tmp_path))
    assert "(sub)" not in "\n".join(footer.render(110))
    auth = session.model_registry.auth
    auth.set_oauth("fakea", {"access": "t", "refresh": "r", "expires": 1})
    assert "(sub)" not in "\n".join(footer.render(110))  # an OAuth login without a subscription flow
    from pi.app.oauth.extension_flow import register_extension_oauth
    from pi.app.oauth.registry import unregister_oauth_flows

    register_extension_oauth(
        "fakea", {"name": "Fake plan", "login": print, "refresh_token": print, "is_subscription": True}, "t"
    )
    try:
        footer.invalidate()
        assert "$0.000 (sub)" in "\n".join(footer.render(110))
        assert "fakea/fake-claude: $0.0000 (subscription)" in session_info_lines(session, Theme.plain())
    finally:
        unregister_oauth_flows("t")
