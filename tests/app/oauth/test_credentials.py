from __future__ import annotations

from pathlib import Path

import msgspec.structs
import pytest

from pi.app.oauth.credentials import oauth_request_auth, resolve_request_auth
from pi.app.oauth.errors import OAuthError
from pi.app.oauth.flows.base import OAuthContext
from pi.app.oauth.providers import ProviderTable
from pi.app.oauth.registry import builtin_flows
from pi.app.oauth.store import OAuthStore
from tests.app.oauth.conftest import FakeClock
from tests.support.http_server import ScriptedServer, json_response


def test_request_headers_per_provider() -> None:
    codex = oauth_request_auth("openai-codex", {"access": "jwt", "accountId": "acc"})
    assert (codex.api_key, codex.bearer) == ("jwt", True)
    assert codex.headers == {"chatgpt-account-id": "acc", "originator": "pi"}
    anthropic = oauth_request_auth("anthropic", {"access": "sk-ant-oat01-x"})
    # The wire API builds Claude Code's headers from the token itself (tests/app/oauth/test_session_oauth.py).
    assert (anthropic.api_key, anthropic.headers) == ("sk-ant-oat01-x", {})
    assert oauth_request_auth("kimi-coding", {"access": "k"}).bearer is True
    assert oauth_request_auth("openrouter", {"access": "k"}).bearer is False


async def test_env_is_used_only_when_nothing_is_stored(
    tmp_path: Path, stub: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "env-key")
    clock = FakeClock()
    table = ProviderTable()
    ctx = OAuthContext(msgspec.structs.replace(table, anthropic=table.anthropic.with_base(stub.url)), clock)
    store = OAuthStore(tmp_path / "auth.json")
    env = await resolve_request_auth(store, "anthropic", builtin_flows(), ctx)
    assert env is not None and (env.api_key, env.source) == ("env-key", "env")
    store.set("anthropic", {"type": "oauth", "access": "a", "refresh": "r", "expires": 0})
    stub.queue(json_response(400, {"error": "invalid_grant"}))
    with pytest.raises(OAuthError, match=r"^OAuth refresh failed for anthropic$"):
        await resolve_request_auth(store, "anthropic", builtin_flows(), ctx)
