"""Cache warming inside a session: which requests it follows, what it records, who decides (hand-driven clock)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from pi.agent.tool import AgentTool, AgentToolResult
from pi.ai.faux import FauxProvider, faux_assistant_message, faux_tool_call
from pi.ai.options import StreamOptions
from pi.ai.types import AssistantMessage, Context, Model, ModelCost, PromptCache, TextContent
from pi.app.agent_session import AgentSession
from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry
from pi.app.resources import Resources
from pi.app.sdk import CreateSessionOptions, create_agent_session
from pi.app.session_events import EntryAppendedEvent
from pi.app.settings import SettingsManager
from pi.session.entries import UsageEntry
from pi.session.manager import SessionManager
from tests.app.cache_warming_clock import ManualClock

DELAY = 270_000  # a 300 s lifetime


def _session(
    faux: FauxProvider,
    tmp_path: Path,
    global_settings: dict[str, Any] | None = None,
    project_settings: dict[str, Any] | None = None,
    factories: list[Any] | None = None,
) -> tuple[AgentSession, ManualClock]:
    auth = AuthStorage.in_memory()
    auth.set_runtime_api_key(faux.model.provider, "test")
    model = faux.model.model_copy(
        update={
            "prompt_cache": PromptCache(short=300),
            "cost": ModelCost(input=1, output=1, cache_read=0.1, cache_write=100_000),
        }
    )
    session = create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=tmp_path / "agent",
            model=model,
            thinking_level="off",
            tools=[],
            settings=SettingsManager(dict(global_settings or {}), dict(project_settings or {}), None),
            auth=auth,
            model_registry=ModelRegistry(auth, None),
            resources=Resources(),
            session_manager=SessionManager.in_memory(str(tmp_path)),
            extension_factories=factories or [],
        )
    )
    clock = ManualClock()
    session.cache_warming.warmer.scheduler = clock
    return session, clock


class Recorder:
    """A faux reply factory that notes the options each request came with."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.options: list[StreamOptions] = []

    def __call__(self, context: Context, options: StreamOptions, state: Any, model: Model) -> AssistantMessage:
        self.options.append(options)
        return faux_assistant_message(self.text)


def _usage_entries(session: AgentSession) -> list[UsageEntry]:
    return [e for e in session.session.get_entries() if isinstance(e, UsageEntry)]


async def test_an_idle_session_refreshes_with_the_same_request_and_records_a_usage_entry(
    faux: FauxProvider, tmp_path: Path
) -> None:
    warm = Recorder("x")
    faux.set_responses([faux_assistant_message("first"), warm, faux_assistant_message("second")])
    session, clock = _session(faux, tmp_path)
    appended: list[Any] = []
    session.subscribe(lambda e: appended.append(e.entry) if isinstance(e, EntryAppendedEvent) else None)
    await session.prompt("hello")
    assert clock.pending() == [DELAY]
    assert session.cache_warming.warmer.status.phase == "idle"
    await clock.advance(DELAY)
    assert faux.state.call_count == 2
    assert faux.contexts[1] == faux.contexts[0]
    assert (warm.options[0].max_tokens, warm.options[0].max_retries) == (1, 0)
    (usage,) = _usage_entries(session)
    assert (usage.kind, usage.provider, usage.model, usage.note) == ("cache_warm", faux.provider, faux.model.id, None)
    await session.drain_events()
    assert [e.id for e in appended] == [usage.id]
    assert [m.role for m in session.session.build_session_context().messages] == ["system", "user", "assistant"]
    # The next real request replaces the schedule; its context continues after the usage entry.
    await session.prompt("again")
    assert faux.state.call_count == 3
    assert clock.pending() == [clock.now + DELAY]
    assert [m.role for m in faux.contexts[2].messages] == ["user", "assistant", "user"]


async def test_only_the_global_setting_turns_warming_on(faux: FauxProvider, tmp_path: Path) -> None:
    faux.set_responses([faux_assistant_message("first")])
    session, clock = _session(faux, tmp_path, {"cacheWarming": "off"}, {"cacheWarming": "idle"})
    await session.prompt("hello")
    assert clock.pending() == []
    assert session.cache_warming.warmer.status.reason == "cache warming disabled"


async def test_streaming_mode_stops_once_the_run_settles(faux: FauxProvider, tmp_path: Path) -> None:
    faux.set_responses([faux_assistant_message("first")])
    session, clock = _session(faux, tmp_path, {"cacheWarming": "streaming"})
    await session.prompt("hello")
    await clock.advance(DELAY * 3)
    assert faux.state.call_count == 1
    assert session.cache_warming.warmer.status.reason == "agent run settled"


