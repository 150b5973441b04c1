from __future__ import annotations

import asyncio

from pi.tui.loader import SPINNER_FRAMES, Loader, Spinner, working_rule
from pi.tui.text_width import visible_width


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_working_rule_layout() -> None:
    assert working_rule(30, "⠸", "Working") == "── ⠸ Working " + "─" * 17
    assert visible_width(working_rule(30, "⠸", "Retrying (1/3) in 2s... (escape to cancel)")) == 30
    assert working_rule(30, "⠸", "Retrying (1/3) in 2s... (escape to cancel)").startswith("── ⠸ ─")
    assert working_rule(4, "⠸", "Working") == "────"
    centred = working_rule(40, "", "", center=" ↑ 5 more ")
    assert centred == "─" * 15 + " ↑ 5 more " + "─" * 15


def test_working_rule_paints_in_the_border_colour() -> None:
    line = working_rule(20, "⠸", "Working", paint_rule=lambda s: f"<{s}>")
    assert line == "<── ><⠸ Working>< ><" + "─" * 7 + ">"


def test_spinner_frames_follow_the_clock() -> None:
    clock = Clock()
    spinner = Spinner(clock=clock)
    spinner.start()
    first = spinner.frame()
    clock.now += 0.08
    assert spinner.frame() == SPINNER_FRAMES[(SPINNER_FRAMES.index(first) + 1) % len(SPINNER_FRAMES)]
    spinner.stop()


async def test_running_spinner_requests_frames_until_stopped() -> None:
    ticks: asyncio.Queue[None] = asyncio.Queue()
    spinner = Spinner(lambda: ticks.put_nowait(None))
    spinner.start()
    await asyncio.wait_for(ticks.get(), 5)
    await asyncio.wait_for(ticks.get(), 5)
    spinner.stop()
    assert not spinner.running


def test_loader_line() -> None:
    clock = Clock()
    loader = Loader("Working...", clock=clock)
    loader.start()
    (line,) = loader.render(40)
    assert line[0] in SPINNER_FRAMES and line.endswith(" Working...")
    assert visible_width(loader.render(5)[0]) <= 5
    loader.stop()
