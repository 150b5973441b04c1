from __future__ import annotations

import asyncio
import itertools
import re

from pi.tui.component import Text
from pi.tui.fake_terminal import FakeTerminal
from pi.tui.tui import TUI
from tests.tui.mode_tracker import modes_left_on
from tests.tui.screen_support import assert_screen_matches_full_render, make_tui


def _frame_count(output: str) -> int:
    return output.count("\x1b[?2026h")


def test_every_frame_is_one_synchronized_write() -> None:
    tui, term, doc, _ = make_tui(20, 5)
    doc.add(Text("x"))
    tui.start()
    frames = [w for w in term.writes if "\x1b[?2026h" in w]
    assert frames and all(w.startswith("\x1b[?2026h") and w.endswith("\x1b[?2026l") for w in frames)


def _watch_frames(tui: TUI) -> asyncio.Queue[float]:
    """A queue that receives the loop time at which each frame the TUI draws starts.

    The start, as the TUI schedules by it: how long drawing a frame takes (longer on a busy machine)
    must not shorten the measured gap to the next one.
    """
    loop = asyncio.get_running_loop()
    frames: asyncio.Queue[float] = asyncio.Queue()
    original = tui.render_now

    def watched() -> None:
        started = loop.time()
        original()
        frames.put_nowait(started)

    tui.render_now = watched  # type: ignore[method-assign]
    return frames


async def test_requests_are_coalesced_to_one_frame_per_interval() -> None:
    tui, term, doc, _ = make_tui(20, 5)
    text = Text("0")
    doc.add(text)
    tui.start()
    frames = _watch_frames(tui)
    start = _frame_count(term.output)
    for i in range(50):
        text.set_text(str(i))
        tui.request_render()
    assert _frame_count(term.output) == start  # nothing drawn synchronously
    await asyncio.wait_for(frames.get(), 5)
    assert _frame_count(term.output) == start + 1
    assert frames.empty() and term.display()[0] == "49"


async def test_frames_are_at_least_16ms_apart() -> None:
    tui, _term, doc, _ = make_tui(20, 5)
    text = Text("a")
    doc.add(text)
    tui.start()
    frames = _watch_frames(tui)
    stamps: list[float] = [asyncio.get_running_loop().time()]
    tui.render_now()  # a frame just happened
    stamps = [await frames.get()]
    for i in range(4):
        text.set_text(f"frame {i}")
        tui.request_render()
        stamps.append(await asyncio.wait_for(frames.get(), 5))
    gaps = [b - a for a, b in itertools.pairwise(stamps)]
    assert all(gap >= 0.0155 for gap in gaps), gaps


async def test_typed_keys_are_drawn_at_once_even_right_after_a_frame() -> None:
    """A key must not wait for the next frame slot while frames are due (a streaming reply)."""
    from pi.tui.input import Input
    from pi.tui.theme import Theme

    tui, term, _doc, dock = make_tui(30, 6, mode="regular")
    field = Input(Theme.plain())
    dock.add(field)
    tui.start()
    tui.set_focus(field)
    tui.render_now()  # a frame just happened: the next scheduled one is up to 16 ms away
    before = _frame_count(term.output)
    term.feed_bytes(b"Z")
    assert _frame_count(term.output) == before + 1  # drawn synchronously, with the read
    assert any("Z" in line for line in term.display())
    term.feed_bytes(b"abc")  # one read, one frame
    assert _frame_count(term.output) == before + 2
    assert any("Zabc" in line for line in term.display())


def test_live_mode_switch_keeps_the_tree() -> None:
    tui, term, doc, dock = make_tui(30, 8, mode="regular")
    for i in range(12):
        doc.add(Text(f"message {i}"))
    dock.add(Text("editor"))
    tui.start()
    assert not term.in_alt
    tui.set_mode("fullscreen")
    assert term.in_alt
    assert term.display()[-1] == "editor"
    assert_screen_matches_full_render(tui, term)
    tui.set_mode("regular")
    assert not term.in_alt
    assert "\x1b[?1000l" in term.output and "\x1b[?7h" in term.output
    doc.add(Text("after switch"))
    tui.render_now()
    assert "after switch" in term.display()
    assert term.display()[-1] == "editor"


