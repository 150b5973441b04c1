"""Exact event sequences of the loop, and how each kind of tool outcome reaches the model."""

from __future__ import annotations

import asyncio
from typing import Any

from pi.agent import (
    AfterToolCallContext,
    AfterToolCallResult,
    AgentContext,
    AgentEndEvent,
    AgentLoopConfig,
    AgentTool,
    AgentToolResult,
    BeforeToolCallContext,
    BeforeToolCallResult,
    MessageEndEvent,
    MessageStartEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    TurnEndEvent,
    agent_loop,
)
from pi.agent.tool import OnToolUpdate
from pi.ai.abort import AbortSignal
from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.events import DoneEvent, StartEvent
from pi.ai.faux import FauxProvider, faux_assistant_message, faux_text, faux_tool_call
from pi.ai.stream import stream
from pi.ai.types import TextContent, ToolResultMessage, UserMessage
from tests.support.content import as_assistant, as_tool_call, as_tool_result, text_of

from .helpers import (
    ContextSpy,
    Controlled,
    EchoParams,
    ToolLog,
    echo_tool,
    make_agent,
    result_texts,
    text_result,
)


def call(name: str, args: dict[str, Any], id: str) -> Any:
    return faux_tool_call(name, args, id=id)


async def test_text_only_prompt_sequence(faux: FauxProvider) -> None:
    faux.set_responses([faux_assistant_message("Hello there, how can I help you today?")])
    events = [
        e
        async for e in agent_loop(
            [UserMessage(content="hi")],
            AgentContext(system_prompt="be brief"),
            AgentLoopConfig(model=faux.model),
            stream_fn=stream,
        )
    ]
    types = [e.type for e in events]
    updates = types.count("message_update")
    assert updates >= 3
    assert types == [
        "agent_start", "turn_start", "message_start", "message_end", "message_start",
        *["message_update"] * updates, "message_end", "turn_end", "agent_end",
    ]  # fmt: skip
    user_start, assistant_start, end = events[2], events[4], events[-1]
    assert isinstance(user_start, MessageStartEvent) and isinstance(assistant_start, MessageStartEvent)
    assert user_start.message.role == "user" and assistant_start.message.role == "assistant"
    assert isinstance(end, AgentEndEvent)
    assert [m.role for m in end.messages] == ["user", "assistant"]
    assert faux.contexts[0].system_prompt == "be brief"
    assert faux.contexts[0].tools is None


async def test_one_tool_call_sequence_with_coerced_params(faux: FauxProvider) -> None:
    log = ToolLog()
    faux.set_responses(
        [faux_assistant_message([faux_text("Echoing."), call("echo", {"text": "ab", "times": "2"}, "c1")]),
         faux_assistant_message("done")]
    )  # fmt: skip
    agent, rec = make_agent(faux, tools=[echo_tool(log)])
    await agent.prompt("go")
    assert rec.labelled() == [
        "agent_start", "turn_start", "message_start:user", "message_end:user",
        "message_start:assistant", "message_end:assistant",
        "tool_execution_start:c1", "tool_execution_end:c1", "message_start:toolResult", "message_end:toolResult",
        "turn_end", "turn_start", "message_start:assistant", "message_end:assistant", "turn_end", "agent_end",
    ]  # fmt: skip
    start = next(e for e in rec.events if isinstance(e, ToolExecutionStartEvent))
    assert start.args == {"text": "ab", "times": "2"}  # as the model sent them
    assert log.calls[0][1] == EchoParams(text="ab", times=2)
    end = next(e for e in rec.events if isinstance(e, ToolExecutionEndEvent))
    assert not end.is_error and end.result.details == {"times": 2}
    result = as_tool_result(agent.state.messages[2])
    assert result.role == "toolResult" and text_of(result.content[0]) == "abab" and result.details == {"times": 2}
    assert faux.contexts[0].tools is not None and faux.contexts[0].tools[0].name == "echo"
    assert faux.contexts[1].messages[-1].role == "toolResult"


