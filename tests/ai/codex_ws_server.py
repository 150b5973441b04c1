"""A loopback ChatGPT backend speaking Codex's WebSocket transport, built on websockets' own server.

Each connection's upgrade request and every ``response.create`` message are recorded; a script
answers each message with stream events (one JSON text message each), or closes the connection.
It runs in threads (websockets' sync server), so it serves in-process tests and `pi` processes.
`refuse` answers upgrades with an HTTP status instead; `stall` holds the handshake unanswered.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.sync.server import Server, ServerConnection, serve


@dataclass
class Received:
    connection: int
    body: dict[str, Any]


@dataclass
class Turn:
    """What a script gets for one received message: the body, and ways to answer it."""

    body: dict[str, Any]
    index: int
    send: Callable[[dict[str, Any]], None]
    close: Callable[[int, str], None]


def text_events(response_id: str, text: str, *, usage_in: int = 10) -> list[dict[str, Any]]:
    """The events of a reply that says `text`, as response `response_id`."""
    item = {"type": "message", "id": f"msg_{response_id}", "role": "assistant", "content": []}
    done = {**item, "content": [{"type": "output_text", "text": text}]}
    return [
        {"type": "response.created", "response": {"id": response_id}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.output_text.delta", "output_index": 0, "delta": text},
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        completed(response_id, usage_in=usage_in),
    ]


def tool_call_events(response_id: str, call_id: str, name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """The events of a reply that calls tool `name`."""
    raw = json.dumps(arguments)
    item = {"type": "function_call", "id": f"fc_{response_id}", "call_id": call_id, "name": name, "arguments": ""}
    return [
        {"type": "response.created", "response": {"id": response_id}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": raw},
        {"type": "response.output_item.done", "output_index": 0, "item": {**item, "arguments": raw}},
        completed(response_id),
    ]


def completed(response_id: str, *, usage_in: int = 10) -> dict[str, Any]:
    usage = {"input_tokens": usage_in, "output_tokens": 2, "total_tokens": usage_in + 2}
    return {"type": "response.completed", "response": {"id": response_id, "status": "completed", "usage": usage}}


Script = Callable[[Turn], None]


def answering(*texts: str) -> Script:
    """A script answering the n-th message with the n-th text, as response ``resp_<n>``."""

    def script(turn: Turn) -> None:
        for event in text_events(f"resp_{turn.index}", texts[turn.index] if turn.index < len(texts) else ""):
            turn.send(event)

    return script


@dataclass
class CodexWebSocketServer:
    script: Script = field(default_factory=answering)
    refuse: int | None = None
    stall: bool = False
    upgrades: list[dict[str, str]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    closed: threading.Event = field(default_factory=threading.Event)
    """Set when a connection ends (client or server side)."""
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _release: threading.Event = field(default_factory=threading.Event)
    _server: Server | None = None
    _thread: threading.Thread | None = None

    def start(self) -> CodexWebSocketServer:
        self._server = serve(self._handle, "127.0.0.1", 0, process_request=self._process_request, compression=None)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._release.set()
        if self._server is not None:
            self._server.shutdown()
        if self._thread is not None:
            self._thread.join(timeout=10)

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.socket.getsockname()[:2]
        return f"http://{host}:{port}"

    def bodies(self) -> list[dict[str, Any]]:
        with self._lock:
            return [r.body for r in self.received]

    def _process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        with self._lock:
            self.upgrades.append({k.lower(): v for k, v in request.headers.raw_items()})
            self.paths.append(request.path)
        if self.stall:
            self._release.wait(30)
        if self.refuse is not None:
            return Response(self.refuse, "Refused", Headers([("content-length", "0")]), b"")
        return None

    def _handle(self, connection: ServerConnection) -> None:
        with self._lock:
            index = len(self.upgrades) - 1
        try:
            for message in connection:
                body = json.loads(message)
                with self._lock:
                    turn_index = len(self.received)
                    self.received.append(Received(index, body))

                def send(event: dict[str, Any]) -> None:
                    connection.send(json.dumps(event))

                def close(code: int, reason: str) -> None:
                    connection.close(code, reason)

                self.script(Turn(body, turn_index, send, close))
        except ConnectionClosed:
            pass  # a client process that exits drops its kept connection without a closing handshake
        finally:
            self.closed.set()


__all__ = ["CodexWebSocketServer", "Received", "Turn", "answering", "completed", "text_events", "tool_call_events"]