def test_fullscreen_exit_prints_the_transcript_inline() -> None:
    term = FakeTerminal(30, 6, environ={"TERM": "xterm"})
    tui = TUI(term, mode="fullscreen")
    for i in range(10):
        tui.document.add(Text(f"message {i}"))
    tui.dock.add(Text("── rule ──"))
    tui.dock.add(Text("footer"))
    tui.start()
    term.write("")  # main screen untouched so far
    tui.stop("transcript")
    assert not term.in_alt
    everything = term.scrollback() + [row for row in term.display() if row]
    assert everything[-12:] == [f"message {i}" for i in range(10)] + ["── rule ──", "footer"]
    assert modes_left_on(term.output) == set()


def test_fullscreen_exit_with_resume_hint_prints_nothing() -> None:
    term = FakeTerminal(30, 6)
    tui = TUI(term, mode="fullscreen")
    tui.document.add(Text("message"))
    tui.start()
    tui.stop("resume-hint")
    assert term.display() == [""] * 6
    assert modes_left_on(term.output) == set()


def test_suspend_leaves_everything_and_redraws_on_continue() -> None:
    term = FakeTerminal(30, 6, environ={"TERM": "xterm"})
    tui = TUI(term, mode="fullscreen")
    tui.document.add(Text("transcript"))
    tui.dock.add(Text("editor text"))
    tui.start()
    term.feed_bytes(b"\x1b[?62c")  # no kitty: modifyOtherKeys
    seen: dict[str, object] = {}

    def while_stopped() -> None:
        seen["modes"] = modes_left_on(term.output)
        seen["raw"] = term.raw
        seen["screen"] = term.display()
        seen["alt"] = term.in_alt
        term.clear_output()

    term.on_suspend_process = while_stopped
    tui.suspend()
    assert seen["modes"] == set()
    assert seen["raw"] is False
    assert seen["alt"] is False
    assert "editor text" in seen["screen"]  # type: ignore[operator]
    # Continued: modes back on and a full redraw in the alternate screen.
    resumed = term.output
    for seq in ("\x1b[?2004h", "\x1b[>7u", "\x1b[>4;2m", "\x1b[?1049h", "\x1b[?1000h"):
        assert seq in resumed
    assert term.raw and term.in_alt
    assert term.display()[0] == "transcript" and term.display()[-1] == "editor text"
    assert_screen_matches_full_render(tui, term)


def test_suspend_in_regular_mode_repaints_after_continue() -> None:
    tui, term, doc, dock = make_tui(30, 6)
    doc.add(Text("history"))
    dock.add(Text("editor"))
    tui.start()
    term.on_suspend_process = lambda: term.write("[1]+  Stopped  pi\r\n$ fg\r\n")
    tui.suspend()
    assert term.suspended == 1
    out = term.output
    assert out.rfind("\x1b[2J\x1b[H\x1b[3J") > out.rfind("Stopped")
    assert term.display()[:2] == ["history", "editor"]


def test_input_listeners_then_focused_component() -> None:
    tui, _term, _doc, dock = make_tui(30, 6)

    class Field:
        focused = False

        def __init__(self) -> None:
            self.text = ""

        def render(self, width: int) -> list[str]:
            return [self.text]

        def invalidate(self) -> None:
            return None

        def handle_input(self, data: str) -> bool:
            self.text += data
            return True

    field = Field()
    dock.add(field)
    tui.start()
    tui.set_focus(field)
    assert field.focused
    remove = tui.add_input_listener(lambda data: data == "\x03")
    for ch in "hi\x03":
        tui.handle_input(ch)
    assert field.text == "hi"
    remove()
    tui.handle_input("\x03")
    assert field.text == "hi\x03"


