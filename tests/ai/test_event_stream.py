"""The event queue between a provider and its consumer."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

from pi.ai.event_stream import EventStream


def _stream() -> EventStream[str, str]:
    return EventStream(lambda event: event == "done", lambda event: "result")


async def test_events_pushed_before_and_while_iterating_arrive_in_order_then_iteration_ends() -> None:
    stream = _stream()
    stream.push("a")
    consuming = asyncio.Event()

    async def produce() -> None:
        await consuming.wait()  # the consumer has taken "a" and waits for more
        stream.push("b")
        stream.push("done")
        stream.push("ignored after the end")

    task = asyncio.create_task(produce())
    seen: list[str] = []
    async for event in stream:
        seen.append(event)
        consuming.set()
    assert seen == ["a", "b", "done"]
    await task
    assert await stream.result() == "result"


async def test_a_consumer_that_stops_at_the_last_event_leaves_no_clean_up_work_for_the_loop() -> None:
    loop = asyncio.get_running_loop()
    created: list[Any] = []

    def factory(loop: asyncio.AbstractEventLoop, coro: Any, **kw: Any) -> asyncio.Task[Any]:
        created.append(coro)
        return asyncio.Task(coro, loop=loop, **kw)

    loop.set_task_factory(factory)
    try:
        for _ in range(20):
            stream = _stream()
            stream.push("a")
            stream.push("done")
            async for event in stream:
                if event == "done":
                    break
        gc.collect()
        await asyncio.sleep(0)
    finally:
        loop.set_task_factory(None)
    assert created == []


async def test_end_without_a_terminal_event_stops_iteration_and_sets_the_given_result() -> None:
    stream = _stream()
    stream.push("a")
    stream.end("fallback")
    assert [event async for event in stream] == ["a"]
    assert await stream.result() == "fallback"
