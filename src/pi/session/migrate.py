"""Bringing files written by older pi versions up to format 3, on the raw JSON before it is typed.

v1 files were linear: entries had no ids and a compaction named its first kept entry by line index.
v2 added the tree (``id``/``parentId``) and called extension messages ``hookMessage``; v3 renamed that
role to ``custom``. Migrating in place on load means the rest of the layer only knows format 3.
"""

from __future__ import annotations

from typing import Any

from pi.session.entries import CURRENT_SESSION_VERSION, new_entry_id


def file_version(lines: list[dict[str, Any]]) -> int:
    header = lines[0] if lines else {}
    version = header.get("version", 1)
    return version if isinstance(version, int) else 1


def _v1_to_v2(lines: list[dict[str, Any]]) -> None:
    taken: set[str] = set()
    previous: str | None = None
    for entry in lines:
        if entry.get("type") == "session":
            entry["version"] = 2
            continue
        entry_id = new_entry_id(taken)
        taken.add(entry_id)
        entry["id"] = entry_id
        entry["parentId"] = previous
        previous = entry_id
        if entry.get("type") == "compaction" and "firstKeptEntryIndex" in entry:
            index = entry.pop("firstKeptEntryIndex")
            if isinstance(index, int) and 0 <= index < len(lines):
                target = lines[index]
                if target.get("type") != "session" and isinstance(target.get("id"), str):
                    entry["firstKeptEntryId"] = target["id"]


def _v2_to_v3(lines: list[dict[str, Any]]) -> None:
    for entry in lines:
        if entry.get("type") == "session":
            entry["version"] = 3
            continue
        message = entry.get("message")
        if entry.get("type") == "message" and isinstance(message, dict) and message.get("role") == "hookMessage":
            message["role"] = "custom"


def migrate_lines(lines: list[dict[str, Any]]) -> bool:
    """Upgrade `lines` (header first) to the current format in place; True when anything changed."""
    version = file_version(lines)
    if version >= CURRENT_SESSION_VERSION:
        return False
    if version < 2:
        _v1_to_v2(lines)
    _v2_to_v3(lines)
    return True


__all__ = ["file_version", "migrate_lines"]
