"""SIGTERM and SIGHUP end `pi` as Ctrl+C does, with exit status 128 + the signal's number.

No command the model started may outlive pi. Each bash command runs in its own process group, so
the terminal's Ctrl+C reaches only pi, and nothing kills those groups for us: both handlers below
kill them first. The session then ends in order: extensions get `session_shutdown` and MCP servers
get their close sequence while the event loop still runs.

There is one handler for each phase of the process:

- Outside the event loop (reading piped stdin, after the loop has closed), a plain signal handler
  raises `SystemExit` at once; nothing asynchronous is left to shut down.
- While the loop runs, the loop's own handler cancels the main task, the way `asyncio.run` treats
  Ctrl+C. The main task's clean-up then runs while every other task is still alive. Raising from a
  plain handler would instead land in whatever frame happens to run, such as halfway through a
  hook call. All other tasks would then be cancelled at once, and MCP servers' pipes would only be
  closed by the garbage collector after the loop was gone, which prints tracebacks.

The shell module is looked up, not imported: if it was never loaded, no command ever ran, and
`--list-models` or `--export` should not pay for importing it.
"""

from __future__ import annotations

import asyncio
import signal
import sys

_NAMES = ("SIGTERM", "SIGHUP")


def _numbers() -> list[int]:
    return [int(getattr(signal, name)) for name in _NAMES if hasattr(signal, name)]


def _kill_commands() -> None:
    shell = sys.modules.get("pi.tools.shell")
    if shell is not None:
        shell.kill_tracked_process_groups()


def _exit_now(signum: int, frame: object) -> None:
    _kill_commands()
    raise SystemExit(128 + signum)


def install_process_handlers() -> None:
    """The handlers for while no event loop runs (see the module docstring)."""
    for number in _numbers():
        signal.signal(number, _exit_now)


class LoopTermination:
    """The handlers for one run of the event loop; create it in the main task, `close()` it at the end.

    `signum` is the signal that cancelled the main task, None while none arrived: the main coroutine
    turns that cancellation into its exit status (`exit_status`).
    """

    def __init__(self) -> None:
        self.signum: int | None = None
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        for number in _numbers():
            self._loop.add_signal_handler(number, self._on_signal, number)

    def _on_signal(self, number: int) -> None:
        _kill_commands()
        self.signum = number
        if self._task is not None:
            self._task.cancel()

    def exit_status(self) -> int | None:
        """128 + the signal's number once a signal ended the run, else None (an ordinary cancellation)."""
        return 128 + self.signum if self.signum is not None else None

    def close(self) -> None:
        """Hand the signals back to the plain handlers (the loop's removal would leave the defaults)."""
        for number in _numbers():
            self._loop.remove_signal_handler(number)
        install_process_handlers()


__all__ = ["LoopTermination", "install_process_handlers"]
