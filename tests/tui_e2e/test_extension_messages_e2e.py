"""A custom message an extension sends while pi is idle shows in the terminal UI at once, without a
key press or a run to redraw the transcript."""

from __future__ import annotations

from typing import Any

from tests.tui_e2e.harness import TmuxPi

NOTIFIER = """
import asyncio


def setup(pi):
    def send():
        pi.send_message({"customType": "reminder", "content": "Stretch your legs", "display": True})

    def later(event, ctx):
        asyncio.get_running_loop().call_later(0.5, send)

    pi.on("session_start", later)
"""


def test_an_idle_custom_message_is_drawn_when_it_is_sent(make_pi: Any) -> None:
    pi: TmuxPi = make_pi()
    path = pi.root / "notifier.py"
    path.write_text(NOTIFIER, encoding="utf-8")
    pi.start("-e", str(path))
    text = pi.wait_for(lambda s: "[reminder]" in s and "Stretch your legs" in s)
    assert text.index("[reminder]") < text.index("Stretch your legs")
    pi.keys("C-d")
    assert pi.wait_exit() == 0
