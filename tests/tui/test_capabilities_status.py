"""Terminal title, OSC 9;4 progress, OSC 7501 program status and the cell-size query."""

from __future__ import annotations

import pytest

from pi.tui.fake_terminal import FakeTerminal
from pi.tui.terminal import program_status_sequence, window_title


def test_window_title_with_and_without_a_session_name() -> None:
    assert window_title("/home/me/project") == "π - project"
    assert window_title("/home/me/project/", "demo") == "π - demo - project"
    assert window_title("/home/me/project", "  ") == "π - project"
    assert window_title("/p/x", "bad\x1b]0;evil\x07name") == "π - bad ]0;evil name - x"


def test_set_title_writes_osc_0_without_control_characters() -> None:
    term = FakeTerminal()
    term.set_title(window_title("/w/repo", "a\nb"))
    assert term.output == "\x1b]0;π - a b - repo\x07"


def test_progress_sequences() -> None:
    term = FakeTerminal()
    term.set_progress(True)
    term.set_progress(False)
    assert term.output == "\x1b]9;4;3;\x07\x1b]9;4;0;\x07"


def test_program_status_sequence_format() -> None:
    assert program_status_sequence("working") == "\x1b]7501;state=working:app=pi\x1b\\"
    assert program_status_sequence("blocked", "Allow?") == "\x1b]7501;state=blocked:app=pi:msg=QWxsb3c/\x1b\\"
    assert program_status_sequence("clear") == "\x1b]7501;state=clear\x1b\\"
    with pytest.raises(ValueError, match="use one of"):
        program_status_sequence("sleeping")


def test_program_status_only_after_the_terminal_answers() -> None:
    term = FakeTerminal()
    term.query_program_status = True
    term.start()
    assert "\x1b]7501;?\x1b\\" in term.output
    assert term.output.endswith("\x1b[c")  # DA1 stays the sentinel, last
    term.clear_output()
    assert not term.set_program_status("working")
    assert term.output == ""
    assert term.feed_bytes("\x1b]7501;?\x1b\\") == []  # consumed as a reply, not input
    assert term.program_status_supported
    assert term.set_program_status("done")
    assert term.output == "\x1b]7501;state=done:app=pi\x1b\\"


def test_program_status_forced_by_the_environment() -> None:
    forced = FakeTerminal(environ={"PI_PROGRAM_STATUS": "1"})
    assert forced.set_program_status("idle")
    assert forced.output == "\x1b]7501;state=idle:app=pi\x1b\\"
    off = FakeTerminal(environ={"PI_PROGRAM_STATUS": "0"})
    off.program_status_supported = True
    assert not off.set_program_status("idle")
    assert off.output == ""


def test_no_program_status_query_by_default() -> None:
    term = FakeTerminal()
    term.start()
    assert "7501" not in term.output


def test_cell_size_query_and_reply() -> None:
    term = FakeTerminal()
    term.query_cell_size = True
    term.start()
    assert "\x1b[16t" in term.output
    assert term.feed_bytes("\x1b[6;20;10t") == []
    assert term.cell_size_px == (10, 20)
