"""One summarization request, as compaction and branch summaries send it, and what counts as a good reply.

A summary request carries no tools (a summarizer has nothing to call) and no cap of its own on the
reply: it may use the model's whole output limit, shrunk so that prompt plus reply fit the window.
Reasoning follows the session's thinking level. A reply that calls a tool, stops at the token cap
(an incomplete summary must not replace history) or fails is an error; transient failures are sent
again with the session's retry settings, and the caller hears about each attempt through callbacks.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable
from typing import Protocol

from msgspec import Struct

from pi.ai.abort import AbortSignal
from pi.ai.options import StreamOptions
from pi.ai.types import REASONING_LEVELS, AssistantMessage, Context, Model, TextContent, ToolCall, Usage, UserMessage
from pi.session.compaction_errors import CompactionCancelledError, CompactionError, NoSummaryModelError
from pi.session.ids import create_session_id
from pi.session.summary_prompts import SUMMARIZATION_SYSTEM_PROMPT

OUTPUT_SIZING_CHARS_PER_TOKEN = 3.5
"""Prompt size estimate used to fit the reply into the window (errs towards a larger prompt than chars/4)."""
TRUNCATED_SUMMARY = "generation hit the token cap and the summary is incomplete"


class CompleteFn(Protocol):
    """Sends one request and returns the finished reply; `pi.ai.complete_simple` fits."""

    def __call__(self, model: Model, context: Context, options: StreamOptions, /) -> Awaitable[AssistantMessage]: ...


class RetryAttempt(Struct, frozen=True):
    """A summary request that failed and is about to be sent again."""

    attempt: int
    """1 for the first retry."""
    max_attempts: int
    delay_ms: int
    error_message: str


class SummaryRetry(Struct):
    """The ``retry`` settings for summary requests, with hooks for the ``summarization_retry_*`` events.

    Each backoff is ``base_delay_ms · 2^(attempt−1)``, capped at `max_delay_ms` (``retry.maxAgentDelayMs``).
    """

    enabled: bool = True
    max_retries: int = 3
    base_delay_ms: int = 2000
    max_delay_ms: int = 60000
    is_retryable: Callable[[AssistantMessage], bool] | None = None
    """Default: `pi.ai.retry_classifier.is_retryable_assistant_error`."""
    on_retry_start: Callable[[RetryAttempt], None] | None = None
    on_retry_end: Callable[[bool, int, str | None], None] | None = None
    """(success, attempts made, final error or None) once a retried request has settled."""
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep

    def delay_ms(self, attempt: int) -> int:
        delay: int = self.base_delay_ms * (1 << max(attempt - 1, 0))
        return min(delay, self.max_delay_ms) if self.max_delay_ms > 0 else delay


class SummaryRequest(Struct):
    """How to reach the summarizing model; the same for every request of one compaction."""

    model: Model | None
    complete_fn: CompleteFn
    api_key: str | None = None
    thinking_level: str | None = None
    """The session's level; None or ``"off"`` (or a model without reasoning) sends no reasoning."""
    signal: AbortSignal | None = None
    session_id: str | None = None
    """Routing id for the provider's cache; a fresh UUIDv7 when None."""
    retry: SummaryRetry | None = None


class SummaryReply(Struct):
    text: str
    usage: Usage


def estimate_prompt_tokens(*texts: str) -> int:
    return math.ceil(sum(len(t) for t in texts) / OUTPUT_SIZING_CHARS_PER_TOKEN)


def output_budget(model: Model, system_prompt: str, prompt: str) -> int:
    """The model's output limit, shrunk so that the estimated prompt plus the reply fit its window."""
    room = model.context_window - estimate_prompt_tokens(system_prompt, prompt) if model.context_window > 0 else 0
    limit = model.max_tokens if model.max_tokens > 0 else room
    if room > 0:
        limit = min(limit, room)
    return max(limit, 1)


def _options(request: SummaryRequest, model: Model, max_tokens: int) -> StreamOptions:
    level = request.thinking_level
    reasoning = next((lv for lv in REASONING_LEVELS if lv == level), None) if model.reasoning else None
    return StreamOptions(
        max_tokens=max_tokens,
        signal=request.signal,
        api_key=request.api_key,
        reasoning=reasoning,
        cache_retention="none",
        session_id=request.session_id or create_session_id(),
    )


def reply_text(reply: AssistantMessage) -> str:
    return "\n".join(b.text for b in reply.content if isinstance(b, TextContent))


async def _send(request: SummaryRequest, model: Model, context: Context, options: StreamOptions) -> AssistantMessage:
    try:
        return await request.complete_fn(model, context, options)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a transport failure: treat it as a failed reply, which may be retried
        return AssistantMessage(
            api=model.api, provider=model.provider, model=model.id, stop_reason="error", error_message=str(exc)
        )


