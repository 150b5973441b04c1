"""Abort, steering, follow-ups, truncated replies and tools that end the run."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pi.agent import AgentTool, AgentToolResult, ToolExecutionEndEvent, TurnEndEvent, tool_execution
from pi.agent.tool import OnToolUpdate
from pi.ai.abort import AbortSignal
from pi.ai.faux import FauxProvider, faux_assistant_message, faux_text, faux_tool_call, register_faux_provider
from pi.ai.types import UserMessage
from tests.support.content import as_assistant, as_tool_result, text_of

from .helpers import (
    ContextSpy,
    Controlled,
    EchoParams,
    ToolLog,
    echo_tool,
    every_call_answered,
    make_agent,
    text_result,
)


def call(name: str, args: dict[str, Any], id: str) -> Any:
    return faux_tool_call(name, args, id=id)


async def test_abort_during_tools_ends_the_run_and_leaves_a_valid_history(faux: FauxProvider) -> None:
    gate = Controlled()
    faux.set_responses([faux_assistant_message([call("wait", {"text": "a"}, "c1"), call("wait", {"text": "b"}, "c2")])])
    agent, rec = make_agent(faux, tools=[gate.tool()])
    run = asyncio.create_task(agent.prompt("go"))
    await gate.events_for("a")[0].wait()
    await gate.events_for("b")[0].wait()
    agent.abort()
    await run
    assert sorted(gate.saw_abort) == ["a", "b"]  # the signal reached every running tool
    labels = rec.labelled()
    assert labels[-10:] == [
        "message_start:toolResult", "message_end:toolResult", "message_start:toolResult", "message_end:toolResult",
        "turn_end", "turn_start", "message_start:assistant", "message_end:assistant", "turn_end", "agent_end",
    ]  # fmt: skip
    turn_end = next(e for e in rec.events if isinstance(e, TurnEndEvent))
    # Tools that stop on the signal answer for themselves (a real tool keeps its output so far).
    assert [(text_of(r.content[0]), r.is_error) for r in turn_end.tool_results] == [("stopped by the signal", True)] * 2
    assert faux.call_count == 1  # the closing turn records the abort without asking the model
    closing = as_assistant(agent.state.messages[-1])
    assert (closing.stop_reason, closing.error_message, closing.content) == (
        "aborted", "This operation was aborted", [],
    )  # fmt: skip
    assert not agent.state.is_streaming and agent.state.pending_tool_calls == frozenset()

    spy = ContextSpy(faux_assistant_message("fresh start"))
    faux.set_responses([spy])
    await agent.prompt("again")
    assert every_call_answered(spy.contexts[0])
    assert text_of(as_assistant(agent.state.messages[-1]).content[0]) == "fresh start"


async def test_abort_answers_for_a_tool_that_ignores_it_after_the_grace(
    faux: FauxProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tool_execution, "ABORT_GRACE_S", 0.05)
    gate = Controlled()
    stubborn_started = asyncio.Event()
    stubborn_release = asyncio.Event()

    async def stubborn(
        tool_call_id: str, params: EchoParams, signal: AbortSignal | None, on_update: OnToolUpdate | None
    ) -> AgentToolResult:
        stubborn_started.set()
        await stubborn_release.wait()  # deaf to the signal
        return text_result("finished late")

    deaf = AgentTool(name="deaf", label="Deaf", description="Ignores aborts.", parameters=EchoParams, execute=stubborn)
    faux.set_responses([faux_assistant_message([call("wait", {"text": "a"}, "c1"), call("deaf", {"text": "b"}, "c2")])])
    agent, rec = make_agent(faux, tools=[gate.tool(), deaf])
    run = asyncio.create_task(agent.prompt("go"))
    await gate.events_for("a")[0].wait()
    await stubborn_started.wait()
    agent.abort()
    await run  # returns although "deaf" still runs
    results = next(e for e in rec.events if isinstance(e, TurnEndEvent)).tool_results
    assert [text_of(r.content[0]) for r in results] == ["stopped by the signal", "Operation aborted"]
    ends = [e for e in rec.events if isinstance(e, ToolExecutionEndEvent)]
    assert [e.duration_ms is not None for e in ends] == [True, False]  # the abandoned call never ended
    stubborn_release.set()


async def test_abort_in_sequential_batch_answers_unstarted_calls(faux: FauxProvider) -> None:
    gate = Controlled()
    log = ToolLog()
    faux.set_responses([faux_assistant_message([call("wait", {"text": "a"}, "c1"), call("echo", {"text": "b"}, "c2")])])
    agent, rec = make_agent(faux, tools=[gate.tool(), echo_tool(log)], tool_execution="sequential")
    run = asyncio.create_task(agent.prompt("go"))
    await gate.events_for("a")[0].wait()
    agent.abort()
    await run
    assert log.calls == []
    labels = rec.labelled()
    assert "tool_execution_start:c2" in labels and "tool_execution_end:c2" in labels
    results = next(e for e in rec.events if isinstance(e, TurnEndEvent)).tool_results
    assert [text_of(r.content[0]) for r in results] == ["stopped by the signal", "Operation aborted"]


async def test_abort_while_streaming_ends_aborted_without_tool_calls() -> None:
    faux = register_faux_provider(tokens_per_second=2000)
    try:
        faux.set_responses(
            [faux_assistant_message([faux_text("thinking out loud " * 10), call("echo", {"text": "x" * 400}, "c1")])]
        )
        log = ToolLog()
        agent, rec = make_agent(faux, tools=[echo_tool(log)])

        def abort_when_calling(event: Any) -> None:
            if event.type == "message_update" and event.assistant_message_event.type == "toolcall_delta":
                agent.abort()

        agent.subscribe(abort_when_calling)
        await agent.prompt("go")
        assert log.calls == []
        reply = as_assistant(agent.state.messages[-1])
        assert reply.role == "assistant" and reply.stop_reason == "aborted"
        assert reply.error_message == "Request was aborted"
        assert [b.type for b in reply.content] == ["text"]
        assert rec.types()[-3:] == ["message_end", "turn_end", "agent_end"]
        assert agent.state.error_message == "Request was aborted"
    finally:
        faux.unregister()


async def test_abort_mid_text_closes_the_open_block_with_its_text_so_far() -> None:
    faux = register_faux_provider(tokens_per_second=2000)
    try:
        faux.set_responses([faux_assistant_message([faux_text("streaming words " * 40)])])
        agent, rec = make_agent(faux)
        deltas: list[str] = []

        def abort_after_some_text(event: Any) -> None:
            if event.type == "message_update" and event.assistant_message_event.type == "text_delta":
                deltas.append(event.assistant_message_event.delta)
                if len(deltas) == 3:
                    agent.abort()

        agent.subscribe(abort_after_some_text)
        await agent.prompt("go")
        updates = [e.assistant_message_event for e in rec.events if e.type == "message_update"]
        assert updates[-1].type == "text_end"
        reply = as_assistant(agent.state.messages[-1])
        assert reply.stop_reason == "aborted" and reply.error_message == "Request was aborted"
        assert (
            updates[-1].content
            == text_of(reply.content[0])
            == "".join(u.delta for u in updates if u.type == "text_delta")
        )
        assert rec.types()[-3:] == ["message_end", "turn_end", "agent_end"]
    finally:
        faux.unregister()


async def test_steering_during_a_tool_does_not_skip_calls_and_comes_before_the_next_request(
    faux: FauxProvider,
) -> None:
    gate = Controlled()
    log = ToolLog()
    spy = ContextSpy(faux_assistant_message("noted"))
    faux.set_responses(
        [faux_assistant_message([call("wait", {"text": "a"}, "c1"), call("echo", {"text": "b"}, "c2")]), spy]
    )
    agent, rec = make_agent(faux, tools=[gate.tool(), echo_tool(log)], tool_execution="sequential")
    run = asyncio.create_task(agent.prompt("go"))
    await gate.events_for("a")[0].wait()
    steer = UserMessage(content="use tabs, not spaces")
    agent.steer(steer)
    gate.events_for("a")[1].set()
    await run
    assert [c[1].text for c in log.calls] == ["b"]  # not skipped
    labels = rec.labelled()
    first_turn_end = labels.index("turn_end")
    assert labels[first_turn_end : first_turn_end + 4] == [
        "turn_end", "turn_start", "message_start:user", "message_end:user",
    ]  # fmt: skip
    sent = spy.contexts[0].messages
    assert sent[-1] is steer and sent[-2].role == "toolResult"
    assert not agent.has_queued_messages()


async def test_follow_up_runs_after_the_last_turn(faux: FauxProvider) -> None:
    spy = ContextSpy(faux_assistant_message("second answer"))
    faux.set_responses([faux_assistant_message("first answer"), spy])
    agent, rec = make_agent(faux)
    later = UserMessage(content="and then?")

    def queue_once(event: Any) -> None:
        if event.type == "message_start" and event.message.role == "assistant" and not spy.contexts:
            agent.follow_up(later)

    agent.subscribe(queue_once)
    await agent.prompt("first")
    assert rec.labelled()[-10:-1] == [
        "message_start:assistant", "message_end:assistant", "turn_end",
        "turn_start", "message_start:user", "message_end:user", "message_start:assistant", "message_end:assistant",
        "turn_end",
    ]  # fmt: skip
    assert spy.contexts[0].messages[-1] is later
    assert rec.types()[-1] == "agent_end"
    assert rec.types().count("agent_end") == 1


async def test_a_taken_message_announces_the_queue_with_its_message_start(faux: FauxProvider) -> None:
    """As pi 1.6.0: the queue shrinks in the turn that sends the message, just before its message_start
    (after that turn's turn_start), not when the loop asks for the queued messages."""
    faux.set_responses([faux_assistant_message("first answer"), faux_assistant_message("second answer")])
    marks: list[str] = []
    agent, rec = make_agent(faux)
    agent.on_queue_change = lambda: marks.append(f"queue:{len(agent.follow_up_queue)}")
    agent.subscribe(lambda event: marks.append(rec.labelled()[-1]) if event.type != "message_update" else None)
    agent.follow_up(UserMessage(content="and then?"))
    await agent.prompt("first")
    assert marks == [
        "queue:1", "agent_start", "turn_start", "message_start:user", "message_end:user",
        "message_start:assistant", "message_end:assistant", "turn_end",
        "turn_start", "queue:0", "message_start:user", "message_end:user",
        "message_start:assistant", "message_end:assistant", "turn_end", "agent_end",
    ]  # fmt: skip


async def test_follow_up_waits_while_the_model_calls_tools(faux: FauxProvider) -> None:
    faux.set_responses(
        [faux_assistant_message(call("echo", {"text": "a"}, "c1")), faux_assistant_message("done"),
         faux_assistant_message("follow-up answered")]
    )  # fmt: skip
    agent, _ = make_agent(faux, tools=[echo_tool()])
    agent.follow_up(UserMessage(content="later"))
    await agent.prompt("go")
    roles = [m.role for m in agent.state.messages]
    assert roles == ["user", "assistant", "toolResult", "assistant", "user", "assistant"]


async def test_queue_modes_one_at_a_time_versus_all(faux: FauxProvider) -> None:
    # steering: the prompt's turn takes one (or all) queued messages, each further one needs its own turn
    for mode, requests in (("one-at-a-time", 2), ("all", 1)):
        faux.set_responses([faux_assistant_message("ok")] * 3)
        before = faux.call_count
        agent, _ = make_agent(faux, steering_mode=mode)
        agent.steer(UserMessage(content="s1"))
        agent.steer(UserMessage(content="s2"))
        await agent.prompt("go")
        assert faux.call_count - before == requests
        assert [m.content for m in agent.state.messages if isinstance(m, UserMessage)][1:] == ["s1", "s2"]
    # follow-ups: only after the model is done, one (or all) per extra turn
    for mode, requests in (("one-at-a-time", 3), ("all", 2)):
        faux.set_responses([faux_assistant_message("ok")] * 3)
        before = faux.call_count
        agent, _ = make_agent(faux, follow_up_mode=mode)
        agent.follow_up(UserMessage(content="f1"))
        agent.follow_up(UserMessage(content="f2"))
        await agent.prompt("go")
        assert faux.call_count - before == requests
        assert [m.content for m in agent.state.messages if isinstance(m, UserMessage)][1:] == ["f1", "f2"]


async def test_length_stopped_tool_calls_are_not_executed(faux: FauxProvider) -> None:
    log = ToolLog()
    faux.set_responses(
        [faux_assistant_message(call("echo", {"text": "trunc"}, "c1"), stop_reason="length"),
         faux_assistant_message("retrying properly")]
    )  # fmt: skip
    agent, rec = make_agent(faux, tools=[echo_tool(log)])
    await agent.prompt("go")
    assert log.calls == []
    result = as_tool_result(agent.state.messages[2])
    assert result.is_error
    assert text_of(result.content[0]) == (
        'Tool call "echo" was not executed: the response hit the output token limit, so its arguments may be '
        "truncated. Re-issue the tool call with complete arguments."
    )
    assert "tool_execution_start:c1" in rec.labelled()
    assert faux.call_count == 2


async def test_terminate_stops_only_when_every_result_asks(faux: FauxProvider) -> None:
    async def finish(
        tool_call_id: str, params: EchoParams, signal: AbortSignal | None, on_update: OnToolUpdate | None
    ) -> AgentToolResult:
        return AgentToolResult(content=text_result("submitted").content, terminate=True)

    done_tool = AgentTool(name="submit", label="Submit", description="End.", parameters=EchoParams, execute=finish)
    faux.set_responses([faux_assistant_message(call("submit", {"text": "a"}, "c1"))])
    agent, rec = make_agent(faux, tools=[done_tool, echo_tool()])
    await agent.prompt("go")
    assert faux.call_count == 1
    assert rec.types()[-2:] == ["turn_end", "agent_end"]
    end = next(e for e in rec.events if isinstance(e, ToolExecutionEndEvent))
    assert end.result.terminate and end.to_json_dict()["result"]["terminate"] is True

    faux.set_responses(
        [faux_assistant_message([call("submit", {"text": "a"}, "c2"), call("echo", {"text": "b"}, "c3")]),
         faux_assistant_message("continued")]
    )  # fmt: skip
    await agent.prompt("again")
    assert text_of(as_assistant(agent.state.messages[-1]).content[0]) == "continued"


async def test_assistant_error_ends_the_run_without_follow_ups(faux: FauxProvider) -> None:
    faux.set_responses([faux_assistant_message("half", stop_reason="error", error_message="overloaded_error")])
    agent, rec = make_agent(faux)
    agent.follow_up(UserMessage(content="later"))
    await agent.prompt("go")
    turn_end = next(e for e in rec.events if isinstance(e, TurnEndEvent))
    assert turn_end.tool_results == [] and turn_end.message.stop_reason == "error"
    assert rec.types()[-2:] == ["turn_end", "agent_end"]
    assert agent.state.error_message == "overloaded_error"
    assert agent.has_queued_messages()
    assert not agent.state.is_streaming
    await agent.wait_for_idle()
