"""What every login flow provides, and what it is given."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from msgspec import Struct, field

from pi.app.oauth.clock import Clock, SystemClock
from pi.app.oauth.interaction import LoginInteraction, SelectOption
from pi.app.oauth.providers import ProviderTable


class OAuthContext(Struct):
    """Dependencies of a flow: the constants table, time, the agent dir (for settings) and the environment."""

    providers: ProviderTable = field(default_factory=ProviderTable)
    clock: Clock = field(default_factory=SystemClock)
    agent_dir: Path | None = None
    env: dict[str, str] | None = None

    def getenv(self, name: str) -> str | None:
        import os

        return (self.env if self.env is not None else os.environ).get(name) or None


class OAuthFlow(Protocol):
    id: str
    name: str
    is_subscription: bool
    api_key_login: bool
    """Whether the provider also takes a pasted API key (`pi auth login --api-key`)."""
    methods: tuple[SelectOption, ...]
    """Sign-in methods, default first; empty when there is only one."""

    async def login(self, interaction: LoginInteraction, ctx: OAuthContext, method: str | None) -> dict[str, Any]:
        """Run the sign-in; returns the auth.json entry (`type: "oauth"` and the provider's fields)."""
        ...

    async def refresh(self, credential: dict[str, Any], ctx: OAuthContext) -> dict[str, Any]:
        """A renewed entry from a stored one; raises OAuthError when the provider refuses."""
        ...


def oauth_entry(access: str, refresh: str, expires: int, **extra: Any) -> dict[str, Any]:
    return {"type": "oauth", "refresh": refresh, "access": access, "expires": expires, **extra}


__all__ = ["OAuthContext", "OAuthFlow", "oauth_entry"]
