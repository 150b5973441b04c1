"""Running a shell command the way a coding agent needs it.

A command the model runs may fork grandchildren (test runners, ``sleep &``), read stdin, print
gigabytes, or outlive its shell. So the shell leads its own session and process group (one kill
reaches every descendant), stdin is /dev/null (an interactive program sees EOF instead of hanging),
stdout and stderr share one pipe (the model sees them interleaved as a terminal would), and the call
returns once the shell has exited and the pipe has gone quiet, even if a background child still
holds it open. Data is handed to the caller chunk by chunk as it arrives; nothing is buffered here.
Every wait (for the exit, for the pipe, for a killed group to go) is awaited on the event loop, so
other work goes on while a command runs or is being stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import os
import shutil
import signal as signals
import subprocess
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from msgspec import Struct

from pi.ai.abort import AbortSignal
from pi.tools.output_capture import OutputCapture, OutputSnapshot, sanitize_output  # with the runner, for callers

EXIT_STDIO_GRACE_S = 0.1
"""How long the pipe may stay silent after the shell exited before we stop waiting for a background child."""

KILL_GRACE_S = 0.5
"""Time between SIGTERM and SIGKILL for processes that clean up on SIGTERM."""

REAP_WAIT_S = 1.0
"""How long a killed shell is awaited so that it does not linger as a zombie."""

_READ_SIZE = 1 << 20
_PIPE_SIZE = 1 << 20
"""A pipe this large lets a fast writer hand over a megabyte per wake-up instead of 64 KiB."""

OnData = Callable[[bytes], None]


class ShellError(Exception):
    """The command could not be started (no shell, no working directory); the message says why."""


class CommandAborted(Exception):
    """Raised by an exec backend when the abort signal stopped the command."""

    def __init__(self) -> None:
        super().__init__("aborted")


class CommandTimedOut(Exception):
    """Raised by an exec backend when the timeout stopped the command.

    When the shell itself had already exited and only processes it left behind kept the output
    open, `shell_exit_code` and `shell_exit_seconds` say when and how it ended.
    """

    def __init__(
        self, seconds: float, shell_exit_code: int | None = None, shell_exit_seconds: float | None = None
    ) -> None:
        super().__init__(f"timeout:{seconds}")
        self.seconds = seconds
        self.shell_exit_code = shell_exit_code
        self.shell_exit_seconds = shell_exit_seconds


class ExecResult(Struct, frozen=True):
    """How a shell command ended; its output already went to the caller's `on_data`, chunk by chunk."""

    exit_code: int | None
    """None when the shell was killed by a signal (then `signal_name` and `signal_number` say which)."""
    signal_name: str | None = None
    signal_number: int | None = None

    def shell_status(self) -> int | None:
        """The status a shell would show in ``$?``: the exit code, or 128 + the signal that killed it.

        This is what pi reports to users and the model for a killed command (137 after SIGKILL).
        """
        if self.exit_code is not None:
            return self.exit_code
        if self.signal_number is not None:
            return 128 + self.signal_number
        if self.signal_name is not None:
            number = getattr(signals.Signals, self.signal_name, None)
            return 128 + int(number) if number is not None else None
        return None


class ShellConfig(Struct, frozen=True):
    """The shell program and the arguments placed before the command, e.g. ``/bin/bash -c <command>``."""

    shell: str
    args: tuple[str, ...]


def resolve_shell(shell_path: str | None = None) -> ShellConfig:
    """An explicit shell if configured, else bash (``/bin/bash`` first), else ``sh``."""
    if shell_path:
        if not os.path.exists(shell_path):
            raise ShellError(f"Custom shell path not found: {shell_path}\nFix or remove shellPath in settings.json.")
        return ShellConfig(shell_path, ("-c",))
    if os.path.exists("/bin/bash"):
        return ShellConfig("/bin/bash", ("-c",))
    return ShellConfig(shutil.which("bash") or shutil.which("sh") or "sh", ("-c",))


# --- process groups ------------------------------------------------------------------------------

_running_groups: set[int] = set()


_PROC = "/proc"
_GONE_STATES = frozenset("ZXx")
"""/proc states of a process that has exited: a zombie waiting for its parent, or one being torn down."""


def _group_states(pgid: int) -> list[str] | None:
    """The /proc state letter of every process in group `pgid`; None where there is no /proc to read.

    A process that vanishes between the listing and the read is simply left out: it is gone.
    """
    try:
        entries = os.scandir(_PROC)
    except OSError:
        return None
    states: list[str] = []
    with entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            try:
                with open(f"{_PROC}/{entry.name}/stat", "rb") as handle:
                    stat = handle.read()
            except OSError:
                continue
            # After the command name, which may itself hold spaces and parentheses: state ppid pgrp ...
            fields = stat[stat.rfind(b")") + 2 :].split(b" ", 3)
            if len(fields) >= 3 and fields[2] == str(pgid).encode():
                states.append(fields[0].decode("ascii", "replace"))
    return states


