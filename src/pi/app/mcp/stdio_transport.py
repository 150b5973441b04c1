"""The stdio transport: a server process in its own process group, spoken to in JSON lines.

pi spawns the process itself (instead of the SDK's `stdio_client`) to keep the whole environment,
capture stderr for error messages, and end the server the way pi does: close stdin, give it
500 ms, SIGTERM the group, SIGKILL the group 2 s later. The SDK's `ClientSession` gets the two
memory streams this module feeds.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
import threading
from collections.abc import AsyncIterator
from typing import Any

from msgspec import Struct, field

STDERR_TAIL_CHARS = 2000
STDIN_GRACE_S = 0.5
TERM_GRACE_S = 2.0
READ_EOF_GRACE_S = 0.5
"""How long the stdout and stderr readers get to reach end of file once the server's group is gone."""
LINE_LIMIT = 64 * 1024 * 1024


_live_groups: set[int] = set()


@atexit.register
def _kill_leftover_groups() -> None:
    """Servers end with pi even when pi exits without closing them."""
    for pid in list(_live_groups):
        _signal_group(pid, signal.SIGKILL)


def _end_with_host_on_sigterm() -> None:
    """A SIGTERM with Python's default action ends the process without running `atexit`, which
    would leave the servers' process groups behind. When nobody else handles SIGTERM, end the
    groups first, then let the signal take its default course (same exit status as before)."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return

    def on_term(signo: int, _frame: object) -> None:
        _kill_leftover_groups()
        signal.signal(signo, signal.SIG_DFL)
        os.kill(os.getpid(), signo)

    signal.signal(signal.SIGTERM, on_term)


class StdioProcess(Struct):
    """A running server: its process, the stderr tail and an event set when stdout ends.

    `readers` pump the server's stdout and stderr, `writers` its stdin.
    """

    process: asyncio.subprocess.Process
    stderr_tail: str = ""
    closed: asyncio.Event = field(default_factory=asyncio.Event)
    stderr_done: asyncio.Event = field(default_factory=asyncio.Event)
    readers: list[asyncio.Task[None]] = field(default_factory=list)
    writers: list[asyncio.Task[None]] = field(default_factory=list)

    def add_stderr(self, text: str) -> None:
        self.stderr_tail = (self.stderr_tail + text)[-STDERR_TAIL_CHARS:]


async def spawn(command: str, args: list[str], env: dict[str, str], cwd: str | None) -> StdioProcess:
    process = await asyncio.create_subprocess_exec(
        command,
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
        cwd=cwd,
        start_new_session=True,
        limit=LINE_LIMIT,
    )
    _live_groups.add(process.pid)
    _end_with_host_on_sigterm()
    return StdioProcess(process)


async def _read_stderr(proc: StdioProcess) -> None:
    assert proc.process.stderr is not None
    try:
        while chunk := await proc.process.stderr.read(4096):
            proc.add_stderr(chunk.decode("utf-8", errors="replace"))
    finally:
        proc.stderr_done.set()


def _signal_group(pid: int, signo: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signo)


async def terminate(proc: StdioProcess) -> None:
    """pi's close sequence; returns once the process is gone."""
    process = proc.process
    if process.stdin is not None and not process.stdin.is_closing():
        process.stdin.close()
    for grace, signo in ((STDIN_GRACE_S, signal.SIGTERM), (TERM_GRACE_S, signal.SIGKILL)):
        try:
            await asyncio.wait_for(process.wait(), grace)
            break
        except TimeoutError:
            _signal_group(process.pid, signo)
    else:
        await process.wait()
    _signal_group(process.pid, signal.SIGKILL)  # children left behind in the group
    _live_groups.discard(process.pid)
    for task in proc.writers:
        task.cancel()
    # With the group gone its pipes reach end of file; a reader that gets there closes its pipe while
    # the event loop runs. Cancelled halfway, the pipe would stay open until garbage collection, which
    # after the loop has closed (pi ending on a signal) prints "Event loop is closed" tracebacks.
    if proc.readers:
        _, pending = await asyncio.wait(proc.readers, timeout=READ_EOF_GRACE_S)
        for task in pending:
            task.cancel()


@contextlib.asynccontextmanager
async def stdio_streams(proc: StdioProcess) -> AsyncIterator[tuple[Any, Any]]:
    """Memory streams for `ClientSession`, pumped to and from the process pipes."""
    import anyio
    from mcp import types
    from mcp.shared.message import SessionMessage

    read_send, read_recv = anyio.create_memory_object_stream[Any](0)
    write_send, write_recv = anyio.create_memory_object_stream[Any](0)
    process = proc.process
    assert process.stdout is not None and process.stdin is not None
    stdout, stdin = process.stdout, process.stdin

    async def pump_out() -> None:
        async with read_send:
            while line := await stdout.readline():
                if not line.strip():
                    continue
                try:
                    message = types.JSONRPCMessage.model_validate_json(line)
                except Exception as error:
                    await read_send.send(error)
                    continue
                await read_send.send(SessionMessage(message))
        proc.closed.set()

    async def pump_in() -> None:
        async with write_recv:
            async for item in write_recv:
                data = item.message.model_dump_json(by_alias=True, exclude_none=True)
                try:
                    stdin.write((data + "\n").encode("utf-8"))
                    await stdin.drain()
                except (BrokenPipeError, ConnectionResetError):
                    proc.closed.set()
                    return

    async def guarded(coro: Any, ends_connection: bool = True) -> None:
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, asyncio.CancelledError):
            await coro
        if ends_connection:
            proc.closed.set()

    proc.readers += [
        asyncio.ensure_future(guarded(pump_out())),
        asyncio.ensure_future(guarded(_read_stderr(proc), ends_connection=False)),
    ]
    proc.writers.append(asyncio.ensure_future(guarded(pump_in())))
    try:
        yield read_recv, write_send
    finally:
        await terminate(proc)
        for stream in (read_recv, write_send):
            await stream.aclose()


async def final_stderr(proc: StdioProcess, wait_s: float = 1.0) -> str:
    """The stderr tail once the process closed its stderr (or after `wait_s`), for error messages."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(proc.stderr_done.wait(), wait_s)
    return proc.stderr_tail


__all__ = ["STDERR_TAIL_CHARS", "StdioProcess", "final_stderr", "spawn", "stdio_streams", "terminate"]
