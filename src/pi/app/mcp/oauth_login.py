"""Signing in to an MCP server: the browser flow behind `pi mcp login` and `/mcp login`.

The SDK's `OAuthClientProvider` does the protocol (RFC 9728 and RFC 8414 discovery, client ID
metadata documents or dynamic client registration, PKCE S256, the token exchange). This module
supplies what pi decides: the loopback callback, which client identity to use, where the state is
kept (`mcp-auth.json`), and the connection that proves the tokens work.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from pi.app.mcp.config import ServerConfig

log = logging.getLogger(__name__)

CLIENT_METADATA_URL = "https://pi.dev/oauth/client.json"
DEFAULT_CLIENT_NAME = "pi"
LOGIN_TIMEOUT_S = 300.0
CALLBACK_PAGE = b"Signed in. You can close this window and return to pi.\n"


class SignInError(RuntimeError):
    """The sign-in did not complete; the message says why."""


@dataclass(slots=True)
class Callback:
    """The loopback listener: its redirect URI and the future of `(code, state)`."""

    redirect_uri: str
    result: asyncio.Future[tuple[str, str | None]]


async def _answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, callback: Callback) -> None:
    try:
        request_line = (await reader.readline()).decode("latin-1")
        while (await reader.readline()).strip():
            pass
        target = request_line.split(" ")[1] if request_line.count(" ") >= 2 else "/"
        parts = urlsplit(target)
        expected = urlsplit(callback.redirect_uri).path or "/"
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        status = b"404 Not Found"
        if parts.path == expected and ("code" in query or "error" in query):
            status = b"200 OK"
            if not callback.result.done():
                if "error" in query:
                    detail = query.get("error_description") or query["error"]
                    callback.result.set_exception(SignInError(f"the authorization server refused: {detail}"))
                else:
                    callback.result.set_result((query["code"], query.get("state")))
        body = CALLBACK_PAGE if status.startswith(b"200") else b"Not found\n"
        head = f"HTTP/1.1 {status.decode()}\r\ncontent-type: text/plain\r\ncontent-length: {len(body)}\r\n"
        writer.write(head.encode() + b"connection: close\r\n\r\n" + body)
        await writer.drain()
    except (OSError, IndexError, UnicodeError) as error:
        log.debug("MCP sign-in callback: %s", error)
    finally:
        writer.close()


@contextlib.asynccontextmanager
async def loopback_callback(server: ServerConfig) -> AsyncIterator[Callback]:
    """Listen on 127.0.0.1 (`callbackPort`, else a free port) for the authorization redirect."""
    oauth = server.oauth or {}
    configured = oauth.get("callbackUrl")
    port = oauth.get("callbackPort") or (urlsplit(configured).port if configured else None) or 0
    result: asyncio.Future[tuple[str, str | None]] = asyncio.get_running_loop().create_future()
    holder: list[Callback] = []
    listener = await asyncio.start_server(lambda r, w: _answer(r, w, holder[0]), "127.0.0.1", port)
    actual = listener.sockets[0].getsockname()[1]
    holder.append(Callback(configured or f"http://127.0.0.1:{actual}/callback", result))
    try:
        yield holder[0]
    finally:
        listener.close()
        await listener.wait_closed()


def _registration_mode(oauth: dict[str, Any]) -> str:
    """`dcr` when forced or implied (`clientName`, a callback path other than /callback), else as set."""
    mode = str(oauth.get("clientRegistration") or "auto")
    callback = oauth.get("callbackUrl")
    if mode == "auto" and ("clientName" in oauth or (callback and urlsplit(callback).path != "/callback")):
        return "dcr"
    return mode


def _seed_client(storage: Any, server: ServerConfig, redirect_uri: str) -> None:
    """Use a configured `clientId`, else keep an earlier registration only if it has this redirect URI."""
    oauth = server.oauth or {}
    if oauth.get("clientId"):
        from pi.app.mcp.secrets import expand_value

        secret = oauth.get("clientSecret")
        info: dict[str, Any] = {
            "client_id": oauth["clientId"],
            "redirect_uris": [redirect_uri],
            "token_endpoint_auth_method": "client_secret_post" if secret else "none",
        }
        if secret:
            info["client_secret"] = expand_value(secret)
        storage.state["clientInformation"] = info
        return
    previous = storage.state.get("clientInformation")
    if isinstance(previous, dict) and redirect_uri not in (previous.get("redirect_uris") or []):
        storage.state.pop("clientInformation", None)


def build_provider(
    server: ServerConfig,
    storage: Any,
    callback: Callback,
    open_url: Callable[[str], Awaitable[None]],
    timeout_s: float,
) -> Any:
    """The SDK's OAuth provider configured the way pi signs in."""
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata

    oauth = server.oauth or {}
    mode = _registration_mode(oauth)
    metadata = OAuthClientMetadata(
        redirect_uris=[callback.redirect_uri],
        client_name=oauth.get("clientName") or DEFAULT_CLIENT_NAME,
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
        scope=oauth.get("scope"),
    )

    async def wait_for_callback() -> tuple[str, str | None]:
        try:
            return await asyncio.wait_for(asyncio.shield(callback.result), timeout_s)
        except TimeoutError as error:
            raise SignInError(f"no answer from the browser within {timeout_s:g} s") from error

    use_cimd = mode != "dcr" and not oauth.get("clientId") and urlsplit(callback.redirect_uri).path == "/callback"
    return OAuthClientProvider(
        server_url=server.url or "",
        client_metadata=metadata,
        storage=storage,
        redirect_handler=open_url,
        callback_handler=wait_for_callback,
        timeout=timeout_s,
        client_metadata_url=CLIENT_METADATA_URL if use_cimd else None,
    )


