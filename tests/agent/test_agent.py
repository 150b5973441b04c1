"""The Agent: state folded from events, listeners, continue rules, per-turn callbacks, failures."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest

import pi.agent.agent as agent_module
from pi.agent import (
    Agent,
    AgentContext,
    AgentEndEvent,
    AgentEvent,
    AgentLoopConfig,
    AgentMessage,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    TurnEndEvent,
    agent_loop_continue,
)
from pi.ai.abort import AbortSignal
from pi.ai.faux import FauxProvider, faux_assistant_message, faux_tool_call
from pi.ai.options import StreamOptions, ThinkingBudgets
from pi.ai.stream import stream_simple
from pi.ai.types import AssistantMessage, ImageContent, Message, UserMessage, now_ms
from tests.support.content import as_assistant, text_of

from .helpers import ContextSpy, Controlled, echo_tool, make_agent


@dataclass
class Notification:
    """An application's own transcript entry."""

    text: str
    role: str = "notification"
    timestamp: int = field(default_factory=now_ms)


async def test_state_follows_the_events(faux: FauxProvider) -> None:
    gate = Controlled()
    faux.set_responses(
        [faux_assistant_message(faux_tool_call("wait", {"text": "a"}, id="c1")), faux_assistant_message("finished")]
    )
    agent, _ = make_agent(faux, tools=[gate.tool()])
    seen: list[tuple[str, bool, Any]] = []

    def watch(event: AgentEvent) -> None:
        if isinstance(event, MessageUpdateEvent):
            seen.append(("update", agent.state.streaming_message is event.message, None))
        if event.type == "message_end":
            seen.append(("end", agent.state.streaming_message is None, agent.state.messages[-1] is event.message))

    agent.subscribe(watch)
    run = asyncio.create_task(agent.prompt("go"))
    await gate.events_for("a")[0].wait()
    assert agent.state.is_streaming
    assert agent.state.pending_tool_calls == frozenset({"c1"})
    idle = asyncio.create_task(agent.wait_for_idle())
    await asyncio.sleep(0)
    assert not idle.done()
    gate.events_for("a")[1].set()
    await idle
    await run
    assert not agent.state.is_streaming and agent.state.pending_tool_calls == frozenset()
    assert all(ok for kind, ok, _ in seen) and all(same for kind, _, same in seen if kind == "end")
    assert [m.role for m in agent.state.messages] == ["user", "assistant", "toolResult", "assistant"]
    assert agent.state.error_message is None
    await agent.wait_for_idle()  # idle: returns at once


async def test_prompt_forms_and_busy_errors(faux: FauxProvider) -> None:
    gate = Controlled()
    faux.set_responses(
        [faux_assistant_message(faux_tool_call("wait", {"text": "a"}, id="c1"))] + [faux_assistant_message("ok")] * 3
    )
    agent, _ = make_agent(faux, tools=[gate.tool()])
    image = ImageContent(data="aGk=", mime_type="image/png")
    run = asyncio.create_task(agent.prompt("look", images=[image]))
    await gate.events_for("a")[0].wait()
    with pytest.raises(RuntimeError) as busy:
        await agent.prompt("again")
    assert str(busy.value) == (
        "Agent is already processing a prompt. Use steer() or follow_up() to queue messages, or wait for completion."
    )
    with pytest.raises(RuntimeError, match=r"^Agent is already processing\. Wait for completion before continuing\.$"):
        await agent.continue_run()
    gate.events_for("a")[1].set()
    await run
    first = agent.state.messages[0]
    assert isinstance(first, UserMessage) and first.content[1] == image
    one = UserMessage(content="single")
    await agent.prompt(one)
    await agent.prompt([UserMessage(content="x"), UserMessage(content="y")])
    users = [m.content for m in agent.state.messages if isinstance(m, UserMessage)]
    assert users[1:] == ["single", "x", "y"]
    with pytest.raises(RuntimeError, match=r"^No model configured$"):
        await Agent().prompt("hi")


