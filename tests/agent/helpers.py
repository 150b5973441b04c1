"""Tools, a recording listener and a scripted model shared by the agent tests."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from pi.agent import Agent, AgentEvent, AgentTool, AgentToolResult
from pi.agent.tool import OnToolUpdate
from pi.ai.abort import AbortSignal
from pi.ai.faux import FauxProvider
from pi.ai.options import StreamOptions
from pi.ai.stream import stream
from pi.ai.types import Context, Model, TextContent, ToolResultMessage


class EchoParams(BaseModel):
    text: str
    times: int = 1


def text_result(text: str, details: Any = None) -> AgentToolResult:
    return AgentToolResult(content=[TextContent(text=text)], details=details)


@dataclass
class ToolLog:
    calls: list[tuple[str, Any]] = field(default_factory=list)


def echo_tool(log: ToolLog | None = None, name: str = "echo", **kwargs: Any) -> AgentTool[EchoParams]:
    async def execute(
        tool_call_id: str, params: EchoParams, signal: AbortSignal | None, on_update: OnToolUpdate | None
    ) -> AgentToolResult:
        if log is not None:
            log.calls.append((tool_call_id, params))
        return text_result(params.text * params.times, {"times": params.times})

    return AgentTool(
        name=name, label=name.title(), description="Repeat text.", parameters=EchoParams, **kwargs, execute=execute
    )


class Controlled:
    """A tool whose calls wait for the test to release them, and that honours the abort signal."""

    def __init__(self, name: str = "wait") -> None:
        self.name = name
        self.started: dict[str, asyncio.Event] = {}
        self.release: dict[str, asyncio.Event] = {}
        self.saw_abort: list[str] = []

    def events_for(self, text: str) -> tuple[asyncio.Event, asyncio.Event]:
        started = self.started.setdefault(text, asyncio.Event())
        release = self.release.setdefault(text, asyncio.Event())
        return started, release

    def tool(self, **kwargs: Any) -> AgentTool[EchoParams]:
        async def execute(
            tool_call_id: str, params: EchoParams, signal: AbortSignal | None, on_update: OnToolUpdate | None
        ) -> AgentToolResult:
            started, release = self.events_for(params.text)
            started.set()
            waits: list[asyncio.Future[Any]] = [asyncio.ensure_future(release.wait())]
            if signal is not None:
                waits.append(asyncio.ensure_future(signal.wait()))
            _done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()
            if signal is not None and signal.aborted:
                self.saw_abort.append(params.text)
                raise RuntimeError("stopped by the signal")
            return text_result(f"released {params.text}")

        return AgentTool(
            name=self.name, label="Wait", description="Wait.", parameters=EchoParams, execute=execute, **kwargs
        )


class Recorder:
    def __init__(self) -> None:
        self.events: list[AgentEvent] = []

    def __call__(self, event: AgentEvent) -> None:
        self.events.append(event)

    def types(self, *, updates: bool = False) -> list[str]:
        return [e.type for e in self.events if updates or e.type != "message_update"]

    def labelled(self) -> list[str]:
        """Event types, with the role of message events and the tool call id of tool events."""
        out = []
        for event in self.events:
            if event.type == "message_update":
                continue
            message = getattr(event, "message", None)
            if event.type in ("message_start", "message_end") and message is not None:
                out.append(f"{event.type}:{message.role}")
            elif hasattr(event, "tool_call_id"):
                out.append(f"{event.type}:{event.tool_call_id}")
            else:
                out.append(event.type)
        return out


def make_agent(faux: FauxProvider, **kwargs: Any) -> tuple[Agent, Recorder]:
    kwargs.setdefault("stream_fn", stream)
    agent = Agent(model=faux.model, **kwargs)
    recorder = Recorder()
    agent.subscribe(recorder)
    return agent, recorder


class ContextSpy:
    """A reply factory that records the context the model was sent."""

    def __init__(self, reply: Any) -> None:
        self.reply = reply
        self.contexts: list[Context] = []
        self.options: list[StreamOptions] = []

    def __call__(self, context: Context, options: StreamOptions, state: Any, model: Model) -> Any:
        self.contexts.append(context)
        self.options.append(options)
        return self.reply


def result_texts(results: list[ToolResultMessage]) -> list[str]:
    return [block.text for r in results for block in r.content if isinstance(block, TextContent)]


def every_call_answered(context: Context) -> bool:
    calls = [b.id for m in context.messages if m.role == "assistant" for b in m.content if b.type == "toolCall"]
    answered = {m.tool_call_id for m in context.messages if m.role == "toolResult"}
    return all(c in answered for c in calls)
