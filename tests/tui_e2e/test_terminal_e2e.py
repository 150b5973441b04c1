"""Terminal handling of the real `pi` in tmux (tui.md §12; §16 check 60): suspend and resume from an
interactive shell, the window title, OSC 9;4 progress and OSC 7501 program status."""

from __future__ import annotations

from typing import Any

from tests.support.http_server import ScriptedServer
from tests.tui_e2e.anthropic_chunks import anthropic_reply
from tests.tui_e2e.harness import TmuxPi

WORKING = "\x1b]7501;state=working:app=pi\x1b\\"
DONE = "\x1b]7501;state=done:app=pi\x1b\\"
PROGRESS_ON, PROGRESS_OFF = "\x1b]9;4;3;\x07", "\x1b]9;4;0;\x07"


def test_check_60_ctrl_z_and_fg(make_pi: Any, server: ScriptedServer) -> None:
    """Check 60: Ctrl+Z shows the shell's `Stopped` line under pi's last frame; `fg` restores the
    screen with the editor text intact."""
    pi: TmuxPi = make_pi()
    pi.start_in_shell("--use-theme", "dark")
    pi.wait_for("fake-claude • medium")
    pi.type("half typed text")
    pi.wait_for("half typed text")
    pi.keys("C-z")
    text = pi.wait_for("Stopped")
    stopped = next(line for line in text.split("\n") if "Stopped" in line)
    assert stopped.startswith("[1]+") and "pi" in stopped
    assert "fake-claude • medium" in text  # the last frame stays above the shell's line
    pi.type("fg")
    pi.keys("Enter")
    text = pi.wait_for(lambda s: "half typed text" in s and "Stopped" not in s and "fake-claude" in s)
    pi.keys("C-c")
    pi.keys("C-d")
    pi.wait_for(lambda s: s.rstrip().endswith("shell$"), history=True)
    pi.type("echo PI-EXIT=$?")
    pi.keys("Enter")
    assert pi.wait_exit() == 0


def test_program_status_and_progress(make_pi: Any, server: ScriptedServer) -> None:
    """With `PI_PROGRAM_STATUS=1` and `terminal.showTerminalProgress`, a turn reports `working` then
    `done` (OSC 7501) and progress on then off (OSC 9;4); without them, neither is written."""
    pi: TmuxPi = make_pi({"terminal": {"showTerminalProgress": True}})
    server.queue(anthropic_reply("First."), anthropic_reply("Second."))
    pi.start("--use-theme", "dark", env={"PI_PROGRAM_STATUS": "1"})
    pi.wait_for("fake-claude • medium")
    pi.type("go")
    pi.keys("Enter")
    pi.wait_for("First.")
    pi.wait_idle()
    log = pi.wait_for(lambda _s: DONE in pi.written_after_exit()) and pi.written_after_exit()
    assert log.index(WORKING) < log.index(DONE)
    assert log.index(PROGRESS_ON) < log.index(PROGRESS_OFF)
    assert "π - work" in log  # the title (OSC 0) names the folder

    quiet: TmuxPi = make_pi()
    quiet.start("--use-theme", "dark", env={"PI_PROGRAM_STATUS": "0"})
    quiet.wait_for("fake-claude • medium")
    quiet.type("go")
    quiet.keys("Enter")
    quiet.wait_for("Second.")
    quiet.wait_idle()
    quiet.keys("C-d")
    assert quiet.wait_exit() == 0
    written = quiet.written_after_exit()
    assert "7501;state=" not in written and "\x1b]9;4;" not in written and "7501;?" not in written
