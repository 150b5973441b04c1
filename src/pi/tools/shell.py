"""Running a shell command the way a coding agent needs it.

A command the model runs may fork grandchildren (test runners, ``sleep &``), read stdin, print
gigabytes, or outlive its shell. So the shell leads its own session and process group (one kill
reaches every descendant), stdin is /dev/null (an interactive program sees EOF instead of hanging),
stdout and stderr share one pipe (the model sees them interleaved as a terminal would), and the call
returns once the shell has exited and the pipe has gone quiet, even if a background child still
holds it open. Data is handed to the caller chunk by chunk as it arrives; nothing is buffered here.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import dataclasses
import errno
import os
import re
import secrets
import shutil
import signal as signals
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pi.ai.abort import AbortSignal
from pi.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, TruncationResult, truncate_tail

EXIT_STDIO_GRACE_S = 0.1
"""How long the pipe may stay silent after the shell exited before we stop waiting for a background child."""

KILL_GRACE_S = 0.5
"""Time between SIGTERM and SIGKILL for processes that clean up on SIGTERM."""

_READ_SIZE = 1 << 16

OnData = Callable[[bytes], None]


class ShellError(Exception):
    """The command could not be started (no shell, no working directory); the message says why."""


class CommandAborted(Exception):
    """Raised by an exec backend when the abort signal stopped the command."""

    def __init__(self) -> None:
        super().__init__("aborted")


class CommandTimedOut(Exception):
    """Raised by an exec backend when the timeout stopped the command."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"timeout:{seconds}")
        self.seconds = seconds


@dataclass(slots=True, frozen=True)
class ExecResult:
    exit_code: int | None
    """None when the shell was killed by a signal (then `signal_name` says which)."""
    signal_name: str | None = None


@dataclass(slots=True, frozen=True)
class ShellConfig:
    shell: str
    args: tuple[str, ...]


def resolve_shell(shell_path: str | None = None) -> ShellConfig:
    """An explicit shell if configured, else bash (``/bin/bash`` first), else ``sh``."""
    if shell_path:
        if not os.path.exists(shell_path):
            raise ShellError(f"Custom shell path not found: {shell_path}")
        return ShellConfig(shell_path, ("-c",))
    if sys.platform == "win32":
        for root in (os.environ.get("PROGRAMFILES"), os.environ.get("PROGRAMFILES(X86)")):
            if root:
                candidate = os.path.join(root, "Git", "bin", "bash.exe")
                if os.path.exists(candidate):
                    return ShellConfig(candidate, ("-c",))
        found = shutil.which("bash.exe")
        if found:
            return ShellConfig(found, ("-c",))
        raise ShellError(
            "No bash shell found. Install Git for Windows (https://git-scm.com/download/win) "
            "or set shellPath in settings to a bash executable."
        )
    if os.path.exists("/bin/bash"):
        return ShellConfig("/bin/bash", ("-c",))
    return ShellConfig(shutil.which("bash") or shutil.which("sh") or "sh", ("-c",))


# --- process groups ------------------------------------------------------------------------------

_running_groups: set[int] = set()


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def kill_process_group_now(pid: int) -> None:
    """SIGKILL the whole group led by `pid` (falling back to the pid alone); never raises."""
    if sys.platform == "win32":
        system_root = os.environ.get("SYSTEMROOT", "C:\\Windows")
        with contextlib.suppress(OSError):
            subprocess.run(
                [os.path.join(system_root, "System32", "taskkill.exe"), "/F", "/T", "/PID", str(pid)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False,
            )
        return
    try:
        os.killpg(pid, signals.SIGKILL)
    except OSError:
        with contextlib.suppress(OSError):
            os.kill(pid, signals.SIGKILL)


async def kill_process_group(pid: int, grace_s: float = KILL_GRACE_S) -> None:
    """SIGTERM the group, give it `grace_s` to go, then SIGKILL whatever is left."""
    if sys.platform == "win32":
        kill_process_group_now(pid)
        return
    try:
        os.killpg(pid, signals.SIGTERM)
    except OSError:
        kill_process_group_now(pid)
        return
    deadline = asyncio.get_running_loop().time() + grace_s
    while _group_alive(pid) and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.02)
    kill_process_group_now(pid)


