"""Stored MCP OAuth state: the SDK's `TokenStorage` over `mcp-auth.json`, and token refresh.

Ordinary connections never start a browser flow. They send the stored access token and, when it
has expired (or the server answered 401), trade the refresh token for a new one at the token
endpoint the sign-in recorded. Refreshes take a lock file per server, so two pi processes sharing
the agent dir do not spend the same one-time refresh token twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from pi.app.mcp.auth_store import credential_key, load_credentials, save_credentials
from pi.app.mcp.config import ServerConfig

log = logging.getLogger(__name__)

EXPIRY_MARGIN_S = 30.0
LOCK_STALE_S = 20.0
LOCK_WAIT_S = 25.0


def uses_oauth(server: ServerConfig) -> bool:
    """OAuth applies to HTTP servers without an `Authorization` header and without `auth`."""
    return (
        server.transport == "http"
        and server.auth_provider is None
        and not any(key.lower() == "authorization" for key in server.headers)
    )


class StateStorage:
    """The `mcp.client.auth.TokenStorage` of one server, saved to `mcp-auth.json` on every change."""

    def __init__(self, agent_dir: Path, server: ServerConfig, state: dict[str, Any] | None = None) -> None:
        self.agent_dir = agent_dir
        self.server = server
        self.state: dict[str, Any] = dict(state if state is not None else load_credentials(agent_dir, server) or {})

    def save(self) -> None:
        save_credentials(self.agent_dir, self.server, self.state)

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        tokens = self.state.get("tokens")
        return OAuthToken.model_validate(tokens) if isinstance(tokens, dict) else None

    async def set_tokens(self, tokens: Any) -> None:
        store_tokens(self.state, tokens.model_dump(mode="json", exclude_none=True))
        self.save()

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        info = self.state.get("clientInformation")
        return OAuthClientInformationFull.model_validate(info) if isinstance(info, dict) else None

    async def set_client_info(self, client_info: Any) -> None:
        self.state["clientInformation"] = client_info.model_dump(mode="json", exclude_none=True)
        self.save()


def store_tokens(state: dict[str, Any], tokens: dict[str, Any]) -> None:
    """Keep the token response and when it expires (`expiresAt`, epoch milliseconds)."""
    previous = state.get("tokens")
    if "refresh_token" not in tokens and isinstance(previous, dict) and previous.get("refresh_token"):
        tokens = {**tokens, "refresh_token": previous["refresh_token"]}  # servers may keep the old one valid
    state["tokens"] = tokens
    expires_in = tokens.get("expires_in")
    if isinstance(expires_in, int | float) and not isinstance(expires_in, bool):
        state["expiresAt"] = int((time.time() + expires_in) * 1000)
    else:
        state.pop("expiresAt", None)


def access_token(state: dict[str, Any]) -> str | None:
    tokens = state.get("tokens")
    token = tokens.get("access_token") if isinstance(tokens, dict) else None
    return token if isinstance(token, str) and token else None


def is_expired(state: dict[str, Any], margin_s: float = EXPIRY_MARGIN_S) -> bool:
    expires = state.get("expiresAt")
    return isinstance(expires, int | float) and expires / 1000 <= time.time() + margin_s


def can_refresh(state: dict[str, Any]) -> bool:
    tokens = state.get("tokens")
    info = state.get("clientInformation")
    return (
        isinstance(tokens, dict)
        and bool(tokens.get("refresh_token"))
        and isinstance(info, dict)
        and bool(info.get("client_id"))
        and isinstance(state.get("tokenEndpoint"), str)
    )


def lock_path(agent_dir: Path, server: ServerConfig) -> Path:
    digest = hashlib.sha256(credential_key(server).encode("utf-8")).hexdigest()[:16]
    return agent_dir / f"mcp-auth-refresh-{digest}"


@contextlib.asynccontextmanager
async def refresh_lock(path: Path) -> AsyncIterator[None]:
    """An exclusive lock file; a lock older than 20 s is stale. Gives up waiting after 25 s."""
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
            os.close(fd)
            break
        except FileExistsError:
            with contextlib.suppress(OSError):
                if time.time() - path.stat().st_mtime > LOCK_STALE_S:
                    path.unlink()
                    continue
            if time.monotonic() > deadline:
                break  # proceed without the lock rather than never connecting
            await asyncio.sleep(0.1)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            path.unlink()


async def refresh(agent_dir: Path, server: ServerConfig, sent_token: str | None = None) -> str | None:
    """A fresh access token for `server`, or None when it cannot be refreshed (sign-in needed).

    Under the lock the state is re-read: when another process already replaced `sent_token`, its
    new token is used as is.
    """
    async with refresh_lock(lock_path(agent_dir, server)):
        state = load_credentials(agent_dir, server) or {}
        current = access_token(state)
        if current is not None and current != sent_token and not is_expired(state):
            return current
        if not can_refresh(state):
            return None
        try:
            tokens = await _refresh_request(state, server)
        except Exception as error:
            log.info("MCP server %s: token refresh failed: %s", server.name, error)
            return None
        if tokens is None:
            return None
        store_tokens(state, tokens)
        save_credentials(agent_dir, server, state)
        return access_token(state)


async def _refresh_request(state: dict[str, Any], server: ServerConfig) -> dict[str, Any] | None:
    import httpx

    info = state["clientInformation"]
    form = {
        "grant_type": "refresh_token",
        "refresh_token": state["tokens"]["refresh_token"],
        "client_id": info["client_id"],
    }
    if server.url:
        form["resource"] = server.url
    if info.get("client_secret") and info.get("token_endpoint_auth_method") != "none":
        form["client_secret"] = info["client_secret"]
    async with httpx.AsyncClient(timeout=30.0) as client:
        response = await client.post(state["tokenEndpoint"], data=form)
    if response.status_code != 200:
        return None
    body = response.json()
    return body if isinstance(body, dict) and isinstance(body.get("access_token"), str) else None


def provider_token(agent_dir: Path, provider: str) -> str | None:
    """`auth: {provider}`: the key or login token `/login <provider>` stored in auth.json."""
    from pi.app.auth import AuthStorage

    return AuthStorage(agent_dir / "auth.json").stored_api_key(provider)


def insufficient_scope(response: Any) -> str | None:
    """The scope a `403` with `WWW-Authenticate: Bearer error="insufficient_scope"` names ("" when
    it names none); None for any other response."""
    if response.status_code != 403:
        return None
    from mcp.client.auth.utils import extract_field_from_www_auth, extract_scope_from_www_auth

    if extract_field_from_www_auth(response, "error") != "insufficient_scope":
        return None
    return extract_scope_from_www_auth(response) or ""


def record_step_up(agent_dir: Path, server: ServerConfig, scope: str) -> None:
    """Keep the scope an `insufficient_scope` answer named, for the next sign-in to add to the granted
    ones (an empty challenge asks for the granted scopes again)."""
    from pi.app.mcp.oauth_client import union

    state = load_credentials(agent_dir, server)
    if state is None:
        return
    state["stepUpScope"] = union(state.get("stepUpScope"), scope) or ""
    save_credentials(agent_dir, server, state)


def step_up_pending(agent_dir: Path, server: ServerConfig) -> bool:
    """Whether the server asked for more scope than the stored tokens carry, and no sign-in has
    answered that yet."""
    state = load_credentials(agent_dir, server)
    return state is not None and "stepUpScope" in state


async def token_for_connect(agent_dir: Path, server: ServerConfig) -> str | None:
    """The access token to send: the stored one, refreshed first when it has expired."""
    state = load_credentials(agent_dir, server) or {}
    token = access_token(state)
    if token is not None and is_expired(state) and can_refresh(state):
        return await refresh(agent_dir, server, token) or token
    return token


__all__ = [
    "StateStorage",
    "access_token",
    "can_refresh",
    "insufficient_scope",
    "is_expired",
    "lock_path",
    "provider_token",
    "record_step_up",
    "refresh",
    "step_up_pending",
    "store_tokens",
    "token_for_connect",
    "uses_oauth",
]