def test_mouse_reports_are_not_typed_into_the_focused_component() -> None:
    tui, term, _doc, _dock = make_tui(30, 6, mode="regular")
    typed: list[str] = []

    class Sink:
        focused = False

        def render(self, width: int) -> list[str]:
            return []

        def invalidate(self) -> None:
            return None

        def handle_input(self, data: str) -> bool:
            typed.append(data)
            return True

    tui.start()
    tui.set_focus(Sink())
    term.feed_bytes(b"\x1b[<64;3;3M\x1b[<0;3;3m")
    assert typed == []


def test_resize_keeps_screen_consistent_in_both_modes() -> None:
    for mode in ("regular", "fullscreen"):
        tui, term, doc, dock = make_tui(40, 10, mode=mode)
        for i in range(15):
            doc.add(Text(f"paragraph {i} " + "word " * (i % 7)))
        dock.add(Text("footer"))
        tui.start()
        for cols, rows in ((25, 10), (25, 6), (60, 12)):
            term.resize(cols, rows)
            tui.render_now()
            assert all(len(row) <= cols for row in term.display())
            assert_screen_matches_full_render(tui, term)


def test_no_control_garbage_reaches_the_screen() -> None:
    tui, term, doc, _ = make_tui(30, 6, mode="fullscreen")
    doc.add(Text("clean"))
    tui.start()
    term.feed_bytes(b"\x1b[?7u\x1b[?62c")
    tui.stop()
    assert not re.search(r"\x1b\[[<>][^a-zA-Z~]*[a-zA-Z~]", "".join(term.display()))


def test_continue_after_an_outside_stop_reapplies_raw_mode_and_redraws() -> None:
    tui, term, doc, _ = make_tui(20, 5, mode="fullscreen")
    doc.add(Text("content"))
    tui.start()
    term.set_raw(False)  # as a shell would leave it after SIGSTOP
    term.clear_output()
    assert term.on_continue is not None
    term.on_continue()
    tui.render_now()
    assert term.raw
    assert "\x1b[2J" in term.output and "content" in term.output


def test_invalidate_redraws_everything_with_fresh_component_output() -> None:
    tui, term, doc, _ = make_tui(20, 5)

    class Themed:
        colour = "A"

        def __init__(self) -> None:
            self.cache: list[str] | None = None

        def render(self, width: int) -> list[str]:
            if self.cache is None:
                self.cache = [f"colour {Themed.colour}"]
            return self.cache

        def invalidate(self) -> None:
            self.cache = None

    doc.add(Themed())
    tui.start()
    Themed.colour = "B"
    tui.render_now()
    assert term.display()[0] == "colour A"  # cached until invalidated
    tui.invalidate()
    tui.render_now()
    assert term.display()[0] == "colour B"


async def test_a_failing_scheduled_frame_restores_the_terminal_and_reports() -> None:
    tui, term, doc, _ = make_tui(20, 5, mode="fullscreen")
    tui.start()
    errors: asyncio.Queue[BaseException] = asyncio.Queue()
    tui.on_fatal = errors.put_nowait

    class Broken:
        def render(self, width: int) -> list[str]:
            raise ValueError("bad component")

        def invalidate(self) -> None:
            return None

    doc.add(Broken())
    tui.request_render()
    error = await asyncio.wait_for(errors.get(), 5)
    assert isinstance(error, ValueError)
    assert not tui.running and not term.in_alt
    assert modes_left_on(term.output) == set()


def test_focus_reports_are_consumed() -> None:
    tui, term, _doc, _dock = make_tui(20, 5, mode="fullscreen")
    got: list[str] = []

    def listener(data: str) -> bool:
        got.append(data)
        return False

    tui.add_input_listener(listener)
    tui.start()
    term.feed_bytes(b"\x1b[O")
    assert not tui.terminal_focused and got == []
    term.feed_bytes(b"\x1b[Ia")
    assert tui.terminal_focused and got == ["a"]