def kill_tracked_process_groups() -> None:
    """Kill every command still running; for the program's SIGTERM/SIGHUP handlers and exit hooks."""
    for pgid in list(_running_groups):
        kill_process_group_now(pgid)
    _running_groups.clear()


# --- running a command ---------------------------------------------------------------------------


def _describe_os_error(error: OSError) -> str:
    code = errno.errorcode.get(error.errno or 0)
    reason = error.strerror or str(error)
    return f"{code}: {reason.lower()}" if code else reason


class _ExitWatcher:
    """Resolves a future when the child exits, via a pidfd where the kernel has them, else a thread."""

    def __init__(self, proc: subprocess.Popen[bytes], loop: asyncio.AbstractEventLoop) -> None:
        self.proc = proc
        self.loop = loop
        self.exited: asyncio.Future[int] = loop.create_future()
        self._pidfd: int | None = None
        pidfd_open = getattr(os, "pidfd_open", None)
        if pidfd_open is not None:
            with contextlib.suppress(OSError):
                self._pidfd = pidfd_open(proc.pid)
        if self._pidfd is not None:
            loop.add_reader(self._pidfd, self._on_pidfd)
            self._on_pidfd()  # it may already have exited
        else:
            waiter = loop.run_in_executor(None, proc.wait)
            waiter.add_done_callback(self._on_thread_done)

    def _on_pidfd(self) -> None:
        code = self.proc.poll()
        if code is not None:
            self._close_pidfd()
            if not self.exited.done():
                self.exited.set_result(code)

    def _on_thread_done(self, waiter: asyncio.Future[int]) -> None:
        if not self.exited.done() and not waiter.cancelled() and waiter.exception() is None:
            self.exited.set_result(waiter.result())

    def _close_pidfd(self) -> None:
        if self._pidfd is not None:
            self.loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None

    def close(self) -> None:
        self._close_pidfd()


class _PipeReader:
    """Forwards every chunk from the pipe's read end to `on_data`, tracking when data last came."""

    def __init__(self, fd: int, on_data: OnData, loop: asyncio.AbstractEventLoop) -> None:
        self.fd = fd
        self.on_data = on_data
        self.loop = loop
        self.eof = asyncio.Event()
        self.last_data = loop.time()
        self.error: BaseException | None = None
        os.set_blocking(fd, False)
        loop.add_reader(fd, self._on_readable)
        self._open = True

    def _on_readable(self) -> None:
        try:
            chunk = os.read(self.fd, _READ_SIZE)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if not chunk:
            self.close()
            return
        self.last_data = self.loop.time()
        try:
            self.on_data(chunk)
        except BaseException as error:  # a failing consumer must not leave the command running
            self.error = error
            self.close()

    def close(self) -> None:
        if self._open:
            self._open = False
            self.loop.remove_reader(self.fd)
            os.close(self.fd)
        self.eof.set()


