"""Abort is a recorded state: after it nothing queued is sent; the queues stay readable and clearable."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from pi.ai.abort import AbortController
from pi.ai.faux import FauxProvider, faux_assistant_message, faux_tool_call
from pi.app.agent_session import AgentSession
from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry
from pi.app.resources import Resources
from pi.app.sdk import CreateSessionOptions, create_agent_session
from pi.app.settings import SettingsManager
from pi.session.manager import SessionManager
from tests.agent.helpers import Controlled


def _session(faux: FauxProvider, tmp_path: Path, tools: list[Any]) -> AgentSession:
    auth = AuthStorage.in_memory()
    auth.set_runtime_api_key(faux.model.provider, "test")
    return create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=tmp_path / "agent",
            model=faux.model,
            thinking_level="off",
            tools=tools,
            settings=SettingsManager.in_memory({"retry": {"baseDelayMs": 1}}),
            auth=auth,
            model_registry=ModelRegistry(auth, None),
            resources=Resources(),
            session_manager=SessionManager.in_memory(str(tmp_path)),
        )
    )


async def test_abort_during_a_tool_call_sends_nothing_queued_and_keeps_the_queues(
    faux: FauxProvider, tmp_path: Path
) -> None:
    gate = Controlled()
    faux.set_responses([faux_assistant_message(faux_tool_call("wait", {"text": "a"}, id="c1"))] * 3)
    session = _session(faux, tmp_path, [gate.tool()])
    events: list[dict[str, Any]] = []
    session.subscribe(lambda event: events.append(event.to_json_dict()))
    run = asyncio.create_task(session.prompt("go"))
    await gate.events_for("a")[0].wait()
    session.steer("steer me")
    session.follow_up("and then this")
    await session.abort()
    await run
    assert faux.call_count == 1  # nothing queued went out after the abort
    assert session.is_aborted and not session.is_streaming
    assert session.steering_queue == ["steer me"] and session.follow_up_queue == ["and then this"]
    queues = [e for e in events if e["type"] == "queue_update"]
    assert queues[-1] == {"type": "queue_update", "steering": ["steer me"], "followUp": ["and then this"]}
    settled = [e for e in events if e["type"] == "agent_settled"]
    assert settled == [{"type": "agent_settled", "aborted": True}]
    end = next(e for e in events if e["type"] == "agent_end")
    assert end["willRetry"] is False

    assert session.clear_queue() == (["steer me"], ["and then this"])
    await session.drain_events()
    assert events[-1] == {"type": "queue_update", "steering": [], "followUp": []}
    assert session.pending_message_count == 0


async def test_queued_messages_are_sent_with_the_next_prompt_after_an_abort(faux: FauxProvider, tmp_path: Path) -> None:
    gate = Controlled()
    faux.set_responses(
        [faux_assistant_message(faux_tool_call("wait", {"text": "a"}, id="c1")), faux_assistant_message("both read")]
    )
    session = _session(faux, tmp_path, [gate.tool()])
    run = asyncio.create_task(session.prompt("go"))
    await gate.events_for("a")[0].wait()
    session.steer("queued before the abort")
    await session.abort()
    await run
    await session.prompt("next")
    assert not session.is_aborted
    sent = [str(m.content) for m in faux.contexts[-1].messages if m.role == "user"]
    assert any("queued before the abort" in text for text in sent) and any("next" in text for text in sent)
    assert session.steering_queue == []


def test_a_failing_abort_listener_is_logged_and_the_others_still_run(caplog: pytest.LogCaptureFixture) -> None:
    controller = AbortController()
    reached: list[str] = []

    def broken() -> None:
        raise RuntimeError("listener bug")

    controller.signal.add_listener(broken)
    controller.signal.add_listener(lambda: reached.append("second"))
    with caplog.at_level(logging.ERROR):
        controller.abort()
    assert controller.signal.aborted and reached == ["second"]
    assert any("listener bug" in r.getMessage() and r.exc_info for r in caplog.records)
