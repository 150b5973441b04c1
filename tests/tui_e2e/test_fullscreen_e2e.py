"""Fullscreen features of the real `pi` in tmux (tui.md §16 checks 56–59, §11): scrolling keys, the
scrollbar and the jump pill, wheel events, mouse selection copied on release, click to expand a
card, transcript search, and a resize. Mouse reports are typed into the pane as the SGR sequences a
terminal sends (`CSI < b;x;y M/m`, 1-based cells)."""

from __future__ import annotations

from typing import Any

from tests.support.http_server import ScriptedServer
from tests.tui_e2e.anthropic_chunks import anthropic_reply, anthropic_tool_reply
from tests.tui_e2e.harness import HEIGHT, WIDTH, TmuxPi

LONG_REPLY = "\n\n".join(f"Reply paragraph {i:02d}." for i in range(1, 41))


def _long_transcript(make_pi: Any, server: ScriptedServer) -> TmuxPi:
    pi: TmuxPi = make_pi()
    server.queue(anthropic_reply(LONG_REPLY))
    pi.start("--use-theme", "dark")
    pi.wait_for("fake-claude • medium")
    pi.type("tell me a lot")
    pi.keys("Enter")
    pi.wait_for("Reply paragraph 40.")
    pi.wait_idle()
    return pi


def _mouse(pi: TmuxPi, button: int, col: int, row: int, release: bool = False) -> None:
    pi.type(f"\x1b[<{button};{col};{row}{'m' if release else 'M'}")


def _rows_of(text: str, needle: str) -> list[int]:
    return [i for i, line in enumerate(text.split("\n")) if needle in line]


def _bar_cells(text: str) -> list[str]:
    """Scrollbar glyphs in the last column of the screen."""
    return [line[WIDTH - 1] for line in text.split("\n") if len(line) >= WIDTH and line[WIDTH - 1] in "┃│█"]


def test_check_56_page_up_scrollbar_and_jump_pill(make_pi: Any, server: ScriptedServer) -> None:
    """Check 56: PageUp scrolls by viewport − 4, the scrollbar is in the last column, the jump pill sits
    on the last transcript row, and Ctrl+End removes it."""
    pi = _long_transcript(make_pi, server)
    before = pi.text()
    assert "Reply paragraph 40." in before
    assert not _bar_cells(before)  # `auto`: no bar until the view is scrolled
    bottom_row = _rows_of(before, "Reply paragraph 40.")[0]
    pi.keys("PPage")
    text = pi.wait_for("Jump to latest message · Ctrl+End")
    lines = text.split("\n")
    pill_row = _rows_of(text, "Jump to latest message")[0]
    assert " ↓ Jump to latest message · Ctrl+End " in lines[pill_row]
    assert lines[pill_row + 1].startswith("─" * 50) or lines[pill_row + 1].strip() == ""
    view_height = pill_row + 1
    # The paragraph that ended the view before now sits viewport - 4 rows lower (off screen), so the
    # row it was on shows text from viewport - 4 lines earlier: compare through a paragraph number.
    shown = [int(line.split("paragraph ")[1][:2]) for line in lines[:pill_row] if "Reply paragraph" in line]
    assert shown and max(shown) < 40
    paragraphs_up = 40 - max(shown)
    assert abs(paragraphs_up * 2 - (view_height - 4)) <= 2, (paragraphs_up, view_height, bottom_row)
    bar = [line[WIDTH - 1] for line in lines[:view_height] if len(line) >= WIDTH]
    assert "┃" in bar and "│" in bar
    text = pi.wait_for(lambda s: not _bar_cells(s))  # it goes a moment later; the pill stays
    assert "Jump to latest message · Ctrl+End" in text
    pi.keys("C-End")
    text = pi.wait_gone("Jump to latest message")
    assert "Reply paragraph 40." in text


