"""`pi.exec`: run a program without a shell and collect its output, with a deadline and a size cap.

A program that outlives its timeout, is aborted, or writes more than `max_buffer` bytes (stdout and
stderr together) gets SIGTERM, then SIGKILL five seconds later if it is still there. A program
ended by a signal reports `128 + signal number`, as a shell would (143 for TERM, 137 for KILL).
The child gets its own process group so the signal also reaches what it started.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal as signals
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pi.app.extensions.types import ExecResult

if TYPE_CHECKING:
    from pi.ai.abort import AbortSignal

DEFAULT_MAX_BUFFER = 268_435_456
KILL_GRACE_SECONDS = 5.0
_CHUNK = 65536


class _Capture:
    """Both streams' bytes, cut at the shared limit."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.total = 0
        self.truncated = False
        self.over_limit = asyncio.Event()
        self.parts: dict[str, list[bytes]] = {"stdout": [], "stderr": []}

    def add(self, stream: str, data: bytes) -> None:
        room = self.limit - self.total
        if len(data) > room:
            data = data[: max(room, 0)]
            self.truncated = True
            self.over_limit.set()
        self.total += len(data)
        if data:
            self.parts[stream].append(data)

    def text(self, stream: str) -> str:
        return b"".join(self.parts[stream]).decode("utf-8", errors="replace")


async def _pump(reader: asyncio.StreamReader | None, name: str, capture: _Capture) -> None:
    if reader is None:
        return
    while True:
        data = await reader.read(_CHUNK)
        if not data:
            return
        if capture.truncated:
            continue  # keep draining so the child never blocks on a full pipe
        capture.add(name, data)


def _signal_group(process: asyncio.subprocess.Process, signo: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signo)


async def _terminate(process: asyncio.subprocess.Process) -> None:
    _signal_group(process, signals.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), KILL_GRACE_SECONDS)
    except TimeoutError:
        _signal_group(process, signals.SIGKILL)
        await process.wait()


async def _stop_reason(
    process: asyncio.subprocess.Process, capture: _Capture, timeout_ms: int | None, signal: AbortSignal | None
) -> bool:
    """Wait for the process to exit by itself (False) or for a reason to stop it (True)."""
    waiters: list[asyncio.Future[object]] = [asyncio.ensure_future(process.wait())]
    waiters.append(asyncio.ensure_future(capture.over_limit.wait()))
    if signal is not None:
        waiters.append(asyncio.ensure_future(signal.wait()))
    timeout = None if timeout_ms is None or timeout_ms <= 0 else timeout_ms / 1000
    try:
        done, _ = await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()
    return not (waiters[0] in done and not capture.over_limit.is_set())


async def exec_command(
    command: str,
    args: Sequence[str] = (),
    *,
    cwd: str | os.PathLike[str] | None = None,
    signal: AbortSignal | None = None,
    timeout_ms: int | None = None,
    max_buffer: int = DEFAULT_MAX_BUFFER,
) -> ExecResult:
    """Run `command` with `args` (no shell). A program that cannot be started gives code 1 and the
    reason on stderr, so callers handle one result shape."""
    if signal is not None and signal.aborted:
        return ExecResult("", "", 1, killed=True)
    try:
        process = await asyncio.create_subprocess_exec(
            command,
            *args,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as error:
        return ExecResult("", f"{command}: {error.strerror or error}", 1)
    capture = _Capture(max_buffer)
    pumps = asyncio.gather(_pump(process.stdout, "stdout", capture), _pump(process.stderr, "stderr", capture))
    killed = False
    try:
        if await _stop_reason(process, capture, timeout_ms, signal):
            killed = True
            await _terminate(process)
        await pumps
    except asyncio.CancelledError:
        await _terminate(process)
        raise
    code = process.returncode if process.returncode is not None else 1
    if code < 0:
        code = 128 - code
    return ExecResult(capture.text("stdout"), capture.text("stderr"), code, killed, capture.truncated)


__all__ = ["DEFAULT_MAX_BUFFER", "KILL_GRACE_SECONDS", "exec_command"]
