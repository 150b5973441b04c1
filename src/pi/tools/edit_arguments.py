"""Repairing the argument shapes models send to `edit` before schema validation sees them.

Kept apart from the matching engine so that building the tool (and repairing its arguments) does
not load the engine: most runs never edit.
"""

from __future__ import annotations

import json
from typing import Any

_LEGACY_FIELD_PAIRS = (("oldText", "newText"), ("old_text", "new_text"), ("old_string", "new_string"))


def _is_edit_entry(entry: Any) -> bool:
    return isinstance(entry, dict) and isinstance(entry.get("oldText"), str) and isinstance(entry.get("newText"), str)


def _parsed_edits(edits: str) -> list[Any] | None:
    """`edits` sent as a JSON string of the array, or of a single edit."""
    try:
        parsed = json.loads(edits)
    except ValueError:
        return None
    if _is_edit_entry(parsed):
        return [parsed]
    if isinstance(parsed, list) and all(_is_edit_entry(entry) for entry in parsed):
        return parsed
    return None


def prepare_edit_arguments(args: Any) -> Any:
    """Repair the shapes models are known to send.

    * `edits` as a JSON string (of the array or of one edit) is parsed.
    * `edits` as one edit object instead of a list becomes a one-element list.
    * A flat `oldText`/`newText` pair (the old schema, also `old_string`/`new_string`) becomes one
      more entry after any `edits` already given.
    Anything unrecognised is left alone, so validation can report it.
    """
    if not isinstance(args, dict):
        return args
    repaired = dict(args)
    edits = repaired.get("edits")
    if isinstance(edits, str):
        parsed = _parsed_edits(edits)
        if parsed is not None:
            repaired["edits"] = parsed
    elif isinstance(edits, dict):
        repaired["edits"] = [edits]
    for old_key, new_key in _LEGACY_FIELD_PAIRS:
        old_value, new_value = repaired.get(old_key), repaired.get(new_key)
        if isinstance(old_value, str) and isinstance(new_value, str):
            current = repaired.get("edits")
            entries = list(current) if isinstance(current, list) else []
            entries.append({"oldText": old_value, "newText": new_value})
            repaired["edits"] = entries
            del repaired[old_key], repaired[new_key]
    return repaired


__all__ = ["prepare_edit_arguments"]
