"""Where a compaction may cut a branch: what is summarized and what is kept word for word.

A tool result means nothing without the call that asked for it, and a provider rejects a result whose
call is missing, so a cut never lands on a tool result. It may land on an assistant reply in the
middle of a long turn; the start of that turn is then summarized on its own (a split turn).

The functions work on `ContextItem`s: each entry of the branch with the message it contributes to
the context now (None when it contributes none, or a context edit omitted it), so sizes and cut
points follow what the model would really be sent.
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import Struct

from pi.agent.messages import AgentMessage
from pi.session.context import edited_message, entry_to_message, is_system_entry
from pi.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    CustomMessageEntry,
    MessageEntry,
    SessionEntry,
)
from pi.session.tokens import estimate_tokens

_CUT_ROLES = frozenset({"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"})
_TURN_START_ROLES = frozenset({"user", "bashExecution"})


class ContextItem(Struct, frozen=True):
    entry: SessionEntry
    message: AgentMessage | None
    """What the entry contributes to the context now (edits applied); None for nothing."""


class CutPoint(Struct, frozen=True):
    first_kept_entry_index: int
    turn_start_index: int
    """Start of the turn the cut falls in, when the cut splits a turn; else -1."""
    is_split_turn: bool


def context_items(
    entries: Sequence[SessionEntry], edits: dict[str, ContextEditEntry] | None = None
) -> list[ContextItem]:
    """`entries` with what each contributes; compactions and system prompts contribute no conversation."""
    out: list[ContextItem] = []
    for entry in entries:
        message: AgentMessage | None
        edit = edits.get(entry.id) if edits else None
        if isinstance(entry, CompactionEntry) or is_system_entry(entry):
            message = None
        elif edit is not None:
            message = None if edit.replacement is None else edited_message(entry, edit.replacement)
            if message is None and edit.replacement is not None:
                message = entry_to_message(entry)
        else:
            message = entry_to_message(entry)
        out.append(ContextItem(entry, message))
    return out


def is_valid_cut_point(entry: SessionEntry) -> bool:
    if isinstance(entry, MessageEntry):
        return entry.role in _CUT_ROLES
    return isinstance(entry, BranchSummaryEntry | CustomMessageEntry)


def is_turn_start(entry: SessionEntry) -> bool:
    if isinstance(entry, MessageEntry):
        return entry.role in _TURN_START_ROLES
    return isinstance(entry, BranchSummaryEntry | CustomMessageEntry)


def _items(entries: Sequence[SessionEntry] | Sequence[ContextItem]) -> list[ContextItem]:
    if entries and isinstance(entries[0], ContextItem):
        return list(entries)  # type: ignore[arg-type]
    return context_items(entries)  # type: ignore[arg-type]


def find_valid_cut_points(items: Sequence[ContextItem], start: int, end: int) -> list[int]:
    return [i for i in range(start, end) if items[i].message is not None and is_valid_cut_point(items[i].entry)]


def find_turn_start_index(items: Sequence[ContextItem], index: int, start: int) -> int:
    """The nearest turn start at or before `index` (not before `start`), or -1."""
    for i in range(index, start - 1, -1):
        if items[i].message is not None and is_turn_start(items[i].entry):
            return i
    return -1


def cut_at(items: Sequence[ContextItem], start: int, cut: int) -> CutPoint:
    """The cut point at index `cut`, with its turn start and the settings entries just before it kept."""
    turn_start = -1 if is_turn_start(items[cut].entry) else find_turn_start_index(items, cut, start)
    # Settings changes just before the cut belong to the kept part.
    while cut > start:
        previous = items[cut - 1]
        if isinstance(previous.entry, CompactionEntry) or previous.message is not None:
            break
        cut -= 1
    return CutPoint(cut, turn_start, turn_start != -1)


def find_cut_point(
    entries: Sequence[SessionEntry] | Sequence[ContextItem], start: int, end: int, keep_recent_tokens: int
) -> CutPoint:
    """Keep at least `keep_recent_tokens` of the newest messages in ``entries[start:end]``, cutting at a valid point."""
    items = _items(entries)
    cut_points = find_valid_cut_points(items, start, end)
    if not cut_points:
        return CutPoint(start, -1, False)
    cut = cut_points[0]
    accumulated = 0
    for i in range(end - 1, start - 1, -1):
        message = items[i].message
        if message is None:
            continue
        accumulated += estimate_tokens(message)
        if accumulated >= keep_recent_tokens:
            cut = next((c for c in cut_points if c >= i), cut_points[-1])
            break
    return cut_at(items, start, cut)


def kept_tokens(items: Sequence[ContextItem], start: int) -> int:
    return sum(estimate_tokens(item.message) for item in items[start:] if item.message is not None)


__all__ = [
    "ContextItem",
    "CutPoint",
    "context_items",
    "cut_at",
    "find_cut_point",
    "find_turn_start_index",
    "find_valid_cut_points",
    "is_turn_start",
    "is_valid_cut_point",
    "kept_tokens",
]