async def test_two_tools_in_parallel_start_before_either_ends(faux: FauxProvider) -> None:
    faux.set_responses(
        [faux_assistant_message([call("echo", {"text": "a"}, "c1"), call("echo", {"text": "b"}, "c2")]),
         faux_assistant_message("done")]
    )  # fmt: skip
    agent, rec = make_agent(faux, tools=[echo_tool()])
    await agent.prompt("go")
    labels = rec.labelled()
    tool_part = labels[labels.index("tool_execution_start:c1") : labels.index("turn_end")]
    assert tool_part == [
        "tool_execution_start:c1", "tool_execution_start:c2", "tool_execution_end:c1", "tool_execution_end:c2",
        "message_start:toolResult", "message_end:toolResult", "message_start:toolResult", "message_end:toolResult",
    ]  # fmt: skip


async def test_two_tools_sequentially_each_finish_before_the_next_starts(faux: FauxProvider) -> None:
    for config in ({"tool_execution": "sequential", "tools": [echo_tool()]},
                   {"tools": [echo_tool(execution_mode="sequential")]}):  # fmt: skip
        faux.set_responses(
            [faux_assistant_message([call("echo", {"text": "a"}, "c1"), call("echo", {"text": "b"}, "c2")]),
             faux_assistant_message("done")]
        )  # fmt: skip
        agent, rec = make_agent(faux, **config)
        await agent.prompt("go")
        labels = rec.labelled()
        tool_part = labels[labels.index("tool_execution_start:c1") : labels.index("turn_end")]
        assert tool_part == [
            "tool_execution_start:c1", "tool_execution_end:c1", "message_start:toolResult", "message_end:toolResult",
            "tool_execution_start:c2", "tool_execution_end:c2", "message_start:toolResult", "message_end:toolResult",
        ]  # fmt: skip


async def test_one_sequential_tool_makes_the_whole_batch_sequential(faux: FauxProvider) -> None:
    gate = Controlled()
    faux.set_responses(
        [faux_assistant_message([call("wait", {"text": "x"}, "c1"), call("echo", {"text": "b"}, "c2")]),
         faux_assistant_message("done")]
    )  # fmt: skip
    agent, rec = make_agent(faux, tools=[gate.tool(), echo_tool(execution_mode="sequential")])
    run = asyncio.create_task(agent.prompt("go"))
    started, release = gate.events_for("x")
    await started.wait()
    assert "tool_execution_start:c2" not in rec.labelled()
    release.set()
    await run
    labels = rec.labelled()
    assert labels.index("message_end:toolResult") < labels.index("tool_execution_start:c2")


async def test_end_events_in_completion_order_result_messages_in_call_order(faux: FauxProvider) -> None:
    gate = Controlled()
    spy = ContextSpy(faux_assistant_message("done"))
    faux.set_responses(
        [faux_assistant_message([call("wait", {"text": "slow"}, "c1"), call("wait", {"text": "fast"}, "c2")]), spy]
    )
    agent, rec = make_agent(faux, tools=[gate.tool()])
    run = asyncio.create_task(agent.prompt("go"))
    for name in ("slow", "fast"):
        await gate.events_for(name)[0].wait()
    gate.events_for("fast")[1].set()
    while "tool_execution_end:c2" not in rec.labelled():
        await asyncio.sleep(0)
    assert agent.state.pending_tool_calls == frozenset({"c1"})
    gate.events_for("slow")[1].set()
    await run
    labels = rec.labelled()
    ends = [label for label in labels if label.startswith("tool_execution_end")]
    assert ends == ["tool_execution_end:c2", "tool_execution_end:c1"]
    results = [
        e.message.tool_call_id
        for e in rec.events
        if isinstance(e, MessageEndEvent) and isinstance(e.message, ToolResultMessage)
    ]
    assert results == ["c1", "c2"]
    turn_end = next(e for e in rec.events if isinstance(e, TurnEndEvent))
    assert [r.tool_call_id for r in turn_end.tool_results] == ["c1", "c2"]
    assert [m.tool_call_id for m in spy.contexts[0].messages if m.role == "toolResult"] == ["c1", "c2"]


