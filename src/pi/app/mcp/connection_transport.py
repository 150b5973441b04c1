"""Opening one MCP connection: the stdio process or HTTP client, and the SDK's `ClientSession` on it.

Everything entered here is entered on the caller's `AsyncExitStack`, inside the connection's own
task, because the SDK's streams and task groups must be entered and left in one task.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from pi.app.mcp.config import ServerConfig
from pi.app.mcp.connection_auth import ConnectionAuth
from pi.app.mcp.mcp_log import append_log, format_entry
from pi.app.mcp.secrets import expand_home, expand_map

PI_VERSION = "1.6.0"
StderrTail = Callable[[], Awaitable[str]]


class Live(Struct):
    """What exists only while connected."""

    session: Any
    closed: asyncio.Event
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    stderr: Callable[[], str] = str
    transport_error: asyncio.Future[BaseException] | None = None


class OpenHooks(Struct, frozen=True):
    """How the open session reports back to its connection."""

    on_notification: Callable[[Any], Awaitable[None]]
    log_path: Path | None = None


async def open_live(
    stack: contextlib.AsyncExitStack, server: ServerConfig, cwd: Path, auth: ConnectionAuth, hooks: OpenHooks
) -> tuple[Live, StderrTail | None]:
    """The transport and session for `server`, plus (stdio) how to read the final stderr when the
    handshake fails. Raises for a missing working directory or command."""
    from mcp import ClientSession, types

    closed = asyncio.Event()
    stderr: Callable[[], str] = str
    startup_stderr: StderrTail | None = None
    if server.transport == "stdio":
        from pi.app.mcp import stdio_transport

        env = {**os.environ, **expand_map(server.env)}
        command = expand_home(server.command or "")
        args = [expand_home(a) for a in server.args]
        workdir = str((cwd / expand_home(server.cwd)).resolve()) if server.cwd else str(cwd)
        if not Path(workdir).is_dir():
            raise RuntimeError(f"working directory {workdir} does not exist")
        try:
            proc = await stdio_transport.spawn(command, args, env, workdir)
        except OSError as error:
            raise RuntimeError(f"{error.strerror or error}: {command}") from error
        closed = proc.closed
        stderr = lambda: proc.stderr_tail  # noqa: E731
        startup_stderr = lambda: stdio_transport.final_stderr(proc)  # noqa: E731
        read, write = await stack.enter_async_context(stdio_transport.stdio_streams(proc))
    else:
        token = await auth.stored_token()
        read, write = await stack.enter_async_context(_http_streams(server, auth, token, closed))
    transport_error: asyncio.Future[BaseException] = asyncio.get_running_loop().create_future()

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):
            if not transport_error.done():
                transport_error.set_result(message)
            return
        await hooks.on_notification(message)

    async def on_log(params: Any) -> None:
        if hooks.log_path is not None:
            append_log(hooks.log_path, format_entry(server.name, str(params.level), params.logger, params.data))

    async def list_roots(_context: Any) -> Any:
        return types.ListRootsResult(roots=[types.Root(uri=cwd.resolve().as_uri(), name=cwd.name)])

    session = await stack.enter_async_context(
        ClientSession(
            read,
            write,
            message_handler=on_message,
            logging_callback=on_log,
            list_roots_callback=list_roots,  # type: ignore[arg-type]
            client_info=types.Implementation(name="pi", version=PI_VERSION),
        )
    )
    return Live(session=session, closed=closed, stderr=stderr, transport_error=transport_error), startup_stderr


def _http_streams(server: ServerConfig, auth: ConnectionAuth, token: str | None, closed: asyncio.Event) -> Any:
    import httpx
    from mcp.client.streamable_http import streamable_http_client

    headers = expand_map(server.headers)
    if token:
        headers["Authorization"] = f"Bearer {token}"
    client = httpx.AsyncClient(
        headers=headers,
        auth=auth.http_auth,
        timeout=httpx.Timeout(30.0, read=300.0),
        follow_redirects=False,
        event_hooks={"response": [lambda response: auth.watch_scope(response, closed)]},
    )

    @contextlib.asynccontextmanager
    async def streams() -> Any:
        async with client, streamable_http_client(server.url or "", http_client=client) as (read, write, _):
            yield read, write

    return streams()


__all__ = ["PI_VERSION", "Live", "OpenHooks", "open_live"]
