"""A loopback Radius gateway: device sign-in and refresh at `/v1/oauth/*`, the account's model list
at `/v1/config`, and an MCP server at `/mcp`.

The MCP endpoint speaks streamable HTTP with JSON replies (initialize, tools/list, tools/call) and
answers 401 to any request whose `Authorization: Bearer` is not a token this gateway issued and
still accepts, as the real gateway does. Every request is recorded with its headers.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from tests.support.loopback_http import LoopbackHTTP, QuietHandler

GATEWAY_MODEL = {
    "id": "gw-fast",
    "name": "GW Fast",
    "reasoning": False,
    "input": ["text"],
    "cost": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0},
    "contextWindow": 200000,
    "maxTokens": 8192,
}
"""A model of the gateway's `/v1/config` list, as the tests serve it."""


@dataclass
class GatewayRequest:
    method: str
    path: str
    authorization: str | None
    body: bytes

    def form(self) -> dict[str, str]:
        return {key: values[0] for key, values in parse_qs(self.body.decode()).items()}

    def rpc_method(self) -> str | None:
        try:
            message = json.loads(self.body)
        except ValueError:
            return None
        return message.get("method") if isinstance(message, dict) else None


@dataclass
class RadiusGateway:
    """Issues `radius-access-<n>` / `radius-refresh-<n>`; `revoke(token)` makes /mcp refuse a token."""

    requests: list[GatewayRequest] = field(default_factory=list)
    accepted: set[str] = field(default_factory=set)
    issued: int = 0
    config_base_url: str = ""
    """`baseUrl` of the `/v1/config` answer (this gateway's `/v1` when empty)."""
    config_models: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> RadiusGateway:
        gateway = self

        class Handler(QuietHandler):
            protocol_version = "HTTP/1.1"

            def _record(self) -> GatewayRequest:
                length = int(self.headers.get("content-length") or 0)
                request = GatewayRequest(
                    self.command, self.path, self.headers.get("authorization"), self.rfile.read(length)
                )
                with gateway.lock:
                    gateway.requests.append(request)
                return request

            def _send(self, status: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
                raw = b"" if body is None else json.dumps(body).encode()
                self.send_response(status)
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                if body is not None:
                    self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def do_POST(self) -> None:
                request = self._record()
                if request.path == "/v1/oauth/device":
                    device = {"device_code": "dev-1", "user_code": "RAD-CODE", "interval": 1, "expires_in": 600}
                    self._send(200, {**device, "verification_uri": f"http://{self.headers['host']}/device"})
                elif request.path == "/v1/oauth/token":
                    self._send(200, gateway.issue())
                elif request.path == "/mcp":
                    self._mcp(request)
                else:
                    self._send(404, {"error": "not found"})

            def do_GET(self) -> None:
                request = self._record()
                if request.path == "/v1/config":
                    if (request.authorization or "").removeprefix("Bearer ") not in gateway.accepted:
                        self._send(401, {"error": "unauthorized"})
                        return
                    base = gateway.config_base_url or f"{gateway.url}/v1"
                    self._send(200, {"baseUrl": base, "models": gateway.config_models})
                    return
                self._send(405)  # no server-initiated stream on /mcp

            def do_DELETE(self) -> None:
                self._record()
                self._send(200)

            def _mcp(self, request: GatewayRequest) -> None:
                token = (request.authorization or "").removeprefix("Bearer ")
                if token not in gateway.accepted:
                    self._send(401, {"error": "unauthorized"}, {"www-authenticate": 'Bearer error="invalid_token"'})
                    return
                message = json.loads(request.body)
                if "id" not in message:
                    self._send(202)
                    return
                self._send(200, {"jsonrpc": "2.0", "id": message["id"], "result": _result(message)})

        self.server = LoopbackHTTP(Handler).start()
        self.url = self.server.url
        return self

    def issue(self) -> dict[str, Any]:
        with self.lock:
            self.issued += 1
            access = f"radius-access-{self.issued}"
            self.accepted.add(access)
        return {"access_token": access, "refresh_token": f"radius-refresh-{self.issued}", "expires_in": 3600}

    def revoke(self, token: str) -> None:
        with self.lock:
            self.accepted.discard(token)

    def mcp_requests(self) -> list[GatewayRequest]:
        with self.lock:
            return [r for r in self.requests if r.path == "/mcp" and r.method == "POST"]

    def stop(self) -> None:
        self.server.stop()


def _result(message: dict[str, Any]) -> dict[str, Any]:
    method = message.get("method")
    if method == "initialize":
        return {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "radius", "version": "1"},
        }
    if method == "tools/list":
        schema = {"type": "object", "properties": {}}
        return {"tools": [{"name": "whoami", "description": "Who is signed in", "inputSchema": schema}]}
    if method == "tools/call":
        return {"content": [{"type": "text", "text": "signed in to Radius"}], "isError": False}
    return {}


__all__ = ["GatewayRequest", "RadiusGateway"]