async def test_unknown_tool_and_invalid_arguments_become_error_results(faux: FauxProvider) -> None:
    log = ToolLog()
    faux.set_responses(
        [faux_assistant_message([call("nope", {}, "c1"), call("echo", {"times": "many"}, "c2")]),
         faux_assistant_message("sorry")]
    )  # fmt: skip
    agent, rec = make_agent(faux, tools=[echo_tool(log)])
    await agent.prompt("go")
    assert log.calls == []
    turn_end = next(e for e in rec.events if isinstance(e, TurnEndEvent))
    missing, invalid = turn_end.tool_results
    assert missing.is_error and text_of(missing.content[0]) == "Tool nope not found"
    assert invalid.is_error
    text = text_of(invalid.content[0])
    assert text.startswith('Validation failed for tool "echo":\n')
    assert "  - text: missing\n  - times: expected integer, got string\n" in text
    assert text.endswith('Received arguments:\n{\n  "times": "many"\n}')
    assert missing.details == {}
    # the model got another turn to fix its call
    assert faux.call_count == 2


async def test_prepare_arguments_repairs_before_validation(faux: FauxProvider) -> None:
    log = ToolLog()

    def repair(args: dict[str, Any]) -> dict[str, Any]:
        return {"text": args["old_name"]} if "old_name" in args else args

    faux.set_responses([faux_assistant_message(call("echo", {"old_name": "hi"}, "c1")), faux_assistant_message("ok")])
    agent, _ = make_agent(faux, tools=[echo_tool(log, prepare_arguments=repair)])
    await agent.prompt("go")
    assert log.calls[0][1].text == "hi"
    sent = as_tool_call(as_assistant(agent.state.messages[1]).content[0])
    assert sent.arguments == {"old_name": "hi"}  # the transcript keeps what was sent


async def test_before_hook_blocks_with_custom_and_default_reason(faux: FauxProvider) -> None:
    log = ToolLog()
    seen: list[BeforeToolCallContext] = []

    async def gate(ctx: BeforeToolCallContext, signal: AbortSignal | None) -> BeforeToolCallResult | None:
        seen.append(ctx)
        if ctx.args.text == "secret":
            return BeforeToolCallResult(block=True, reason="Not allowed to echo secrets.")
        if ctx.args.text == "quiet":
            return BeforeToolCallResult(block=True)
        return None

    faux.set_responses(
        [faux_assistant_message([call("echo", {"text": "secret"}, "c1"), call("echo", {"text": "quiet"}, "c2"),
                                 call("echo", {"text": "fine"}, "c3")]),
         faux_assistant_message("ok")]
    )  # fmt: skip
    agent, rec = make_agent(faux, tools=[echo_tool(log)], before_tool_call=gate)
    await agent.prompt("go")
    turn_end = next(e for e in rec.events if isinstance(e, TurnEndEvent))
    assert result_texts(turn_end.tool_results) == ["Not allowed to echo secrets.", "Tool execution was blocked", "fine"]
    assert [r.is_error for r in turn_end.tool_results] == [True, True, False]
    assert [c[1].text for c in log.calls] == ["fine"]
    assert seen[0].tool_call.id == "c1" and seen[0].assistant_message.stop_reason == "toolUse"
    assert seen[0].context.tools[0].name == "echo"


async def test_raising_before_hook_is_an_error_result(faux: FauxProvider) -> None:
    def gate(ctx: BeforeToolCallContext, signal: AbortSignal | None) -> None:
        raise PermissionError("policy file unreadable")

    faux.set_responses([faux_assistant_message(call("echo", {"text": "a"}, "c1")), faux_assistant_message("ok")])
    agent, _ = make_agent(faux, tools=[echo_tool()], before_tool_call=gate)
    await agent.prompt("go")
    result = as_tool_result(agent.state.messages[2])
    assert result.is_error and text_of(result.content[0]) == "policy file unreadable"