async def test_continue_run_rules(faux: FauxProvider) -> None:
    agent, _ = make_agent(faux)
    with pytest.raises(RuntimeError, match=r"^No messages to continue from$"):
        await agent.continue_run()

    # retry after a failed turn: the transcript ends with the user's message
    agent.replace_messages([UserMessage(content="retry me")])
    spy = ContextSpy(faux_assistant_message("answer"))
    faux.set_responses([spy])
    await agent.continue_run()
    assert [m.role for m in agent.state.messages] == ["user", "assistant"]
    assert spy.contexts[0].messages[-1].content == "retry me"

    with pytest.raises(RuntimeError, match=r"^Cannot continue from message role: assistant$"):
        await agent.continue_run()

    # from an assistant message, queued steering (one at a time) becomes the prompt
    faux.set_responses([faux_assistant_message("s1 seen"), faux_assistant_message("s2 seen")])
    agent.steer(UserMessage(content="s1"))
    agent.steer(UserMessage(content="s2"))
    await agent.continue_run()
    contents = [getattr(m, "content", None) for m in agent.state.messages[2:]]
    assert contents[0] == "s1" and contents[2] == "s2"
    assert faux.pending_response_count == 0

    faux.set_responses([faux_assistant_message("follow-up seen")])
    agent.follow_up(UserMessage(content="f1"))
    await agent.continue_run()
    follow_up = agent.state.messages[-2]
    assert isinstance(follow_up, UserMessage) and follow_up.content == "f1"


def test_loop_continue_validation(faux: FauxProvider) -> None:
    config = AgentLoopConfig(model=faux.model)
    with pytest.raises(ValueError, match=r"^Cannot continue: no messages in context$"):
        agent_loop_continue(AgentContext(), config)
    reply = faux_assistant_message("hi")
    with pytest.raises(ValueError, match=r"^Cannot continue from message role: assistant$"):
        agent_loop_continue(AgentContext(messages=[reply]), config)
    agent_loop_continue(AgentContext(messages=[Notification("custom last message is allowed")]), config)


async def test_listeners_are_awaited_in_order_and_failures_do_not_stop_the_run(faux: FauxProvider) -> None:
    faux.set_responses([faux_assistant_message("fine")])
    errors: list[tuple[str, str]] = []
    agent = Agent(
        model=faux.model,
        api_key="k",
        on_listener_error=lambda error, event: errors.append((str(error), event.type)),
    )
    order: list[str] = []

    async def slow(event: AgentEvent) -> None:
        await asyncio.sleep(0.001 if event.type == "agent_start" else 0)
        order.append(f"slow:{event.type}")

    def broken(event: AgentEvent) -> None:
        if event.type in ("turn_start", "message_end"):
            raise RuntimeError("renderer crashed")

    def fast(event: AgentEvent) -> None:
        order.append(f"fast:{event.type}")

    agent.subscribe(slow)
    agent.subscribe(broken)
    unsubscribe = agent.subscribe(fast)
    await agent.prompt("hi")
    assert order[:4] == ["slow:agent_start", "fast:agent_start", "slow:turn_start", "fast:turn_start"]
    assert ("renderer crashed", "turn_start") in errors and len(errors) == 3
    assert text_of(as_assistant(agent.state.messages[-1]).content[0]) == "fine"
    unsubscribe()
    order.clear()
    faux.set_responses([faux_assistant_message("again")])
    await agent.prompt("hi")
    assert not any(item.startswith("fast") for item in order)


async def test_listener_error_default_report_is_logged(faux: FauxProvider, caplog: pytest.LogCaptureFixture) -> None:
    faux.set_responses([faux_assistant_message("fine")])
    agent, _ = make_agent(faux)

    def broken(event: AgentEvent) -> None:
        if event.type == "agent_end":
            raise RuntimeError("disk full")

    agent.subscribe(broken)
    with caplog.at_level(logging.ERROR, logger="pi.agent"):
        await agent.prompt("hi")
    assert any("disk full" in r.getMessage() and r.exc_info is not None for r in caplog.records)


