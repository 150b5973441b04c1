"""Startup and layout of the real `pi` in tmux (tui.md §16 checks 1–6)."""

from __future__ import annotations

import json
from typing import Any

from tests.tui_e2e.harness import WIDTH, TmuxPi

RULE = "─" * WIDTH
HINTS = " █▀ █ escape interrupt · ctrl+c/ctrl+d clear/exit · / commands · ! bash · ctrl+o more"


def _rows(pi: TmuxPi) -> list[str]:
    rows = pi.screen()
    while rows and not rows[-1].strip():
        rows.pop()
    return rows


def test_check_01_02_default_layout_and_header(make_pi: Any) -> None:
    """Checks 1 and 2: the dock's last five rows, the header lines, `[Context]`; the shell line is hidden."""
    pi: TmuxPi = make_pi()
    pi.start()
    text = pi.wait_for("fake-claude • medium")
    last = _rows(pi)[-5:]
    assert last[0] == RULE and last[2] == RULE
    assert last[1].strip() == ""
    assert last[3].endswith("/work (main)")
    assert last[4].startswith("0.0%/200k (auto)") and last[4].endswith("(fakea) fake-claude • medium")
    assert " ▀▀█  v" in text
    assert HINTS in text
    assert " Press ctrl+o to show full startup help and loaded resources." in text
    assert "[Context]\n  AGENTS.md" in text
    assert "PI-START" not in text


def test_check_03_ctrl_o_expands_header_and_resources(make_pi: Any) -> None:
    """Check 3: Ctrl+O shows one hint per line, the absolute context path, and `Tool output: expanded`."""
    pi: TmuxPi = make_pi()
    pi.start()
    pi.wait_for("fake-claude • medium")
    pi.keys("C-o")
    text = pi.wait_for("Tool output: expanded")
    full = pi.text(history=True)
    assert " ctrl+c twice to exit" in full
    assert " !! to run bash (no context)" in full
    assert f"  {pi.cwd / 'AGENTS.md'}" in text
    assert HINTS not in text


def test_check_04_tmux_extended_keys_warning(make_pi: Any) -> None:
    """Check 4: with `extended-keys off` the chat warns; with `on` (check 1's run) it does not."""
    off: TmuxPi = make_pi(extended_keys=False)
    off.start()
    text = off.wait_for("fake-claude • medium")
    assert "Warning: tmux extended-keys is off. Modified Enter keys may not work." in text
    on: TmuxPi = make_pi()
    on.start()
    assert "extended-keys is off" not in on.wait_for("fake-claude • medium")


def test_check_05_regular_mode_and_model_scope(make_pi: Any) -> None:
    """Check 5: regular mode keeps the shell output visible and prints the scope line above the header;
    fullscreen shows the same line inside the header."""
    regular: TmuxPi = make_pi()
    regular.start("--tui-mode", "regular", "--models", "fake-model,fake-claude")
    text = regular.wait_for(lambda s: "(Ctrl+P to cycle)" in s and "fake-claude •" in s)
    lines = text.split("\n")
    assert lines[0] == "PI-START"
    scope = lines.index("Model scope: fake-model, fake-claude (Ctrl+P to cycle)")
    logo = next(i for i, line in enumerate(lines) if "▀▀█" in line)
    assert scope < logo
    full: TmuxPi = make_pi()
    full.start("--models", "fake-model,fake-claude")
    text = full.wait_for(lambda s: "(Ctrl+P to cycle)" in s and "fake-claude •" in s)
    assert "PI-START" not in text
    lines = text.split("\n")
    scope_row = next(i for i, line in enumerate(lines) if "Model scope: fake-model, fake-claude" in line)
    logo_row = next((i for i, line in enumerate(lines) if "▀▀█" in line), None)
    assert logo_row is not None, text
    assert scope_row > logo_row


def test_check_06_quiet_startup(make_pi: Any) -> None:
    """Check 6: `quietStartup: "header"` keeps the logo without `[Context]`; `true` drops both."""
    header_only: TmuxPi = make_pi({"quietStartup": "header"})
    header_only.start()
    text = header_only.wait_for("fake-claude • medium")
    assert "▀▀█" in text and "[Context]" not in text
    quiet: TmuxPi = make_pi({"quietStartup": True})
    quiet.start()
    text = quiet.wait_for("fake-claude • medium")
    assert "▀▀█" not in text and "[Context]" not in text


def test_check_07_changelog_after_update(make_pi: Any) -> None:
    """Check 7 (collapsed form): an older `lastChangelogVersion` with `collapseChangelog` shows one line
    between two rules and records the running version; a first run shows nothing and records it."""
    from pi.version import __version__

    updated: TmuxPi = make_pi({"lastChangelogVersion": "0.0.1", "collapseChangelog": True})
    updated.start()
    text = updated.wait_for(f"Updated to v{__version__}. Use /changelog to view full changelog.")
    lines = text.split("\n")
    row = next(i for i, line in enumerate(lines) if "Use /changelog" in line)
    assert lines[row - 1].startswith("───") and lines[row + 1].startswith("───")
    assert f'"lastChangelogVersion": "{__version__}"' in (updated.agent_dir / "settings.json").read_text()
    first: TmuxPi = make_pi()
    first.start()
    assert "Updated to" not in first.wait_for("fake-claude • medium")
    assert f'"lastChangelogVersion": "{__version__}"' in (first.agent_dir / "settings.json").read_text()


