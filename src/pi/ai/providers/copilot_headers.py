"""The per-request headers GitHub Copilot expects, whichever wire API a Copilot model speaks.

Copilot serves Chat Completions, Responses and Anthropic Messages models behind one endpoint and
decides billing and routing from three headers: who started the request (the user typing, or the
agent continuing after tool results), the intent, and whether any image is in the conversation.
"""

from __future__ import annotations

from collections.abc import Sequence

from pi.ai.types import ImageContent, Message, Model, ToolResultMessage, UserMessage

COPILOT_PROVIDER = "github-copilot"


def copilot_initiator(messages: Sequence[Message]) -> str:
    """``"user"`` when the last message is the user's (or there is none yet), else ``"agent"``."""
    last = messages[-1] if messages else None
    return "agent" if last is not None and not isinstance(last, UserMessage) else "user"


def has_images(messages: Sequence[Message]) -> bool:
    """True when a user message or a tool result carries an image."""
    for message in messages:
        content = message.content if isinstance(message, UserMessage | ToolResultMessage) else None
        if isinstance(content, list) and any(isinstance(block, ImageContent) for block in content):
            return True
    return False


def copilot_headers(messages: Sequence[Message]) -> dict[str, str]:
    """X-Initiator, Openai-Intent and, when images are involved, Copilot-Vision-Request."""
    headers = {"X-Initiator": copilot_initiator(messages), "Openai-Intent": "conversation-edits"}
    if has_images(messages):
        headers["Copilot-Vision-Request"] = "true"
    return headers


def dynamic_headers(model: Model, messages: Sequence[Message]) -> dict[str, str] | None:
    """The headers computed per request for `model`'s provider; None for providers that need none."""
    return copilot_headers(messages) if model.provider == COPILOT_PROVIDER else None


__all__ = ["COPILOT_PROVIDER", "copilot_headers", "copilot_initiator", "dynamic_headers", "has_images"]
