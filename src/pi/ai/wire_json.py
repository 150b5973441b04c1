"""JSON for request bodies and the JSON strings inside them, UTF-8 safe.

Each request serialises the whole conversation again, so this runs on every turn over a body that
grows with the session: msgspec's encoder does it about seven times faster than the standard
library (35 against 257 microseconds for the 56 KB body of a 50-turn session), and writes compact
JSON, as pi does. A lone surrogate (half an emoji cut by a model, kept in a tool
call's arguments or a tool description) cannot be written as UTF-8; msgspec refuses it, and then, on
that rare value only, the standard library writes the text and the surrogates are dropped from it.
Dropping them from the serialised text is safe: JSON structure is ASCII.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from pi.ai.sanitize import sanitize_surrogates

_FALLBACK = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=msgspec.to_builtins)
"""Writes whatever msgspec would (records, dates), for the bodies that take the slow path."""


def encode_json(value: Any) -> bytes:
    """`value` as compact UTF-8 JSON, any lone surrogate left out."""
    try:
        return msgspec.json.encode(value)
    except UnicodeEncodeError:
        return sanitize_surrogates(_FALLBACK.encode(value)).encode("utf-8")


def json_text(value: Any) -> str:
    """`value` as compact JSON text (for a JSON document sent inside a string field), surrogates left out."""
    return encode_json(value).decode("utf-8")


__all__ = ["encode_json", "json_text"]
