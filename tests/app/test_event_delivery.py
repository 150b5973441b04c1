"""A slow listener (a UI redrawing per event) falls behind on its own: the stream is not throttled."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from pi.ai.faux import FauxProvider, faux_assistant_message
from pi.app.session_events import SessionEvent
from tests.support.faux_session import make_faux_session


async def test_a_slow_listener_does_not_slow_token_delivery(faux: FauxProvider, tmp_path: Path) -> None:
    faux.set_responses([faux_assistant_message("abcd" * 850)])  # about 210 text deltas
    session = make_faux_session(faux, tmp_path)
    fast: list[str] = []
    ended_at: list[float] = []

    def record(event: SessionEvent) -> None:
        fast.append(event.type)
        if event.type == "agent_end":
            ended_at.append(time.monotonic())

    slow: list[str] = []

    async def render(event: SessionEvent) -> None:
        await asyncio.sleep(0.05)
        slow.append(event.type)

    session.subscribe(render)
    session.subscribe(record, awaited=True)
    started = time.monotonic()
    await session.prompt("stream a lot")
    returned = time.monotonic()
    assert fast.count("message_update") >= 200
    # Awaiting the slow listener would take over 10 s (200 x 50 ms); the stream itself ends far sooner.
    assert ended_at[0] - started < 5
    # prompt() returns once every listener has seen the run, every event, in order.
    assert slow == fast
    assert returned - started >= 0.05 * len(fast) * 0.9


async def test_a_listener_that_raises_keeps_receiving(faux: FauxProvider, tmp_path: Path) -> None:
    faux.set_responses([faux_assistant_message("hello")])
    session = make_faux_session(faux, tmp_path)
    seen: list[Any] = []

    async def flaky(event: SessionEvent) -> None:
        seen.append(event.type)
        if event.type == "message_start":
            raise ValueError("render bug")

    session.subscribe(flaky)
    await session.prompt("hi")
    assert seen[-1] == "agent_settled" and seen.count("message_start") == 3


async def test_a_listener_may_prompt_from_an_event(faux: FauxProvider, tmp_path: Path) -> None:
    faux.set_responses([faux_assistant_message("first"), faux_assistant_message("second")])
    session = make_faux_session(faux, tmp_path)
    done = asyncio.Event()
    settled = 0

    async def chain(event: SessionEvent) -> None:
        nonlocal settled
        if event.type == "agent_settled":
            settled += 1
            if settled == 1:
                await session.prompt("from the listener")
                done.set()

    session.subscribe(chain)
    await session.prompt("start")
    await asyncio.wait_for(done.wait(), timeout=10)
    assert session.last_assistant_text() == "second"
