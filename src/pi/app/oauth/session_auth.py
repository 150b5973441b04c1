"""The OAuth credential a session's next request uses, worked out when that request is made.

Nothing is kept between requests: the model a request goes to names the provider, auth.json is read
then, and a token about to expire is refreshed under the auth.json lock (see `refresh`), so a switch
of model or session, a login in another pi process or a refresh done by one is seen at once.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from pi.app.oauth.credentials import RequestAuth, oauth_request_auth
from pi.app.oauth.flows.base import OAuthContext

if TYPE_CHECKING:
    from pi.app.auth import AuthStorage


class SessionCredentials(Struct):
    """Per-request OAuth resolution over the session's `AuthStorage`.

    `context` is the flows' constants and clock; by default the production table, rebased by
    ``PI_OAUTH_ENDPOINTS`` when that is set (a pi process talking to loopback stubs).
    """

    auth: AuthStorage
    context: OAuthContext | None = None

    def _context(self) -> OAuthContext:
        if self.context is None:
            from pi.app.oauth.providers import table_from_env

            agent_dir = self.auth.path.parent if self.auth.path is not None else None
            self.context = OAuthContext(providers=table_from_env(os.environ), agent_dir=agent_dir)
        return self.context

    async def resolve(self, provider: str) -> RequestAuth | None:
        """The OAuth credential for `provider` now (refreshed first when needed); None when it has none.

        Raises OAuthError (``OAuth refresh failed for <provider>``) when a needed refresh fails:
        the stored login owns the provider, so there is no fall back to an environment key.
        """
        if self.auth.runtime_api_key(provider):
            return None
        path = self.auth.path
        if path is None:
            entry = self.auth.raw_entry(provider)
            return oauth_request_auth(provider, entry) if entry is not None and _is_oauth(entry) else None
        return await _resolve_stored(path, provider, self._context())


async def _resolve_stored(path: Path, provider: str, ctx: OAuthContext) -> RequestAuth | None:
    from pi.app.oauth.provider_names import oauth_flows
    from pi.app.oauth.refresh import fresh_credential
    from pi.app.oauth.store import OAuthStore

    store = OAuthStore(path)
    entry = await asyncio.to_thread(store.get, provider)
    if not _is_oauth(entry):
        return None
    flow = oauth_flows().get(provider)
    if flow is not None:
        entry = await fresh_credential(store, flow, ctx)
    assert entry is not None
    from pi.app.oauth.extension_flow import ExtensionOAuthFlow

    if isinstance(flow, ExtensionOAuthFlow):
        return RequestAuth(await flow.api_key(entry), "oauth")
    return oauth_request_auth(provider, entry)


def _is_oauth(entry: dict[str, Any] | None) -> bool:
    return isinstance(entry, dict) and entry.get("type") == "oauth" and isinstance(entry.get("access"), str)


__all__ = ["SessionCredentials"]
