"""Finding an MCP server's authorization server before a sign-in.

An unauthenticated request to the server answers 401 (or 403) with a `WWW-Authenticate` challenge
naming the protected resource metadata (RFC 9728). That document names the authorization server,
whose metadata (RFC 8414) must carry the issuer it was looked up under; a configured
`authServerMetadataUrl` is used as given instead. The SDK's metadata models and well-known URL
rules are reused; what pi adds is the scope and client-identity decisions made from the result.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from msgspec import Struct

from pi.app.mcp.config import ServerConfig

if TYPE_CHECKING:
    import httpx
    from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata

log = logging.getLogger(__name__)

PROBE_BODY = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "pi", "version": "1.6.0"}},
}


class DiscoveryError(RuntimeError):
    """The authorization server could not be found or its metadata is not trustworthy."""


class AuthorizationServer(Struct):
    """What a sign-in needs to know about where to sign in."""

    metadata: OAuthMetadata
    issuer: str
    sends_iss: bool
    """The metadata says authorization responses carry `iss` (RFC 9207)."""
    resource: str
    """The `resource` parameter (RFC 8707): the server's URL, or the metadata's broader resource."""
    advertised_scope: str | None
    challenged_scope: str | None


class Challenge(Struct):
    """The server's answer to a request without a token."""

    status: int
    resource_metadata_url: str | None
    scope: str | None


async def probe(client: httpx.AsyncClient, server: ServerConfig) -> Challenge:
    """POST an `initialize` without a token and read the challenge the server answers with."""
    from mcp.client.auth.utils import extract_resource_metadata_from_www_auth, extract_scope_from_www_auth

    from pi.app.mcp.secrets import expand_map

    headers = {
        **expand_map(server.headers),
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
    }
    async with client.stream("POST", server.url or "", json=PROBE_BODY, headers=headers) as response:
        if response.status_code not in (401, 403):
            return Challenge(response.status_code, None, None)
        return Challenge(
            response.status_code,
            extract_resource_metadata_from_www_auth(response),
            extract_scope_from_www_auth(response),
        )


async def _get_json(client: httpx.AsyncClient, url: str) -> tuple[int, Any]:
    from mcp.types import LATEST_PROTOCOL_VERSION

    try:
        response = await client.get(url, headers={"MCP-Protocol-Version": LATEST_PROTOCOL_VERSION})
    except Exception as error:
        raise DiscoveryError(f"could not fetch {url}: {error}") from error
    if response.status_code != 200:
        return response.status_code, None
    try:
        return 200, response.json()
    except ValueError:
        return 200, None


async def _resource_metadata(
    client: httpx.AsyncClient, server: ServerConfig, hinted: str | None
) -> ProtectedResourceMetadata | None:
    from mcp.client.auth.utils import build_protected_resource_metadata_discovery_urls
    from mcp.shared.auth import ProtectedResourceMetadata
    from pydantic import ValidationError

    for url in build_protected_resource_metadata_discovery_urls(hinted, server.url or ""):
        status, body = await _get_json(client, url)
        if status >= 500:
            raise DiscoveryError(f"protected resource metadata request failed: HTTP {status}")
        if body is None:
            continue
        try:
            return ProtectedResourceMetadata.model_validate(body)
        except ValidationError:
            log.debug("MCP sign-in: invalid protected resource metadata at %s", url)
    return None


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


async def _server_metadata(
    client: httpx.AsyncClient, server: ServerConfig, issuer_url: str | None
) -> tuple[OAuthMetadata, dict[str, Any]]:
    """RFC 8414 metadata (issuer checked), or the configured `authServerMetadataUrl` trusted as given."""
    from mcp.client.auth.utils import build_oauth_authorization_server_metadata_discovery_urls, issuers_match
    from mcp.shared.auth import OAuthMetadata
    from pydantic import ValidationError

    configured = (server.oauth or {}).get("authServerMetadataUrl")
    urls = (
        [configured]
        if configured
        else build_oauth_authorization_server_metadata_discovery_urls(issuer_url, server.url or "")
    )
    expected = issuer_url or _origin(server.url or "")
    for url in urls:
        status, body = await _get_json(client, url)
        if status >= 500:
            raise DiscoveryError(f"authorization server metadata request failed: HTTP {status}")
        if not isinstance(body, dict):
            continue
        try:
            metadata = OAuthMetadata.model_validate(body)
        except ValidationError as error:
            raise DiscoveryError(f"invalid authorization server metadata at {url}: {error}") from error
        if not configured and not issuers_match(str(metadata.issuer), expected):
            raise DiscoveryError(f"authorization server metadata issuer mismatch: {metadata.issuer} != {expected}")
        return metadata, body
    where = configured or expected
    raise DiscoveryError(f"no authorization server metadata found for {where}")


def _resource(server: ServerConfig, prm: ProtectedResourceMetadata | None) -> str:
    from mcp.shared.auth_utils import check_resource_allowed, resource_url_from_server_url

    resource = resource_url_from_server_url(server.url or "")
    if prm is not None and prm.resource:
        broader = str(prm.resource)
        if not check_resource_allowed(requested_resource=resource, configured_resource=broader):
            raise DiscoveryError(f"protected resource {broader} does not match {resource}")
        resource = broader
    return resource


async def discover(client: httpx.AsyncClient, server: ServerConfig, challenge: Challenge) -> AuthorizationServer:
    """Protected resource metadata, then the authorization server's metadata."""
    prm = await _resource_metadata(client, server, challenge.resource_metadata_url)
    issuer_url = str(prm.authorization_servers[0]) if prm is not None else None
    metadata, raw = await _server_metadata(client, server, issuer_url)
    scopes = (prm.scopes_supported if prm is not None else None) or metadata.scopes_supported
    return AuthorizationServer(
        metadata=metadata,
        issuer=str(metadata.issuer),
        sends_iss=raw.get("authorization_response_iss_parameter_supported") is True,
        resource=_resource(server, prm),
        advertised_scope=" ".join(scopes) if scopes else None,
        challenged_scope=challenge.scope,
    )


__all__ = ["AuthorizationServer", "Challenge", "DiscoveryError", "discover", "probe"]
