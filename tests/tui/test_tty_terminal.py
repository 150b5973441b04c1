"""The real terminal layer under a pseudo-terminal: raw mode, signals, restore on every way out."""

from __future__ import annotations

import os
import signal
import sys
import termios
from pathlib import Path

import pexpect
import pytest

APP = Path(__file__).with_name("tty_app.py")


def _spawn(mode: str) -> pexpect.spawn:
    env = {**os.environ, "TERM": "xterm-256color", "PI_TUI_ESC_TIMEOUT": "10"}
    for var in ("TMUX", "STY", "ZELLIJ"):
        env.pop(var, None)
    child = pexpect.spawn(sys.executable, [str(APP), mode], env=env, dimensions=(12, 50), encoding="utf-8", timeout=20)
    child.expect_exact("\x1b[?2004h\x1b[>7u\x1b[?u\x1b[c")  # paste on, kitty push + query, DA1 sentinel
    child.expect_exact(f"READY {mode}")
    child.send("\x1b[?62c")  # a terminal without the kitty protocol
    child.expect_exact("\x1b[>4;2m")  # so modifyOtherKeys is turned on
    return child


def _raw(child: pexpect.spawn) -> bool:
    lflag = termios.tcgetattr(child.child_fd)[3]
    return not lflag & termios.ECHO and not lflag & termios.ICANON


@pytest.mark.parametrize("mode", ["fullscreen", "regular"])
def test_quit_restores_the_terminal(mode: str) -> None:
    child = _spawn(mode)
    assert _raw(child)
    child.send("\x1b[107;5u")  # a kitty-encoded key still reaches the app
    child.expect_exact("keys: '\\x1b[107;5u'")
    child.send("q")
    child.expect(pexpect.EOF)
    output = child.before or ""
    child.close()
    assert child.exitstatus == 0
    # Everything switched on during the run is switched off again.
    for off in ("\x1b[?2004l", "\x1b[<u", "\x1b[>4;0m", "\x1b[?25h"):
        assert off in output
    if mode == "fullscreen":
        assert "\x1b[?1000l" in output and "\x1b[?1049l" in output and "\x1b[?7h" in output


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_termination_signals_restore_the_terminal(sig: int) -> None:
    child = _spawn("fullscreen")
    child.kill(sig)
    child.expect(pexpect.EOF)
    output = child.before or ""
    child.close()
    assert child.signalstatus == sig
    assert "\x1b[?1049l" in output and "\x1b[<u" in output and "\x1b[?2004l" in output
    assert "\x1b[?1000l" in output and "\x1b[>4;0m" in output


def test_outside_sigtstp_stops_cleanly_and_fg_redraws() -> None:
    """Under a job-control shell, as a user runs it: `kill -TSTP`, then `fg`."""
    env = {**os.environ, "TERM": "xterm-256color", "PS1": "$ "}
    for var in ("TMUX", "STY", "ZELLIJ"):
        env.pop(var, None)
    shell = pexpect.spawn(
        "bash", ["--norc", "--noprofile", "-i"], env=env, dimensions=(12, 60), encoding="utf-8", timeout=20
    )
    shell.expect_exact("$ ")
    shell.sendline(f"{sys.executable} {APP} fullscreen")
    shell.expect(r"READY fullscreen pid=(\d+)")
    pid = int(shell.match.group(1))
    os.kill(pid, signal.SIGTSTP)
    shell.expect("Stopped")
    before_stop = shell.before or ""
    assert "\x1b[?1049l" in before_stop and "\x1b[?1000l" in before_stop and "\x1b[<u" in before_stop
    state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    assert state == "T"  # stopped by job control
    shell.sendline("fg")
    shell.expect_exact("\x1b[?1049h")  # back into the alternate screen
    shell.expect_exact("READY fullscreen")  # and redrawn
    shell.send("q")
    shell.expect_exact("$ ")
    shell.sendline("echo status=$?")
    shell.expect_exact("status=0")
    shell.sendline("exit")
    shell.expect(pexpect.EOF)
    shell.close()
