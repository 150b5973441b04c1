"""The WebSocket connections Codex keeps per session, and what each remembers of its last reply.

A session's connection is kept open between requests (closed after `IDLE_TTL_S` unused, replaced
after `MAX_AGE_S`), one per session and ChatGPT account. While a request uses it, a second request
of the same session opens a one-shot connection instead of waiting. With the continuing transports
(``auto``, ``websocket-cached``) the connection also remembers its last request and reply, so that
the next request, when it only adds to that conversation, sends just the new input items together
with ``previous_response_id``.

A session that saw the WebSocket fail under ``auto`` is remembered too: its later requests go
straight to SSE.

Connections belong to the event loop that opened them; an entry from another (finished) loop is
forgotten, not reused.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
import time
from typing import Any, Protocol

from msgspec import Struct, field

log = logging.getLogger(__name__)

IDLE_TTL_S = 300.0
"""An unused connection is closed after five minutes."""
MAX_AGE_S = 55 * 60.0
"""A connection older than this is not reused (the backend ends connections after an hour)."""


class Socket(Protocol):
    """What the cache needs of a connection."""

    async def send(self, message: str) -> None: ...

    async def recv(self) -> str | bytes: ...

    async def close(self, code: int = 1000, reason: str = "") -> None: ...


class Continuation(Struct):
    """The last request sent on a connection and the reply it got."""

    body: dict[str, Any]
    """The full request body (``input`` included), as it would have been sent without continuing."""
    response_id: str
    reply_items: list[dict[str, Any]]
    """The reply as input items, as the next request's ``input`` repeats it."""


class Lease(Struct):
    """One request's use of a connection; `release` says whether the connection may be used again."""

    socket: Socket
    reused: bool
    key: tuple[str, str] | None = None
    continuation: Continuation | None = None
    _cache: SocketCache | None = None
    _released: bool = False

    def release(self, keep: bool, continuation: Continuation | None = None) -> None:
        if self._released:
            return
        self._released = True
        if self._cache is None or self.key is None:
            _close_soon(self.socket, "done")
            return
        self._cache.give_back(self, keep, continuation)


class _Entry(Struct):
    socket: Socket
    loop: asyncio.AbstractEventLoop
    created: float
    busy: bool = True
    continuation: Continuation | None = None
    idle: asyncio.TimerHandle | None = None


class SocketCache(Struct):
    """Kept connections by (session id, account id), and the sessions that fell back to SSE."""

    entries: dict[tuple[str, str], _Entry] = field(default_factory=dict)
    fallback: set[str] = field(default_factory=set)

    def take(self, key: tuple[str, str] | None) -> tuple[Lease | None, bool]:
        """A kept idle connection for `key` (now busy), or None; the flag says whether a new one may be kept."""
        if key is None:
            return None, False
        entry = self.entries.get(key)
        if entry is None:
            return None, True
        loop = asyncio.get_running_loop()
        if entry.loop is not loop:
            del self.entries[key]
            return None, True
        if entry.busy:
            return None, False
        if time.monotonic() - entry.created >= MAX_AGE_S:
            del self.entries[key]
            _close_soon(entry.socket, "connection_age_limit")
            return None, True
        if entry.idle is not None:
            entry.idle.cancel()
            entry.idle = None
        entry.busy = True
        return Lease(entry.socket, True, key, entry.continuation, self), False

    def keep(self, key: tuple[str, str], socket: Socket) -> Lease:
        """Register a freshly opened connection for `key`, leased to the request that opened it."""
        self.entries[key] = _Entry(socket, asyncio.get_running_loop(), time.monotonic())
        return Lease(socket, False, key, None, self)

    def give_back(self, lease: Lease, keep: bool, continuation: Continuation | None) -> None:
        key = lease.key
        entry = self.entries.get(key) if key is not None else None
        if key is None or entry is None or entry.socket is not lease.socket or not keep:
            if key is not None and entry is not None and entry.socket is lease.socket:
                del self.entries[key]
            _close_soon(lease.socket, "done")
            return
        entry.busy = False
        entry.continuation = continuation
        entry.idle = entry.loop.call_later(IDLE_TTL_S, self._expire, key, entry)

    def forget_continuation(self, key: tuple[str, str] | None) -> None:
        entry = self.entries.get(key) if key is not None else None
        if entry is not None:
            entry.continuation = None

    def _expire(self, key: tuple[str, str], entry: _Entry) -> None:
        if self.entries.get(key) is entry and not entry.busy:
            del self.entries[key]
            _close_soon(entry.socket, "idle_timeout")

    async def close_all(self, session_id: str | None = None) -> None:
        """Close the kept connections of one session, or all of them, and forget SSE fallbacks likewise."""
        keys = [key for key in self.entries if session_id is None or key[0] == session_id]
        sockets = []
        for key in keys:
            entry = self.entries.pop(key)
            if entry.idle is not None:
                entry.idle.cancel()
            if entry.loop is asyncio.get_running_loop():
                sockets.append(entry.socket)
        if session_id is None:
            self.fallback.clear()
        else:
            self.fallback.discard(session_id)
        for socket in sockets:
            with contextlib.suppress(Exception):
                await socket.close(1000, "closed")


_CLOSING: set[asyncio.Task[None]] = set()
"""Close tasks in flight (kept referenced until they finish)."""


def _close_soon(socket: Socket, reason: str) -> None:
    """Close `socket` without waiting for the peer's answer to hold up the caller."""

    async def close() -> None:
        try:
            await socket.close(1000, reason)
        except Exception as exc:  # the peer is gone already: nothing left to close
            log.debug("closing a Codex WebSocket failed: %s", exc)

    try:
        task = asyncio.get_running_loop().create_task(close())
    except RuntimeError:  # no running loop (interpreter shutdown): the socket goes with its loop
        return
    _CLOSING.add(task)
    task.add_done_callback(_CLOSING.discard)


def request_without_input(body: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key not in ("input", "previous_response_id", "type")}


def continued_body(body: dict[str, Any], continuation: Continuation | None) -> dict[str, Any] | None:
    """`body` as a continuation of the last reply (new input items only), or None when it is not one."""
    if continuation is None or request_without_input(body) != request_without_input(continuation.body):
        return None
    baseline = [*continuation.body.get("input", []), *continuation.reply_items]
    current = body.get("input")
    if not isinstance(current, list) or len(current) < len(baseline) or current[: len(baseline)] != baseline:
        return None
    return {**body, "previous_response_id": continuation.response_id, "input": current[len(baseline) :]}


def snapshot(body: dict[str, Any]) -> dict[str, Any]:
    """A deep copy, so later edits of the request cannot change what the cache compares against."""
    return copy.deepcopy(body)


CACHE = SocketCache()
"""The process's kept connections."""


async def close_codex_websockets(session_id: str | None = None) -> None:
    """Close kept Codex connections (of one session, or all) and forget their SSE fallbacks."""
    await CACHE.close_all(session_id)


__all__ = [
    "CACHE",
    "IDLE_TTL_S",
    "MAX_AGE_S",
    "Continuation",
    "Lease",
    "Socket",
    "SocketCache",
    "close_codex_websockets",
    "continued_body",
    "request_without_input",
    "snapshot",
]
