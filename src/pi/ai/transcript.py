"""System messages inside a conversation: replaying them, and shaping them for one provider.

A stored conversation says which prompt and tools each reply was produced with by carrying
``role: "system"`` messages: the first holds the whole prompt, later ones change it (added
instructions, sections replaced or removed by name, tools added or removed). A provider that accepts
system messages mid-conversation gets each one where it happened, rendered as an update; for every
other provider all of them are folded into one leading prompt and one tool list, which asks the
model the same thing as sending the full prompt every time.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pi.ai.types import Context, Message, SystemMessage, TextContent, Tool


def content_text(content: str | Sequence[TextContent]) -> str:
    return content if isinstance(content, str) else "\n".join(block.text for block in content)


def system_message_text(message: SystemMessage) -> str:
    """A system message as a complete prompt: its content, then its sections, blank-line separated."""
    parts = [content_text(message.content)]
    parts.extend(text for text in (message.sections or {}).values() if text is not None)
    return "\n\n".join(part for part in parts if part)


def render_system_message_update(message: SystemMessage) -> str:
    """A later system message as sent mid-conversation: each section change named, so the model can
    relate it to the leading prompt."""
    parts = []
    text = content_text(message.content)
    if text:
        parts.append(text)
    for name, value in (message.sections or {}).items():
        if value is None:
            parts.append(f'Removed system prompt section "{name}".')
        else:
            parts.append(f'Updated system prompt section "{name}":\n\n{value}')
    return "\n\n".join(parts)


def apply_tool_changes(tools: Iterable[Tool], messages: Iterable[SystemMessage]) -> list[Tool]:
    """`tools` after every removal and addition of `messages`, in order (an addition replaces by name)."""
    current = {tool.name: tool for tool in tools}
    for message in messages:
        for removed in message.tools_removed or []:
            current.pop(removed.name, None)
        for added in message.tools_added or []:
            current.pop(added.name, None)
            current[added.name] = added
    return list(current.values())


def _folded_prompt(base: str | None, messages: Sequence[SystemMessage]) -> str:
    contents = [base] if base else []
    sections: dict[str, str] = {}
    for message in messages:
        text = content_text(message.content)
        if text:
            contents.append(text)
        for name, value in (message.sections or {}).items():
            if value is None:
                sections.pop(name, None)
            else:
                sections.pop(name, None)
                sections[name] = value
    return "\n\n".join(part for part in ["\n\n".join(contents), *sections.values()] if part)


def resolve_transcript(context: Context, mid_conversation: bool = False) -> Context:
    """`context` with its system messages shaped for a provider.

    Without `mid_conversation` every system message is folded into `system_prompt` and `tools`,
    and none is left in `messages`. With it, only the leading ones (before the first other message)
    are folded; later ones stay in place for the provider to render with
    `render_system_message_update`, while `tools` still gives the final tool set. A context without
    system messages is returned as it is.
    """
    systems = [message for message in context.messages if isinstance(message, SystemMessage)]
    if not systems:
        return context
    leading: list[SystemMessage] = []
    if mid_conversation:
        for message in context.messages:
            if not isinstance(message, SystemMessage):
                break
            leading.append(message)
        kept: list[Message] = list(context.messages[len(leading) :])
        folded = leading
    else:
        kept = [message for message in context.messages if not isinstance(message, SystemMessage)]
        folded = systems
    prompt = _folded_prompt(context.system_prompt, folded)
    tools = apply_tool_changes(context.tools or [], systems)
    return Context(system_prompt=prompt or None, messages=kept, tools=tools or None)


__all__ = [
    "apply_tool_changes",
    "content_text",
    "render_system_message_update",
    "resolve_transcript",
    "system_message_text",
]
