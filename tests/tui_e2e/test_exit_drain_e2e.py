"""tui.md §12.7.1: keys that reach the terminal while pi exits are drained, not left for the shell.

Both tests run on a real pseudo-terminal, where the bytes a test writes to the master side wait in
the terminal's input queue exactly as keys typed during an exit do. (Driving the whole `pi` in tmux
cannot show the drain: as soon as its event loop runs again, its own reader takes such keys into the
editor, so the keys never reach the shell with or without the drain.)
"""

from __future__ import annotations

import os
import pty
import select
import time
from collections.abc import Iterator

import pytest

from pi.tui.terminal import TtyTerminal
from pi.tui.tui import TUI
from tests.tui_e2e.harness import TIMEOUT


@pytest.fixture
def pty_pair() -> Iterator[tuple[int, int]]:
    """`(master, slave)`: what the test types goes into the master; the terminal under test reads the slave."""
    master, slave = pty.openpty()
    try:
        yield master, slave
    finally:
        os.close(master)
        os.close(slave)


def _typed_and_pending(master: int, slave: int, keys: bytes) -> None:
    """Type `keys` and wait (without letting the event loop run) until the terminal could read them."""
    os.write(master, keys)
    assert select.select([slave], [], [], TIMEOUT)[0] == [slave]


def _pending(slave: int) -> bool:
    return select.select([slave], [], [], 0.2)[0] == [slave]


async def test_the_ui_drains_keys_its_reader_has_not_taken_when_it_gives_the_terminal_back(
    pty_pair: tuple[int, int],
) -> None:
    """Keys typed while the event loop is busy on the way out (a blocking shutdown handler, the
    transcript being printed) are still in the queue when the UI stops: stopping discards them."""
    master, slave = pty_pair
    tui = TUI(TtyTerminal(input_fd=slave, output_fd=slave, environ={}), mode="regular")
    tui.start()  # raw mode, and the terminal's reader on this (running) loop
    _typed_and_pending(master, slave, b"echo LEAKED\r")
    tui.stop()
    assert not _pending(slave)


def test_the_terminal_discards_pending_input_before_it_is_given_back(pty_pair: tuple[int, int]) -> None:
    """The drain itself: bytes nobody read are gone afterwards, and it takes a bounded time."""
    master, slave = pty_pair
    term = TtyTerminal(input_fd=slave, output_fd=slave, environ={})
    term.set_raw(True)
    _typed_and_pending(master, slave, b"echo LEAKED\r")
    started = time.monotonic()
    term.drain_input()
    assert time.monotonic() - started < 1.5  # bounded: up to 1 s, and no longer once input stops
    assert not _pending(slave)
    term.set_raw(False)