async def test_the_last_decision_handler_wins_and_stop_ends_warming(faux: FauxProvider, tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []

    def first(pi: Any) -> None:
        def decide(event: Any, ctx: Any) -> Any:
            seen.append(event.to_json_dict())
            return {"action": "warm"}

        pi.on("cache_warming_decision", decide)

    def second(pi: Any) -> None:
        pi.on("cache_warming_decision", lambda event, ctx: {"action": "stop"})

    faux.set_responses([faux_assistant_message("first")])
    session, clock = _session(faux, tmp_path, factories=[first, second])
    await session.load_extensions()
    await session.prompt("hello")
    await clock.advance(DELAY * 3)
    assert faux.state.call_count == 1
    assert session.cache_warming.warmer.status.state == "stopped"
    (event,) = seen
    assert event["type"] == "cache_warming_decision"
    assert {"warmCost", "missCost", "continuationProbability", "action", "phase", "ttlMs"} <= set(event)
    assert (event["action"], event["phase"], event["continuationProbability"]) == ("warm", "idle", 0.15)


async def test_an_override_to_warm_is_noted_on_the_usage_entry(faux: FauxProvider, tmp_path: Path) -> None:
    def always(pi: Any) -> None:
        pi.on("cache_warming_decision", lambda event, ctx: {"action": "warm"})

    faux.set_responses([faux_assistant_message("first"), faux_assistant_message("x")])
    session, clock = _session(faux, tmp_path, factories=[always])
    cheap = session.model.model_copy(update={"cost": ModelCost(input=1, output=1, cache_read=0.5, cache_write=1)})  # type: ignore[union-attr]
    session.set_model(cheap)
    await session.load_extensions()
    await session.prompt("hello")
    await clock.advance(DELAY)
    (usage,) = _usage_entries(session)
    assert usage.note == "extension override"


async def test_closing_the_session_cancels_the_schedule(faux: FauxProvider, tmp_path: Path) -> None:
    faux.set_responses([faux_assistant_message("first"), faux_assistant_message("second")])
    session, clock = _session(faux, tmp_path)
    await session.prompt("hello")
    assert clock.pending() == [DELAY]
    session.cache_warming.close()
    assert session.cache_warming.warmer.status.reason == "session ended"
    await clock.advance(DELAY)
    assert faux.state.call_count == 1


class _NoArguments(BaseModel):
    pass


def _waiting_tool(started: asyncio.Event, release: asyncio.Future[None]) -> AgentTool[_NoArguments]:
    """A tool that runs until `release` is set or its call is aborted: a long tool call."""

    async def execute(tool_call_id: str, params: _NoArguments, signal: Any, on_update: Any) -> AgentToolResult:
        started.set()

        def stop() -> None:
            if not release.done():
                release.set_result(None)

        remove = signal.add_listener(stop)
        try:
            await release
        finally:
            remove()
        return AgentToolResult(content=[TextContent(text="done")])

    return AgentTool(name="wait", label="wait", description="Waits.", parameters=_NoArguments, execute=execute)


async def test_a_long_tool_call_is_bridged_with_certain_odds(faux: FauxProvider, tmp_path: Path) -> None:
    warm = Recorder("x")
    faux.set_responses([faux_assistant_message(faux_tool_call("wait", {})), warm, faux_assistant_message("end")])
    session, clock = _session(faux, tmp_path, {"cacheWarming": "streaming"})
    started, release = asyncio.Event(), asyncio.get_running_loop().create_future()
    session.agent.set_tools([_waiting_tool(started, release)])
    run = asyncio.ensure_future(session.prompt("go"))
    await started.wait()
    status = session.cache_warming.warmer.status
    assert (status.state, status.phase, status.next_warm_at) == ("scheduled", "streaming", DELAY)
    await clock.advance(DELAY)
    assert faux.state.call_count == 2 and warm.options[0].max_tokens == 1
    release.set_result(None)
    await run
    assert session.last_assistant_text() == "end"
    assert [m.role for m in faux.contexts[2].messages] == ["user", "assistant", "toolResult"]
    assert len(_usage_entries(session)) == 1
    assert session.cache_warming.warmer.status.reason == "agent run settled"


async def test_an_abort_ends_warming(faux: FauxProvider, tmp_path: Path) -> None:
    faux.set_responses([faux_assistant_message(faux_tool_call("wait", {}))])
    session, clock = _session(faux, tmp_path)
    started, release = asyncio.Event(), asyncio.get_running_loop().create_future()
    session.agent.set_tools([_waiting_tool(started, release)])
    run = asyncio.ensure_future(session.prompt("go"))
    await started.wait()
    assert clock.pending() == [DELAY]
    await session.abort()
    await run
    await session.drain_events()
    assert session.cache_warming.warmer.status.reason == "aborted"
    await clock.advance(DELAY)
    assert faux.state.call_count == 1
