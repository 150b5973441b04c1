"""Decide whether a failed reply is worth sending again unchanged.

A reply that failed because a server was busy, a gateway hiccuped or a connection dropped usually
succeeds when sent again a little later; one that failed because the account is out of credit, the
request is malformed or the conversation no longer fits the model never will (an overflow needs
compaction first, which `pi.ai.overflow` recognises). Providers word these failures in many ways,
so the decision is made from the error text, here, in one place.

Status numbers and errno-style codes count only as whole tokens: "HTTP 503" and "read ECONNRESET"
are transient failures, "1500 tokens" and "request id 4290123" are not.
"""

from __future__ import annotations

import re
from functools import cache

from pi.ai.overflow import is_context_overflow
from pi.ai.types import AssistantMessage

_NON_RETRYABLE_SOURCES: tuple[str, ...] = (
    r"GoUsageLimitError",
    r"FreeUsageLimitError",
    r"Monthly usage limit reached",
    r"available balance",
    r"insufficient_quota",
    r"out of budget",
    r"quota exceeded",
    r"billing",
    r"subscription_sharing_usage_limit_exceeded",
    r"subscription_sharing_workplace_individual_usage_limit_exceeded",
    r'"code":1308',
)
"""Failures that repeat on every attempt: spent quotas, exhausted balances, billing problems."""

_RETRYABLE_SOURCES: tuple[str, ...] = (
    r"overloaded",
    r"server_busy",
    r"servers are currently busy",
    r"currently experiencing high demand",
    r"model is at capacity",
    r"rate.?limit",
    r"too many requests",
    r"\b(?:429|500|502|503|504|520|524)\b",
    r"service.?(?:is.?)?(?:temporarily.?)?unavailable",
    r"server.?error",
    r"internal.?error",
    r"provider.?returned.?(?:an.?)?error",
    r"exceeded request buffer limit while retrying upstream",
    r"unable to forward upstream",
    r"upstream.?request.?failed",
    r"upstream_stream_read_error",
    r"stream was interrupted",
    r"http/?2 stream failed",
    r"network.?error",
    r"connection.?(?:error|refused|lost|closed)",
    r"other side closed",
    r"fetch failed",
    r"request to \S+ failed, reason:",
    r"getaddrinfo",
    r"\b(?:ECONNRESET|ECONNABORTED|ECONNREFUSED|ETIMEDOUT|EPIPE)\b",
    r"connection reset by peer",
    r"ENOTFOUND",
    r"EAI_AGAIN",
    r"upstream.?connect",
    r"reset before headers",
    r"socket hang up",
    r"socket connection was closed",
    r"timed? out",
    r"timeout",
    r"terminated",
    r"websocket.?(?:closed|error|connection.?limit.?reached)",
    r"ended without",
    r"stream ended before message_stop",
    r"stream ended before a terminal response event",
    r"http2 request did not get a response",
    r"stream disconnected before completion",
    r"cut short after the reply had begun",
    r"pending stream has been canceled",
    r"retry delay",
    r"you can retry your request",
    r"try your request again",
    r"please retry your request",
    r"ResourceExhausted",
    r"subscription_sharing_usage_unavailable",
    r"subscription_sharing_user_unavailable",
)
"""Failures that usually pass: busy or overloaded servers, rate limits, 5xx answers, dropped connections."""


@cache
def _pattern(sources: tuple[str, ...]) -> re.Pattern[str]:
    """One case-insensitive alternation, compiled when the first failed reply is classified."""
    return re.compile("|".join(f"(?:{source})" for source in sources), re.IGNORECASE)


def is_retryable_assistant_error(message: AssistantMessage, context_window: int | None = None) -> bool:
    """True when `message` failed (stopReason "error") in a way that sending it again may fix.

    Not for a context overflow (compact instead) nor for a spent quota or billing problem; yes for
    the busy, rate-limited, 5xx and dropped-connection failures listed above.
    """
    if message.stop_reason != "error":
        return False
    text = message.error_message or ""
    if not text or is_context_overflow(message, context_window):
        return False
    if _pattern(_NON_RETRYABLE_SOURCES).search(text):
        return False
    return _pattern(_RETRYABLE_SOURCES).search(text) is not None


__all__ = ["is_retryable_assistant_error"]
