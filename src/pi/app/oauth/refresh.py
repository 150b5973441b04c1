"""Keeping a stored OAuth token usable: refresh it before a request when under 5 minutes remain.

The refresh runs under the auth.json lock and re-reads the entry first, so when several requests or
pi processes notice the same stale token only the first refreshes and the rest use its result. It
is bounded (15 s) and shielded from the caller's cancellation, so a half-done refresh never loses
the rotated refresh token.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from pi.app.oauth.clock import now_ms
from pi.app.oauth.errors import OAuthError
from pi.app.oauth.flows.base import OAuthContext, OAuthFlow
from pi.app.oauth.providers import REFRESH_MARGIN_MS, REFRESH_TIMEOUT_SECONDS
from pi.app.oauth.store import OAuthStore

log = logging.getLogger(__name__)


def needs_refresh(entry: dict[str, Any], now: int, margin_ms: int = REFRESH_MARGIN_MS) -> bool:
    expires = entry.get("expires")
    if not isinstance(expires, (int, float)):
        return False
    return now + margin_ms >= expires


async def fresh_credential(
    store: OAuthStore, flow: OAuthFlow, ctx: OAuthContext, min_validity_ms: int = REFRESH_MARGIN_MS
) -> dict[str, Any]:
    """The stored OAuth entry for `flow.id`, refreshed first when it is about to expire."""
    entry = await asyncio.to_thread(store.get, flow.id)
    if entry is None or entry.get("type") != "oauth":
        raise OAuthError(f"No OAuth login stored for {flow.id}")
    if not needs_refresh(entry, now_ms(ctx.clock), min_validity_ms):
        return entry
    task = asyncio.ensure_future(asyncio.to_thread(_refresh_locked, store, flow, ctx, min_validity_ms))
    return await asyncio.shield(task)


def _refresh_locked(store: OAuthStore, flow: OAuthFlow, ctx: OAuthContext, min_validity_ms: int) -> dict[str, Any]:
    """Runs on a worker thread holding the lock; the refresh gets its own event loop there."""
    with store.locked() as data:
        entry = data.get(flow.id)
        if not isinstance(entry, dict) or entry.get("type") != "oauth":
            raise OAuthError(f"No OAuth login stored for {flow.id}")
        if not needs_refresh(entry, now_ms(ctx.clock), min_validity_ms):
            return entry
        try:
            renewed = asyncio.run(asyncio.wait_for(flow.refresh(entry, ctx), REFRESH_TIMEOUT_SECONDS))
        except (OAuthError, TimeoutError) as exc:
            log.warning("oauth refresh for %s failed: %s", flow.id, exc)
            raise OAuthError(f"OAuth refresh failed for {flow.id}") from exc
        updated = {**entry, **renewed}
        data[flow.id] = updated
        return updated


__all__ = ["fresh_credential", "needs_refresh"]
