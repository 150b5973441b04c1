"""The coding agent's own transcript roles, stored in session files next to the model's messages.

They record what happened outside the model's turns (a command the user ran by hand, a summary that
replaced old history, an extension's note) and reach the model only through `convert_to_llm`, which
turns each into a user message with pi's wording. Field names match pi's session files.
"""

import functools
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError

from pi.agent.messages import AgentMessage
from pi.ai.types import (
    AssistantMessage,
    ImageContent,
    Message,
    PiModel,
    TextContent,
    ToolResultMessage,
    UserContent,
    UserMessage,
    now_ms,
)

COMPACTION_SUMMARY_PREFIX = "The conversation history before this point was compacted into the following summary:\n\n"
BRANCH_SUMMARY_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n"


class _AppMessage(PiModel):
    """Base of the roles below: their validators are built when first used, not at import.

    Most runs never create one (no `!` command, no compaction, no extension message), and building
    the five validators would cost about 2 ms of every start.
    """

    model_config = ConfigDict(defer_build=True)


class BashExecutionMessage(_AppMessage):
    """A command the user ran themselves (``!cmd`` or RPC ``bash``); the model sees it on the next prompt."""

    role: Literal["bashExecution"] = "bashExecution"
    command: str
    output: str
    exit_code: int | None = None
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | None = None
    exclude_from_context: bool | None = None
    timestamp: int = Field(default_factory=now_ms)


class CustomMessage(_AppMessage):
    """An extension's message; `display` says whether a UI shows it."""

    role: Literal["custom"] = "custom"
    custom_type: str
    content: str | list[UserContent]
    display: bool = True
    details: Any = None
    timestamp: int = Field(default_factory=now_ms)


class BranchSummaryMessage(_AppMessage):
    role: Literal["branchSummary"] = "branchSummary"
    summary: str
    from_id: str
    timestamp: int = Field(default_factory=now_ms)


class SystemMessage(_AppMessage):
    """The system prompt and tool declarations as of this point of the transcript.

    The first request of a session stores one with every prompt section and every tool; later ones
    are patches: a section set to None is removed, `tools_added` replaces or adds tools by name,
    `tools_removed` drops them. Replaying them in order (`pi.session.system_state`) gives the prompt
    and tools in force. The model never sees them as conversation messages.
    """

    role: Literal["system"] = "system"
    content: str | list[TextContent] = ""
    sections: dict[str, str | None] | None = None
    tools_added: list[dict[str, Any]] | None = None
    """Tool definitions as sent: ``{name, description, parameters, constrainedSampling?}``."""
    tools_removed: list[dict[str, Any]] | None = None
    """``{name}`` of each tool no longer declared."""
    timestamp: int = Field(default_factory=now_ms)


class CompactionSummaryMessage(_AppMessage):
    role: Literal["compactionSummary"] = "compactionSummary"
    summary: str
    tokens_before: int
    timestamp: int = Field(default_factory=now_ms)


_APP_ROLES: dict[str, type[PiModel]] = {
    "bashExecution": BashExecutionMessage,
    "custom": CustomMessage,
    "branchSummary": BranchSummaryMessage,
    "compactionSummary": CompactionSummaryMessage,
    "system": SystemMessage,
}


@functools.cache
def _llm_message_adapter() -> TypeAdapter[Message]:
    return TypeAdapter(Message)


class UnknownRoleMessage(_AppMessage):
    """A role this version does not know (written by a newer pi or an extension): kept as-is, never sent."""

    role: str


def parse_agent_message(data: dict[str, Any]) -> AgentMessage:
    """A stored message of any role; unknown roles are preserved rather than rejected."""
    role = data.get("role")
    model = _APP_ROLES.get(role) if isinstance(role, str) else None
    if model is not None:
        return model.model_validate(data)  # type: ignore[return-value]
    try:
        return _llm_message_adapter().validate_python(data)
    except ValidationError:
        if isinstance(role, str) and role not in ("user", "assistant", "toolResult"):
            return UnknownRoleMessage.model_validate(data)
        raise


def bash_execution_text(message: BashExecutionMessage) -> str:
    text = f"Ran `{message.command}`\n"
    text += f"```\n{message.output}\n```" if message.output else "(no output)"
    if message.cancelled:
        text += "\n\n(command cancelled)"
    elif message.exit_code not in (None, 0):
        text += f"\n\nCommand exited with code {message.exit_code}"
    if message.truncated and message.full_output_path:
        text += f"\n\n[Output truncated. Full output: {message.full_output_path}]"
    return text


def convert_to_llm(messages: Sequence[AgentMessage], block_images: bool = False) -> list[Message]:
    """The transcript as the model sees it: app roles become user messages, unknown roles are dropped."""
    out: list[Message] = []
    for message in messages:
        converted: Message | None
        if isinstance(message, UserMessage | AssistantMessage | ToolResultMessage):
            converted = message
        elif isinstance(message, BashExecutionMessage):
            converted = (
                None
                if message.exclude_from_context
                else UserMessage(content=[TextContent(text=bash_execution_text(message))], timestamp=message.timestamp)
            )
        elif isinstance(message, CustomMessage):
            content = message.content
            blocks = [TextContent(text=content)] if isinstance(content, str) else list(content)
            converted = UserMessage(content=blocks, timestamp=message.timestamp)
        elif isinstance(message, BranchSummaryMessage):
            # pi closes a branch summary straight after its text (a compaction summary gets a newline first).
            text = f"{BRANCH_SUMMARY_PREFIX}<summary>\n{message.summary}</summary>"
            converted = UserMessage(content=[TextContent(text=text)], timestamp=message.timestamp)
        elif isinstance(message, CompactionSummaryMessage):
            text = f"{COMPACTION_SUMMARY_PREFIX}<summary>\n{message.summary}\n</summary>"
            converted = UserMessage(content=[TextContent(text=text)], timestamp=message.timestamp)
        else:
            converted = None
        if converted is not None:
            out.append(_without_images(converted) if block_images else converted)
    return out


def _without_images(message: Message) -> Message:
    content = message.content
    if isinstance(content, str) or not any(isinstance(b, ImageContent) for b in content):
        return message
    blocks: list[Any] = []
    for block in content:
        if isinstance(block, ImageContent):
            if not (blocks and isinstance(blocks[-1], TextContent) and blocks[-1].text == "Image reading is disabled."):
                blocks.append(TextContent(text="Image reading is disabled."))
        else:
            blocks.append(block)
    return message.model_copy(update={"content": blocks})


__all__ = [
    "BRANCH_SUMMARY_PREFIX",
    "COMPACTION_SUMMARY_PREFIX",
    "BashExecutionMessage",
    "BranchSummaryMessage",
    "CompactionSummaryMessage",
    "CustomMessage",
    "SystemMessage",
    "UnknownRoleMessage",
    "bash_execution_text",
    "convert_to_llm",
    "parse_agent_message",
]
