"""Signing in to an MCP server: the browser flow behind `pi mcp login` and `/mcp login`.

Discovery and the client identity live in `oauth_discovery` and `oauth_client`; this module runs
the authorization code flow itself (PKCE S256, `state`, `iss` when the server sends it, the
`resource` parameter), listens for the redirect on a loopback port, keeps the result in
`mcp-auth.json` and proves it with a connection. pi decides the scope (a configured `scope` is
what gets requested), which the SDK's own provider would overrule, so it is not used here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from msgspec import Struct

from pi.app.mcp.config import ServerConfig
from pi.app.mcp.oauth_client import CLIENT_METADATA_URL

if TYPE_CHECKING:
    import httpx

    from pi.app.mcp.oauth_client import Client
    from pi.app.mcp.oauth_discovery import AuthorizationServer
    from pi.app.mcp.oauth_tokens import StateStorage

log = logging.getLogger(__name__)

MAX_STEP_UPS = 1
LOGIN_TIMEOUT_S = 300.0
CALLBACK_PAGE = b"Signed in. You can close this window and return to pi.\n"


class SignInError(RuntimeError):
    """The sign-in did not complete; the message says why."""


class Callback(Struct):
    """The loopback listener: the redirect URI it answers on and the future of the redirect's query.

    The URI's path may change once the client identity is known (a per-server document has its own)."""

    redirect_uri: str
    result: asyncio.Future[dict[str, str]]


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
                    callback.result.set_result(query)
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
    result: asyncio.Future[dict[str, str]] = asyncio.get_running_loop().create_future()
    holder: list[Callback] = []
    listener = await asyncio.start_server(lambda r, w: _answer(r, w, holder[0]), "127.0.0.1", port)
    actual = listener.sockets[0].getsockname()[1]
    holder.append(Callback(configured or f"http://127.0.0.1:{actual}/callback", result))
    try:
        yield holder[0]
    finally:
        listener.close()
        await listener.wait_closed()


def accept_pasted(callback: Callback, text: str) -> bool:
    """The redirect URL pasted by the user (when the browser cannot reach the loopback port)."""
    query = {k: v[0] for k, v in parse_qs(urlsplit(text.strip()).query).items()}
    if "code" not in query or callback.result.done():
        return False
    callback.result.set_result(query)
    return True


async def _read_pasted(callback: Callback, read_line: Callable[[], Awaitable[str]]) -> None:
    while not callback.result.done():
        line = await read_line()
        if not line:
            return
        accept_pasted(callback, line)


async def _wait(callback: Callback, timeout_s: float) -> dict[str, str]:
    try:
        return await asyncio.wait_for(asyncio.shield(callback.result), timeout_s)
    except TimeoutError as error:
        raise SignInError(f"no answer from the browser within {timeout_s:g} s") from error


def _check_response(query: dict[str, str], state: str, auth: AuthorizationServer) -> str:
    """The code, once `state` matches and `iss` (required when the server promised it) names the issuer."""
    import secrets

    from mcp.client.auth.utils import issuers_match

    if not secrets.compare_digest(query.get("state") or "", state):
        raise SignInError("the authorization response does not belong to this sign-in (state mismatch)")
    issuer = query.get("iss")
    if issuer is None and auth.sends_iss:
        raise SignInError("the authorization response is missing iss, which the authorization server promised")
    if issuer is not None and not issuers_match(issuer, auth.issuer):
        raise SignInError(f"the authorization response came from {issuer}, not from {auth.issuer}")
    return query["code"]


async def _authorize(
    server: ServerConfig,
    auth: AuthorizationServer,
    client: Client,
    scope: str | None,
    callback: Callback,
    open_url: Callable[[str], Awaitable[None]],
    timeout_s: float,
    storage: StateStorage,
) -> tuple[str, str]:
    """Send the user to the authorization endpoint; `(code, code verifier)` from the redirect."""
    import secrets
    from urllib.parse import urlencode

    from mcp.client.auth import PKCEParameters

    pkce, state = PKCEParameters.generate(), secrets.token_urlsafe(32)
    params = {
        "response_type": "code",
        "client_id": client.info["client_id"],
        "redirect_uri": client.redirect_uri,
        "state": state,
        "code_challenge": pkce.code_challenge,
        "code_challenge_method": "S256",
        "resource": auth.resource,
    }
    if scope:
        params["scope"] = scope
    endpoint = str(auth.metadata.authorization_endpoint)
    storage.state["pendingAuthorization"] = {"codeVerifier": pkce.code_verifier, "redirectUri": client.redirect_uri}
    storage.save()
    await open_url(f"{endpoint}{'&' if '?' in endpoint else '?'}{urlencode(params)}")
    return _check_response(await _wait(callback, timeout_s), state, auth), pkce.code_verifier


