"""Whether requests to a provider are paid by a subscription login (the footer's and /session's ` (sub)`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi.app.auth import AuthStorage

ALWAYS_SUBSCRIPTION = frozenset({"kimi-coding"})
"""Providers billed by subscription whatever their credential (Kimi Code's keys belong to a plan)."""


def uses_subscription(auth: AuthStorage, provider: str) -> bool:
    """True for a stored OAuth login whose provider is a subscription, and for `ALWAYS_SUBSCRIPTION`."""
    if provider in ALWAYS_SUBSCRIPTION:
        return True
    if auth.runtime_api_key(provider) or auth.stored_type(provider) != "oauth":
        return False
    from pi.app.oauth.provider_names import oauth_flows

    flow = oauth_flows().get(provider)
    return flow is not None and flow.is_subscription


__all__ = ["ALWAYS_SUBSCRIPTION", "uses_subscription"]