async def run_shell_command(
    command: str,
    cwd: str,
    *,
    on_data: OnData,
    signal: AbortSignal | None = None,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
    shell_path: str | None = None,
) -> ExecResult:
    """Run `command` through the shell in `cwd`, streaming combined output to `on_data`.

    Raises `CommandAborted` / `CommandTimedOut` after killing the whole process group, and
    `ShellError` when the command cannot start.
    """
    if not os.path.isdir(cwd):
        raise ShellError(f"Working directory does not exist: {cwd}\nCannot execute bash commands.")
    if signal is not None and signal.aborted:
        raise CommandAborted()
    config = resolve_shell(shell_path)
    loop = asyncio.get_running_loop()

    read_fd, write_fd = os.pipe()
    try:
        proc = subprocess.Popen(
            [config.shell, *config.args, command],
            stdin=subprocess.DEVNULL,
            stdout=write_fd,
            stderr=write_fd,
            cwd=cwd,
            env=dict(env) if env is not None else None,
            start_new_session=sys.platform != "win32",
            close_fds=True,
        )
    except OSError as error:
        os.close(read_fd)
        raise ShellError(f"Failed to start shell {config.shell}: {_describe_os_error(error)}") from error
    finally:
        os.close(write_fd)

    _running_groups.add(proc.pid)
    reader = _PipeReader(read_fd, on_data, loop)
    watcher = _ExitWatcher(proc, loop)
    stop_reason: str | None = None
    stopped = asyncio.Event()
    """Set when the shell exits, or earlier when an abort or the timeout decides to stop it."""
    interrupted = asyncio.Event()
    """Set by an abort or the timeout only; they still apply while output is drained after the exit."""

    def interrupt(reason: str) -> None:
        nonlocal stop_reason
        if stop_reason is None:
            stop_reason = reason
            stopped.set()
            interrupted.set()

    remove_listener = signal.add_listener(lambda: interrupt("aborted")) if signal is not None else None
    timer = loop.call_later(timeout, interrupt, "timeout") if timeout is not None else None

    async def stop_if_interrupted() -> None:
        if stop_reason is None:
            return
        await kill_process_group(proc.pid)
        if stop_reason == "aborted":
            raise CommandAborted()
        assert timeout is not None
        raise CommandTimedOut(timeout)

    watcher.exited.add_done_callback(lambda _: stopped.set())
    try:
        await stopped.wait()
        await stop_if_interrupted()

        # The shell is gone; collect what is still in flight, but do not wait on a background child
        # that keeps the pipe open: stop once it has been quiet for the grace period. A child that
        # never goes quiet is only stopped by an abort or the timeout, which kill its group.
        exit_time = loop.time()
        while not reader.eof.is_set() and not interrupted.is_set():
            idle = loop.time() - max(exit_time, reader.last_data)
            if idle >= EXIT_STDIO_GRACE_S:
                break
            waiters = [asyncio.ensure_future(reader.eof.wait()), asyncio.ensure_future(interrupted.wait())]
            try:
                await asyncio.wait(waiters, timeout=EXIT_STDIO_GRACE_S - idle, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiter in waiters:
                    waiter.cancel()
        await stop_if_interrupted()
        if reader.error is not None:
            raise reader.error
        code = watcher.exited.result()
        if code < 0:
            try:
                name = signals.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return ExecResult(exit_code=None, signal_name=name)
        return ExecResult(exit_code=code)
    except BaseException:
        if proc.poll() is None:
            kill_process_group_now(proc.pid)
        raise
    finally:
        if timer is not None:
            timer.cancel()
        if remove_listener is not None:
            remove_listener()
        reader.close()
        watcher.close()
        _running_groups.discard(proc.pid)
        if proc.returncode is None:
            # Killed above; reap it without blocking the loop for long.
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=1)


# --- capturing what it prints --------------------------------------------------------------------

_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\ufff9-\ufffb]")
"""C0 controls except TAB and LF (so CR too), and the interlinear annotation marks: noise to a model."""


def sanitize_output(text: str) -> str:
    """The text a model is shown: control characters and carriage returns removed (spec decision D4)."""
    return _UNPRINTABLE.sub("", text)


@dataclass(slots=True, frozen=True)
class OutputSnapshot:
    text: str
    """The tail of the output, cut to the limits, without any notice."""
    truncation: TruncationResult
    full_output_path: str | None
    last_line_bytes: int
    """UTF-8 length of the output's last line, for the notice when that line alone is over the limit."""


