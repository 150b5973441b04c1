"""Polling a device authorization (RFC 8628) until the user approves, with the spec's interval rules."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from msgspec import Struct

from pi.app.oauth.clock import Clock
from pi.app.oauth.errors import OAuthError

DEFAULT_INTERVAL = 5.0
SLOW_DOWN_STEP = 5.0
TIMEOUT_MESSAGE = "Device flow timed out"
DRIFT_TIMEOUT_MESSAGE = (
    "Device flow timed out after one or more slow_down responses. This is often caused by clock drift in WSL or VM "
    "environments. Please sync or restart the VM clock and try again."
)


class Pending(Struct, frozen=True):
    """Not approved yet; keep polling."""


class SlowDown(Struct, frozen=True):
    interval: float | None = None


class Approved(Struct, frozen=True):
    body: dict[str, Any]


PollOutcome = Pending | SlowDown | Approved


def start_interval(server_value: Any) -> float:
    """The server's interval when it gave one (at least 1 s), else 5 s."""
    if isinstance(server_value, (int, float)) and not isinstance(server_value, bool) and server_value > 0:
        return max(1.0, float(server_value))
    return DEFAULT_INTERVAL


async def poll_device(
    poll: Callable[[], Awaitable[PollOutcome]],
    *,
    interval: float,
    expires_in: float,
    clock: Clock,
    wait_first: bool = True,
) -> dict[str, Any]:
    """Call `poll` every `interval` seconds until it approves or `expires_in` seconds have passed."""
    deadline = clock.now() + expires_in
    slowed = False
    first = True
    while True:
        if wait_first or not first:
            if clock.now() + interval > deadline:
                break
            await clock.sleep(interval)
        first = False
        outcome = await poll()
        if isinstance(outcome, Approved):
            return outcome.body
        if isinstance(outcome, SlowDown):
            slowed = True
            interval = max(1.0, outcome.interval) if outcome.interval else interval + SLOW_DOWN_STEP
    raise OAuthError(DRIFT_TIMEOUT_MESSAGE if slowed else TIMEOUT_MESSAGE)


def rfc8628_outcome(status: int, body: dict[str, Any], token_key: str = "access_token") -> PollOutcome:
    """Read a standard device-token reply: `authorization_pending`, `slow_down`, a token, or an error."""
    error = body.get("error")
    if isinstance(body.get(token_key), str) and not error:
        return Approved(body)
    if error == "authorization_pending":
        return Pending()
    if error == "slow_down":
        value = body.get("interval")
        return SlowDown(float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None)
    if error == "expired_token":
        raise OAuthError(TIMEOUT_MESSAGE)
    if error == "access_denied":
        raise OAuthError("Sign-in was denied")
    detail = body.get("error_description") or error or "no token in the reply"
    raise OAuthError(f"Device authorization failed (HTTP {status}): {detail}")


def check_verification_uri(uri: Any, https_only: bool = False) -> str:
    """A server-provided URL shown to the user must be http(s) (https only where the provider says)."""
    allowed = ("https://",) if https_only else ("https://", "http://")
    if not isinstance(uri, str) or not uri.lower().startswith(allowed):
        raise OAuthError("The sign-in server returned an unusable verification URL")
    return uri


__all__ = [
    "DRIFT_TIMEOUT_MESSAGE",
    "TIMEOUT_MESSAGE",
    "Approved",
    "Pending",
    "PollOutcome",
    "SlowDown",
    "check_verification_uri",
    "poll_device",
    "rfc8628_outcome",
    "start_interval",
]
