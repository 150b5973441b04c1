"""The header line of a session file, and the time and id formats every line uses.

The header is not part of the entry tree: it names the session (id, creation time, working
directory, the session it was forked from) and may carry metadata from other programs, kept as is.
"""

from __future__ import annotations

import uuid
from collections.abc import Container
from datetime import UTC, datetime
from typing import Any, Literal

from msgspec import Struct, field

CURRENT_SESSION_VERSION = 3


def iso_now() -> str:
    """The current time the way pi writes it: ISO 8601, UTC, milliseconds, ``Z``."""
    return iso_from_datetime(datetime.now(UTC))


def iso_from_datetime(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def iso_to_ms(timestamp: str) -> int:
    """Milliseconds since the epoch of an ISO timestamp; 0 when it cannot be read."""
    try:
        moment = datetime.fromisoformat(timestamp)
    except (TypeError, ValueError):
        return 0
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def new_entry_id(taken: Container[str]) -> str:
    """Eight hex characters, unique among `taken` (short enough to type, as pi's ids are)."""
    for _ in range(100):
        candidate = uuid.uuid4().hex[:8]
        if candidate not in taken:
            return candidate
    return uuid.uuid4().hex


def reorder(data: dict[str, Any], order: tuple[str, ...]) -> dict[str, Any]:
    """`data` with its keys in `order` first (the order a line was read in), any others after."""
    out = {key: data[key] for key in order if key in data}
    for key, value in data.items():
        if key not in out:
            out[key] = value
    return out


# --- header ---------------------------------------------------------------------------------------


class SessionHeader(Struct, kw_only=True):
    """Line 1 of a session file; not part of the entry tree."""

    type: Literal["session"] = "session"
    id: str
    timestamp: str
    cwd: str
    version: int = CURRENT_SESSION_VERSION
    parent_session: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    """Keys this version does not know (custom metadata): kept and written back."""
    key_order: tuple[str, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "session",
            "version": self.version,
            "id": self.id,
            "timestamp": self.timestamp,
            "cwd": self.cwd,
        }
        if self.parent_session is not None:
            out["parentSession"] = self.parent_session
        out.update(self.extra)
        return reorder(out, self.key_order) if self.key_order is not None else out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SessionHeader | None:
        """The header, or None when `data` is not one (not a ``session`` line, or no string id)."""
        if data.get("type") != "session" or not isinstance(data.get("id"), str):
            return None
        rest = dict(data)
        rest.pop("type")
        version = rest.pop("version", 1)
        timestamp = rest.pop("timestamp", "")
        cwd = rest.pop("cwd", "")
        parent = rest.pop("parentSession", None)
        header = cls(
            id=rest.pop("id"),
            timestamp=timestamp if isinstance(timestamp, str) else "",
            cwd=cwd if isinstance(cwd, str) else "",
            version=version if isinstance(version, int) else 1,
            parent_session=parent if isinstance(parent, str) else None,
            extra=rest,
        )
        if list(header.to_dict()) != list(data):
            header.key_order = tuple(data)
        return header


__all__ = [
    "CURRENT_SESSION_VERSION",
    "SessionHeader",
    "iso_from_datetime",
    "iso_now",
    "iso_to_ms",
    "new_entry_id",
    "reorder",
]
