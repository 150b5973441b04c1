"""`auth: {"provider": "<id>"}`: an HTTP MCP server that accepts a `/login <id>` credential.

The token is worked out again for every HTTP request, as a model request's is: auth.json is read
then, an OAuth login about to expire is refreshed first (under the auth.json lock, so concurrent
pi processes refresh once), and a login or logout in another process applies at once. MCP keeps
no copy of the token. Without a usable credential the request goes out without one, the server
answers 401 and the connection ends as `needs-auth` with "Run /login <id>".
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

if TYPE_CHECKING:
    from pi.app.auth import AuthStorage

log = logging.getLogger(__name__)


async def provider_token(auth: AuthStorage, provider: str) -> str | None:
    """`provider`'s credential now: a stored login (refreshed when needed), else its key.

    The key comes from ``--api-key``, auth.json or the provider's environment variable, in that
    order. A login whose refresh fails gives None rather than an environment key: the stored login
    owns the provider, and the server's 401 then asks for a new sign-in.
    """
    if not auth.runtime_api_key(provider) and auth.stored_type(provider) == "oauth":
        from pi.app.oauth.errors import OAuthError
        from pi.app.oauth.session_auth import SessionCredentials

        try:
            resolved = await SessionCredentials(auth).resolve(provider)
        except OAuthError as exc:
            log.info("MCP auth for provider %s: %s", provider, exc)
            return None
        return resolved.api_key if resolved is not None else None
    return auth.get_api_key(provider)


class ProviderBearerAuth(httpx.Auth):
    """Sends `provider`'s current credential as `Authorization: Bearer` on each request."""

    def __init__(self, agent_dir: Path, provider: str) -> None:
        self.provider = provider
        self._path = agent_dir / "auth.json"
        self._auth: AuthStorage | None = None

    def _storage(self) -> AuthStorage:
        if self._auth is None:
            from pi.app.auth import AuthStorage

            self._auth = AuthStorage(self._path)
        return self._auth

    async def async_auth_flow(self, request: httpx.Request) -> AsyncGenerator[httpx.Request, httpx.Response]:
        storage = self._storage()
        storage.reload_if_changed()
        token = await provider_token(storage, self.provider)
        if token:
            request.headers["Authorization"] = f"Bearer {token}"
        yield request


__all__ = ["ProviderBearerAuth", "provider_token"]