def _group_alive(pgid: int) -> bool:
    """Whether any process of the group still runs; zombies do not count.

    `killpg(pgid, 0)` succeeds while a member is a zombie, and an orphaned background child
    (``sleep 1 & sleep 2`` after the shell died) stays one for as long as nobody reaps it: where the
    init process does not reap orphans, as in many containers, forever. Counting it as alive would make
    every stop wait the whole SIGTERM grace. Where /proc exists (Linux) the members' states decide;
    elsewhere (macOS, whose launchd reaps orphans at once) the signal probe alone does. The caller
    still SIGKILLs the group afterwards, so a member missed by a racing fork is not left running.
    """
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    states = _group_states(pgid)
    if states is None:
        return True
    return any(state not in _GONE_STATES for state in states)


def kill_process_group_now(pid: int) -> None:
    """SIGKILL the whole group led by `pid` (falling back to the pid alone); never raises."""
    try:
        os.killpg(pid, signals.SIGKILL)
    except OSError:
        with contextlib.suppress(OSError):
            os.kill(pid, signals.SIGKILL)


async def kill_process_group(pid: int, grace_s: float = KILL_GRACE_S) -> None:
    """SIGTERM the group, give it `grace_s` to go, then SIGKILL whatever is left.

    The group is polled with short sleeps on the loop, so nothing else is held up meanwhile.
    """
    try:
        os.killpg(pid, signals.SIGTERM)
    except OSError:
        kill_process_group_now(pid)
        return
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace_s
    while _group_alive(pid) and loop.time() < deadline:
        await asyncio.sleep(0.02)
    kill_process_group_now(pid)


_DEFERRED_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")


@contextlib.contextmanager
def _termination_deferred() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGHUP back while a command starts and its group is recorded.

    The program's handlers for those signals kill every recorded group and unwind. A signal landing
    inside `Popen` (after the fork) or before the new group is recorded would unwind past a child
    nobody knows about, and it would outlive pi. So for that short window a handler that only notes
    the signal stands in, and the noted signals are handed to the real handlers once the group is
    recorded. Signals the event loop dispatches itself reach it through its wake-up fd either way.
    Handlers can only be swapped in the main thread; elsewhere nothing changes.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []
    previous: dict[int, Any] = {}

    def note(signum: int, frame: object) -> None:
        noted.append(signum)

    for name in _DEFERRED_SIGNALS:
        number = getattr(signals, name, None)
        if number is None:
            continue
        handler = signals.getsignal(number)
        if handler is None or handler is signals.SIG_IGN:  # installed outside Python, or ignored: leave alone
            continue
        previous[number] = handler
        signals.signal(number, note)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signals.signal(number, handler)
        for number in dict.fromkeys(noted):
            handler = previous[number]
            if callable(handler):
                handler(number, None)
            elif handler is signals.SIG_DFL:
                os.kill(os.getpid(), number)


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


