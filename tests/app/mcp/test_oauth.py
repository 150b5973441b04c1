"""MCP OAuth against a loopback authorization server: sign-in, stored tokens, refresh, needs-auth."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from pi.app.mcp.auth_store import auth_path, load_credentials, save_credentials
from pi.app.mcp.client import McpConnection
from pi.app.mcp.config import ServerConfig, validate_server
from pi.app.mcp.oauth_login import SignInError, loopback_callback, sign_in
from tests.app.mcp.test_http import free_port

OAUTH_FIXTURE = str(Path(__file__).with_name("oauth_fixture_server.py"))


def start_oauth_server(lifetime_s: int = 3600, *flags: str) -> tuple[subprocess.Popen[str], str]:
    """The fixture with a token lifetime and flags (`cimd`, `iss`, `wrong-iss`, `step-up`)."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, OAUTH_FIXTURE, str(port), str(lifetime_s), *flags],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        if "Uvicorn running on" in line:
            break
    threading.Thread(target=proc.stderr.read, daemon=True).start()
    return proc, f"http://127.0.0.1:{port}"


@pytest.fixture
def oauth_server() -> Iterator[Callable[..., str]]:
    """Start the fixture (with a token lifetime and flags); returns its base URL. Stopped after the test."""
    started: list[subprocess.Popen[str]] = []

    def start(lifetime_s: int = 3600, *flags: str) -> str:
        proc, base = start_oauth_server(lifetime_s, *flags)
        started.append(proc)
        return base

    yield start
    for proc in started:
        proc.terminate()
        proc.wait(timeout=10)


def secure_server(base: str, **oauth: Any) -> ServerConfig:
    entry: dict[str, Any] = {"url": f"{base}/mcp"}
    if oauth:
        entry["oauth"] = oauth
    return validate_server("secure", entry, scope="global", source="test")


async def browser(url: str) -> None:
    """The user approving in a browser: GET the authorization URL and follow it to the callback."""
    async with httpx.AsyncClient(follow_redirects=True, timeout=30) as client:
        response = await client.get(url)
        assert response.status_code == 200, response.text


def stats(base: str) -> dict[str, Any]:
    return dict(httpx.get(f"{base}/stats", timeout=10).json())