async def test_after_hook_overrides_fields_it_sets(faux: FauxProvider) -> None:
    async def redact(ctx: AfterToolCallContext, signal: AbortSignal | None) -> AfterToolCallResult | None:
        if ctx.args.text == "a":
            return AfterToolCallResult(content=[text_result("[redacted]").content[0]], is_error=True)
        if ctx.args.text == "b":
            assert ctx.result.details == {"times": 1} and not ctx.is_error
            return AfterToolCallResult(details={"audited": True})
        return None

    faux.set_responses(
        [faux_assistant_message([call("echo", {"text": "a"}, "c1"), call("echo", {"text": "b"}, "c2"),
                                 call("echo", {"text": "c"}, "c3")]),
         faux_assistant_message("ok")]
    )  # fmt: skip
    agent, rec = make_agent(faux, tools=[echo_tool()], after_tool_call=redact)
    await agent.prompt("go")
    a, b, c = next(e for e in rec.events if isinstance(e, TurnEndEvent)).tool_results
    assert text_of(a.content[0]) == "[redacted]" and a.is_error and a.details == {"times": 1}
    assert text_of(b.content[0]) == "b" and not b.is_error and b.details == {"audited": True}
    assert text_of(c.content[0]) == "c" and c.details == {"times": 1}
    end_a = next(e for e in rec.events if isinstance(e, ToolExecutionEndEvent) and e.tool_call_id == "c1")
    assert end_a.is_error and text_of(end_a.result.content[0]) == "[redacted]"


async def test_after_hook_content_given_as_dicts_reaches_events_and_message_as_blocks(faux: FauxProvider) -> None:
    def plain(ctx: AfterToolCallContext, signal: AbortSignal | None) -> AfterToolCallResult:
        return AfterToolCallResult(content=[{"type": "text", "text": "from a dict"}])  # type: ignore[list-item]

    faux.set_responses([faux_assistant_message(call("echo", {"text": "a"}, "c1")), faux_assistant_message("ok")])
    agent, rec = make_agent(faux, tools=[echo_tool()], after_tool_call=plain)
    await agent.prompt("go")
    end = next(e for e in rec.events if isinstance(e, ToolExecutionEndEvent))
    assert end.result.content == [TextContent(text="from a dict")] and not end.is_error
    assert as_tool_result(agent.state.messages[2]).content == [TextContent(text="from a dict")]


async def test_after_hook_content_that_is_not_blocks_is_an_error_result_saying_so(faux: FauxProvider) -> None:
    def wrong(ctx: AfterToolCallContext, signal: AbortSignal | None) -> AfterToolCallResult:
        return AfterToolCallResult(content=[{"kind": "text", "body": "x"}])  # type: ignore[list-item]

    faux.set_responses([faux_assistant_message(call("echo", {"text": "a"}, "c1")), faux_assistant_message("ok")])
    agent, rec = make_agent(faux, tools=[echo_tool()], after_tool_call=wrong)
    await agent.prompt("go")
    end = next(e for e in rec.events if isinstance(e, ToolExecutionEndEvent))
    assert end.is_error and "not text or image blocks" in text_of(end.result.content[0])
    result = as_tool_result(agent.state.messages[2])
    assert result.is_error and "a tool_result hook replaced its result" in text_of(result.content[0])
    assert text_of(as_assistant(agent.state.messages[-1]).content[0]) == "ok"


async def test_raising_after_hook_is_an_error_result(faux: FauxProvider) -> None:
    def broken(ctx: AfterToolCallContext, signal: AbortSignal | None) -> None:
        raise ValueError("audit log is full")

    faux.set_responses([faux_assistant_message(call("echo", {"text": "a"}, "c1")), faux_assistant_message("ok")])
    agent, _ = make_agent(faux, tools=[echo_tool()], after_tool_call=broken)
    await agent.prompt("go")
    result = as_tool_result(agent.state.messages[2])
    assert result.is_error and text_of(result.content[0]) == "audit log is full"
    assert text_of(as_assistant(agent.state.messages[-1]).content[0]) == "ok"