async def test_get_api_key_is_asked_every_turn(faux: FauxProvider) -> None:
    asked: list[str] = []
    keys = iter(["token-1", None])

    async def get_api_key(provider: str) -> str | None:
        asked.append(provider)
        return next(keys)

    spy1 = ContextSpy(faux_assistant_message(faux_tool_call("echo", {"text": "a"}, id="c1")))
    spy2 = ContextSpy(faux_assistant_message("done"))
    faux.set_responses([spy1, spy2])
    agent, _ = make_agent(faux, tools=[echo_tool()], get_api_key=get_api_key, api_key="static-key",
                          stream_fn=stream_simple)  # fmt: skip
    await agent.prompt("go")
    assert asked == ["faux", "faux"]
    assert spy1.options[0].api_key == "token-1"
    assert spy2.options[0].api_key == "static-key"


async def test_missing_api_key_becomes_an_error_message(faux: FauxProvider) -> None:
    faux.set_responses([faux_assistant_message("never")])
    agent, rec = make_agent(faux, stream_fn=stream_simple)
    await agent.prompt("hi")
    reply = agent.state.messages[-1]
    assert isinstance(reply, AssistantMessage) and reply.stop_reason == "error"
    assert reply.error_message is not None and reply.error_message.startswith("No API key for provider: faux")
    assert rec.types()[-4:] == ["message_start", "message_end", "turn_end", "agent_end"]
    assert agent.state.error_message == reply.error_message
    assert faux.call_count == 0


async def test_convert_and_transform_run_every_turn_and_custom_roles_are_filtered(faux: FauxProvider) -> None:
    spies = [
        ContextSpy(faux_assistant_message(faux_tool_call("echo", {"text": "a"}, id="c1"))),
        ContextSpy(faux_assistant_message("done")),
    ]
    faux.set_responses(spies)
    note = Notification("build passed")
    agent, _ = make_agent(faux, tools=[echo_tool()], messages=[note])
    await agent.prompt("go")
    assert all(m.role in ("user", "assistant", "toolResult") for s in spies for m in s.contexts[0].messages)
    assert agent.state.messages[0] is note

    transformed: list[tuple[int, bool]] = []

    async def transform(messages: list[AgentMessage], signal: AbortSignal | None) -> list[AgentMessage]:
        transformed.append((len(messages), signal is not None))
        return messages[-3:]

    def convert(messages: list[AgentMessage]) -> list[Message]:
        out: list[Message] = []
        for m in messages:
            if isinstance(m, Notification):
                out.append(UserMessage(content=f"[note] {m.text}"))
            elif isinstance(m, UserMessage | AssistantMessage) or m.role == "toolResult":
                out.append(m)  # type: ignore[arg-type]
        return out

    spies = [
        ContextSpy(faux_assistant_message(faux_tool_call("echo", {"text": "b"}, id="c2"))),
        ContextSpy(faux_assistant_message("done")),
    ]
    faux.set_responses(spies)
    agent.convert_to_llm = convert
    agent.transform_context = transform
    agent.append_message(Notification("deploy finished"))
    await agent.prompt("again")
    assert [count for count, _ in transformed] == [len(agent.state.messages) - 3, len(agent.state.messages) - 1]
    assert all(has_signal for _, has_signal in transformed)
    first_sent = spies[0].contexts[0].messages
    assert len(first_sent) == 3 and first_sent[1].content == "[note] deploy finished"


async def test_reasoning_and_stream_options_reach_the_provider(faux: FauxProvider) -> None:
    spy = ContextSpy(faux_assistant_message("ok"))
    faux.set_responses([spy, spy])
    payloads: list[dict[str, Any]] = []
    budgets = ThinkingBudgets(high=1234)
    agent, _ = make_agent(
        faux,
        session_id="sess-1",
        max_retry_delay_ms=5,
        thinking_budgets=budgets,
        on_payload=lambda payload, model: payloads.append(payload),
        stream_options=StreamOptions(temperature=0.25, extra={"tool_choice": "auto"}),
    )
    await agent.prompt("a")
    agent.set_thinking_level("high")
    agent.set_system_prompt("system!")
    await agent.prompt("b")
    off, high = spy.options
    assert off.reasoning is None and high.reasoning == "high"
    assert off.session_id == "sess-1" and off.max_retry_delay_ms == 5
    assert off.signal is not None and off.thinking_budgets is budgets and len(payloads) == 2
    assert off.temperature == 0.25 and off.extra["tool_choice"] == "auto"
    assert spy.contexts[1].system_prompt == "system!"


