"""The OAuth side of one MCP connection: which token to send, refresh after a 401, step-up challenges.

Connections never start a browser flow. They send the token a sign-in stored (refreshed when it has
expired), try one refresh when that token is refused, and note a `403 insufficient_scope` answer so
that the next sign-in asks for the wider scope; everything else ends as `needs-auth`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pi.app.mcp.config import ServerConfig


class ConnectionAuth:
    """Token and challenge bookkeeping of one connection (one instance per `McpConnection`)."""

    def __init__(self, server: ServerConfig, agent_dir: Path | None, http_auth: Any = None) -> None:
        self.server = server
        self.agent_dir = agent_dir
        """Where sign-ins stored their tokens (`mcp-auth.json`); None sends no stored token."""
        if http_auth is None and agent_dir is not None and server.auth_provider:
            from pi.app.mcp.provider_auth import ProviderBearerAuth

            http_auth = ProviderBearerAuth(agent_dir, server.auth_provider)
        self.http_auth = http_auth
        """An `httpx.Auth` for HTTP requests (a sign-in passes the token it just obtained)."""
        self._sent_token: str | None = None
        self._refresh_tried = False
        self._challenged_scope: str | None = None
        """The scope a `403 insufficient_scope` asked for since the last request began."""

    def sign_in_message(self) -> str:
        provider = self.server.auth_provider
        how = f"/login {provider}" if provider else "/mcp"
        return f'MCP server "{self.server.name}" requires sign-in. Run {how} to sign in.'

    def reset(self) -> None:
        """A new connection attempt: one refresh may be tried again, no challenge is pending."""
        self._refresh_tried = False
        self._challenged_scope = None

    def clear_challenge(self) -> None:
        """A new request begins: only a challenge to this request counts."""
        self._challenged_scope = None

    async def stored_token(self) -> str | None:
        """The access token saved by a sign-in (refreshed when expired), for servers that use OAuth."""
        self._sent_token = None
        if self.agent_dir is None or self.http_auth is not None:
            return None  # provider auth (`auth: {provider}`) sends its token per request through `http_auth`
        from pi.app.mcp.oauth_tokens import token_for_connect, uses_oauth

        if not uses_oauth(self.server):
            return None
        self._sent_token = await token_for_connect(self.agent_dir, self.server)
        return self._sent_token

    async def refreshed_after_401(self) -> bool:
        """After a 401 to a stored token: True when a refresh produced a different token to try."""
        sent, self._sent_token = self._sent_token, None
        if sent is None or self.agent_dir is None or self._refresh_tried:
            return False
        self._refresh_tried = True
        from pi.app.mcp.oauth_tokens import refresh

        fresh = await refresh(self.agent_dir, self.server, sent)
        return fresh is not None and fresh != sent

    async def watch_scope(self, response: Any, closed: asyncio.Event) -> None:
        """An httpx response hook. On `403 insufficient_scope`, note the scope and end the connection:
        the SDK only sees an HTTP error it cannot answer the pending request with, so this is where
        both are known."""
        from pi.app.mcp.oauth_tokens import insufficient_scope

        scope = insufficient_scope(response)
        if scope is not None:
            self._challenged_scope = scope
            closed.set()

    def take_step_up(self) -> bool:
        """Whether the server asked for more scope since the request began; if so the wider scope is
        remembered for the next sign-in (in `mcp-auth.json`) and the challenge is consumed."""
        scope, self._challenged_scope = self._challenged_scope, None
        if scope is None:
            return False
        if self.agent_dir is not None:
            from pi.app.mcp.oauth_tokens import record_step_up

            record_step_up(self.agent_dir, self.server, scope)
        return True


__all__ = ["ConnectionAuth"]
