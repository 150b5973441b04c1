"""The standard device grant (RFC 8628) several providers share: request a code, show it, poll for a token."""

from __future__ import annotations

from typing import Any

from pi.app.oauth.clock import Clock
from pi.app.oauth.device_flow import PollOutcome, check_verification_uri, poll_device, rfc8628_outcome, start_interval
from pi.app.oauth.http import expect_ok, request, require_str
from pi.app.oauth.interaction import DeviceCode, LoginInteraction

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


async def device_grant(
    *,
    what: str,
    device_url: str,
    token_url: str,
    form: dict[str, str],
    interaction: LoginInteraction,
    clock: Clock,
    headers: dict[str, str] | None = None,
    https_only: bool = False,
    wait_first: bool = True,
) -> dict[str, Any]:
    """Run the grant; returns the token reply. `form` is sent with both requests (client id, scope...)."""
    reply = await request("POST", device_url, form=form, headers=headers)
    body = expect_ok(reply, f"{what} device code request")
    device_code = require_str(body, "device_code", f"{what} device code")
    user_code = require_str(body, "user_code", f"{what} device code")
    uri = body.get("verification_uri_complete") or body.get("verification_uri")
    verification = check_verification_uri(uri, https_only)
    interval = start_interval(body.get("interval"))
    expires_raw = body.get("expires_in")
    expires_in = float(expires_raw) if isinstance(expires_raw, (int, float)) and expires_raw > 0 else 900.0
    interaction.device_code(DeviceCode(user_code, verification, interval, expires_in))

    poll_form = {**form, "device_code": device_code, "grant_type": DEVICE_GRANT}
    poll_form.pop("scope", None)
    poll_form.pop("referrer", None)

    async def poll() -> PollOutcome:
        r = await request("POST", token_url, form=poll_form, headers=headers)
        return rfc8628_outcome(r.status, r.body)

    return await poll_device(poll, interval=interval, expires_in=expires_in, clock=clock, wait_first=wait_first)


def expires_in_seconds(body: dict[str, Any], default: float) -> float:
    value = body.get("expires_in")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default


__all__ = ["DEVICE_GRANT", "device_grant", "expires_in_seconds"]