async def _exchange(
    http: httpx.AsyncClient, auth: AuthorizationServer, client: Client, code: str, verifier: str
) -> dict[str, Any]:
    """Trade the code for tokens at the token endpoint."""
    info = client.info
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": client.redirect_uri,
        "client_id": str(info["client_id"]),
        "code_verifier": verifier,
        "resource": auth.resource,
    }
    headers: dict[str, str] = {}
    secret, method = info.get("client_secret"), info.get("token_endpoint_auth_method")
    if secret and method == "client_secret_basic":
        import base64
        from urllib.parse import quote

        pair = f"{quote(str(info['client_id']), safe='')}:{quote(str(secret), safe='')}"
        headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
    elif secret and method != "none":
        form["client_secret"] = str(secret)
    response = await http.post(str(auth.metadata.token_endpoint), data=form, headers=headers)
    if response.status_code != 200:
        raise SignInError(f"the token request failed (HTTP {response.status_code}): {response.text[:500]}")
    try:
        body = response.json()
    except ValueError as error:
        raise SignInError(f"the token endpoint answered something other than JSON: {error}") from error
    if not isinstance(body, dict) or not isinstance(body.get("access_token"), str):
        raise SignInError("the token endpoint answered without an access_token")
    return body


async def _browser_flow(
    server: ServerConfig,
    storage: StateStorage,
    callback: Callback,
    open_url: Callable[[str], Awaitable[None]],
    timeout_s: float,
) -> bool:
    """One authorization; False when the server asks for no sign-in at all."""
    import httpx

    from pi.app.mcp.oauth_client import choose_client, choose_scope
    from pi.app.mcp.oauth_discovery import DiscoveryError, discover, probe
    from pi.app.mcp.oauth_tokens import store_tokens

    async with httpx.AsyncClient(timeout=30.0, follow_redirects=False) as http:
        try:
            challenge = await probe(http, server)
            if challenge.status not in (401, 403):
                return False
            auth = await discover(http, server, challenge)
            scope = choose_scope(server, auth, storage.state)
            previous = storage.state.get("clientInformation")
            client = await choose_client(http, server, auth, callback.redirect_uri, previous, scope)
        except (DiscoveryError, httpx.HTTPError) as error:
            raise SignInError(str(error)) from error
        callback.redirect_uri = client.redirect_uri
        storage.state["clientInformation"] = client.info
        code, verifier = await _authorize(server, auth, client, scope, callback, open_url, timeout_s, storage)
        try:
            tokens = await _exchange(http, auth, client, code, verifier)
        except httpx.HTTPError as error:
            raise SignInError(f"the token request failed: {error}") from error
    store_tokens(storage.state, tokens)
    storage.state["tokenEndpoint"] = str(auth.metadata.token_endpoint)
    storage.state["scope"] = tokens.get("scope") or scope
    for key in ("pendingAuthorization", "stepUpScope"):
        storage.state.pop(key, None)
    if not storage.state["scope"]:
        storage.state.pop("scope")
    storage.save()
    return True


def _bearer(token: str) -> Any:
    """Send the token just obtained as it is (a short lifetime must not trigger a refresh here)."""
    import httpx

    class Bearer(httpx.Auth):
        def auth_flow(self, request: httpx.Request) -> Any:
            request.headers["Authorization"] = f"Bearer {token}"
            yield request

    return Bearer()


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

    With `read_line`, a pasted redirect URL completes the flow as the loopback callback would. When
    the proving connection is answered `insufficient_scope`, the flow runs once more for the wider
    scope."""
    from pi.app.mcp.client import McpConnection
    from pi.app.mcp.oauth_tokens import StateStorage, access_token, uses_oauth

    if not uses_oauth(server):
        raise SignInError(
            f'MCP server "{server.name}" does not use OAuth. Only HTTP servers without an Authorization header do.'
        )
    storage = StateStorage(agent_dir, server)
    for attempt in range(MAX_STEP_UPS + 1):
        async with loopback_callback(server) as callback:
            pasted = asyncio.ensure_future(_read_pasted(callback, read_line)) if read_line is not None else None
            try:
                await _browser_flow(server, storage, callback, open_url, timeout_s)
            finally:
                if pasted is not None:
                    pasted.cancel()
        token = access_token(storage.state)
        bearer = _bearer(token) if token else None
        connection = McpConnection(server, cwd=cwd, agent_dir=agent_dir, http_auth=bearer)
        try:
            state = await connection.connect()
            if state == "connected":
                return len(connection.tools)
        finally:
            await connection.close()
        storage = StateStorage(agent_dir, server)
        if state != "needs-auth" or "stepUpScope" not in storage.state or attempt == MAX_STEP_UPS:
            raise SignInError(connection.error or f"the server is {state}")
    raise AssertionError("unreachable")


__all__ = [
    "CLIENT_METADATA_URL",
    "LOGIN_TIMEOUT_S",
    "SignInError",
    "accept_pasted",
    "loopback_callback",
    "sign_in",
]
