"""Who pi is to an authorization server, and which scope it asks for.

Client identity, in order: a configured `clientId`; a client ID metadata document when the
authorization server accepts them for public clients; else dynamic client registration. The
shared document `https://pi.dev/oauth/client.json` is only safe with authorization servers that
name themselves in their responses (`iss`, RFC 9207): without it, a response from one server
could be replayed to another, so each MCP server then gets a document of its own, with a
redirect path of its own that the loopback callback insists on.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from msgspec import Struct

from pi.app.mcp.config import ServerConfig
from pi.app.mcp.oauth_discovery import AuthorizationServer, DiscoveryError

if TYPE_CHECKING:
    import httpx

DOCUMENT_PREFIX = "https://pi.dev/oauth/"
CLIENT_METADATA_URL = DOCUMENT_PREFIX + "client.json"
SERVER_CLIENT_METADATA_URL = DOCUMENT_PREFIX + "{id}/client.json"
DEFAULT_CLIENT_NAME = "pi"


class Client(Struct):
    """The client information to sign in with and the redirect URI it is registered for."""

    info: dict[str, Any]
    redirect_uri: str


def registration_mode(oauth: dict[str, Any]) -> str:
    """`dcr` when forced or implied (`clientName`, a callback path other than /callback), else as set."""
    mode = str(oauth.get("clientRegistration") or "auto")
    callback = oauth.get("callbackUrl")
    if mode == "auto" and ("clientName" in oauth or (callback and urlsplit(callback).path != "/callback")):
        return "dcr"
    return mode


def document_id(server: ServerConfig) -> str:
    """The per-server document's id: stable for one server entry, so its stored client stays valid."""
    from pi.app.mcp.auth_store import credential_key

    return hashlib.sha256(credential_key(server).encode("utf-8")).hexdigest()[:16]


def _with_path(url: str, path: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def _configured(server: ServerConfig, redirect_uri: str) -> Client:
    from pi.app.mcp.secrets import expand_value

    oauth = server.oauth or {}
    secret = oauth.get("clientSecret")
    info: dict[str, Any] = {
        "client_id": oauth["clientId"],
        "redirect_uris": [redirect_uri],
        "token_endpoint_auth_method": "client_secret_post" if secret else "none",
    }
    if secret:
        info["client_secret"] = expand_value(secret)
    return Client(info, redirect_uri)


def _document(server: ServerConfig, auth: AuthorizationServer, callback_uri: str) -> Client:
    if auth.sends_iss:
        client_id, redirect = CLIENT_METADATA_URL, callback_uri
    else:
        key = document_id(server)
        client_id = SERVER_CLIENT_METADATA_URL.format(id=key)
        redirect = _with_path(callback_uri, f"{urlsplit(callback_uri).path.rstrip('/')}/{key}")
    info = {"client_id": client_id, "redirect_uris": [redirect], "token_endpoint_auth_method": "none"}
    return Client(info, redirect)


def _reusable(previous: Any, auth: AuthorizationServer, redirect_uri: str) -> bool:
    """An earlier registration is kept when it was made with this server for this redirect URI."""
    from mcp.client.auth.utils import issuers_match

    if not isinstance(previous, dict) or not isinstance(previous.get("client_id"), str):
        return False
    if previous["client_id"].startswith(DOCUMENT_PREFIX):
        return False  # a document client, not a registration with this server
    if redirect_uri not in (previous.get("redirect_uris") or []):
        return False
    issuer = previous.get("issuer")
    return issuer is None or issuers_match(str(issuer), auth.issuer)


async def _register(
    client: httpx.AsyncClient, server: ServerConfig, auth: AuthorizationServer, redirect_uri: str, scope: str | None
) -> Client:
    endpoint = auth.metadata.registration_endpoint
    if endpoint is None:
        raise DiscoveryError(
            "the authorization server offers neither client ID metadata documents nor dynamic client "
            'registration; set "oauth.clientId" for this server'
        )
    body: dict[str, Any] = {
        "redirect_uris": [redirect_uri],
        "client_name": (server.oauth or {}).get("clientName") or DEFAULT_CLIENT_NAME,
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    }
    if scope:
        body["scope"] = scope
    response = await client.post(str(endpoint), json=body)
    if response.status_code not in (200, 201):
        raise DiscoveryError(f"client registration failed (HTTP {response.status_code}): {response.text[:500]}")
    try:
        info = response.json()
    except ValueError as error:
        raise DiscoveryError(f"client registration answered something other than JSON: {error}") from error
    if not isinstance(info, dict) or not isinstance(info.get("client_id"), str):
        raise DiscoveryError("client registration answered without a client_id")
    info.pop("issuer", None)
    return Client({**info, "issuer": auth.issuer}, redirect_uri)


async def choose_client(
    client: httpx.AsyncClient,
    server: ServerConfig,
    auth: AuthorizationServer,
    callback_uri: str,
    previous: Any,
    scope: str | None,
) -> Client:
    """The client identity for this sign-in (registering one when that is what it takes)."""
    oauth = server.oauth or {}
    if oauth.get("clientId"):
        return _configured(server, callback_uri)
    mode = registration_mode(oauth)
    on_callback_path = urlsplit(callback_uri).path == "/callback"
    accepts_documents = auth.metadata.client_id_metadata_document_supported is True
    if on_callback_path and (mode == "cimd" or (mode == "auto" and accepts_documents)):
        return _document(server, auth, callback_uri)
    if _reusable(previous, auth, callback_uri):
        return Client(dict(previous), callback_uri)
    return await _register(client, server, auth, callback_uri, scope)


def _scopes(text: Any) -> list[str]:
    return [s for s in str(text or "").split() if s]


def union(*scopes: Any) -> str | None:
    """Space-separated scopes, each once, in first-seen order."""
    seen: list[str] = []
    for text in scopes:
        seen.extend(s for s in _scopes(text) if s not in seen)
    return " ".join(seen) or None


def choose_scope(server: ServerConfig, auth: AuthorizationServer, state: dict[str, Any]) -> str | None:
    """The configured `scope`, else the advertised `scopes_supported`, else the scope the server's
    challenge named, else none (the authorization server's default).

    After a server answered `insufficient_scope`, the scopes already granted plus the challenged ones."""
    base = (server.oauth or {}).get("scope") or auth.advertised_scope
    step_up = state.get("stepUpScope")
    if step_up is not None:
        tokens = state.get("tokens")
        granted = state.get("scope") or (tokens.get("scope") if isinstance(tokens, dict) else None) or base
        return union(granted, step_up)
    return base or auth.challenged_scope or None


__all__ = [
    "CLIENT_METADATA_URL",
    "SERVER_CLIENT_METADATA_URL",
    "Client",
    "choose_client",
    "choose_scope",
    "document_id",
    "registration_mode",
    "union",
]
