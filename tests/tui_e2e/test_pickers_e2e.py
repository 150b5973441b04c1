"""The tree, session and fork pickers of the real `pi` in tmux (tui.md §16 checks 43–46 and 48)."""

from __future__ import annotations

from typing import Any

from tests.support.http_server import ScriptedServer
from tests.tui_e2e.anthropic_chunks import anthropic_reply
from tests.tui_e2e.harness import TmuxPi

FRAME_START = "\x1b[?2026h"


def _started(make_pi: Any, server: ScriptedServer, *replies: str, settings: Any = None) -> TmuxPi:
    pi: TmuxPi = make_pi(settings)
    server.queue(*(anthropic_reply(text) for text in replies))
    pi.start("--use-theme", "dark")
    pi.wait_for("fake-claude • medium")
    return pi


def _tree_rows(text: str) -> list[str]:
    return [line for line in text.split("\n") if "user:" in line or "assistant:" in line]


def test_check_43_44_tree(make_pi: Any, server: ScriptedServer) -> None:
    """Checks 43–44: /tree shows the title, `• ` rows, `› ` on the last row and `(n/n)`; Ctrl+U adds
    `[user]`; Enter on a user message asks `Summarize branch?`, and `No summary` goes there with the
    text in the editor; after branching the tree shows `├⊟`, `└⊟` and `│`."""
    pi = _started(make_pi, server, "Reply one.", "Reply two.", "Reply three.")
    pi.chat("question one", "Reply one.")
    pi.chat("question two", "Reply two.")
    pi.type("/tree")
    pi.keys("Enter")
    text = pi.wait_for("Session Tree")
    rows = _tree_rows(text)
    assert rows[-1].startswith("› ") and "• assistant: Reply two." in rows[-1]
    assert all("• " in row for row in rows)
    counter = next(line.strip() for line in text.split("\n") if line.strip().startswith("(") and "/" in line)
    shown, total = counter.strip("()").split("/")
    assert shown == total
    pi.keys("C-u")
    text = pi.wait_for("[user]")
    assert [row.strip().lstrip("› ") for row in _tree_rows(text)] == ["• user: question one", "• user: question two"]
    pi.keys("Enter")
    text = pi.wait_for("Summarize branch?")
    assert "→ No summary" in text and "Summarize with custom prompt" in text
    pi.keys("Enter")
    pi.wait_for("Navigated to selected point")
    pi.wait_for(lambda s: any(line.strip() == "question two" for line in s.split("\n")[-6:]))
    pi.keys("C-u")  # clear the editor (deletes to line start)
    pi.chat("another branch", "Reply three.")
    pi.type("/tree")
    pi.keys("Enter")
    text = pi.wait_for("Session Tree")
    assert "├⊟" in text and "└⊟" in text and "│" in text


def test_check_45_double_escape(make_pi: Any, server: ScriptedServer) -> None:
    """Check 45: Esc Esc on an empty idle editor opens the tree; with `doubleEscapeAction: "none"` it
    does not."""
    pi = _started(make_pi, server, "Reply one.")
    pi.chat("question one", "Reply one.")
    pi.keys("Escape", "Escape")
    pi.wait_for("Session Tree")
    pi.keys("Escape")
    pi.wait_gone("Session Tree")
    quiet = _started(make_pi, server, "Reply two.", settings={"doubleEscapeAction": "none"})
    quiet.chat("question two", "Reply two.")
    frames = quiet.written_after_exit().count(FRAME_START)
    quiet.keys("Escape", "Escape")
    # Each Esc asks for a frame; the one drawn after the second would already hold the tree.
    quiet.wait_for(lambda _s: quiet.written_after_exit().count(FRAME_START) > frames)
    assert "Session Tree" not in quiet.text()
    quiet.keys("Escape", "Escape")
    quiet.wait_for(lambda _s: quiet.written_after_exit().count(FRAME_START) > frames + 1)
    assert "Session Tree" not in quiet.text()


def test_check_46_resume_picker(make_pi: Any, server: ScriptedServer) -> None:
    """Check 46: /resume shows the scope and sort headers; Ctrl+S gives `Sort: Recent`; Tab gives
    `Resume Session (All)`."""
    pi = _started(make_pi, server, "Reply one.")
    pi.chat("question one", "Reply one.")
    pi.type("/resume")
    pi.keys("Enter")
    text = pi.wait_for("Resume Session (Current Folder)")
    assert "◉ Current Folder | ○ All" in text and "Sort: Threaded" in text
    assert "question one" in text
    pi.keys("C-s")
    pi.wait_for("Sort: Recent")
    pi.keys("Tab")
    pi.wait_for("Resume Session (All)")
    pi.keys("Escape")
    pi.wait_for("Resume cancelled")


def test_check_48_fork(make_pi: Any, server: ScriptedServer) -> None:
    """Check 48: /fork lists `Message i of n`; Enter forks, puts the text in the editor, says so, and
    the new session has no name."""
    pi = _started(make_pi, server, "Reply one.", "Reply two.")
    pi.chat("question one", "Reply one.")
    pi.chat("question two", "Reply two.")
    pi.type("/name named")
    pi.keys("Enter")
    pi.wait_for("Session name set: named")
    pi.type("/fork")
    pi.keys("Enter")
    text = pi.wait_for("Fork from Message")
    assert "Message 1 of 2" in text and "Message 2 of 2" in text
    pi.keys("Enter")
    text = pi.wait_for("Forked to new session")
    footer = [line for line in text.split("\n") if "(main)" in line]
    assert footer and not footer[-1].rstrip().endswith("• named"), text
    pi.wait_for(lambda s: any(line.strip() == "question two" for line in s.split("\n")[-6:]))