def accept_pasted(callback: Callback, text: str) -> bool:
    """The redirect URL pasted by the user (when the browser cannot reach the loopback port)."""
    query = {k: v[0] for k, v in parse_qs(urlsplit(text.strip()).query).items()}
    if "code" not in query or callback.result.done():
        return False
    callback.result.set_result((query["code"], query.get("state")))
    return True


async def _read_pasted(callback: Callback, read_line: Callable[[], Awaitable[str]]) -> None:
    while not callback.result.done():
        line = await read_line()
        if not line:
            return
        accept_pasted(callback, line)


async def sign_in(
    server: ServerConfig,
    agent_dir: Path,
    cwd: Path,
    open_url: Callable[[str], Awaitable[None]],
    *,
    timeout_s: float = LOGIN_TIMEOUT_S,
    read_line: Callable[[], Awaitable[str]] | None = None,
) -> int:
    """Run the browser flow, store the tokens, prove them with a connection; the number of tools.

    With `read_line`, a pasted redirect URL completes the flow as the loopback callback would."""
    from pi.app.mcp.client import McpConnection
    from pi.app.mcp.oauth_tokens import StateStorage, uses_oauth

    if not uses_oauth(server):
        raise SignInError(
            f'MCP server "{server.name}" does not use OAuth. Only HTTP servers without an Authorization header do.'
        )
    storage = StateStorage(agent_dir, server)
    storage.state.pop("tokens", None)
    storage.state.pop("expiresAt", None)
    async with loopback_callback(server) as callback:
        _seed_client(storage, server, callback.redirect_uri)
        provider = build_provider(server, storage, callback, open_url, timeout_s)
        connection = McpConnection(server, cwd=cwd, http_auth=provider)
        pasted = asyncio.ensure_future(_read_pasted(callback, read_line)) if read_line is not None else None
        try:
            state = await connection.connect()
            if state != "connected":
                raise SignInError(connection.error or f"the server is {state}")
            endpoint = _token_endpoint(provider)
            if endpoint:
                storage.state["tokenEndpoint"] = endpoint
            storage.save()
            return len(connection.tools)
        finally:
            if pasted is not None:
                pasted.cancel()
            await connection.close()


def _token_endpoint(provider: Any) -> str | None:
    """Where refreshes go: the discovered authorization server's token endpoint."""
    metadata = getattr(provider.context, "oauth_metadata", None)
    endpoint = getattr(metadata, "token_endpoint", None)
    return str(endpoint) if endpoint else None


__all__ = [
    "CLIENT_METADATA_URL",
    "LOGIN_TIMEOUT_S",
    "SignInError",
    "accept_pasted",
    "build_provider",
    "loopback_callback",
    "sign_in",
]
