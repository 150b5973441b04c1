"""Hook chains of a session: two handlers on each point, in order, with their effect on the run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi.ai.faux import FauxProvider, faux_assistant_message, faux_tool_call
from pi.ai.types import TextContent, UserMessage
from pi.app.agent_session import AgentSession
from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry
from pi.app.resources import Resources
from pi.app.sdk import CreateSessionOptions, create_agent_session
from pi.app.session_hooks import (
    BeforeCompactHookEvent,
    ContextHookEvent,
    InputHookEvent,
    InputHookResult,
    ProviderRequestHookEvent,
    SessionHooks,
    ToolCallHookEvent,
    ToolCallHookResult,
    ToolResultHookEvent,
)
from pi.app.settings import SettingsManager
from pi.session.compaction import CompactionCancelledError
from pi.session.manager import SessionManager
from tests.agent.helpers import ToolLog, echo_tool
from tests.support.content import as_tool_result, as_user, text_of
from tests.support.faux_session import words
from tests.support.http_server import ScriptedServer
from tests.support.openai_chunks import text_reply


def _session(faux: FauxProvider, tmp_path: Path, hooks: SessionHooks, tools: list[Any] | None = None) -> AgentSession:
    auth = AuthStorage.in_memory()
    auth.set_runtime_api_key(faux.model.provider, "test")
    return create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=tmp_path / "agent",
            model=faux.model,
            thinking_level="off",
            tools=tools or [],
            settings=SettingsManager.in_memory({"compaction": {"keepRecentTokens": 40}}),
            auth=auth,
            model_registry=ModelRegistry(auth, None),
            resources=Resources(),
            session_manager=SessionManager.in_memory(str(tmp_path)),
            hooks=hooks,
        )
    )


async def test_tool_call_and_tool_result_chains(faux: FauxProvider, tmp_path: Path) -> None:
    order: list[str] = []

    def first_gate(event: ToolCallHookEvent) -> ToolCallHookResult | None:
        order.append(f"first:{event.tool_call_id}:{event.input['text']}")
        if event.tool_call_id == "c1":
            event.input["text"] = "edited"  # in place: applies to the call and later handlers see it
        if event.tool_call_id == "c2":
            return ToolCallHookResult(block=True, reason="first says no")
        return None

    async def second_gate(event: ToolCallHookEvent) -> dict[str, Any]:
        order.append(f"second:{event.tool_call_id}:{event.input['text']}")
        return {"block": True, "reason": "second says no"} if event.tool_call_id == "c2" else {}

    def boom(event: ToolCallHookEvent) -> None:
        if event.tool_call_id == "c3":
            raise RuntimeError("gate crashed")

    def first_patch(event: ToolResultHookEvent) -> dict[str, Any]:
        order.append(f"patch1:{event.content[0].text}")  # type: ignore[union-attr]
        return {"content": [TextContent(text="patched:" + event.content[0].text)]}  # type: ignore[union-attr]

    async def second_patch(event: ToolResultHookEvent) -> dict[str, Any]:
        order.append(f"patch2:{event.content[0].text}")  # type: ignore[union-attr]
        return {"details": {"seen": True}}

    hooks = SessionHooks(tool_call=[first_gate, second_gate, boom], tool_result=[first_patch, second_patch])
    log = ToolLog()
    calls = [
        faux_tool_call("echo", {"text": "a"}, id="c1"),
        faux_tool_call("echo", {"text": "b"}, id="c2"),
        faux_tool_call("echo", {"text": "c"}, id="c3"),
    ]
    faux.set_responses([faux_assistant_message(calls), faux_assistant_message("done")])
    session = _session(faux, tmp_path, hooks, [echo_tool(log)])
    await session.prompt("go")
    assert [params.text for _, params in log.calls] == ["edited"]  # only c1 ran, with the edited input
    tool_results = [as_tool_result(m) for m in session.messages if m.role == "toolResult"]
    results = {m.tool_call_id: m for m in tool_results}
    assert text_of(results["c1"].content[0]) == "patched:edited" and results["c1"].details == {"seen": True}
    assert results["c2"].is_error and text_of(results["c2"].content[0]) == "first says no"  # first block wins
    assert results["c3"].is_error and text_of(results["c3"].content[0]) == "gate crashed"  # fails closed
    assert order[:2] == ["first:c1:a", "second:c1:edited"]
    assert "second:c2:b" not in order
    assert order.index("patch1:edited") < order.index("patch2:patched:edited")


async def test_tool_result_content_given_as_dicts_is_blocks_for_the_next_handler(
    faux: FauxProvider, tmp_path: Path
) -> None:
    seen: list[str] = []
    errors: list[tuple[str, str]] = []

    def as_dicts(event: ToolResultHookEvent) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": "from dicts"}]}

    def malformed(event: ToolResultHookEvent) -> dict[str, Any]:
        return {"content": [{"text": "no type"}], "details": {"lost": True}}

    def reader(event: ToolResultHookEvent) -> None:
        seen.append(text_of(event.content[0]))

    hooks = SessionHooks(
        tool_result=[as_dicts, malformed, reader], on_error=lambda point, error: errors.append((point, str(error)))
    )
    faux.set_responses(
        [faux_assistant_message([faux_tool_call("echo", {"text": "a"}, id="c1")]), faux_assistant_message("ok")]
    )
    session = _session(faux, tmp_path, hooks, [echo_tool(ToolLog())])
    await session.prompt("go")
    assert seen == ["from dicts"]  # a block with .text, and the malformed patch was not applied
    assert len(errors) == 1 and errors[0][0] == "tool_result" and "block 0" in errors[0][1]
    result = next(as_tool_result(m) for m in session.messages if m.role == "toolResult")
    assert result.content == [TextContent(text="from dicts")] and result.details != {"lost": True}


async def test_input_and_context_chains(faux: FauxProvider, tmp_path: Path) -> None:
    def shout(event: InputHookEvent) -> InputHookResult | None:
        if event.text == "swallow":
            return InputHookResult(action="handled")
        return InputHookResult(action="transform", text=event.text + "!")

    async def ask(event: InputHookEvent) -> dict[str, Any]:
        return {"action": "transform", "text": event.text + "?"}

    def add_note(event: ContextHookEvent) -> list[Any]:
        return [*event.messages, UserMessage(content="note one")]

    def add_second(event: ContextHookEvent) -> None:
        assert as_user(event.messages[-1]).content == "note one"  # sees the first handler's list
        event.messages.append(UserMessage(content="note two"))

    hooks = SessionHooks(input=[shout, ask], context=[add_note, add_second])
    faux.set_responses([faux_assistant_message("ok")])
    session = _session(faux, tmp_path, hooks)
    assert await session.prompt("swallow") == "handled"
    assert faux.call_count == 0 and session.messages == []
    assert await session.prompt("hi") == "started"
    sent = faux.contexts[0].messages
    assert sent[0].content[0].text == "hi!?"  # type: ignore[union-attr]
    assert [m.content for m in sent[1:]] == ["note one", "note two"]
    # The transform changes what is sent, not what is stored.
    assert [m.role for m in session.messages] == ["system", "user", "assistant"]


async def test_provider_payload_chain_reaches_the_wire(server: ScriptedServer, tmp_path: Path) -> None:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    provider = {
        "baseUrl": f"{server.url}/v1",
        "api": "openai-completions",
        "apiKey": "k",
        "models": [{"id": "m"}],
    }
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"local": provider}}))
    registry = ModelRegistry(AuthStorage.in_memory(), agent_dir / "models.json")

    def first(event: ProviderRequestHookEvent) -> dict[str, Any]:
        return {**event.payload, "temperature": 0.25, "metadata": {"by": "first"}}

    async def second(event: ProviderRequestHookEvent) -> dict[str, Any]:
        assert event.payload["metadata"] == {"by": "first"}
        return {**event.payload, "metadata": {"by": "second"}}

    session = create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=agent_dir,
            model=registry.find("local", "m"),
            tools=[],
            settings=SettingsManager.in_memory(),
            model_registry=registry,
            resources=Resources(),
            session_manager=SessionManager.in_memory(str(tmp_path)),
            hooks=SessionHooks(before_provider_request=[first, second]),
        )
    )
    server.queue(text_reply("hello"))
    await session.prompt("hi")
    body = server.requests[0].json()
    assert body["temperature"] == 0.25 and body["metadata"] == {"by": "second"}


async def _three_turns(session: AgentSession, faux: FauxProvider) -> None:
    faux.set_responses([faux_assistant_message(words(60)) for _ in range(3)])
    for i in range(3):
        await session.prompt(f"turn {i} " + words(60))


async def test_before_compact_chain_supplies_or_cancels(faux: FauxProvider, tmp_path: Path) -> None:
    seen: list[str] = []

    def observer(event: BeforeCompactHookEvent) -> None:
        seen.append(f"observer:{event.reason}")

    def summarizer(event: BeforeCompactHookEvent) -> dict[str, Any]:
        seen.append("summarizer")
        return {
            "compaction": {
                "summary": "## Goal\nWritten by a hook.",
                "firstKeptEntryId": event.preparation.first_kept_entry_id,
                "tokensBefore": event.preparation.tokens_before,
            }
        }

    hooks = SessionHooks(before_compact=[observer, summarizer])
    session = _session(faux, tmp_path, hooks)
    await _three_turns(session, faux)
    calls = faux.call_count
    events: list[dict[str, Any]] = []
    session.subscribe(lambda e: events.append(e.to_json_dict()))
    result = await session.compact()
    assert seen == ["observer:manual", "summarizer"]
    assert result["summary"] == "## Goal\nWritten by a hook." and faux.call_count == calls  # no summary request
    await session.drain_events()
    assert [e["type"] for e in events if e["type"].startswith("compaction_")] == ["compaction_start", "compaction_end"]
    assert events[0] == {"type": "compaction_start", "reason": "manual"}

    hooks.before_compact.insert(0, lambda event: {"cancel": True})
    await _three_turns(session, faux)
    seen.clear()
    with pytest.raises(CompactionCancelledError):
        await session.compact()
    assert seen == []  # the first cancel wins; later handlers are not asked
