"""Quitting the real `pi` in tmux: keys, resume hint, exit output, restored terminal (tui.md §12.7;
§16 checks 61–63, used by the issue's queue and abort checks)."""

from __future__ import annotations

import os
import signal
import subprocess
from typing import Any

from tests.support.http_server import ScriptedServer
from tests.tui_e2e.anthropic_chunks import anthropic_reply
from tests.tui_e2e.harness import TmuxPi

ON_OFF = [
    ("\x1b[?1000h", "\x1b[?1000l"),
    ("\x1b[?1006h", "\x1b[?1006l"),
    ("\x1b[?2004h", "\x1b[?2004l"),
    ("\x1b[?1049h", "\x1b[?1049l"),
]


def _one_turn(make_pi: Any, server: ScriptedServer, *args: str, settings: dict[str, Any] | None = None) -> TmuxPi:
    pi: TmuxPi = make_pi(settings)
    server.queue(anthropic_reply("Hello from the model."))
    pi.start(*args)
    pi.wait_for("fake-claude • medium")
    pi.type("hi")
    pi.keys("Enter")
    pi.wait_for("Hello from the model.")
    pi.wait_idle()
    return pi


def _assert_restored(pi: TmuxPi) -> None:
    """Every mode pi switched on is switched off again after its last use, and the cursor is shown."""
    log = pi.written_after_exit()
    assert log
    for on, off in ON_OFF:
        if on in log:
            assert log.rindex(off) > log.rindex(on), f"{on!r} left on"
    assert "\x1b[>4;2m" not in log or log.rindex("\x1b[>4;0m") > log.rindex("\x1b[>4;2m")
    assert log.rindex("\x1b[?25h") > log.rindex("\x1b[?25l")


def _session_id(pi: TmuxPi) -> str:
    files = list((pi.agent_dir / "sessions").rglob("*.jsonl"))
    assert len(files) == 1
    return files[0].stem.split("_")[-1]


def test_check_61_ctrl_c_clears_then_twice_quits(make_pi: Any, server: ScriptedServer) -> None:
    """Check 61: Ctrl+C clears the text; twice within 500 ms exits 0; Ctrl+D with text only deletes."""
    pi: TmuxPi = make_pi()
    pi.start()
    pi.wait_for("fake-claude • medium")
    pi.type("some text")
    pi.wait_for("some text")
    pi.keys("C-c")
    pi.wait_gone("some text")
    pi.type("abc")
    pi.keys("Home", "C-d")
    pi.wait_for(lambda s: " bc" in s or "\nbc" in s)
    assert "PI-EXIT" not in pi.text()
    pi.keys("C-c", "C-c")
    assert pi.wait_exit() == 0
    _assert_restored(pi)


def test_ctrl_d_quits_with_transcript_and_resume_hint(make_pi: Any, server: ScriptedServer) -> None:
    """Check 62 (transcript): Ctrl+D on an empty editor exits 0; the main screen then holds the header,
    the transcript, both rules, the footer, and the resume hint; check 63: nothing left switched on."""
    pi = _one_turn(make_pi, server)
    pi.keys("C-d")
    assert pi.wait_exit() == 0
    text = pi.text(history=True)
    after = text[text.index("PI-START") :]
    assert "▀▀█" in after and " hi" in after and "Hello from the model." in after
    assert after.count("─" * 110) >= 2 and "fake-claude • medium" in after
    lines = after.split("\n")
    hint = lines.index("To resume this session:")
    assert lines[hint + 1] == f"pi --session {_session_id(pi)}"
    assert lines[hint - 1].endswith("fake-claude • medium")
    _assert_restored(pi)


def test_resume_hint_only_setting(make_pi: Any, server: ScriptedServer) -> None:
    """Check 62 (`resume-hint`): only the hint reaches the main screen."""
    pi = _one_turn(make_pi, server, settings={"fullscreenExitOutput": "resume-hint"})
    pi.keys("C-d")
    assert pi.wait_exit() == 0
    text = pi.text(history=True)
    after = text[text.index("PI-START") :]
    assert "Hello from the model." not in after and "▀▀█" not in after
    assert "To resume this session:" in after and f"pi --session {_session_id(pi)}" in after


def test_no_hint_without_session_or_messages(make_pi: Any, server: ScriptedServer) -> None:
    """Check 62: `--no-session`, or a session without messages, prints no hint."""
    no_session = _one_turn(make_pi, server, "--no-session")
    no_session.keys("C-d")
    assert no_session.wait_exit() == 0
    assert "To resume" not in no_session.text(history=True)
    empty: TmuxPi = make_pi()
    empty.start()
    empty.wait_for("fake-claude • medium")
    empty.keys("C-d")
    assert empty.wait_exit() == 0
    assert "To resume" not in empty.text(history=True)


def test_regular_mode_exit(make_pi: Any, server: ScriptedServer) -> None:
    """Regular renderer: the transcript stays inline above the hint, and the terminal is restored."""
    pi = _one_turn(make_pi, server, "--tui-mode", "regular")
    pi.keys("C-c", "C-c")
    assert pi.wait_exit() == 0
    text = pi.text(history=True)
    assert text.index("PI-START") < text.index("Hello from the model.") < text.index("To resume this session:")
    _assert_restored(pi)


def test_sigterm_restores_terminal(make_pi: Any, server: ScriptedServer) -> None:
    """SIGTERM: pi leaves the alternate screen, restores the terminal and exits."""
    pi = _one_turn(make_pi, server)
    shell = int(pi.tmux("display", "-p", "-t", "main", "#{pane_pid}").strip())
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(shell)], capture_output=True, text=True, check=True)
    children = [int(p) for p in out.stdout.split()]
    assert len(children) == 1
    os.kill(children[0], signal.SIGTERM)
    pi.wait_exit()
    assert "To resume this session:" in pi.text(history=True)
    _assert_restored(pi)