class OutputCapture:
    """Bounded memory for unbounded output.

    Only a rolling tail (between 2x and 4x the byte limit) of the sanitised text stays in memory,
    while totals are counted over everything. Once the output passes a limit, a temp file is
    created with everything received so far, and every later chunk is appended to it raw, so the
    file always holds the complete output and its path can be given to the model.
    """

    def __init__(
        self,
        max_lines: int = DEFAULT_MAX_LINES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        temp_dir: str | None = None,
    ) -> None:
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self._temp_dir = temp_dir
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._parts: list[str] = []
        self._tail_bytes = 0
        self.raw_bytes = 0
        self.total_bytes = 0
        self.completed_lines = 0
        self._open_line_bytes = 0
        self._last_completed_line_bytes = 0
        self._pending_raw: bytearray | None = bytearray()
        self._file_fd: int | None = None
        self.full_output_path: str | None = None
        self.version = 0
        """Bumped on every chunk that changed the text, so streaming can skip identical updates."""

    @property
    def total_lines(self) -> int:
        return self.completed_lines + (1 if self._open_line_bytes else 0)

    def feed(self, chunk: bytes) -> None:
        self.raw_bytes += len(chunk)
        self._store_raw(chunk)
        self._add_text(self._decoder.decode(chunk))

    def finish(self) -> None:
        """Flush an incomplete character at the very end (it becomes U+FFFD) and close the file."""
        self._add_text(self._decoder.decode(b"", final=True))
        self.close()

    def close(self) -> None:
        if self._file_fd is not None:
            os.close(self._file_fd)
            self._file_fd = None

    def _store_raw(self, chunk: bytes) -> None:
        if self._file_fd is not None:
            _write_all(self._file_fd, chunk)
        elif self._pending_raw is not None:
            self._pending_raw += chunk

    def _add_text(self, decoded: str) -> None:
        text = sanitize_output(decoded)
        if text:
            self.version += 1
            size = len(text.encode("utf-8", "surrogatepass"))
            self.total_bytes += size
            newline = text.rfind("\n")
            if newline == -1:
                self._open_line_bytes += size
            else:
                self.completed_lines += text.count("\n")
                previous = text.rfind("\n", 0, newline)
                if previous == -1:
                    self._last_completed_line_bytes = self._open_line_bytes + _utf8_len(text[:newline])
                else:
                    self._last_completed_line_bytes = _utf8_len(text[previous + 1 : newline])
                self._open_line_bytes = _utf8_len(text[newline + 1 :])
            self._parts.append(text)
            self._tail_bytes += size
            if self._tail_bytes > 4 * self.max_bytes:
                self._trim_tail()
        if self._file_fd is None and self._over_limits():
            self._open_file()

    def _over_limits(self) -> bool:
        return self.raw_bytes > self.max_bytes or self.total_bytes > self.max_bytes or self.total_lines > self.max_lines

    def _trim_tail(self) -> None:
        # Cut on a character boundary, not a line boundary: with at least twice the byte limit kept,
        # a tail cut never reaches the (possibly partial) first line unless it is also the last one.
        raw = "".join(self._parts).encode("utf-8", "surrogatepass")
        start = len(raw) - 2 * self.max_bytes
        while start < len(raw) and (raw[start] & 0xC0) == 0x80:
            start += 1
        kept = raw[start:]
        self._parts = [kept.decode("utf-8", "surrogatepass")]
        self._tail_bytes = len(kept)

    def _open_file(self) -> None:
        directory = self._temp_dir or tempfile.gettempdir()
        while True:
            path = os.path.join(directory, f"pi-bash-{secrets.token_hex(8)}.log")
            try:
                self._file_fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
                break
            except FileExistsError:
                continue
        self.full_output_path = path
        pending, self._pending_raw = self._pending_raw, None
        if pending:
            _write_all(self._file_fd, bytes(pending))

    def snapshot(self) -> OutputSnapshot:
        tail = "".join(self._parts)
        if len(self._parts) > 1:
            self._parts = [tail]
        result = truncate_tail(tail, self.max_lines, self.max_bytes)
        if result.total_bytes != self.total_bytes or result.total_lines != self.total_lines:
            result = dataclasses.replace(result, total_bytes=self.total_bytes, total_lines=self.total_lines)
        last_line = self._open_line_bytes if self._open_line_bytes else self._last_completed_line_bytes
        return OutputSnapshot(result.content, result, self.full_output_path, last_line)


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


__all__ = [
    "EXIT_STDIO_GRACE_S",
    "CommandAborted",
    "CommandTimedOut",
    "ExecResult",
    "OnData",
    "OutputCapture",
    "OutputSnapshot",
    "ShellConfig",
    "ShellError",
    "kill_process_group",
    "kill_process_group_now",
    "kill_tracked_process_groups",
    "resolve_shell",
    "run_shell_command",
    "sanitize_output",
]