async def test_a_failing_loop_becomes_a_failed_turn(faux: FauxProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken_loop(*args: Any, **kwargs: Any) -> AsyncIterator[AgentEvent]:
        raise RuntimeError("loop exploded")
        yield  # pragma: no cover

    monkeypatch.setattr(agent_module, "agent_loop", broken_loop)
    agent, rec = make_agent(faux)
    await agent.prompt("hi")
    assert rec.types() == ["message_start", "message_end", "turn_end", "agent_end"]
    failure = agent.state.messages[-1]
    assert isinstance(failure, AssistantMessage)
    assert failure.stop_reason == "error" and failure.error_message == "loop exploded"
    assert agent.state.error_message == "loop exploded" and not agent.state.is_streaming
    end = rec.events[-1]
    assert isinstance(end, AgentEndEvent) and end.messages == [failure]


async def test_reset_clears_everything_but_keeps_config(faux: FauxProvider) -> None:
    faux.set_responses([faux_assistant_message("x", stop_reason="error", error_message="bad")])
    agent, _ = make_agent(faux, system_prompt="keep me")
    await agent.prompt("hi")
    agent.steer(UserMessage(content="s"))
    agent.follow_up(UserMessage(content="f"))
    assert agent.state.error_message == "bad"
    agent.reset()
    assert agent.state.messages == [] and agent.state.error_message is None and not agent.has_queued_messages()
    assert agent.state.system_prompt == "keep me"
    agent.steer(UserMessage(content="s"))
    agent.clear_steering_queue()
    agent.follow_up(UserMessage(content="f"))
    assert agent.has_queued_messages()
    agent.clear_follow_up_queue()
    assert not agent.has_queued_messages()


async def test_events_print_as_pi_json(faux: FauxProvider) -> None:
    faux.set_responses(
        [faux_assistant_message(faux_tool_call("echo", {"text": "a"}, id="c1")), faux_assistant_message("ok")]
    )
    agent, rec = make_agent(faux, tools=[echo_tool()], messages=[Notification("hello")])
    await agent.prompt("go")
    dumped = [json.loads(json.dumps(e.to_json_dict())) for e in rec.events]
    start = next(d for d, e in zip(dumped, rec.events, strict=True) if isinstance(e, ToolExecutionStartEvent))
    assert start == {"type": "tool_execution_start", "toolCallId": "c1", "toolName": "echo", "args": {"text": "a"}}
    end = next(d for d, e in zip(dumped, rec.events, strict=True) if isinstance(e, ToolExecutionEndEvent))
    assert end["isError"] is False and end["result"]["content"] == [{"type": "text", "text": "a"}]
    assert end["result"]["details"] == {"times": 1}
    update = next(d for d in dumped if d["type"] == "message_update")
    assert update["assistantMessageEvent"]["type"] in ("start", "toolcall_start", "toolcall_delta")
    # Delta-only on the wire: neither the message so far nor the provider's partial copy of it.
    updates = [d for d in dumped if d["type"] == "message_update"]
    assert all("message" not in d and "partial" not in d["assistantMessageEvent"] for d in updates)
    assert all(set(d) == {"type", "usage", "assistantMessageEvent"} for d in updates)
    call_start = next(
        d["assistantMessageEvent"] for d in updates if d["assistantMessageEvent"]["type"] == "toolcall_start"
    )
    assert call_start["id"] == "c1" and call_start["toolName"] == "echo" and call_start["contentIndex"] == 0
    assert isinstance(end["durationMs"], int) and end["durationMs"] >= 0  # whole milliseconds, as pi
    turn_end = next(d for d, e in zip(dumped, rec.events, strict=True) if isinstance(e, TurnEndEvent))
    assert turn_end["toolResults"][0]["toolCallId"] == "c1" and turn_end["message"]["stopReason"] == "toolUse"
    assert dumped[0] == {"type": "agent_start"}
    assert [m["role"] for m in dumped[-1]["messages"]] == ["user", "assistant", "toolResult", "assistant"]
