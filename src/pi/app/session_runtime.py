"""The state every part of a coding session shares, each piece with one owner.

- transcript, model, thinking level, tools: the `Agent`'s state (read through it, changed through
  the session's methods);
- busy/idle and the abort flag: `RunState`;
- what was queued: the Agent's queues;
- the session file: the `SessionManager`.

`SessionCore` bundles them for the modules the session is split into (prompting, recovery,
compaction, navigation, models, user bash), so none of them keeps a copy of another's state.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from pi.agent import Agent
from pi.agent.messages import AgentMessage, DeferredMessages
from pi.agent.tool import AgentTool
from pi.ai.types import AssistantMessage, Model, TextContent, UserMessage
from pi.app.event_hub import EventHub
from pi.app.model_registry import ModelRegistry
from pi.app.resources import Resources
from pi.app.session_events import QueueUpdateEvent, SessionEvent
from pi.app.session_hooks import HookChains
from pi.app.session_requests import RequestResolver
from pi.app.settings import SettingsManager
from pi.session.manager import SessionManager


class RunState:
    """Busy from a prompt (or a manual compaction) until every automatic step after it is over."""

    def __init__(self) -> None:
        self._holders = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self.aborted = False
        """Set by `abort()`, cleared by the next prompt: once set, nothing queued is sent automatically."""
        self.compacting = False

    @property
    def busy(self) -> bool:
        return self._holders > 0

    def enter(self) -> None:
        self._holders += 1
        self._idle.clear()

    def leave(self) -> None:
        self._holders -= 1
        if self._holders <= 0:
            self._holders = 0
            self._idle.set()

    async def wait_idle(self) -> None:
        await self._idle.wait()


class AgentSetup(Struct):
    """What the session's Agent starts with; the session builds the Agent so that it can hand it its callbacks."""

    model: Model | None = None
    system_prompt: str = ""
    thinking_level: str = "off"
    messages: Sequence[AgentMessage] | DeferredMessages = ()
    """A resumed transcript comes deferred: built when first read (`pi.agent.messages.DeferredMessages`)."""
    stream_fn: Any = None
    steering_mode: Any = "one-at-a-time"
    follow_up_mode: Any = "one-at-a-time"
    thinking_budgets: Any = None
    max_retry_delay_ms: int | None = None


class SessionCore(Struct):
    agent: Agent
    manager: SessionManager
    settings: SettingsManager
    registry: ModelRegistry
    resources: Resources
    cwd: Path
    tools: list[AgentTool[Any]]
    requests: RequestResolver
    chains: HookChains
    events: EventHub[SessionEvent]
    run: RunState = field(default_factory=RunState)
    scoped_models: list[tuple[Model, str | None]] = field(default_factory=list)
    message_end: Callable[[AgentMessage], Awaitable[AgentMessage]] | None = None
    """Extensions' `message_end` chain: the message to store in place of the one that ended."""

    @property
    def model(self) -> Model | None:
        return self.agent.state.model

    def last_assistant(self) -> AssistantMessage | None:
        for message in reversed(self.agent.state.messages):
            if isinstance(message, AssistantMessage):
                return message
        return None

    def queue_event(self) -> QueueUpdateEvent:
        return QueueUpdateEvent(
            steering=[message_text(m) for m in self.agent.steering_queue],
            follow_up=[message_text(m) for m in self.agent.follow_up_queue],
        )

    def persist(self, message: AgentMessage) -> None:
        from pi.session.messages import CustomMessage

        if isinstance(message, CustomMessage):
            self.manager.append_custom_message_entry(
                message.custom_type, message.content, message.display, message.details
            )
        else:
            self.manager.append_message(message)


def message_text(message: AgentMessage) -> str:
    """The text of a queued message, as a queue display shows it."""
    if isinstance(message, UserMessage):
        if isinstance(message.content, str):
            return message.content
        return "".join(block.text for block in message.content if isinstance(block, TextContent))
    content = getattr(message, "content", "")
    return content if isinstance(content, str) else ""


__all__ = ["AgentSetup", "RunState", "SessionCore", "message_text"]
