"""`store(key, value)` / `load(key)` across scripts, kept in the transcript as `codemode-store` entries.

A successful script with writes appends one custom entry `{set: {...}, delete: [...]}`; the values
a script starts with are rebuilt from the entries on the current branch, so moving in the tree
(or forking) brings back the values of that point.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

CUSTOM_TYPE = "codemode-store"


def _field(entry: Any, key: str) -> Any:
    return entry.get(key) if isinstance(entry, Mapping) else getattr(entry, key, None)


def values_from_entries(entries: Iterable[Any]) -> dict[str, str]:
    """Each key's latest value on the branch, as JSON text (what the worker's store keeps)."""
    values: dict[str, str] = {}
    for entry in entries:
        if _field(entry, "type") != "custom":
            continue
        if _field(entry, "custom_type") != CUSTOM_TYPE and _field(entry, "customType") != CUSTOM_TYPE:
            continue
        data = _field(entry, "data")
        if not isinstance(data, Mapping):
            continue
        for key, value in (data.get("set") or {}).items():
            values[str(key)] = json.dumps(value)
        for key in data.get("delete") or []:
            values.pop(str(key), None)
    return values


def branch_values(ctx: Any) -> dict[str, str]:
    """The store values of the session's current branch (empty without a session)."""
    manager = getattr(ctx, "session_manager", None)
    try:
        entries = manager.get_branch() if manager is not None else []
    except Exception:
        return {}
    return values_from_entries(entries)


def has_writes(writes: Any) -> bool:
    return isinstance(writes, Mapping) and bool(writes.get("set") or writes.get("delete"))


__all__ = ["CUSTOM_TYPE", "branch_values", "has_writes", "values_from_entries"]
