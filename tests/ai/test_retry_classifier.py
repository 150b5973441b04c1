"""Which failed replies are sent again: transient failures yes, spent quotas and overflows no."""

from __future__ import annotations

import pytest

from pi.ai import is_retryable_assistant_error
from pi.ai.http import stream_cut_short
from pi.ai.types import AssistantMessage, StopReason, Usage


def failed(text: str | None, stop: StopReason = "error") -> AssistantMessage:
    return AssistantMessage(api="test", provider="test", model="m", stop_reason=stop, error_message=text)


# The acceptance lines of the 1.6.0 retry rules.
def test_a_reset_connection_is_retried() -> None:
    assert is_retryable_assistant_error(failed("read ECONNRESET"))


def test_a_number_that_only_contains_a_status_is_not() -> None:
    assert not is_retryable_assistant_error(failed("request id 4290123"))


def test_a_spent_quota_is_not_retried_even_with_a_429() -> None:
    assert not is_retryable_assistant_error(failed("insufficient_quota (429)"))


@pytest.mark.parametrize(
    "text",
    [
        "429 Too Many Requests",
        "HTTP 503",
        "500 Internal Server Error",
        "502 Bad Gateway",
        "upstream answered 504",
        "Cloudflare 520",
        "error 524: a timeout occurred",
        '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
        "server_busy",
        "Our servers are currently busy, try later",
        "We are currently experiencing high demand",
        "The model is at capacity",
        "Rate limit reached for requests",
        "rate_limit_exceeded",
        "The service is temporarily unavailable",
        "Service Unavailable",
        "Internal server error",
        "internal_error",
        "Provider returned an error",
        "exceeded request buffer limit while retrying upstream",
        "unable to forward upstream",
        "upstream request failed",
        "upstream_stream_read_error",
        "The stream was interrupted",
        "HTTP/2 stream failed",
        "Network error",
        "Connection error.",
        "connection refused",
        "Connection lost",
        "connection closed by the server",
        "other side closed",
        "fetch failed",
        "request to https://api.example.com/v1 failed, reason: socket hang up",
        "getaddrinfo ENOTFOUND api.example.com",
        "connect ECONNREFUSED 127.0.0.1:443",
        "ECONNABORTED",
        "ETIMEDOUT",
        "write EPIPE",
        "Connection reset by peer",
        "EAI_AGAIN",
        "upstream connect error or disconnect/reset before headers",
        "socket connection was closed unexpectedly",
        "Request timed out.",
        "The operation timeout",
        "terminated",
        "WebSocket closed",
        "websocket error",
        "websocket connection limit reached",
        "Stream ended without a finish frame",
        "stream ended before message_stop",
        "stream ended before a terminal response event",
        "http2 request did not get a response",
        "stream disconnected before completion",
        "the response was cut short after the reply had begun",
        "pending stream has been canceled",
        "Server requested 90s retry delay (max: 60s).",
        "You can retry your request",
        "Please try your request again",
        "please retry your request",
        "ResourceExhausted",
        "subscription_sharing_usage_unavailable",
        "subscription_sharing_user_unavailable",
    ],
)
def test_transient_failures_are_retried(text: str) -> None:
    assert is_retryable_assistant_error(failed(text)), text


@pytest.mark.parametrize(
    "lead",
    [
        "Stream ended without finish_reason",
        "Anthropic stream ended before message_stop",
        "OpenAI Responses stream ended before a terminal response event",
        "Google stream ended without a finish reason",
        "my-proxy stream ended without a terminal event",
    ],
)
def test_every_providers_cut_stream_error_is_retried(lead: str) -> None:
    # The whole message as the providers raise it, not only pi's lead sentence.
    text = str(stream_cut_short("my-proxy", "model-1", "its final frame", lead))
    assert text.startswith(f"{lead}: ")
    assert is_retryable_assistant_error(failed(text)), text


@pytest.mark.parametrize(
    "text",
    [
        "The prompt used 1500 tokens",
        "request id 5001234",
        "error code E429X",
        "ECONNRESETTING is not a code",
        "400 invalid_request_error: messages.0.content is empty",
        "401 Unauthorized: check the API key",
        "Invalid arguments for tool read",
        "GoUsageLimitError: 503 from upstream",
        "FreeUsageLimitError",
        "Monthly usage limit reached (rate limit)",
        "Your available balance is too low, 429",
        "You are out of budget",
        "quota exceeded, try later",
        "Check your billing details (503)",
        "subscription_sharing_usage_limit_exceeded",
        "subscription_sharing_workplace_individual_usage_limit_exceeded",
        '{"error":{"code":1308,"message":"server busy"}}',
        "",
    ],
)
def test_permanent_failures_are_not_retried(text: str) -> None:
    assert not is_retryable_assistant_error(failed(text)), text


def test_patterns_ignore_letter_case() -> None:
    assert is_retryable_assistant_error(failed("OVERLOADED"))
    assert is_retryable_assistant_error(failed("econnreset"))
    assert not is_retryable_assistant_error(failed("INSUFFICIENT_QUOTA: 429"))


def test_only_error_replies_are_retried() -> None:
    for stop in ("stop", "length", "toolUse", "aborted"):
        assert not is_retryable_assistant_error(failed("503 overloaded", stop=stop))
    assert not is_retryable_assistant_error(failed(None))


def test_a_context_overflow_is_compacted_not_retried() -> None:
    overflow = failed("400 prompt is too long: 210000 tokens > 200000 maximum; server error")
    assert not is_retryable_assistant_error(overflow)
    busy = failed("503 Service Unavailable")
    busy.usage = Usage(input=250_000)
    assert is_retryable_assistant_error(busy, context_window=200_000)  # an error reply is judged by its text
