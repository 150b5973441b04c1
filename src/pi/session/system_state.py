"""The system prompt and tools in force at a point of a transcript, from its ``role:"system"`` messages.

A session stores its prompt once, in full, and afterwards only what changed (patches), so that the
file says which prompt and tools each reply was produced with. Replaying the system messages of a
context in order gives the current state; `system_message_patch` computes the next patch to store.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from msgspec import Struct, field

from pi.agent.messages import AgentMessage
from pi.ai.types import TextContent
from pi.session.messages import SystemMessage


class SystemState(Struct):
    """The system prompt and tools after replaying a transcript's system messages in order."""

    content: str = ""
    """Prompt text given whole rather than in sections (usually empty)."""
    sections: dict[str, str] = field(default_factory=dict)
    """Section name → text, in prompt order."""
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Tool name → definition (``{name, description, parameters, ...}``), in declaration order."""

    @property
    def prompt(self) -> str:
        """The prompt text: the content, then the sections, joined by a blank line."""
        parts = [self.content] if self.content else []
        parts.extend(text for text in self.sections.values() if text)
        return "\n\n".join(parts)

    def apply(self, message: SystemMessage) -> None:
        """Apply one stored system message (a full declaration or a patch)."""
        content = message.content
        text = content if isinstance(content, str) else "".join(b.text for b in content if isinstance(b, TextContent))
        if text or message.sections is None:
            self.content = text
        for name, value in (message.sections or {}).items():
            if value is None:
                self.sections.pop(name, None)
            else:
                self.sections[name] = value
        for removed in message.tools_removed or []:
            removed_name = removed.get("name")
            if isinstance(removed_name, str):
                self.tools.pop(removed_name, None)
        for tool in message.tools_added or []:
            tool_name = tool.get("name")
            if isinstance(tool_name, str):
                self.tools[tool_name] = tool


def replay_system_messages(messages: Iterable[AgentMessage]) -> SystemState | None:
    """The state after every system message in `messages`, or None when there is none."""
    state: SystemState | None = None
    for message in messages:
        if isinstance(message, SystemMessage):
            state = state or SystemState()
            state.apply(message)
    return state


def full_system_message(sections: Mapping[str, str], tools: Sequence[Mapping[str, Any]]) -> SystemMessage:
    """A system message declaring everything (the first of a session, or a compaction's checkpoint)."""
    return SystemMessage(content="", sections=dict(sections), tools_added=[dict(t) for t in tools] or None)


def checkpoint_of(state: SystemState) -> SystemMessage:
    """The full declaration of `state`, e.g. for `SessionManager.append_compaction(system_message=...)`."""
    message = full_system_message(state.sections, list(state.tools.values()))
    if state.content:
        message.content = state.content
    return message


def system_message_patch(
    previous: SystemState | None, sections: Mapping[str, str], tools: Sequence[Mapping[str, Any]]
) -> SystemMessage | None:
    """What to store so that replaying gives `sections` and `tools`; None when nothing changed.

    Without a previous state the answer is the full declaration. A tool list that only changed order
    is no change.
    """
    if previous is None:
        return full_system_message(sections, tools)
    changed: dict[str, str | None] = {name: None for name in previous.sections if name not in sections}
    changed.update({name: text for name, text in sections.items() if previous.sections.get(name) != text})
    wanted = {str(t.get("name")): dict(t) for t in tools}
    added = [tool for name, tool in wanted.items() if previous.tools.get(name) != tool]
    removed = [{"name": name} for name in previous.tools if name not in wanted]
    if not changed and not added and not removed:
        return None
    return SystemMessage(content="", sections=changed or None, tools_added=added or None, tools_removed=removed or None)


__all__ = ["SystemState", "checkpoint_of", "full_system_message", "replay_system_messages", "system_message_patch"]
