"""Session ids and names: what a new session is called, and what a user may call one.

Ids are UUIDv7: they start with the creation time, so file names and ids sort in the order the
sessions were started. A custom id ends up in a file name and on command lines, so it is limited
to characters that need no quoting anywhere.
"""

from __future__ import annotations

import os
import re
import time
import uuid

SESSION_ID_PATTERN = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")
INVALID_SESSION_ID_MESSAGE = (
    "Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', "
    "and start and end with an alphanumeric character"
)
_LINE_BREAKS = re.compile(r"[\r\n]+")


class InvalidSessionIdError(ValueError):
    def __init__(self) -> None:
        super().__init__(INVALID_SESSION_ID_MESSAGE)


def create_session_id(now_ms: int | None = None) -> str:
    """A UUIDv7: 48 bits of Unix milliseconds, the version, 74 random bits and the RFC 4122 variant."""
    ms = (now_ms if now_ms is not None else time.time_ns() // 1_000_000) & ((1 << 48) - 1)
    random = int.from_bytes(os.urandom(10), "big")
    rand_a = random >> 68  # 12 bits
    rand_b = random & ((1 << 62) - 1)
    value = (ms << 80) | (0x7 << 76) | (rand_a << 64) | (0b10 << 62) | rand_b
    return str(uuid.UUID(int=value))


def validate_session_id(session_id: str) -> str:
    """`session_id` unchanged when it is usable; raises InvalidSessionIdError (pi's message) otherwise."""
    if not isinstance(session_id, str) or SESSION_ID_PATTERN.fullmatch(session_id) is None:
        raise InvalidSessionIdError()
    return session_id


def normalize_session_name(name: str) -> str:
    """Runs of CR/LF become one space, then the name is trimmed ("" clears the title)."""
    return _LINE_BREAKS.sub(" ", name).strip()


__all__ = [
    "INVALID_SESSION_ID_MESSAGE",
    "SESSION_ID_PATTERN",
    "InvalidSessionIdError",
    "create_session_id",
    "normalize_session_name",
    "validate_session_id",
]
