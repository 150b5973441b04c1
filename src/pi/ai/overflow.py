"""Recognise a reply that failed (or was silently cut) because the conversation outgrew the model.

Each provider words "your prompt is too long" differently, and the caller's remedy (compact the
history, then retry) is the same for all of them, so the wording is matched here in one place. A
provider whose text is missing from this list makes automatic compaction silently never happen;
add its message here rather than special-casing it elsewhere.

Some servers do not fail at all: z.ai accepts an oversized prompt and answers normally, and some
truncate the input to the window and then have no room left to answer. Those two cases are only
detectable when the caller passes the model's context window.
"""

from __future__ import annotations

import re
from functools import cache

from pi.ai.types import AssistantMessage

_OVERFLOW_SOURCES: tuple[str, ...] = (
    r"prompt (?:is )?too long",  # Anthropic, z.ai
    r"prompt exceeds max length",  # z.ai's China endpoint
    r"request_too_large",  # Anthropic, request body over the byte limit (413)
    r"input is too long for requested model",  # Amazon Bedrock
    r"exceeds the context window",  # OpenAI, Completions and Responses
    # LiteLLM and other OpenAI-compatible proxies, Bedrock Mantle ("... (262144)")
    r"exceeds (?:the )?(?:model'?s )?maximum context length(?: of [\d,]+ tokens?|\s*\([\d,]+\))",
    r"context window exceeded",  # LiteLLM's own pre-call check
    r"input token count.*exceeds the maximum",  # Google Gemini
    r"maximum prompt length is \d+",  # xAI
    r"reduce the length of the messages",  # Groq
    r"maximum context length is \d+ tokens",  # OpenRouter, DeepSeek, vLLM
    r"exceeds (?:the )?maximum allowed input length of [\d,]+ tokens?",  # Poolside (also via OpenRouter)
    r"input \(\d+ tokens\) is longer than the model'?s context length \(\d+ tokens\)",  # Together
    r"exceeds the limit of \d+",  # GitHub Copilot
    r"exceeds the available context size",  # llama.cpp server
    r"greater than the context length",  # LM Studio
    r"context window exceeds limit",  # MiniMax
    r"exceeded model token limit",  # Kimi for Coding
    r"too large for model with \d+ maximum context length",  # Mistral
    r"prompt has [\d,]+ tokens?, but the configured context size is [\d,]+ tokens?",  # DS4 server
    r"model_context_window_exceeded",  # z.ai, its finish reason surfaced as an error
    r"prompt too long; exceeded (?:max )?context length",  # Ollama, when it refuses instead of truncating
    r"range of input length should be",  # Alibaba DashScope (Qwen)
    r"context[_ ]length[_ ]exceeded",  # generic
    r"too many tokens",  # generic
    r"token limit exceeded",  # generic
    # A 413 is a request too large, whoever sends it: an SDK-style "413 ..." or "<name> API error (413):" at the
    # start (a 413 mentioned inside a body does not count).
    r"^(?:[\w -]+ API error \(413\):|413(?:\s|:|$))",
)

_CEREBRAS_BODYLESS = r"^4(?:00|13)\s*(?:status code)?\s*\(no body\)"
"""Cerebras answers an oversized prompt with an empty 400 or 413; elsewhere an empty 400 means something else."""

_NOT_OVERFLOW_SOURCES: tuple[str, ...] = (
    r"^(?:Throttling error|Service unavailable):",  # Bedrock throttling says "Too many tokens" too
    r"rate limit",
    r"too many requests",
)


@cache
def _compiled(sources: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    """Compiled on the first error message: most runs never see one, and compiling all costs ~10 ms."""
    return tuple(re.compile(source, re.IGNORECASE) for source in sources)


_LENGTH_STOP_FILL = 0.99
"""A `length` stop with no output and the window this full means the input itself filled the window."""


def is_context_overflow(message: AssistantMessage, context_window: int | None = None) -> bool:
    """True when `message` shows the context did not fit the model.

    Three signs: an error whose text is a known overflow message (and not a rate limit); with
    `context_window`, a normal stop whose input exceeds the window; or a `length` stop that produced
    nothing while the input filled at least 99 % of the window.
    """
    if message.stop_reason == "error" and message.error_message:
        text = message.error_message
        if not any(p.search(text) for p in _compiled(_NOT_OVERFLOW_SOURCES)):
            if any(p.search(text) for p in _compiled(_OVERFLOW_SOURCES)):
                return True
            if message.provider == "cerebras" and _compiled((_CEREBRAS_BODYLESS,))[0].search(text):
                return True
    if context_window is None or context_window <= 0:
        return False
    used = message.usage.input + message.usage.cache_read
    if message.stop_reason == "stop":
        return used > context_window
    if message.stop_reason == "length":
        return message.usage.output == 0 and used >= _LENGTH_STOP_FILL * context_window
    return False


def get_overflow_patterns() -> list[re.Pattern[str]]:
    """The compiled overflow patterns (a new list each call; changing it changes nothing here)."""
    return list(_compiled(_OVERFLOW_SOURCES))


__all__ = ["get_overflow_patterns", "is_context_overflow"]
