"""tui.md §12.7.1: keys that reach the terminal while pi exits are drained, not left for the shell.

pi runs in an interactive bash. An extension's `session_shutdown` handler holds the event loop (so
nothing reads the terminal) until the test has typed a shell command; without the drain, bash would
read and run that command once pi has gone.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tests.tui_e2e.harness import TIMEOUT, TmuxPi

HOLDING_EXTENSION = """
import time
from pathlib import Path

from pi.app.extensions import ExtensionAPI

STARTED = Path({started!r})
TYPED = Path({typed!r})


def setup(pi: ExtensionAPI) -> None:
    @pi.on("session_shutdown")
    async def hold(event, ctx):
        STARTED.write_text("shutting down")
        deadline = time.monotonic() + 20
        while not TYPED.exists() and time.monotonic() < deadline:
            time.sleep(0.02)  # deliberately blocking: the terminal is not read meanwhile
"""


def _wait_for_file(path: Path) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


def test_keys_typed_during_exit_do_not_reach_the_shell(make_pi: Any) -> None:
    pi: TmuxPi = make_pi()
    started, typed = pi.root / "started", pi.root / "typed"
    extension = pi.root / "hold_exit.py"
    extension.write_text(HOLDING_EXTENSION.format(started=str(started), typed=str(typed)))
    pi.start_in_shell("-e", str(extension))
    pi.wait_for("fake-claude • medium")
    pi.keys("C-d")
    _wait_for_file(started)
    pi.type("echo LEAKED-$((6*7))")
    pi.keys("Enter")
    typed.write_text("typed")
    pi.wait_for("shell$")
    pi.type("echo PI-EXIT=$?")
    pi.keys("Enter")
    assert pi.wait_exit() == 0
    assert "LEAKED-42" not in pi.text(history=True)


def test_the_terminal_discards_pending_input_before_it_is_given_back() -> None:
    """The drain itself, on a real pseudo-terminal: bytes nobody read are gone afterwards.

    (The run above cannot force bytes past pi's own reader: once the handler lets go, the event loop
    reads them into the editor. Here nothing reads but the drain.)
    """
    import os
    import pty
    import select

    from pi.tui.terminal import TtyTerminal

    master, slave = pty.openpty()
    try:
        term = TtyTerminal(input_fd=slave, output_fd=slave, environ={})
        term.set_raw(True)
        os.write(master, b"echo LEAKED\r")
        assert select.select([slave], [], [], TIMEOUT)[0] == [slave]  # the bytes are there to be read
        started = time.monotonic()
        term.drain_input()
        assert time.monotonic() - started < 1.5  # bounded: up to 1 s, and no longer once input stops
        assert select.select([slave], [], [], 0.2)[0] == []
        term.set_raw(False)
    finally:
        os.close(master)
        os.close(slave)
