"""The loopback server a browser is redirected to after sign-in.

It answers only `GET <path>`, checks `state`, and completes once: later hits get 409 so a reloaded
tab cannot replay a code. Every page is small HTML marked no-store, since it may carry a code.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
import os
from urllib.parse import parse_qs, urlsplit

from msgspec import Struct

from pi.app.oauth.errors import OAuthError
from pi.app.oauth.providers import CALLBACK_HOST_ENV

log = logging.getLogger(__name__)

_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed", 409: "Conflict"}


class CallbackResult(Struct, frozen=True):
    code: str
    state: str | None
    params: dict[str, str]


def callback_host() -> str:
    return os.environ.get(CALLBACK_HOST_ENV) or "127.0.0.1"


class CallbackServer:
    """Serve one sign-in redirect; `wait()` yields its code or raises the provider's error."""

    def __init__(self, provider_name: str, path: str, expected_state: str | None, port: int = 0) -> None:
        self.provider_name = provider_name
        self.path = path
        self.expected_state = expected_state
        self.requested_port = port
        self.port = 0
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[CallbackResult] | None = None

    async def start(self) -> CallbackServer:
        """Bind the port (OSError when it is taken)."""
        self._result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._serve, callback_host(), self.requested_port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def wait(self) -> CallbackResult:
        assert self._result is not None, "start() first"
        return await asyncio.shield(self._result)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None
        if self._result is not None and not self._result.done():
            self._result.cancel()

    async def __aenter__(self) -> CallbackServer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            request_line = head.split(b"\r\n", 1)[0].decode("latin-1")
            status, message = self._respond(request_line)
            writer.write(_page(status, message))
            await writer.drain()
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ConnectionError) as exc:
            log.debug("oauth callback: bad request: %s", exc)
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    def _respond(self, request_line: str) -> tuple[int, str]:
        parts = request_line.split(" ")
        if len(parts) < 2:
            return 400, "Bad request."
        method, target = parts[0], parts[1]
        url = urlsplit(target)
        if url.path != self.path:
            return 404, "Callback route not found."
        if method != "GET":
            return 405, "Method not allowed."
        assert self._result is not None
        if self._result.done():
            return 409, "This sign-in has already been handled."
        params = {key: values[0] for key, values in parse_qs(url.query, keep_blank_values=True).items()}
        if self.expected_state is not None and params.get("state") != self.expected_state:
            return 400, "State mismatch."
        if "error" in params:
            description = params.get("error_description") or params["error"]
            message = f"{self.provider_name} authorization failed: {description}"
            self._result.set_exception(OAuthError(message))
            return 400, message
        code = params.get("code")
        if not code:
            return 400, "Missing authorization code."
        self._result.set_result(CallbackResult(code, params.get("state"), params))
        return 200, f"Signed in to {self.provider_name}. You may now close this page."


def _page(status: int, message: str) -> bytes:
    body = (
        '<!doctype html><html><head><meta charset="utf-8"><title>pi</title></head>'
        f"<body><p>{html.escape(message)}</p></body></html>"
    ).encode()
    head = (
        f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\n"
        "Content-Type: text/html; charset=utf-8\r\n"
        "Cache-Control: no-store\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode("latin-1") + body


__all__ = ["CallbackResult", "CallbackServer", "callback_host"]