def test_check_07_whats_new_block(make_pi: Any) -> None:
    """Check 7 (full form): an older `lastChangelogVersion` shows the bordered `What's New` block with
    the newer changelog entries as markdown (a heading without its `##`), and not the older ones."""
    from pi.version import __version__

    pi: TmuxPi = make_pi({"lastChangelogVersion": "0.1.0"})
    pi.start("--use-theme", "dark", "--tui-mode", "regular")
    pi.wait_for("fake-claude • medium")
    text = pi.text(history=True)
    lines = text.split("\n")
    title = next(i for i, line in enumerate(lines) if "What's New" in line)
    assert lines[title - 1].startswith("─" * 100)
    assert "[0.2.0]" in text and "## [0.2.0]" not in text
    assert "[0.1.0]" not in text
    ansi = pi.text(ansi=True, history=True)
    title_ansi = next(line for line in ansi.split("\n") if "What's New" in line)
    assert "\x1b[1m" in title_ansi
    assert "Updated to" not in text
    assert f'"lastChangelogVersion": "{__version__}"' in (pi.agent_dir / "settings.json").read_text()


def test_first_message_argument_and_mode_text_open_the_ui(make_pi: Any, server: Any) -> None:
    """`pi "first message"` opens the UI and sends it; `--mode text` in a terminal stays interactive."""
    from tests.tui_e2e.anthropic_chunks import anthropic_reply

    server.queue(anthropic_reply("Reply to the first message."))
    pi: TmuxPi = make_pi()
    pi.start("--mode", "text", "first message here")
    text = pi.wait_for("Reply to the first message.")
    assert " first message here" in text and "fake-claude • medium" in text
    assert "PI-EXIT" not in text
    pi.keys("C-d")
    assert pi.wait_exit() == 0


def _project_with_settings(pi: TmuxPi) -> None:
    (pi.cwd / ".pi").mkdir()
    (pi.cwd / ".pi" / "settings.json").write_text(json.dumps({"quietStartup": True}))


def test_check_08_trust_prompt_session_only(make_pi: Any) -> None:
    """Check 8: `.pi/settings.json` asks `Trust project folder?` with the five answers; `Trust (this
    session only)` starts normally with the project's settings applied and writes no trust file."""
    pi: TmuxPi = make_pi()
    _project_with_settings(pi)
    pi.start()
    text = pi.wait_for("Trust project folder?")
    parent = pi.cwd.resolve().parent
    for option in (
        "Trust",
        f"Trust parent folder ({parent})",
        "Trust (this session only)",
        "Do not trust",
        "Do not trust (this session only)",
    ):
        assert option in text
    assert "This allows pi to load .pi settings and resources" in text and str(pi.cwd.resolve()) in text
    pi.keys("Down", "Down", "Enter")
    text = pi.wait_for("fake-claude • medium")
    assert "▀▀█" not in text  # the project's quietStartup applies
    assert not (pi.agent_dir / "trust.json").exists()


def test_check_08_trust_prompt_saved_answers(make_pi: Any) -> None:
    """`Trust` saves the folder in trust.json (no question the next time); `Do not trust` saves false and
    the project's settings are not read."""
    trusting: TmuxPi = make_pi()
    _project_with_settings(trusting)
    trusting.start()
    trusting.wait_for("Trust project folder?")
    trusting.keys("Enter")
    assert "▀▀█" not in trusting.wait_for("fake-claude • medium")
    saved = json.loads((trusting.agent_dir / "trust.json").read_text())
    assert saved == {str(trusting.cwd.resolve()): True}
    trusting.keys("C-d")
    assert trusting.wait_exit() == 0
    trusting.close()
    trusting.start()
    assert "Trust project folder?" not in trusting.wait_for("fake-claude • medium")

    refusing: TmuxPi = make_pi()
    _project_with_settings(refusing)
    refusing.start()
    refusing.wait_for("Do not trust (this session only)")
    refusing.keys("Down", "Down", "Down", "Enter")
    text = refusing.wait_for("fake-claude • medium")
    assert "▀▀█" in text
    assert "This project is not trusted. Project .pi resources and packages are ignored." in text
    assert json.loads((refusing.agent_dir / "trust.json").read_text()) == {str(refusing.cwd.resolve()): False}


SLOW_EXTENSION = """
import asyncio
from pathlib import Path

def setup(pi):
    @pi.on("session_start")
    async def wait_for_go(event, ctx):
        go = Path({go!r})
        while not go.exists():
            await asyncio.sleep(0.02)
"""


def test_enter_before_startup_finished(make_pi: Any, server: Any) -> None:
    """§3: the editor takes text at once; Enter before setup has finished (an extension's session_start
    still running) shows `Startup is still in progress` and keeps the text, which is sent once it is done."""
    from tests.tui_e2e.anthropic_chunks import anthropic_reply

    pi: TmuxPi = make_pi()
    go = pi.root / "go"
    extension = pi.root / "slow_start.py"
    extension.write_text(SLOW_EXTENSION.format(go=str(go)))
    server.queue(anthropic_reply("Started and answered."))
    pi.start("--use-theme", "dark", "-e", str(extension))
    pi.wait_for("fake-claude • medium")
    pi.type("early words")
    pi.keys("Enter")
    text = pi.wait_for("Startup is still in progress")
    assert any(line.strip() == "early words" for line in text.split("\n")[-6:])
    assert not server.requests
    go.write_text("")
    # Enter until startup is over: each early one draws a frame and keeps the text; the first one
    # after it sends the message and empties the editor, so later ones do nothing.
    for _ in range(200):
        if server.requests:
            break
        frames = pi.written_after_exit().count("\x1b[?2026h")
        pi.keys("Enter")

        def answered_or_redrawn(_s: str, seen: int = frames) -> bool:
            return bool(server.requests) or pi.written_after_exit().count("\x1b[?2026h") > seen

        pi.wait_for(answered_or_redrawn)
    pi.wait_for("Started and answered.")
    assert len(server.requests) == 1
    assert "early words" in json.dumps(server.requests[0].json()["messages"])
