"""Context-overflow detection: the signal that makes the coding agent compact and retry."""

from __future__ import annotations

import pytest

from pi.ai.overflow import get_overflow_patterns, is_context_overflow
from pi.ai.types import AssistantMessage, StopReason, Usage


def reply(
    stop_reason: StopReason = "error",
    error: str | None = None,
    *,
    input: int = 0,
    cache_read: int = 0,
    output: int = 0,
    provider: str = "test",
) -> AssistantMessage:
    return AssistantMessage(
        api="openai-completions",
        provider=provider,
        model="m",
        stop_reason=stop_reason,
        error_message=error,
        usage=Usage(input=input, cache_read=cache_read, output=output),
    )


PROVIDER_MESSAGES = {
    "anthropic": "prompt is too long: 213462 tokens > 200000 maximum",
    "anthropic-413": '413 {"type":"error","error":{"type":"request_too_large",'
    '"message":"Request exceeds the maximum size"}}',
    "bedrock": "ValidationException: Input is too long for requested model.",
    "openai": "Your input exceeds the context window of this model. Please adjust your input and try again.",
    "litellm": "litellm.ContextWindowExceededError: This request exceeds the model's maximum context length "
    "of 131,072 tokens",
    "bedrock-mantle": "Input length (265330) exceeds model's maximum context length (262144).",
    "gemini": "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).",
    "xai": "This model's maximum prompt length is 131072 but the request contains 537812 tokens.",
    "groq": "Please reduce the length of the messages or completion.",
    "openrouter": "This endpoint's maximum context length is 200000 tokens. However, you requested about 262144 tokens",
    "poolside": "Input of 140,000 tokens exceeds the maximum allowed input length of 131,072 tokens.",
    "together": "Input validation error: The input (140000 tokens) is longer than the model's context length "
    "(131072 tokens).",
    "copilot": "prompt token count of 130412 exceeds the limit of 128000",
    "llama.cpp": "the request exceeds the available context size, try increasing it",
    "lm-studio": "Trying to keep the first 9000 tokens when context the overflows. However, the model is loaded "
    "with context length of only 8192 tokens, which is not enough. The number of tokens to keep from the initial "
    "prompt is greater than the context length.",
    "minimax": "invalid params, context window exceeds limit (2013)",
    "kimi": "Your request exceeded model token limit: 262144 (requested: 270000)",
    "mistral": "Prompt contains 140000 tokens and 0 draft tokens, too large for model with 131072 maximum "
    "context length",
    "ds4": "prompt has 70,000 tokens, but the configured context size is 65,536 tokens",
    "zai": "model_context_window_exceeded",
    "ollama": "prompt too long; exceeded max context length by 1200 tokens",
    "dashscope": "<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 129024]",
    "generic-code": '400 {"error":{"code":"context_length_exceeded","message":"too long"}}',
    "generic-words": "context length exceeded",
    "generic-tokens": "Request has too many tokens for this model",
    "generic-limit": "Token limit exceeded for this request",
    "zai-cn": "Prompt exceeds max length",
    "litellm-precall": "litellm.ContextWindowExceededError: Context window exceeded for model gpt-x",
    "http-413-sdk": "413 Payload Too Large",
    "http-413-prefixed": 'github-copilot API error (413): {"message":"failed to parse request","code":""}',
}

CEREBRAS_BODYLESS = ["400 status code (no body)", "413 status code (no body)", "400 (no body)"]


@pytest.mark.parametrize("text", PROVIDER_MESSAGES.values(), ids=PROVIDER_MESSAGES.keys())
def test_provider_overflow_messages_are_recognised(text: str) -> None:
    assert is_context_overflow(reply("error", text))


def test_every_pattern_is_exercised_by_a_provider_message() -> None:
    for pattern in get_overflow_patterns():
        assert any(pattern.search(text) for text in PROVIDER_MESSAGES.values()), pattern.pattern


@pytest.mark.parametrize("text", CEREBRAS_BODYLESS)
def test_a_bodyless_400_or_413_is_overflow_only_from_cerebras(text: str) -> None:
    assert is_context_overflow(reply("error", text, provider="cerebras"))
    if not text.startswith("413"):
        assert not is_context_overflow(reply("error", text, provider="groq"))


def test_a_413_counts_only_at_the_start() -> None:
    assert not is_context_overflow(reply("error", "400 bad request: field 413 is invalid"))
    assert not is_context_overflow(reply("error", "request id 4130 failed"))


def test_matching_ignores_case() -> None:
    assert is_context_overflow(reply("error", "PROMPT IS TOO LONG"))


@pytest.mark.parametrize(
    "text",
    [
        "Throttling error: Too many tokens, please wait before trying again.",
        "Service unavailable: too many tokens in flight",
        "Rate limit reached: too many tokens per minute",
        "429 Too Many Requests: token limit exceeded for your tier",
    ],
)
def test_throttling_and_rate_limits_are_not_overflow(text: str) -> None:
    assert not is_context_overflow(reply("error", text))


@pytest.mark.parametrize(
    "text",
    [
        "401 invalid x-api-key",
        "500 (no body)",
        "upstream 400 status code (no body)",  # the Cerebras rule is anchored at the start
        "Connection reset by peer",
    ],
)
def test_other_errors_are_not_overflow(text: str) -> None:
    assert not is_context_overflow(reply("error", text))


@pytest.mark.parametrize("stop_reason", ["stop", "length", "toolUse", "aborted"])
def test_overflow_text_without_an_error_stop_is_not_overflow(stop_reason: StopReason) -> None:
    assert not is_context_overflow(reply(stop_reason, "prompt is too long"))


def test_error_without_a_message_is_not_overflow() -> None:
    assert not is_context_overflow(reply("error", None), 1000)


def test_silent_overflow_needs_the_context_window() -> None:
    message = reply("stop", input=190_000, cache_read=15_000, output=20)
    assert is_context_overflow(message, 200_000)
    assert not is_context_overflow(message, 205_000)  # equal to the window still fits
    assert not is_context_overflow(message)


def test_length_stop_with_no_output_and_a_full_window() -> None:
    assert is_context_overflow(reply("length", input=98_000, cache_read=1_000), 100_000)
    assert not is_context_overflow(reply("length", input=98_000, cache_read=900), 100_000)
    assert not is_context_overflow(reply("length", input=99_500, output=1), 100_000)
    assert not is_context_overflow(reply("length", input=99_500))


def test_tool_use_over_the_window_is_not_flagged() -> None:
    assert not is_context_overflow(reply("toolUse", input=300_000), 200_000)


def test_pattern_lists_are_copies() -> None:
    patterns = get_overflow_patterns()
    count = len(patterns)
    patterns.clear()
    assert len(get_overflow_patterns()) == count
    assert is_context_overflow(reply("error", "prompt is too long"))
    assert not is_context_overflow(reply("error", "Throttling error: Too many tokens"))


def test_patterns_are_compiled_only_once_an_error_needs_them() -> None:
    """Compiling every pattern costs start-up time that a run without provider errors never needs."""
    import subprocess
    import sys

    code = (
        "from pi.ai.overflow import _compiled, is_context_overflow\n"
        "from pi.ai.types import AssistantMessage\n"
        "ok = AssistantMessage(api='a', provider='p', model='m', stop_reason='stop')\n"
        "print(is_context_overflow(ok, 1000), _compiled.cache_info().currsize)\n"
        "bad = ok.model_copy(update={'stop_reason': 'error', 'error_message': 'prompt is too long'})\n"
        "print(is_context_overflow(bad), _compiled.cache_info().currsize)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "0", "True", "2"]
