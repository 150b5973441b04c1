"""The conversation one agent run works on."""

from __future__ import annotations

from typing import Any

from msgspec import Struct, field

from pi.agent.messages import AgentMessage
from pi.agent.tool import AgentTool


class AgentContext(Struct):
    """System prompt, transcript and tools. The loop appends to `messages` as the run goes."""

    system_prompt: str = ""
    messages: list[AgentMessage] = field(default_factory=list)
    tools: list[AgentTool[Any]] = field(default_factory=list)


__all__ = ["AgentContext"]
