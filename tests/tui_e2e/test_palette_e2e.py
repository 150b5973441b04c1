"""The `system` theme asks the terminal for its colours (tui.md §3 step 4, §13), run under a pty.

tmux does not answer the OSC 10/11 queries when detached, so here the test plays the terminal:
it reads pi's start sequence, answers the foreground/background queries and the DA1 sentinel,
and checks that the frames that follow use the reported colours.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pexpect

from tests.support.http_server import ScriptedServer
from tests.tui_e2e.harness import write_agent_dir, write_project


def _spawn(tmp_path: Path, server: ScriptedServer) -> pexpect.spawn:
    cwd = write_project(tmp_path)
    agent = write_agent_dir(tmp_path, server.url, {})
    (tmp_path / "home").mkdir()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("TMUX", "PI_"))},
        "PI_CODING_AGENT_DIR": str(agent),
        "PI_OFFLINE": "1",
        "COLORTERM": "truecolor",
        "TERM": "xterm-256color",
        "HOME": str(tmp_path / "home"),
        "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
    }
    return pexpect.spawn(
        sys.executable, ["-m", "pi"], cwd=str(cwd), env=env, dimensions=(35, 110), encoding="utf-8", timeout=30
    )


def test_system_theme_uses_the_reported_palette(tmp_path: Path, server: ScriptedServer) -> None:
    """Answers to OSC 10/11 (then DA1) rebuild the `system` theme: the editor's rule (coloured by the
    thinking level) is drawn in the colour derived from the reported palette, on a light appearance."""
    from pi.tui.theme_system import TerminalPalette, system_theme

    derived = system_theme(TerminalPalette((16, 32, 48), (240, 240, 240), {}), "truecolor")
    assert derived.appearance == "light"
    rule = derived.fg_code("thinkingMedium")
    assert rule.startswith("\x1b[38;2;")
    child = _spawn(tmp_path, server)
    try:
        child.expect_exact("\x1b]11;?")
        child.expect_exact("\x1b[c")
        child.send("\x1b]10;rgb:1010/2020/3030\x1b\\\x1b]11;rgb:f0f0/f0f0/f0f0\x1b\\\x1b[?62;22c")
        child.expect_exact(rule + "─")
        child.send("\x04")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


def test_system_theme_without_answers_falls_back(tmp_path: Path, server: ScriptedServer) -> None:
    """A terminal that answers only DA1 gets the ANSI fallback: the UI draws and quits normally, and the
    editor's rule uses an ANSI palette index instead of a derived colour."""
    child = _spawn(tmp_path, server)
    try:
        child.expect_exact("\x1b]11;?")
        child.expect_exact("\x1b[c")
        child.send("\x1b[?62;22c")
        child.expect_exact("\x1b[38;5;5m─")  # thinkingMedium falls back to ANSI slot 5
        child.expect_exact("fake-claude")
        child.send("\x04")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
