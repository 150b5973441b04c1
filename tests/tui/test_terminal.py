from __future__ import annotations

import os
from pathlib import Path

import pytest

from pi.tui.component import Text
from pi.tui.fake_terminal import FakeTerminal
from pi.tui.terminal import TtyTerminal, mouse_on_sequence, parse_color_reply
from pi.tui.tui import TUI
from tests.tui.mode_tracker import modes_left_on


def test_start_pushes_kitty_queries_with_da1_sentinel() -> None:
    term = FakeTerminal()
    term.start()
    assert term.raw
    assert term.output == "\x1b[?2004h\x1b[>7u\x1b[?u\x1b[c"


def test_kitty_reply_keeps_kitty_and_skips_modify_other_keys() -> None:
    term = FakeTerminal()
    term.start()
    term.clear_output()
    assert term.feed_bytes(b"\x1b[?7u\x1b[?62;22c") == []
    assert term.kitty_active
    assert "\x1b[>4;2m" not in term.output


def test_da1_without_kitty_turns_on_modify_other_keys() -> None:
    for replies in (b"\x1b[?62;22c", b"\x1b[?0u\x1b[?62c"):
        term = FakeTerminal()
        term.start()
        term.clear_output()
        term.feed_bytes(replies)
        assert term.output == "\x1b[>4;2m"
        assert not term.kitty_active
        term.restore()
        assert "\x1b[>4;0m" in term.output


def test_replies_are_not_delivered_as_keys() -> None:
    term = FakeTerminal()
    seen: list[str] = []
    term.on_input = seen.append
    term.start()
    term.feed_bytes(b"\x1b[?1u\x1b]11;rgb:1e1e/1e1e/2020\x1b\\x\x1b[?62c")
    assert seen == ["x"]
    assert term.palette_replies["bg"] == (30, 30, 32)


def test_colour_reply_parsing() -> None:
    assert parse_color_reply("\x1b]10;rgb:ffff/8080/0000\x07") == ("fg", -1, (255, 128, 0))
    assert parse_color_reply("\x1b]4;3;rgb:ff/00/00\x1b\\") == ("ansi", 3, (255, 0, 0))
    assert parse_color_reply("\x1b]0;title\x07") is None


def test_mouse_all_motion_only_outside_multiplexers() -> None:
    assert "\x1b[?1003h" in mouse_on_sequence({"TERM": "xterm-256color"})
    for env in (
        {"TMUX": "/tmp/t,1,0"},
        {"ZELLIJ": "0"},
        {"STY": "1.pts"},
        {"TERM": "screen-256color"},
        {"TERM": "tmux"},
    ):
        seq = mouse_on_sequence(env)
        assert "\x1b[?1003h" not in seq
        assert seq == "\x1b[?1000h\x1b[?1002h\x1b[?1004h\x1b[?1006h"


def test_restore_is_idempotent_and_leaves_nothing_on() -> None:
    term = FakeTerminal(environ={"TERM": "xterm"})
    term.start()
    term.feed_bytes(b"\x1b[?62c")  # no kitty: modifyOtherKeys on
    term.write(term.enter_fullscreen_sequence())
    assert modes_left_on(term.output) >= {"1049", "1000", "1003", "2004", "kitty", "modifyOtherKeys", "autowrap-off"}
    term.restore()
    assert modes_left_on(term.output) == set()
    assert not term.raw
    before = len(term.output)
    term.restore()
    assert len(term.output) == before


@pytest.mark.parametrize("mode", ["fullscreen", "regular"])
def test_restore_after_a_crash_mid_frame_leaves_no_mode_on(mode: str) -> None:
    term = FakeTerminal(30, 6, environ={"TERM": "xterm"})
    tui = TUI(term, mode=mode)  # type: ignore[arg-type]
    tui.document.add(Text("hello"))
    tui.start()
    term.feed_bytes(b"\x1b[?62c")

    class Boom:
        def render(self, width: int) -> list[str]:
            raise RuntimeError("component failed")

        def invalidate(self) -> None:
            return None

    tui.document.add(Boom())
    term.write("\x1b[?2026h")  # a frame was being written when the error struck
    with pytest.raises(RuntimeError):
        tui.render_now()
    tui.stop()
    assert modes_left_on(term.output) == set()
    assert not term.raw


def test_suspend_and_resume_modes() -> None:
    term = FakeTerminal()
    term.start()
    term.feed_bytes(b"\x1b[?62c")
    term.clear_output()
    active = term.suspend_modes()
    assert "\x1b[<u" in term.output and "\x1b[?2004l" in term.output and "\x1b[>4;0m" in term.output
    assert not term.raw
    term.clear_output()
    term.resume_modes(active)
    assert term.raw
    assert term.output == "\x1b[?2004h\x1b[>7u\x1b[>4;2m"


def test_title_and_progress() -> None:
    term = FakeTerminal()
    term.set_title("π - demo\x07 - work")
    term.set_progress(True)
    term.set_progress(False)
    assert term.output == "\x1b]0;π - demo  - work\x07\x1b]9;4;3;\x07\x1b]9;4;0;\x07"


def test_exit_pops_kitty_flags_before_leaving_the_alt_screen() -> None:
    term = FakeTerminal(20, 5)
    tui = TUI(term, mode="fullscreen")
    tui.start()
    term.clear_output()
    tui.stop()
    out = term.output
    assert out.index("\x1b[<u") < out.index("\x1b[?1049l") < out.index("\x1b[?2004l")
    assert out.count("\x1b[<u") == 1


def test_tty_terminal_write_log_and_dead_output(tmp_path: Path) -> None:
    log = tmp_path / "writes.log"
    read_fd, write_fd = os.pipe()
    term = TtyTerminal(read_fd, write_fd, environ={"PI_TUI_WRITE_LOG": str(log)})
    term.write("hello\x1b[1m")
    assert os.read(read_fd, 100) == b"hello\x1b[1m"
    assert log.read_text() == "hello\x1b[1m"
    os.close(read_fd)
    term.write("x" * 70000)  # the reader went away: EPIPE marks the terminal dead instead of raising
    assert term.dead
    os.close(write_fd)
