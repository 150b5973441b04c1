"""An MCP server behind OAuth with its own loopback authorization server, for sign-in tests.

`python oauth_fixture_server.py <port> [token lifetime s]`. The MCP endpoint `/mcp` answers 401 with
`WWW-Authenticate: Bearer resource_metadata=…` until a valid token is sent. The authorization
server on the same origin offers RFC 8414 metadata, dynamic client registration, `/authorize`
(which redirects straight back with a code, as if the user approved) and `/token` (PKCE S256
checked; authorization_code and refresh_token grants). `GET /stats` reports what happened.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import sys
import time
from typing import Any
from urllib.parse import urlencode

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.fastmcp import FastMCP
from pydantic import AnyHttpUrl
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

PORT = int(sys.argv[1])
LIFETIME = int(sys.argv[2]) if len(sys.argv) > 2 else 3600
BASE = f"http://127.0.0.1:{PORT}"
ISSUER = str(AnyHttpUrl(BASE))
tokens: dict[str, float] = {}
refresh_tokens: set[str] = set()
clients: dict[str, dict[str, Any]] = {}
codes: dict[str, dict[str, str]] = {}
stats: dict[str, Any] = {"registrations": 0, "authorizations": 0, "refreshes": 0, "resource": []}


class Verifier:
    async def verify_token(self, token: str) -> AccessToken | None:
        expires = tokens.get(token)
        if expires is None or expires < time.time():
            return None
        return AccessToken(token=token, client_id="any", scopes=["mcp"], expires_at=int(expires))


server = FastMCP(
    "secure",
    host="127.0.0.1",
    port=PORT,
    log_level="INFO",
    token_verifier=Verifier(),
    auth=AuthSettings(
        issuer_url=AnyHttpUrl(BASE), resource_server_url=AnyHttpUrl(f"{BASE}/mcp"), validate_token_resource=False
    ),
)


@server.tool(description="Say a secret")
def secret() -> str:
    return "the secret"


@server.custom_route("/.well-known/oauth-authorization-server", methods=["GET"])
async def metadata(_request: Request) -> Response:
    return JSONResponse(
        {
            "issuer": ISSUER,
            "authorization_endpoint": f"{BASE}/authorize",
            "token_endpoint": f"{BASE}/token",
            "registration_endpoint": f"{BASE}/register",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_post"],
            "scopes_supported": ["mcp"],
        }
    )


@server.custom_route("/register", methods=["POST"])
async def register(request: Request) -> Response:
    body = await request.json()
    client_id = f"client-{secrets.token_hex(4)}"
    clients[client_id] = body
    stats["registrations"] += 1
    stats["client_name"] = body.get("client_name")
    return JSONResponse({**body, "client_id": client_id, "client_id_issued_at": int(time.time())}, status_code=201)


@server.custom_route("/authorize", methods=["GET"])
async def authorize(request: Request) -> Response:
    query = request.query_params
    if query.get("code_challenge_method") != "S256" or query.get("client_id") not in clients:
        return JSONResponse({"error": "invalid_request"}, status_code=400)
    code = secrets.token_hex(8)
    codes[code] = {"challenge": query["code_challenge"], "redirect_uri": query["redirect_uri"]}
    stats["authorizations"] += 1
    stats["resource"].append(query.get("resource"))
    stats["scope"] = query.get("scope")
    return RedirectResponse(f"{query['redirect_uri']}?{urlencode({'code': code, 'state': query['state']})}", 302)


def _issue() -> Response:
    access, refresh = f"access-{secrets.token_hex(8)}", f"refresh-{secrets.token_hex(8)}"
    tokens[access] = time.time() + LIFETIME
    refresh_tokens.add(refresh)
    body = {"access_token": access, "token_type": "Bearer", "expires_in": LIFETIME, "refresh_token": refresh}
    return JSONResponse(body)


@server.custom_route("/token", methods=["POST"])
async def token(request: Request) -> Response:
    form = await request.form()
    grant = form.get("grant_type")
    if grant == "authorization_code":
        pending = codes.pop(str(form.get("code")), None)
        verifier = str(form.get("code_verifier") or "")
        digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        if pending is None or digest != pending["challenge"] or form.get("redirect_uri") != pending["redirect_uri"]:
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        return _issue()
    if grant == "refresh_token" and form.get("refresh_token") in refresh_tokens:
        refresh_tokens.discard(str(form.get("refresh_token")))
        stats["refreshes"] += 1
        return _issue()
    return JSONResponse({"error": "invalid_grant"}, status_code=400)


@server.custom_route("/stats", methods=["GET"])
async def report(_request: Request) -> Response:
    return JSONResponse(stats)


if __name__ == "__main__":
    server.run("streamable-http")