class ExitWatcher:
    """Resolves `exited` when the child exits, via a pidfd where the kernel has them, else a thread.

    Either way the loop never blocks on the child: the pidfd becomes readable when it exits and is
    then reaped without waiting, and the fallback thread does the blocking wait off the loop.
    """

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

    async def reap(self, within: float = REAP_WAIT_S) -> bool:
        """Wait up to `within` seconds for the exit without blocking the loop; True once it is reaped."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.exited), within)
        return self.exited.done()

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


def _open_pipe() -> tuple[int, int]:
    read_fd, write_fd = os.pipe()
    set_size = getattr(fcntl, "F_SETPIPE_SZ", None)
    if set_size is not None:
        with contextlib.suppress(OSError):  # over the system's limit: the default size still works
            fcntl.fcntl(read_fd, set_size, _PIPE_SIZE)
    return read_fd, write_fd


def _spawn(
    config: ShellConfig, command: str, cwd: str, env: Mapping[str, str] | None
) -> tuple[subprocess.Popen[bytes], int]:
    read_fd, write_fd = _open_pipe()
    try:
        proc = subprocess.Popen(
            [config.shell, *config.args, command],
            stdin=subprocess.DEVNULL,
            stdout=write_fd,
            stderr=write_fd,
            cwd=cwd,
            env=dict(env) if env is not None else None,
            start_new_session=True,
            close_fds=True,
        )
    except OSError as error:
        os.close(read_fd)
        raise ShellError(
            f"Failed to start shell {config.shell}: {_describe_os_error(error)}\n"
            "Check that it is an executable shell, or fix shellPath in settings.json."
        ) from error
    finally:
        os.close(write_fd)
    return proc, read_fd


def _start(
    config: ShellConfig, command: str, cwd: str, env: Mapping[str, str] | None
) -> tuple[subprocess.Popen[bytes], int]:
    """Spawn the shell and record its group before any termination signal is handled.

    When a handler noted meanwhile unwinds (SIGTERM, Ctrl+C), the new group is killed on the way out.
    """
    started: tuple[subprocess.Popen[bytes], int] | None = None
    try:
        with _termination_deferred():
            started = _spawn(config, command, cwd, env)
            _running_groups.add(started[0].pid)
    except BaseException:
        if started is not None:
            proc, read_fd = started
            kill_process_group_now(proc.pid)
            _running_groups.discard(proc.pid)
            os.close(read_fd)
        raise
    return started


def _exec_result(code: int) -> ExecResult:
    if code < 0:
        try:
            name = signals.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return ExecResult(exit_code=None, signal_name=name, signal_number=-code)
    return ExecResult(exit_code=code)


class _Interrupts:
    """An abort or the timeout deciding to stop a command, whichever comes first."""

    def __init__(self, signal: AbortSignal | None, timeout: float | None, loop: asyncio.AbstractEventLoop) -> None:
        self.reason: str | None = None
        self.stopped = asyncio.Event()
        """Set when the shell exits, or earlier when an abort or the timeout decides to stop it."""
        self.interrupted = asyncio.Event()
        """Set by an abort or the timeout only; they still apply while output is drained after the exit."""
        self.timeout = timeout
        self._remove = signal.add_listener(lambda: self._interrupt("aborted")) if signal is not None else None
        self._timer = loop.call_later(timeout, self._interrupt, "timeout") if timeout is not None else None

    def _interrupt(self, reason: str) -> None:
        if self.reason is None:
            self.reason = reason
            self.stopped.set()
            self.interrupted.set()

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self._remove is not None:
            self._remove()


def _check_cwd(cwd: str) -> None:
    if not os.path.isdir(cwd):
        raise ShellError(
            f"Working directory does not exist: {cwd}\nCannot execute bash commands. "
            "Recreate the directory (write creates missing directories) or ask the user to restart pi elsewhere."
        )


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
    _check_cwd(cwd)
    if signal is not None and signal.aborted:
        raise CommandAborted()
    config = resolve_shell(shell_path)
    loop = asyncio.get_running_loop()
    started = loop.time()
    proc, read_fd = _start(config, command, cwd, env)
    reader = _PipeReader(read_fd, on_data, loop)
    watcher = ExitWatcher(proc, loop)
    interrupts = _Interrupts(signal, timeout, loop)
    exit_time: float | None = None

    async def stop_if_interrupted() -> None:
        if interrupts.reason is None:
            return
        await kill_process_group(proc.pid)
        if interrupts.reason == "aborted":
            raise CommandAborted()
        assert timeout is not None
        if exit_time is not None and watcher.exited.done():
            raise CommandTimedOut(timeout, watcher.exited.result(), exit_time - started)
        raise CommandTimedOut(timeout)

    watcher.exited.add_done_callback(lambda _: interrupts.stopped.set())
    try:
        await interrupts.stopped.wait()
        await stop_if_interrupted()
        exit_time = loop.time()
        await _drain_after_exit(reader, interrupts.interrupted, exit_time)
        await stop_if_interrupted()
        if reader.error is not None:
            raise reader.error
        return _exec_result(watcher.exited.result())
    except BaseException:
        if proc.poll() is None:
            kill_process_group_now(proc.pid)
        raise
    finally:
        interrupts.close()
        reader.close()
        _running_groups.discard(proc.pid)
        try:
            if not watcher.exited.done():
                await watcher.reap()
        finally:
            watcher.close()


async def _drain_after_exit(reader: _PipeReader, interrupted: asyncio.Event, exit_time: float) -> None:
    """Collect what is still in flight once the shell is gone, without waiting on a background child.

    Stops once the pipe has been quiet for the grace period. A child that never goes quiet is only
    stopped by an abort or the timeout, which kill its group.
    """
    loop = asyncio.get_running_loop()
    while not reader.eof.is_set() and not interrupted.is_set():
        idle = loop.time() - max(exit_time, reader.last_data)
        if idle >= EXIT_STDIO_GRACE_S:
            return
        waiters = [asyncio.ensure_future(reader.eof.wait()), asyncio.ensure_future(interrupted.wait())]
        try:
            await asyncio.wait(waiters, timeout=EXIT_STDIO_GRACE_S - idle, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()


__all__ = [
    "EXIT_STDIO_GRACE_S",
    "CommandAborted",
    "CommandTimedOut",
    "ExecResult",
    "ExitWatcher",
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
