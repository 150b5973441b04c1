"""An MCP server behind OAuth with its own loopback authorization server, for sign-in tests.

`python oauth_fixture_server.py <port> [token lifetime s] [flags…]`. The MCP endpoint `/mcp` answers
401 with `WWW-Authenticate: Bearer resource_metadata=…` until a valid token is sent. The
authorization server on the same origin offers RFC 8414 metadata, dynamic client registration,
`/authorize` (which redirects straight back with a code, as if the user approved) and `/token`
(PKCE S256 checked; authorization_code and refresh_token grants; the granted scope is the one
requested). `GET /stats` reports what happened.

Flags: `cimd` (client ID metadata documents accepted for public clients), `iss` (RFC 9207: the
redirect carries `iss`), `wrong-iss` (it carries another server's `iss`), `step-up` (a tool `admin` that
needs the scope `admin`: without it the call is answered `403` with `error="insufficient_scope"`).
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import sys
import time
from typing import Any
from urllib.parse import urlencode

import uvicorn
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.fastmcp import FastMCP
from pydantic import AnyHttpUrl
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

PORT = int(sys.argv[1])
LIFETIME = int(sys.argv[2]) if len(sys.argv) > 2 else 3600
FLAGS = set(sys.argv[3:])
BASE = f"http://127.0.0.1:{PORT}"
ISSUER = str(AnyHttpUrl(BASE))
DOCUMENT_PREFIX = "https://pi.dev/oauth/"
tokens: dict[str, tuple[float, list[str]]] = {}
refresh_tokens: dict[str, list[str]] = {}
clients: dict[str, dict[str, Any]] = {}
codes: dict[str, dict[str, str]] = {}
stats: dict[str, Any] = {
    "registrations": 0,
    "authorizations": 0,
    "refreshes": 0,
    "resource": [],
    "authorize": [],
    "calls": [],
}


class Verifier:
    async def verify_token(self, token: str) -> AccessToken | None:
        expires, scopes = tokens.get(token, (0.0, []))
        if expires < time.time():
            return None
        return AccessToken(token=token, client_id="any", scopes=scopes, expires_at=int(expires))


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


def admin() -> str:
    return "administered"


if "step-up" in FLAGS:
    server.tool(description="Administer the service (needs the admin scope)")(admin)


class StepUp:
    """Answers `tools/call` of `admin` with 403 insufficient_scope unless the token has `admin`."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != "/mcp" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        chunks, more = [], True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        if self._wants_admin(body):
            header = dict(scope["headers"]).get(b"authorization", b"").decode()
            granted = tokens.get(header.removeprefix("Bearer "), (0.0, []))[1]
            stats["calls"].append({"tool": "admin", "scopes": granted})
            if "admin" not in granted:
                challenge = (
                    'Bearer error="insufficient_scope", scope="admin", '
                    f'resource_metadata="{BASE}/.well-known/oauth-protected-resource/mcp"'
                )
                refusal = JSONResponse({"error": "insufficient_scope"}, 403, {"WWW-Authenticate": challenge})
                await refusal(scope, receive, send)
                return
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    @staticmethod
    def _wants_admin(body: bytes) -> bool:
        try:
            message = json.loads(body)
        except ValueError:
            return False
        return (
            isinstance(message, dict)
            and message.get("method") == "tools/call"
            and message.get("params", {}).get("name") == "admin"
        )


@server.custom_route("/.well-known/oauth-authorization-server", methods=["GET"])  # type: ignore[untyped-decorator]  # mcp leaves its return type out
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
            **({"client_id_metadata_document_supported": True} if "cimd" in FLAGS else {}),
            **({"authorization_response_iss_parameter_supported": True} if "iss" in FLAGS else {}),
        }
    )


@server.custom_route("/register", methods=["POST"])  # type: ignore[untyped-decorator]  # mcp leaves its return type out
async def register(request: Request) -> Response:
    body = await request.json()
    client_id = f"client-{secrets.token_hex(4)}"
    clients[client_id] = body
    stats["registrations"] += 1
    stats["client_name"] = body.get("client_name")
    return JSONResponse({**body, "client_id": client_id, "client_id_issued_at": int(time.time())}, status_code=201)


@server.custom_route("/authorize", methods=["GET"])  # type: ignore[untyped-decorator]  # mcp leaves its return type out
async def authorize(request: Request) -> Response:
    query = request.query_params
    client_id = query.get("client_id") or ""
    document = "cimd" in FLAGS and client_id.startswith(DOCUMENT_PREFIX) and client_id.endswith("/client.json")
    if query.get("code_challenge_method") != "S256" or (client_id not in clients and not document):
        return JSONResponse({"error": "invalid_request"}, status_code=400)
    code = secrets.token_hex(8)
    scope = query.get("scope") or ""
    codes[code] = {"challenge": query["code_challenge"], "redirect_uri": query["redirect_uri"], "scope": scope}
    stats["authorizations"] += 1
    stats["resource"].append(query.get("resource"))
    stats["scope"] = query.get("scope")
    stats["authorize"].append({"client_id": client_id, "redirect_uri": query["redirect_uri"], "scope": scope})
    answer = {"code": code, "state": query["state"]}
    if "iss" in FLAGS:
        answer["iss"] = ISSUER
    if "wrong-iss" in FLAGS:
        answer["iss"] = "https://elsewhere.example/"
    return RedirectResponse(f"{query['redirect_uri']}?{urlencode(answer)}", 302)


def _issue(scope: str) -> Response:
    access, refresh = f"access-{secrets.token_hex(8)}", f"refresh-{secrets.token_hex(8)}"
    tokens[access] = (time.time() + LIFETIME, scope.split())
    refresh_tokens[refresh] = scope.split()
    body = {"access_token": access, "token_type": "Bearer", "expires_in": LIFETIME, "refresh_token": refresh}
    if scope:
        body["scope"] = scope
    return JSONResponse(body)


@server.custom_route("/token", methods=["POST"])  # type: ignore[untyped-decorator]  # mcp leaves its return type out
async def token(request: Request) -> Response:
    form = await request.form()
    grant = form.get("grant_type")
    if grant == "authorization_code":
        pending = codes.pop(str(form.get("code")), None)
        verifier = str(form.get("code_verifier") or "")
        digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        if pending is None or digest != pending["challenge"] or form.get("redirect_uri") != pending["redirect_uri"]:
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        return _issue(pending["scope"])
    if grant == "refresh_token" and form.get("refresh_token") in refresh_tokens:
        scopes = refresh_tokens.pop(str(form.get("refresh_token")))
        stats["refreshes"] += 1
        return _issue(" ".join(scopes))
    return JSONResponse({"error": "invalid_grant"}, status_code=400)


@server.custom_route("/stats", methods=["GET"])  # type: ignore[untyped-decorator]  # mcp leaves its return type out
async def report(_request: Request) -> Response:
    return JSONResponse(stats)


if __name__ == "__main__":
    uvicorn.run(StepUp(server.streamable_http_app()), host="127.0.0.1", port=PORT, log_level="info")