def test_check_57_wheel_and_selection_copied(make_pi: Any, server: ScriptedServer) -> None:
    """Check 57: `CSI <64;x;yM` scrolls up; a drag from column 2 to 22 shows the inverse selection and
    `Copied!` at the top right."""
    pi = _long_transcript(make_pi, server)
    before = pi.text()
    _mouse(pi, 64, 10, 5)
    text = pi.wait_for("Jump to latest message")
    old_rows = [line[: WIDTH - 1].rstrip() for line in before.split("\n")[:10]]
    new_rows = [line[: WIDTH - 1].rstrip() for line in text.split("\n")[:11]]  # the bar may be over col 110
    assert new_rows[1:] == old_rows  # one line up: everything moved down a row
    row = _rows_of(text, "Reply paragraph")[5] + 1  # away from the edges, where a drag auto-scrolls
    _mouse(pi, 0, 2, row)
    _mouse(pi, 32, 22, row)
    _mouse(pi, 0, 22, row, release=True)
    text = pi.wait_for("Copied!")
    flash_line = text.split("\n")[_rows_of(text, "Copied!")[0]]
    assert flash_line.rstrip().endswith("Copied!") or flash_line.index("Copied!") > WIDTH // 2
    ansi = pi.text(ansi=True).split("\n")[row - 1]
    assert "\x1b[7m" in ansi


def test_click_expands_one_card(make_pi: Any, server: ScriptedServer) -> None:
    """§11: a plain click on a collapsed card expands only that card; a second click collapses it."""
    pi: TmuxPi = make_pi()
    body = "\n".join(f"row {i}" for i in range(1, 15)) + "\n"
    server.queue(
        anthropic_tool_reply("write", {"path": "notes.txt", "content": body}),
        anthropic_reply("Written."),
    )
    pi.start("--use-theme", "dark")
    pi.wait_for("fake-claude • medium")
    pi.type("write notes")
    pi.keys("Enter")
    text = pi.wait_for("Written.")
    pi.wait_idle()
    text = pi.wait_for("ctrl+o to expand")
    row = _rows_of(text, "write notes.txt")[0] + 1
    assert "row 14" not in text
    _mouse(pi, 0, 5, row)
    _mouse(pi, 0, 5, row, release=True)
    text = pi.wait_for("row 14")
    assert "Tool output: expanded" not in text
    row = _rows_of(text, "write notes.txt")[0] + 1
    _mouse(pi, 0, 40, row)  # far from the first click: not a double click
    _mouse(pi, 0, 40, row, release=True)
    pi.wait_gone("row 14")


def test_check_58_transcript_search(make_pi: Any, server: ScriptedServer) -> None:
    """Check 58: Ctrl+Shift+F and `reply` open the box with `1/1` and `↑ Shift+Enter · ↓ Enter`; Esc
    closes it."""
    pi: TmuxPi = make_pi()
    server.queue(anthropic_reply("Here is my reply to you."))
    pi.start("--use-theme", "dark")
    pi.wait_for("fake-claude • medium")
    pi.type("hi")
    pi.keys("Enter")
    pi.wait_for("Here is my reply to you.")
    pi.wait_idle()
    pi.type("\x1b[27;6;102~")  # Ctrl+Shift+F as tmux forwards it (modifyOtherKeys)
    pi.wait_for("↑ Shift+Enter · ↓ Enter")
    pi.type("reply")
    text = pi.wait_for("1/1")
    lines = text.split("\n")
    box = _rows_of(text, "1/1")[0]
    assert "reply" in lines[box] and lines[box].rstrip().endswith("│")
    assert lines[box - 1].rstrip().endswith("┐") and "┌" in lines[box - 1]
    pi.keys("Escape")
    text = pi.wait_gone("↑ Shift+Enter · ↓ Enter")
    assert "1/1" not in text and "Here is my reply to you." in text


def test_check_59_resize_reflows(make_pi: Any, server: ScriptedServer) -> None:
    """Check 59: a resize to 70×24 reflows the transcript (no row wider than 70) and keeps the model
    name right-aligned in the footer."""
    pi: TmuxPi = make_pi()
    server.queue(anthropic_reply("word " * 60 + "END."))
    pi.start("--use-theme", "dark")
    pi.wait_for("fake-claude • medium")
    pi.type("talk")
    pi.keys("Enter")
    pi.wait_for("END.")
    pi.wait_idle()
    assert len(pi.screen()) >= HEIGHT
    pi.tmux("resize-window", "-t", "main", "-x", "70", "-y", "24")
    text = pi.wait_for(lambda s: len(s.split("\n")) <= 25 and "fake-claude • medium" in s and "END." in s)
    lines = text.split("\n")
    assert all(len(line) <= 70 for line in lines)
    footer = next(line for line in lines if "fake-claude • medium" in line)
    assert footer.rstrip().endswith("fake-claude • medium") and len(footer.rstrip()) == 70
