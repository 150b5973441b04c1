"""The few HTTP calls OAuth makes: JSON or form POSTs and GETs, returning status and parsed JSON.

Error messages carry the status and the server's `error`/`error_description`, never a request body
(which may hold a code or token).
"""

from __future__ import annotations

import json
from typing import Any

from msgspec import Struct

from pi.app.oauth.errors import OAuthError


class Reply(Struct, frozen=True):
    status: int
    body: dict[str, Any]

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def error_text(self) -> str:
        error = self.body.get("error")
        if isinstance(error, dict):
            error = error.get("message") or error.get("code")
        description = self.body.get("error_description") or self.body.get("message")
        parts = [f"HTTP {self.status}"] + [str(p) for p in (error, description) if p]
        return ": ".join(parts)


async def request(
    method: str,
    url: str,
    *,
    json_body: Any = None,
    form: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 30.0,
) -> Reply:
    """One request; network failures become OAuthError naming the host only."""
    import httpx

    try:
        async with httpx.AsyncClient(timeout=timeout) as client:
            response = await client.request(
                method, url, json=json_body, data=form, headers={"accept": "application/json", **(headers or {})}
            )
    except httpx.HTTPError as exc:
        raise OAuthError(f"Cannot reach {httpx.URL(url).host}: {type(exc).__name__}") from None
    try:
        body = json.loads(response.content or b"{}")
    except ValueError:
        body = {}
    return Reply(response.status_code, body if isinstance(body, dict) else {"value": body})


def expect_ok(reply: Reply, what: str) -> dict[str, Any]:
    if not reply.ok:
        raise OAuthError(f"{what} failed ({reply.error_text()})")
    return reply.body


def require_str(body: dict[str, Any], key: str, what: str) -> str:
    value = body.get(key)
    if not isinstance(value, str) or not value:
        raise OAuthError(f'{what} response carries no "{key}"')
    return value


__all__ = ["Reply", "expect_ok", "request", "require_str"]
