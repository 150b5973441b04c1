"""What the loop itself records on the messages and events of a run, as pi 1.6.0 does.

- `message_start` shows the reply as it opened, even when the provider had already read ahead;
- assistant replies carry the thinking level they were asked with and their duration;
- tool results carry how long their tool ran, in whole milliseconds.
"""

from __future__ import annotations

import json
from typing import Any

from pi.agent import Agent, MessageEndEvent, MessageStartEvent, ToolExecutionEndEvent
from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.events import DoneEvent
from pi.ai.faux import FauxProvider, faux_assistant_message, faux_tool_call
from pi.ai.options import StreamOptions
from pi.ai.providers.output import OutputBuilder
from pi.ai.types import AssistantMessage, Context, Model, ToolResultMessage
from tests.agent.helpers import Recorder, echo_tool, make_agent

WORDS = ["Hello", " there", ",", " friend", "!"]


def provider_that_read_ahead(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
    """A provider whose whole reply arrived in one buffer: every event is pushed before the loop reads one.

    This is what a real provider does when the response's chunks come in a single read: the partial
    it keeps is complete before the consumer sees its `start` event.
    """
    stream = AssistantMessageEventStream()
    out = OutputBuilder(model, stream)
    out.start()
    # What the response's first frames tell: its id, the model that answered, and (at the end) usage.
    out.output.response_id = "resp-1"
    out.output.response_model = "fake-model-2026"
    for word in WORDS:
        out.text_delta(word)
    out.end_block()
    out.output.usage.input = 12
    out.output.usage.output = 5
    out.output.usage.cost.total_from_provider = True
    out.output.raw_stop_reason = "stop"
    stream.push(DoneEvent(reason="stop", message=out.output))
    return stream


def assistant_starts(rec: Recorder) -> list[MessageStartEvent]:
    return [e for e in rec.events if isinstance(e, MessageStartEvent) and isinstance(e.message, AssistantMessage)]


async def test_message_start_shows_the_reply_as_it_opened_when_the_provider_read_ahead(faux: FauxProvider) -> None:
    agent = Agent(model=faux.model, stream_fn=provider_that_read_ahead)
    rec = Recorder()
    seen_at_emit: list[dict[str, Any]] = []
    agent.subscribe(rec)
    agent.subscribe(
        lambda e: (
            seen_at_emit.append(e.to_json_dict())
            if isinstance(e, MessageStartEvent) and isinstance(e.message, AssistantMessage)
            else None
        )
    )
    await agent.prompt("hi")
    [start] = assistant_starts(rec)
    # As a JSON-mode writer prints it when the event comes, and as a late (queued) renderer would.
    for wire in (seen_at_emit[0], json.loads(json.dumps(start.to_json_dict()))):
        assert wire["message"]["content"] == []
        assert wire["message"]["stopReason"] == "pending"
        # Nothing the response said after it opened: pi's opening comes before the first frame is read.
        for later in ("responseId", "responseModel", "rawStopReason"):
            assert later not in wire["message"]
        assert wire["message"]["usage"] == {
            "input": 0,
            "output": 0,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": 0,
            "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0},
        }
    final = agent.state.messages[-1]
    assert isinstance(final, AssistantMessage)
    assert [b.text for b in final.content if b.type == "text"] == ["".join(WORDS)]  # the reply itself is whole
    assert final.response_id == "resp-1" and final.usage.input == 12


async def test_a_reply_records_its_thinking_level_and_duration(faux: FauxProvider) -> None:
    faux.set_responses([faux_assistant_message("plain"), faux_assistant_message("thought")])
    agent, rec = make_agent(faux)
    await agent.prompt("first")
    agent.set_thinking_level("high")
    await agent.prompt("second")
    ends = [e.message for e in rec.events if isinstance(e, MessageEndEvent) and isinstance(e.message, AssistantMessage)]
    assert [m.thinking_level for m in ends] == ["off", "high"]
    assert all(isinstance(m.duration_ms, int) and m.duration_ms >= 0 for m in ends)
    wire = ends[1].to_json_dict()
    assert wire["thinkingLevel"] == "high" and isinstance(wire["durationMs"], int)


async def test_a_request_that_fails_to_open_still_records_level_and_duration(faux: FauxProvider) -> None:
    def broken(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
        raise RuntimeError("no route to the model")

    agent = Agent(model=faux.model, stream_fn=broken, thinking_level="low")
    await agent.prompt("hi")
    final = agent.state.messages[-1]
    assert isinstance(final, AssistantMessage) and final.stop_reason == "error"
    assert final.thinking_level == "low" and final.duration_ms is not None


async def test_tool_results_carry_the_whole_milliseconds_their_tool_ran(faux: FauxProvider) -> None:
    faux.set_responses(
        [faux_assistant_message(faux_tool_call("echo", {"text": "a"}, id="c1")), faux_assistant_message("done")]
    )
    agent, rec = make_agent(faux, tools=[echo_tool()])
    await agent.prompt("go")
    [end] = [e for e in rec.events if isinstance(e, ToolExecutionEndEvent)]
    [result] = [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]
    assert isinstance(end.duration_ms, int) and result.duration_ms == end.duration_ms
    assert result.to_json_dict()["durationMs"] == end.to_json_dict()["durationMs"] == end.duration_ms