async def test_raising_tool_is_an_error_result_with_empty_details(faux: FauxProvider) -> None:
    async def execute(
        tool_call_id: str, params: EchoParams, signal: AbortSignal | None, on_update: OnToolUpdate | None
    ) -> AgentToolResult:
        raise FileNotFoundError("no such file: a.txt")

    tool = AgentTool(name="boom", label="Boom", description="Fails.", parameters=EchoParams, execute=execute)
    faux.set_responses([faux_assistant_message(call("boom", {"text": "a"}, "c1")), faux_assistant_message("ok")])
    agent, rec = make_agent(faux, tools=[tool])
    await agent.prompt("go")
    end = next(e for e in rec.events if isinstance(e, ToolExecutionEndEvent))
    assert end.is_error and text_of(end.result.content[0]) == "no such file: a.txt" and end.result.details == {}
    result = as_tool_result(agent.state.messages[2])
    assert result.is_error and text_of(result.content[0]) == "no such file: a.txt" and result.details == {}


async def test_tool_updates_are_events_before_the_end(faux: FauxProvider) -> None:
    async def execute(
        tool_call_id: str, params: EchoParams, signal: AbortSignal | None, on_update: OnToolUpdate | None
    ) -> AgentToolResult:
        assert on_update is not None
        for i in range(3):
            outcome = on_update(text_result(f"line {i}"))
            if outcome is not None and i < 2:  # the last one is not awaited: it must still come first
                await outcome
        return text_result("all lines")

    tool = AgentTool(name="stream", label="Stream", description="Streams.", parameters=EchoParams, execute=execute)
    faux.set_responses([faux_assistant_message(call("stream", {"text": "a"}, "c1")), faux_assistant_message("ok")])
    agent, rec = make_agent(faux, tools=[tool])
    await agent.prompt("go")
    tool_events = [e for e in rec.events if e.type.startswith("tool_execution")]
    assert [e.type for e in tool_events] == ["tool_execution_start"] + ["tool_execution_update"] * 3 + [
        "tool_execution_end"
    ]
    updates = [e for e in tool_events if isinstance(e, ToolExecutionUpdateEvent)]
    assert [text_of(u.partial_result.content[0]) for u in updates] == ["line 0", "line 1", "line 2"]
    assert updates[0].args == {"text": "a"} and updates[0].tool_name == "stream"
    assert text_of(as_tool_result(agent.state.messages[2]).content[0]) == "all lines"


async def test_unreadable_final_arguments_go_back_to_the_model_instead_of_running(faux: FauxProvider) -> None:
    log = ToolLog()
    faux.set_responses([faux_assistant_message("fixed")])
    broken = call("echo", {}, "c1")
    broken.arguments_error = 'Expecting \',\' delimiter\n\nReceived arguments:\n{"text": "a" "b"}'
    first = faux_assistant_message([broken])
    replies = iter([first])

    def stream_fn(model: Any, context: Any, options: Any = None) -> AssistantMessageEventStream:
        reply = next(replies, None)
        if reply is None:
            return stream(model, context, options)
        events = AssistantMessageEventStream()
        events.push(StartEvent(partial=reply))
        events.push(DoneEvent(reason="toolUse", message=reply))
        events.end(reply)
        return events

    agent, _rec = make_agent(faux, tools=[echo_tool(log)], stream_fn=stream_fn)
    await agent.prompt("go")
    assert log.calls == []
    result = as_tool_result(agent.state.messages[2])
    assert result.role == "toolResult" and result.is_error
    assert text_of(result.content[0]).startswith('Invalid arguments for tool "echo": Expecting')
    assert "Received arguments:" in text_of(result.content[0])
