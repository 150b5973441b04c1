"""MCP sign-in choices against the loopback authorization server: scope, client documents, step-up."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from pi.app.mcp.auth_store import load_credentials
from pi.app.mcp.client import McpConnection, NeedsAuthError
from pi.app.mcp.oauth_client import CLIENT_METADATA_URL, document_id
from pi.app.mcp.oauth_login import SignInError, sign_in
from tests.app.mcp.test_oauth import browser, oauth_server, secure_server, stats

__all__ = ["oauth_server"]

Start = Callable[..., str]


async def test_a_configured_scope_is_the_scope_requested(tmp_path: Path, oauth_server: Start) -> None:
    base = oauth_server(3600)
    server = secure_server(base, scope="mcp read:docs")
    await sign_in(server, tmp_path, tmp_path, browser, timeout_s=60)
    (authorized,) = stats(base)["authorize"]
    assert authorized["scope"] == "mcp read:docs", "the advertised scopes_supported must not replace it"
    state = load_credentials(tmp_path, server)
    assert state is not None and state["scope"] == "mcp read:docs"


async def test_without_a_configured_scope_the_advertised_scopes_are_requested(
    tmp_path: Path, oauth_server: Start
) -> None:
    base = oauth_server(3600)
    await sign_in(secure_server(base), tmp_path, tmp_path, browser, timeout_s=60)
    assert [a["scope"] for a in stats(base)["authorize"]] == ["mcp"]


async def test_a_server_sending_iss_gets_the_shared_client_document(tmp_path: Path, oauth_server: Start) -> None:
    base = oauth_server(3600, "cimd", "iss")
    server = secure_server(base)
    assert await sign_in(server, tmp_path, tmp_path, browser, timeout_s=60) == 1
    seen = stats(base)
    (authorized,) = seen["authorize"]
    assert seen["registrations"] == 0
    assert authorized["client_id"] == CLIENT_METADATA_URL == "https://pi.dev/oauth/client.json"
    redirect = urlsplit(authorized["redirect_uri"])
    assert redirect.hostname == "127.0.0.1" and redirect.path == "/callback"
    state = load_credentials(tmp_path, server)
    assert state is not None and state["clientInformation"]["client_id"] == CLIENT_METADATA_URL


async def test_a_server_without_iss_gets_a_document_and_callback_path_of_its_own(
    tmp_path: Path, oauth_server: Start
) -> None:
    base = oauth_server(3600, "cimd")
    server = secure_server(base)
    assert await sign_in(server, tmp_path, tmp_path, browser, timeout_s=60) == 1
    key = document_id(server)
    assert len(key) == 16
    seen = stats(base)
    (authorized,) = seen["authorize"]
    assert seen["registrations"] == 0
    assert authorized["client_id"] == f"https://pi.dev/oauth/{key}/client.json"
    assert urlsplit(authorized["redirect_uri"]).path == f"/callback/{key}"
    other = secure_server(base.replace("127.0.0.1", "localhost"))
    assert document_id(other) != key, "each server has its own document"
    connection = McpConnection(server, cwd=tmp_path, agent_dir=tmp_path)
    try:
        assert await connection.connect() == "connected", connection.error
    finally:
        await connection.close()


async def test_a_response_from_another_issuer_is_refused(tmp_path: Path, oauth_server: Start) -> None:
    base = oauth_server(3600, "cimd", "iss", "wrong-iss")
    server = secure_server(base)
    with pytest.raises(SignInError, match=re.escape("came from https://elsewhere.example/")):
        await sign_in(server, tmp_path, tmp_path, browser, timeout_s=60)
    state = load_credentials(tmp_path, server) or {}
    assert "tokens" not in state


async def test_a_client_name_registers_even_where_documents_are_accepted(tmp_path: Path, oauth_server: Start) -> None:
    base = oauth_server(3600, "cimd", "iss")
    await sign_in(secure_server(base, clientName="Team pi"), tmp_path, tmp_path, browser, timeout_s=60)
    seen = stats(base)
    assert seen["registrations"] == 1 and seen["client_name"] == "Team pi"
    assert seen["authorize"][0]["client_id"].startswith("client-")


async def test_insufficient_scope_during_a_call_asks_for_the_granted_and_challenged_scopes(
    tmp_path: Path, oauth_server: Start
) -> None:
    base = oauth_server(3600, "step-up")
    server = secure_server(base)
    assert await sign_in(server, tmp_path, tmp_path, browser, timeout_s=60) == 2
    connection = McpConnection(server, cwd=tmp_path, agent_dir=tmp_path)
    try:
        assert await connection.connect() == "connected", connection.error
        assert (await connection.call_tool("secret", {})).content[0].text == "the secret"
        with pytest.raises(NeedsAuthError, match=r'^MCP server "secure" requires sign-in\. Run /mcp to sign in\.$'):
            await connection.call_tool("admin", {})
        assert connection.state == "needs-auth"
        with pytest.raises(RuntimeError, match="requires sign-in"):
            await connection.call_tool("secret", {})
    finally:
        await connection.close()
    state = load_credentials(tmp_path, server)
    assert state is not None and state["stepUpScope"] == "admin"

    await sign_in(server, tmp_path, tmp_path, browser, timeout_s=60)
    assert [a["scope"] for a in stats(base)["authorize"]] == ["mcp", "mcp admin"]
    state = load_credentials(tmp_path, server)
    assert state is not None and "stepUpScope" not in state and state["scope"] == "mcp admin"
    again = McpConnection(server, cwd=tmp_path, agent_dir=tmp_path)
    try:
        assert await again.connect() == "connected", again.error
        assert (await again.call_tool("admin", {})).content[0].text == "administered"
    finally:
        await again.close()