async def _backoff(retry: SummaryRetry, delay_ms: int, signal: AbortSignal | None) -> None:
    """Wait before the next attempt; an abort ends the wait at once."""
    if signal is None:
        await retry.sleep(delay_ms / 1000)
        return
    if signal.aborted:
        return
    sleeping = asyncio.ensure_future(retry.sleep(delay_ms / 1000))
    aborted = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({sleeping, aborted}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (sleeping, aborted):
            task.cancel()


def _retryable(retry: SummaryRetry, reply: AssistantMessage) -> bool:
    if retry.is_retryable is not None:
        return retry.is_retryable(reply)
    from pi.ai.retry_classifier import is_retryable_assistant_error

    return is_retryable_assistant_error(reply)


async def _send_with_retry(
    request: SummaryRequest, model: Model, context: Context, options: StreamOptions
) -> AssistantMessage:
    retry = request.retry
    reply = await _send(request, model, context, options)
    if retry is None or not retry.enabled or reply.stop_reason != "error" or not _retryable(retry, reply):
        return reply
    attempt = 0
    while reply.stop_reason == "error" and attempt < retry.max_retries and _retryable(retry, reply):
        attempt += 1
        delay = retry.delay_ms(attempt)
        if retry.on_retry_start is not None:
            retry.on_retry_start(RetryAttempt(attempt, retry.max_retries, delay, reply.error_message or ""))
        await _backoff(retry, delay, request.signal)
        if request.signal is not None and request.signal.aborted:
            if retry.on_retry_end is not None:
                retry.on_retry_end(False, attempt, "Retry cancelled")
            raise CompactionCancelledError()
        reply = await _send(request, model, context, options)
    if retry.on_retry_end is not None:
        ok = reply.stop_reason != "error"
        retry.on_retry_end(ok, attempt, None if ok else reply.error_message or "Unknown error")
    return reply


async def request_summary(request: SummaryRequest, prompt: str, failure: str, tool_error: str) -> SummaryReply:
    """Send `prompt` for summarizing; raise CompactionError (``{failure}: …``) unless a complete text came back.

    `failure` is ``Summarization failed`` or ``Turn prefix summarization failed``; `tool_error` the
    message for a reply that calls a tool.
    """
    model = request.model
    if model is None:
        raise NoSummaryModelError()
    context = Context(
        system_prompt=SUMMARIZATION_SYSTEM_PROMPT, messages=[UserMessage(content=[TextContent(text=prompt)])]
    )
    options = _options(request, model, output_budget(model, SUMMARIZATION_SYSTEM_PROMPT, prompt))
    reply = await _send_with_retry(request, model, context, options)
    if reply.stop_reason == "aborted" or (request.signal is not None and request.signal.aborted):
        raise CompactionCancelledError()
    if reply.stop_reason == "error":
        raise CompactionError(f"{failure}: {reply.error_message or 'Unknown error'}")
    if any(isinstance(b, ToolCall) for b in reply.content) or reply.stop_reason == "toolUse":
        raise CompactionError(tool_error)
    if reply.stop_reason == "length":
        raise CompactionError(f"{failure}: {TRUNCATED_SUMMARY}")
    return SummaryReply(reply_text(reply), reply.usage)


def add_usage(total: Usage | None, more: Usage) -> Usage:
    """The sum of two calls' usage (a split-turn compaction makes two)."""
    if total is None:
        return more
    cost = total.cost.model_copy(
        update={
            "input": total.cost.input + more.cost.input,
            "output": total.cost.output + more.cost.output,
            "cache_read": total.cost.cache_read + more.cost.cache_read,
            "cache_write": total.cost.cache_write + more.cost.cache_write,
            "total": total.cost.total + more.cost.total,
        }
    )
    return total.model_copy(
        update={
            "input": total.input + more.input,
            "output": total.output + more.output,
            "cache_read": total.cache_read + more.cache_read,
            "cache_write": total.cache_write + more.cache_write,
            "total_tokens": total.total_tokens + more.total_tokens,
            "cost": cost,
        }
    )


__all__ = [
    "OUTPUT_SIZING_CHARS_PER_TOKEN",
    "TRUNCATED_SUMMARY",
    "CompactionCancelledError",
    "CompactionError",
    "CompleteFn",
    "NoSummaryModelError",
    "RetryAttempt",
    "SummaryReply",
    "SummaryRequest",
    "SummaryRetry",
    "add_usage",
    "estimate_prompt_tokens",
    "output_budget",
    "reply_text",
    "request_summary",
]
