"""One connection to one MCP server, over the official SDK's `ClientSession`.

A connection lives in its own task (the SDK's streams and task groups must be entered and left in
one task), so callers only see `connect()`, `call_tool()`, resource requests and `close()`. The
connection never raises for server trouble: it moves to a state (`failed`, `needs-auth`,
`disconnected`) and keeps the error text, and the next call reconnects a dropped server.

Opening the transport and session is `pi.app.mcp.connection_transport`; tokens, refresh and
step-up challenges are `pi.app.mcp.connection_auth`; the error types are in `connect_errors`
(re-exported here).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal, TypeAlias

from pi.app.mcp.config import ServerConfig
from pi.app.mcp.connect_errors import (
    ConnectionClosedError,
    NeedsAuthError,
    describe_error,
    error_leaves,
    http_status,
    is_transient,
)
from pi.app.mcp.connection_auth import ConnectionAuth
from pi.app.mcp.connection_transport import Live, OpenHooks, open_live
from pi.app.mcp.naming import RemoteTool
from pi.app.mcp.tool_listing import list_remote_tools

log = logging.getLogger(__name__)

State: TypeAlias = Literal["connecting", "connected", "needs-auth", "failed", "disconnected", "closed"]
HTTP_RETRY_DELAYS_S = (0.25, 1.0)
CONNECT_TIMEOUT_S = 30.0
SESSION_TERMINATED = "Session terminated"
ProgressFn: TypeAlias = Callable[[float, float | None, str | None], Awaitable[None] | None]


class McpConnection:
    """A server connection with pi's states, error texts, timeouts and reconnect-on-call."""

    def __init__(
        self,
        server: ServerConfig,
        *,
        cwd: Path,
        log_path: Path | None = None,
        agent_dir: Path | None = None,
        on_tools_changed: Callable[[McpConnection], Any] | None = None,
        http_auth: Any = None,
    ) -> None:
        self.server = server
        self.auth = ConnectionAuth(server, agent_dir, http_auth)
        """Tokens to send and OAuth challenges (`http_auth`: an `httpx.Auth` a sign-in passes)."""
        self.cwd = cwd
        self.log_path = log_path
        self.agent_dir = agent_dir
        """Where sign-ins stored their tokens (`mcp-auth.json`); None sends no stored token."""
        self.on_tools_changed = on_tools_changed
        self.state: State = "disconnected"
        self.error: str | None = None
        self.tools: list[RemoteTool] = []
        self.instructions: str | None = None
        self.has_resources = False
        self.has_tools = False
        self._live: Live | None = None
        self._runner: asyncio.Task[None] | None = None
        self._connecting: asyncio.Future[None] | None = None
        self._startup_stderr: Callable[[], Awaitable[str]] | None = None
        self._background: set[asyncio.Future[None]] = set()

    @property
    def name(self) -> str:
        return self.server.name

    # -- connecting ------------------------------------------------------------------------------

    async def connect(self) -> State:
        """Connect (once at a time); returns the resulting state and never raises for server trouble."""
        if self._connecting is not None and not self._connecting.done():
            await asyncio.shield(self._connecting)
            return self.state
        loop = asyncio.get_running_loop()
        self._connecting = loop.create_future()
        self.state, self.error = "connecting", None
        self.auth.reset()
        try:
            await self._connect_with_retries()
        finally:
            if not self._connecting.done():
                self._connecting.set_result(None)
        return self.state

    async def wait_settled(self) -> State:
        if self._connecting is not None and not self._connecting.done():
            await asyncio.shield(self._connecting)
        return self.state

    async def _connect_with_retries(self) -> None:
        delays = list(HTTP_RETRY_DELAYS_S) if self.server.transport == "http" else []
        while True:
            ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._runner = asyncio.ensure_future(self._run(ready))
            try:
                await ready
                self.state = "connected"
                return
            except Exception as error:
                if self._stepped_up():
                    return
                if isinstance(error, NeedsAuthError) or any(http_status(leaf) == 401 for leaf in error_leaves(error)):
                    if await self.auth.refreshed_after_401():
                        continue
                    self.state, self.error = "needs-auth", self._sign_in_message()
                    return
                if delays and is_transient(error):
                    await asyncio.sleep(delays.pop(0))
                    continue
                stderr = await self._startup_stderr() if self._startup_stderr is not None else ""
                self._fail(describe_error(error), stderr)
                return

    def _sign_in_message(self) -> str:
        return self.auth.sign_in_message()

    def _fail(self, message: str, stderr: str = "") -> None:
        text = f'MCP server "{self.name}" failed to connect: {message}'
        tail = stderr.strip()
        self.state, self.error = "failed", text + (f"\n{tail}" if tail else "")

    async def _run(self, ready: asyncio.Future[None]) -> None:
        """The connection's task: open transport and session, report readiness, wait for the end."""
        from contextlib import AsyncExitStack

        live: Live | None = None
        try:
            async with AsyncExitStack() as stack:
                live = await self._open(stack)
                await self._handshake(live)
                self._live = live
                if not ready.done():
                    ready.set_result(None)
                stop_task = asyncio.ensure_future(live.stop.wait())
                closed_task = asyncio.ensure_future(live.closed.wait())
                try:
                    await asyncio.wait({stop_task, closed_task}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    stop_task.cancel()
                    closed_task.cancel()
                if not live.stop.is_set():
                    self._dropped(live)
        except BaseException as error:
            if not ready.done():
                ready.set_exception(error if isinstance(error, Exception) else RuntimeError(str(error)))
            elif live is not None and not live.stop.is_set():
                self._dropped(live)
            if isinstance(error, asyncio.CancelledError):
                raise
        finally:
            if live is not None and self._live is live:
                self._live = None

    def _dropped(self, live: Live) -> None:
        """Mark the connection dropped, unless `live` is an older connection already replaced."""
        if self._live is not live or self.state == "needs-auth":
            return
        tail = live.stderr().strip()
        self.state = "disconnected"
        self.error = "Connection closed" + (f"\n{tail}" if tail else "")

    async def _open(self, stack: contextlib.AsyncExitStack) -> Live:
        hooks = OpenHooks(on_notification=self._on_notification, log_path=self.log_path)
        live, self._startup_stderr = await open_live(stack, self.server, self.cwd, self.auth, hooks)
        return live

    def _stepped_up(self) -> bool:
        """After an `insufficient_scope` answer: the wider scope is remembered for the next sign-in
        and the connection waits for it (`needs-auth`)."""
        if not self.auth.take_step_up():
            return False
        self.state, self.error = "needs-auth", self._sign_in_message()
        live = self._live
        if live is not None:
            live.stop.set()
        return True

    async def _handshake(self, live: Live) -> None:
        """`initialize` (racing transport errors such as a 401), then `tools/list` when offered."""
        failure = live.transport_error
        assert failure is not None
        init = asyncio.ensure_future(live.session.initialize())
        ended = asyncio.ensure_future(live.closed.wait())
        try:
            done, _ = await asyncio.wait(
                {init, failure, ended}, timeout=CONNECT_TIMEOUT_S, return_when="FIRST_COMPLETED"
            )
        except BaseException:
            init.cancel()
            raise
        finally:
            ended.cancel()
        if init not in done:
            init.cancel()
            if failure in done:
                error = failure.result()
                if http_status(error) == 401:
                    raise NeedsAuthError(self._sign_in_message())
                raise error
            if ended in done:
                raise ConnectionClosedError("Connection closed")
            raise TimeoutError(f"no answer to initialize within {CONNECT_TIMEOUT_S:g} s")
        result = init.result()
        caps = result.capabilities
        self.instructions = (result.instructions or "").strip() or None
        self.has_resources = caps.resources is not None
        self.has_tools = caps.tools is not None
        self.tools = await list_remote_tools(live.session) if self.has_tools else []

    @staticmethod
    def _tail(live: Live) -> str:
        tail = live.stderr().strip()
        return f"\n{tail}" if tail else ""

    async def _on_notification(self, message: Any) -> None:
        """Runs inside the SDK's receive loop, so the refresh request goes to its own task."""
        root = getattr(message, "root", None)
        if getattr(root, "method", None) == "notifications/tools/list_changed" and self._live is not None:
            task = asyncio.ensure_future(self._refresh_tools(self._live))
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def _refresh_tools(self, live: Live) -> None:
        try:
            self.tools = await list_remote_tools(live.session)
        except Exception as error:
            log.warning("MCP server %s: refreshing tools failed: %s", self.name, error)
            return
        if self.on_tools_changed is not None and self._live is live:
            self.on_tools_changed(self)

    # -- requests ----------------------------------------------------------------------------------

    async def _session(self) -> Any:
        if self.state == "connecting":
            await self.wait_settled()
        if self.state in ("disconnected", "closed") or (self.state == "connected" and self._live is None):
            await self.connect()
        if self.state == "needs-auth":
            raise RuntimeError(self._sign_in_message())
        if self.state != "connected" or self._live is None:
            raise RuntimeError(self.error or f'MCP server "{self.name}" is not connected.')
        return self._live.session

    async def call_tool(self, tool: str, arguments: dict[str, Any], on_progress: ProgressFn | None = None) -> Any:
        """`tools/call` with the server's timeout, which every progress notification restarts.

        Tool calls are never retried, except once on a new session when an HTTP server answered
        404 to the session id (the session expired, so the call never ran)."""
        self.auth.clear_challenge()
        try:
            return await self._call_tool_once(tool, arguments, on_progress)
        except Exception as error:
            if self._stepped_up():
                raise NeedsAuthError(self._sign_in_message()) from error
            if not self._session_expired(error):
                raise
        await self._new_session()
        return await self._call_tool_once(tool, arguments, on_progress)

    def _session_expired(self, error: BaseException) -> bool:
        """The SDK's answer to a 404 for a request that carried the session id."""
        from mcp.shared.exceptions import McpError

        return (
            self.server.transport == "http"
            and isinstance(error, McpError)
            and error.error.message == SESSION_TERMINATED
        )

    async def _new_session(self) -> None:
        await self.close()
        await self.connect()

    async def _call_tool_once(self, tool: str, arguments: dict[str, Any], on_progress: ProgressFn | None) -> Any:
        session = await self._session()
        live = self._live
        assert live is not None
        loop = asyncio.get_running_loop()
        deadline = [loop.time() + self.server.timeout]

        async def progress(value: float, total: float | None, message: str | None) -> None:
            deadline[0] = loop.time() + self.server.timeout
            if on_progress is not None:
                outcome = on_progress(value, total, message)
                if asyncio.iscoroutine(outcome):
                    await outcome

        call = asyncio.ensure_future(
            session.call_tool(tool, arguments, read_timeout_seconds=timedelta(days=1), progress_callback=progress)
        )
        ended = asyncio.ensure_future(live.closed.wait())
        try:
            while True:
                remaining = deadline[0] - loop.time()
                done, _ = await asyncio.wait({call, ended}, timeout=max(remaining, 0), return_when="FIRST_COMPLETED")
                if call in done:
                    if call.exception() is not None and live.closed.is_set():
                        self._dropped(live)
                        raise ConnectionClosedError("Connection closed" + self._tail(live))
                    return call.result()
                if ended in done:
                    self._dropped(live)
                    raise ConnectionClosedError("Connection closed" + self._tail(live))
                if loop.time() >= deadline[0]:
                    raise TimeoutError(
                        f'MCP tool "{self.name}/{tool}" timed out after {self.server.timeout:g} s without progress'
                    )
        finally:
            ended.cancel()
            if not call.done():
                call.cancel()

    async def request(self, method: str, **kwargs: Any) -> Any:
        """A read-only request (`list_resources`, `read_resource`, …): retried once after 250 ms."""
        for attempt in (0, 1):
            session = await self._session()
            self.auth.clear_challenge()
            try:
                return await self._until_closed(getattr(session, method)(**kwargs))
            except Exception as error:
                if self._stepped_up():
                    raise NeedsAuthError(self._sign_in_message()) from error
                if attempt:
                    raise
                if self._session_expired(error):
                    await self._new_session()
                else:
                    await asyncio.sleep(0.25)
        raise AssertionError("unreachable")

    async def _until_closed(self, work: Awaitable[Any]) -> Any:
        """`work`'s result, or `Connection closed` as soon as the transport ends."""
        live = self._live
        task = asyncio.ensure_future(work)
        if live is None:
            return await task
        ended = asyncio.ensure_future(live.closed.wait())
        try:
            done, _ = await asyncio.wait({task, ended}, return_when="FIRST_COMPLETED")
        finally:
            ended.cancel()
        if task not in done:
            task.cancel()
            raise ConnectionClosedError("Connection closed" + self._tail(live))
        return task.result()

    async def close(self) -> None:
        """End the connection (stdio: pi's close sequence) and wait for it to be gone."""
        live, runner = self._live, self._runner
        self.state = "closed"
        if runner is None or runner.done():
            return
        if live is None:
            runner.cancel()  # still connecting: abandon the handshake, the transport still closes cleanly
        else:
            live.stop.set()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(asyncio.shield(runner), 5.0)
        if not runner.done():
            runner.cancel()


__all__ = ["ConnectionClosedError", "McpConnection", "NeedsAuthError", "State", "describe_error", "is_transient"]
