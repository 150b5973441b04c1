"""What a login needs from its user interface: four prompts and four events.

The TUI, RPC mode, extensions' `ctx.ui` and `pi auth login` each implement `LoginInteraction`;
flows only ever talk to this surface, so one flow works in all of them.
"""

from __future__ import annotations

from typing import Protocol

from msgspec import Struct


class SelectOption(Struct, frozen=True):
    id: str
    label: str


class DeviceCode(Struct, frozen=True):
    user_code: str
    verification_uri: str
    interval_seconds: float | None = None
    expires_in_seconds: float | None = None
    open_browser_on_confirm: bool = False
    copy_code_on_confirm: bool = False


class LoginInteraction(Protocol):
    async def text(self, message: str, placeholder: str | None = None, allow_empty: bool = False) -> str:
        """A line of text; raises LoginCancelled when the user backs out."""
        ...

    async def secret(self, message: str) -> str:
        """A value not echoed (an API key)."""
        ...

    async def select(self, message: str, options: list[SelectOption]) -> str | None:
        """The chosen option's id, or None when cancelled."""
        ...

    async def manual_code(self, message: str) -> str:
        """A pasted code or redirect URL; cancelled (task cancel) when the callback server wins the race."""
        ...

    def auth_url(self, url: str, instructions: str | None = None) -> None: ...

    def device_code(self, code: DeviceCode) -> None: ...

    def progress(self, message: str) -> None: ...

    def info(self, message: str) -> None: ...


__all__ = ["DeviceCode", "LoginInteraction", "SelectOption"]
