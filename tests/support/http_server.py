"""A loopback HTTP server that plays back scripted responses and records every request.

Provider tests queue responses (status, headers, body chunks: SSE frames as the real APIs send
them) and then assert on the events the client produced and on the requests it sent. It runs in a
thread, so the same server serves in-process tests and `pi` subprocesses alike.

Like an HTTP-only API server, it refuses WebSocket upgrade requests (404); they are recorded in
`upgrades`, not in `requests`, and take no scripted response.
"""

from __future__ import annotations

import contextlib
import json
import socket
import ssl
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from tests.support.loopback_http import LoopbackHTTP, QuietHandler


@dataclass
class ScriptedResponse:
    status: int = 200
    chunks: list[bytes] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=lambda: {"content-type": "text/event-stream"})
    chunk_delay: float = 0.0
    drop_after: int | None = None
    """Close the connection abruptly after this many chunks (a connection dropped mid-stream)."""
    hold_open: float = 0.0
    """Keep the connection open this many seconds after the last chunk (for abort tests)."""


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def sse(*events: Any, event_names: list[str] | None = None) -> list[bytes]:
    """SSE frames of JSON payloads (strings are sent as-is), optionally with `event:` names."""
    frames = []
    for i, payload in enumerate(events):
        data = payload if isinstance(payload, str) else json.dumps(payload)
        head = f"event: {event_names[i]}\n" if event_names else ""
        frames.append(f"{head}data: {data}\n\n".encode())
    return frames


def named_sse(*pairs: tuple[str, Any]) -> list[bytes]:
    """Frames of (event name, JSON payload) pairs, as the Anthropic API sends them."""
    return sse(*(payload for _, payload in pairs), event_names=[name for name, _ in pairs])


def json_response(status: int, body: Any, headers: dict[str, str] | None = None) -> ScriptedResponse:
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    raw = data.encode() if isinstance(data, str) else data
    return ScriptedResponse(
        status=status, chunks=[raw] if raw else [], headers={"content-type": "application/json", **(headers or {})}
    )


class ScriptedServer:
    """See the module docstring. With `keep_alive`, connections serve request after request, as real
    API servers do; otherwise each response closes its connection. `connections` counts accepted ones.
    With `tls` (a server context), it speaks https.
    """

    def __init__(self, keep_alive: bool = False, tls: ssl.SSLContext | None = None) -> None:
        self.responses: deque[ScriptedResponse] = deque()
        self.requests: list[RecordedRequest] = []
        self.upgrades: list[RecordedRequest] = []
        self.keep_alive = keep_alive
        self.connections = 0
        self._lock = threading.Lock()
        server = self

        class Handler(QuietHandler):
            protocol_version = "HTTP/1.1"
            # Send each small write at once, as production servers do: with Nagle's algorithm a kept-alive
            # connection would hold the last chunk until the client's delayed ACK, about 40 ms a reply.
            disable_nagle_algorithm = True

            def setup(self) -> None:
                super().setup()
                with server._lock:
                    server.connections += 1

            def _refuse_upgrade(self) -> None:
                with server._lock:
                    server.upgrades.append(
                        RecordedRequest(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, b"")
                    )
                self.send_response(404)
                self.send_header("content-length", "0")
                self.send_header("connection", "close")
                self.close_connection = True
                self.end_headers()

            def _handle(self) -> None:
                if (self.headers.get("upgrade") or "").lower() == "websocket":
                    self._refuse_upgrade()
                    return
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                with server._lock:
                    server.requests.append(
                        RecordedRequest(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                    )
                    response = server.responses.popleft() if server.responses else None
                if response is None:
                    response = json_response(500, {"error": {"message": "no scripted response left"}})
                self.send_response(response.status)
                for key, value in response.headers.items():
                    self.send_header(key, value)
                if not server.keep_alive:
                    # One request per connection: a pooled client never reuses a socket this side is done with.
                    self.send_header("connection", "close")
                    self.close_connection = True
                if response.drop_after is None and response.headers.get("content-type") != "text/event-stream":
                    self.send_header("content-length", str(sum(len(c) for c in response.chunks)))
                    self.end_headers()
                    for chunk in response.chunks:
                        self.wfile.write(chunk)
                    self.wfile.flush()
                    return
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                try:
                    for i, chunk in enumerate(response.chunks):
                        if response.drop_after is not None and i >= response.drop_after:
                            self._drop()
                            return
                        self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                        self.wfile.flush()
                        if response.chunk_delay:
                            time.sleep(response.chunk_delay)
                    if response.drop_after is not None:
                        self._drop()
                        return
                    if response.hold_open:
                        time.sleep(response.hold_open)
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True
                if not server.keep_alive:
                    self.close_connection = True

            def _drop(self) -> None:
                # close() alone leaves the socket open while rfile/wfile hold it, and keep-alive would
                # wait for another request; shutting it down is what the client sees as a dropped line.
                self.wfile.flush()
                self.close_connection = True
                with contextlib.suppress(OSError):
                    self.connection.shutdown(socket.SHUT_RDWR)

            do_POST = _handle
            do_GET = _handle

        self.server = LoopbackHTTP(Handler, tls)

    @property
    def url(self) -> str:
        return self.server.url

    def queue(self, *responses: ScriptedResponse) -> None:
        with self._lock:
            self.responses.extend(responses)

    def start(self) -> ScriptedServer:
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()
