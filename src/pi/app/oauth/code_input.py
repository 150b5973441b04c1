"""Getting the authorization code: from the callback server, or pasted by the user, whichever comes first."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any
from urllib.parse import parse_qs, urlsplit

from msgspec import Struct

from pi.app.oauth.callback_server import CallbackServer
from pi.app.oauth.errors import LoginCancelled, OAuthError
from pi.app.oauth.interaction import LoginInteraction

PASTE_PROMPT = "Paste the authorization code or the full redirect URL:"


class PastedCode(Struct, frozen=True):
    code: str
    state: str | None
    params: dict[str, str]


def parse_pasted(text: str) -> PastedCode:
    """Read a redirect URL, a query string, `code#state` or a bare code."""
    value = text.strip()
    if not value:
        raise OAuthError("No authorization code was entered")
    query: str | None = None
    if "://" in value:
        query = urlsplit(value).query
    elif "code=" in value:
        query = value.lstrip("?")
    if query is not None:
        params = {key: values[0] for key, values in parse_qs(query, keep_blank_values=True).items()}
        if "error" in params:
            raise OAuthError(f"Authorization failed: {params.get('error_description') or params['error']}")
        if not params.get("code"):
            raise OAuthError("Missing authorization code.")
        return PastedCode(params["code"], params.get("state"), params)
    if "#" in value:
        code, state = value.split("#", 1)
        return PastedCode(code, state or None, {"code": code, "state": state})
    return PastedCode(value, None, {"code": value})


def check_state(got: str | None, expected: str | None) -> None:
    if expected is not None and got is not None and got != expected:
        raise OAuthError("OAuth state mismatch")


async def wait_for_code(
    server: CallbackServer | None, interaction: LoginInteraction, expected_state: str | None
) -> PastedCode:
    """Race the callback against a manual paste; the loser is cancelled. No server → paste only."""
    manual: asyncio.Future[Any] = asyncio.ensure_future(interaction.manual_code(PASTE_PROMPT))
    tasks: set[asyncio.Future[Any]] = {manual}
    callback: asyncio.Future[Any] | None = None
    if server is not None:
        callback = asyncio.ensure_future(server.wait())
        tasks.add(callback)
    try:
        while True:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            if callback is not None and callback in done:
                result = callback.result()
                return PastedCode(result.code, result.state, result.params)
            if manual in done:
                if manual.cancelled():
                    raise LoginCancelled()
                pasted = parse_pasted(str(manual.result()))
                check_state(pasted.state, expected_state)
                return pasted
    finally:
        for task in tasks:
            if not task.done():
                task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task


__all__ = ["PASTE_PROMPT", "PastedCode", "check_state", "parse_pasted", "wait_for_code"]
