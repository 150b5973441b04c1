from __future__ import annotations

import asyncio

import httpx
import pytest

from pi.app.oauth.callback_server import CallbackServer
from pi.app.oauth.code_input import wait_for_code
from pi.app.oauth.errors import OAuthError
from tests.app.oauth.conftest import ScriptedInteraction


async def _get(server: CallbackServer, target: str) -> httpx.Response:
    async with httpx.AsyncClient() as client:
        return await client.get(f"http://127.0.0.1:{server.port}{target}")


async def test_pages_statuses_and_single_completion() -> None:
    async with CallbackServer("Anthropic", "/callback", "s1") as server:
        wrong_path = await _get(server, "/other?code=c&state=s1")
        assert (wrong_path.status_code, "Callback route not found." in wrong_path.text) == (404, True)
        mismatch = await _get(server, "/callback?code=c&state=nope")
        assert (mismatch.status_code, "State mismatch." in mismatch.text) == (400, True)
        missing = await _get(server, "/callback?state=s1")
        assert (missing.status_code, "Missing authorization code." in missing.text) == (400, True)
        ok = await _get(server, "/callback?code=the-code&state=s1")
        assert ok.status_code == 200
        assert "Signed in to Anthropic. You may now close this page." in ok.text
        assert ok.headers["cache-control"] == "no-store"
        assert ok.headers["content-type"] == "text/html; charset=utf-8"
        again = await _get(server, "/callback?code=other&state=s1")
        assert (again.status_code, "This sign-in has already been handled." in again.text) == (409, True)
        result = await server.wait()
    assert (result.code, result.state) == ("the-code", "s1")


async def test_error_parameter_fails_the_login_with_the_providers_description() -> None:
    async with CallbackServer("OpenAI", "/auth/callback", "s") as server:
        page = await _get(server, "/auth/callback?state=s&error=access_denied&error_description=User+said+no")
        assert page.status_code == 400
        assert "OpenAI authorization failed: User said no" in page.text
        with pytest.raises(OAuthError, match=r"^OpenAI authorization failed: User said no$"):
            await server.wait()


async def test_binds_the_host_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_OAUTH_CALLBACK_HOST", "127.0.0.2")
    async with CallbackServer("X", "/cb", None) as server:
        assert server._server is not None
        assert server._server.sockets[0].getsockname()[0] == "127.0.0.2"


async def test_callback_wins_the_race_and_cancels_the_paste_prompt() -> None:
    ui = ScriptedInteraction()
    async with CallbackServer("Anthropic", "/callback", "st") as server:
        waiter = asyncio.ensure_future(wait_for_code(server, ui, "st"))
        await ui.manual_started.wait()
        await _get(server, "/callback?code=from-browser&state=st")
        got = await waiter
    assert got.code == "from-browser"
    assert ui.manual_cancelled


async def test_pasting_the_redirect_url_completes_while_the_server_waits() -> None:
    ui = ScriptedInteraction(pasted="http://localhost:1/callback?code=pasted-code&state=st")
    async with CallbackServer("Anthropic", "/callback", "st") as server:
        got = await wait_for_code(server, ui, "st")
        late = await _get(server, "/callback?code=x&state=st")
    assert got.code == "pasted-code"
    assert late.status_code == 200  # the server was still waiting; the paste did not consume it


async def test_pasted_state_that_differs_is_rejected() -> None:
    ui = ScriptedInteraction(pasted="code123#other-state")
    with pytest.raises(OAuthError, match=r"^OAuth state mismatch$"):
        await wait_for_code(None, ui, "expected")
