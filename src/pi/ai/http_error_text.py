"""How a refused request (a non-2xx answer) is worded in a reply's `errorMessage`, per wire API.

pi words these errors as the official SDK of each API reports them, with the server's JSON error
object shown when the SDK's own text leaves it out. Sessions, scripts and the retry and overflow
classifiers see the same text from both programs, so it is reproduced here from the facts of those
SDKs:

- The OpenAI SDK (Chat Completions, Responses) reads the body as JSON when it can and takes its
  ``error`` member (the whole body when there is none). Its text is ``<status> <message>``: the
  member's ``message`` (JSON for a non-string), else the member as JSON, else the raw text, else
  ``status code (no body)``. When the member is a non-empty object, pi shows it instead:
  ``<status>: <the object as compact JSON>``, cut at 4,000 characters.
- The Anthropic SDK takes the whole JSON body: ``<status> <its message>``, or the body as compact JSON.

A body that is not JSON reads ``<status> <the text>`` under both.
"""

from __future__ import annotations

import json
from typing import Any

MAX_BODY_CHARS = 4000
"""The longest server error object shown; longer ones end with a note of how much was cut."""

_NO_BODY = object()


class _Text(str):
    """A body that is not JSON, kept as the text it is."""


def _parsed(body: str) -> Any:
    text = body.strip()
    if not text:
        return _NO_BODY
    try:
        return json.loads(text)
    except ValueError:
        return _Text(text)


def _compact(value: Any) -> str:
    """JSON as JavaScript's `JSON.stringify` writes it: no spaces, non-ASCII kept."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _truncated(text: str) -> str:
    if len(text) <= MAX_BODY_CHARS:
        return text
    return f"{text[:MAX_BODY_CHARS]}... [truncated {len(text) - MAX_BODY_CHARS} chars]"


def _sdk_message(status: int, error: Any) -> str:
    """``<status> <detail>`` as both SDKs build it from what they took from the body."""
    if error is _NO_BODY:
        return f"{status} status code (no body)"
    if isinstance(error, _Text):
        return f"{status} {error}"
    message = error.get("message") if isinstance(error, dict) else None
    if message:
        return f"{status} {message if isinstance(message, str) else _compact(message)}"
    return f"{status} {_compact(error)}"  # a JSON string keeps its quotes, as JSON.stringify writes it


def openai_error_text(status: int, body: str, prefix: str | None = None) -> str:
    """The text of a refusal on the OpenAI wire APIs; `prefix` names the API where pi does
    (``OpenAI API error (400): ...`` for Responses)."""
    parsed = _parsed(body)
    error: Any = parsed["error"] if isinstance(parsed, dict) and "error" in parsed else parsed
    message = _sdk_message(status, error)
    shown = _truncated(_compact(error)) if isinstance(error, dict) and error else None
    if shown is None or shown in message:
        return f"{prefix} ({status}): {message}" if prefix else message
    return f"{prefix} ({status}): {shown}" if prefix else f"{status}: {shown}"


def anthropic_error_text(status: int, body: str) -> str:
    """The text of a refusal on the Anthropic Messages API."""
    return _sdk_message(status, _parsed(body))


__all__ = ["MAX_BODY_CHARS", "anthropic_error_text", "openai_error_text"]
