"""The model-written part of a `/bug` report: a short account of the conversation instead of all of it.

The conversation is redacted before it is sent, exactly as it would be in the report, and goes to
the session's current model in one request with no tools. The reply becomes the report's summary
section; a failure (no model, no key, an error reply, an empty answer) raises `BugSummaryError`
with what went wrong, and no report is written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi.app.agent_session import AgentSession

SUMMARY_SYSTEM_PROMPT = (
    "You help a user of pi, a terminal coding agent, report a bug to its developers. You are given the "
    "conversation of the pi session the report is about. Write a short factual summary for the developers: "
    "what the user was trying to do, what pi and the model did (tools called, errors shown), and where "
    "the behaviour looked wrong. Use plain Markdown, at most about 15 lines. Do not repeat file contents "
    "or long outputs, and do not guess at causes the conversation does not show."
)
SUMMARY_MAX_TOKENS = 1024


class BugSummaryError(Exception):
    """The summary could not be written; the message says why."""


async def summarize_for_report(session: AgentSession, transcript: str, description: str) -> str:
    """The model's summary of `transcript` (already redacted); raises `BugSummaryError`."""
    from pi.ai.options import StreamOptions
    from pi.ai.stream import MissingApiKeyError, complete_simple
    from pi.ai.types import Context, UserMessage

    model = session.model
    if model is None:
        raise BugSummaryError("no model is selected (choose one with /model, or report without a summary)")
    registry = session.model_registry
    key = registry.get_api_key(model.provider)
    options = StreamOptions(
        api_key=key, headers=registry.request_headers(model, key), max_tokens=SUMMARY_MAX_TOKENS, max_retries=1
    )
    asked = f"The user describes the problem as: {description}\n\n" if description else ""
    context = Context(
        system_prompt=SUMMARY_SYSTEM_PROMPT,
        messages=[UserMessage(content=f"{asked}<conversation>\n{transcript}\n</conversation>")],
    )
    try:
        reply = await complete_simple(model, context, options)
    except MissingApiKeyError as exc:
        raise BugSummaryError(str(exc)) from exc
    if reply.stop_reason in ("error", "aborted"):
        raise BugSummaryError(reply.error_message or "the model's request failed")
    text = "".join(getattr(block, "text", "") for block in reply.content if block.type == "text").strip()
    if not text:
        raise BugSummaryError("the model answered with no text")
    return text


__all__ = ["SUMMARY_SYSTEM_PROMPT", "BugSummaryError", "summarize_for_report"]