async def test_sign_in_registers_a_client_with_pkce_and_stores_tokens_privately(
    tmp_path: Path, oauth_server: Callable[[int], str]
) -> None:
    base = oauth_server(3600)
    server = secure_server(base)
    before = McpConnection(server, cwd=tmp_path, agent_dir=tmp_path)
    assert await before.connect() == "needs-auth"
    assert before.error == 'MCP server "secure" requires sign-in. Run /mcp to sign in.'

    assert await sign_in(server, tmp_path, tmp_path, browser, timeout_s=60) == 1
    path = auth_path(tmp_path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    store = json.loads(path.read_text())
    assert list(store) == [f"mcp__secure|{base}/mcp"]
    state = store[f"mcp__secure|{base}/mcp"]
    assert state["tokens"]["access_token"].startswith("access-") and state["tokenEndpoint"] == f"{base}/token"
    assert state["clientInformation"]["client_id"].startswith("client-")
    seen = stats(base)
    assert seen["registrations"] == 1 and seen["client_name"] == "pi" and seen["resource"] == [f"{base}/mcp"]

    after = McpConnection(server, cwd=tmp_path, agent_dir=tmp_path)
    try:
        assert await after.connect() == "connected", after.error
        result = await after.call_tool("secret", {})
        assert result.content[0].text == "the secret"
    finally:
        await after.close()


async def test_an_expired_token_is_refreshed_before_connecting(
    tmp_path: Path, oauth_server: Callable[[int], str]
) -> None:
    base = oauth_server(20)  # within the 30 s expiry margin: pi treats it as already expired
    server = secure_server(base)
    await sign_in(server, tmp_path, tmp_path, browser, timeout_s=60)
    old = load_credentials(tmp_path, server)
    assert old is not None
    connection = McpConnection(server, cwd=tmp_path, agent_dir=tmp_path)
    try:
        assert await connection.connect() == "connected", connection.error
    finally:
        await connection.close()
    new = load_credentials(tmp_path, server)
    assert new is not None and new["tokens"]["access_token"] != old["tokens"]["access_token"]
    assert stats(base)["refreshes"] == 1


async def test_a_rejected_token_is_refreshed_once_and_the_connect_retried(
    tmp_path: Path, oauth_server: Callable[[int], str]
) -> None:
    base = oauth_server(3600)
    server = secure_server(base)
    await sign_in(server, tmp_path, tmp_path, browser, timeout_s=60)
    state = load_credentials(tmp_path, server)
    assert state is not None
    state["tokens"]["access_token"] = "revoked"
    save_credentials(tmp_path, server, state)
    connection = McpConnection(server, cwd=tmp_path, agent_dir=tmp_path)
    try:
        assert await connection.connect() == "connected", connection.error
    finally:
        await connection.close()
    assert stats(base)["refreshes"] == 1

    state = load_credentials(tmp_path, server)
    assert state is not None
    state["tokens"] = {"access_token": "revoked", "token_type": "Bearer", "refresh_token": "spent"}
    save_credentials(tmp_path, server, state)
    again = McpConnection(server, cwd=tmp_path, agent_dir=tmp_path)
    assert await again.connect() == "needs-auth", "a refresh that fails leaves the server needing sign-in"


async def test_a_configured_client_name_is_registered(tmp_path: Path, oauth_server: Callable[[int], str]) -> None:
    base = oauth_server(3600)
    server = secure_server(base, clientName="My pi")
    await sign_in(server, tmp_path, tmp_path, browser, timeout_s=60)
    assert stats(base)["client_name"] == "My pi", "clientName forces dynamic registration under that name"


async def test_the_callback_reports_a_refusal(tmp_path: Path) -> None:
    server = secure_server("http://127.0.0.1:1")
    async with loopback_callback(server) as callback:
        assert callback.redirect_uri.startswith("http://127.0.0.1:") and callback.redirect_uri.endswith("/callback")
        async with httpx.AsyncClient() as client:
            missing = await client.get(callback.redirect_uri.replace("/callback", "/other"))
            assert missing.status_code == 404
            page = await client.get(callback.redirect_uri, params={"error": "access_denied"})
            assert page.status_code == 200
        with pytest.raises(SignInError, match="access_denied"):
            await callback.result


async def test_servers_with_their_own_authorization_do_not_sign_in(tmp_path: Path) -> None:
    entry = {"url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer x"}}
    server = validate_server("own", entry, scope="global", source="test")
    with pytest.raises(SignInError, match="does not use OAuth"):
        await sign_in(server, tmp_path, tmp_path, browser)


async def test_a_sign_in_done_elsewhere_is_noticed_and_the_server_reconnects(
    tmp_path: Path, oauth_server: Callable[[int], str]
) -> None:
    import asyncio

    from pi.app.extensions.types import ToolDefinition
    from pi.app.mcp.config import McpConfig
    from pi.app.mcp.manager import McpManager

    base = oauth_server(3600)
    server = secure_server(base)
    registered: list[ToolDefinition] = []
    changed: asyncio.Queue[None] = asyncio.Queue()
    manager = McpManager(
        McpConfig(servers={"secure": server}),
        cwd=tmp_path,
        agent_dir=tmp_path,
        register=registered.append,
        on_change=lambda: changed.put_nowait(None),
    )
    manager.start()
    try:
        await manager.wait_for()
        assert manager.connections["secure"].state == "needs-auth"
        manager.reconnect_signed_in()
        assert manager.connections["secure"].state == "needs-auth", "nothing to retry without stored tokens"
        await sign_in(server, tmp_path, tmp_path, browser, timeout_s=60)
        manager.reconnect_signed_in()
        await changed.get()
        secure = manager.connections["secure"]  # read anew: mypy keeps the narrowing of the expression
        assert secure.state == "connected"
        assert [d.name for d in registered] == ["mcp__secure__secret"]
    finally:
        await manager.shutdown()


async def test_a_pasted_redirect_url_completes_the_sign_in(tmp_path: Path, oauth_server: Callable[[int], str]) -> None:
    import asyncio

    base = oauth_server(3600)
    server = secure_server(base)
    pasted: asyncio.Queue[str] = asyncio.Queue()

    async def browser_elsewhere(url: str) -> None:
        """A browser on another machine: the redirect never reaches the loopback port; the user copies it."""
        async with httpx.AsyncClient(follow_redirects=False, timeout=30) as client:
            response = await client.get(url)
        assert response.status_code == 302
        await pasted.put("not a url\n")
        await pasted.put(response.headers["location"] + "\n")

    assert await sign_in(server, tmp_path, tmp_path, browser_elsewhere, timeout_s=60, read_line=pasted.get) == 1
    assert load_credentials(tmp_path, server) is not None
