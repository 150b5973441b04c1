"""Where a compaction may cut a branch: what is summarized and what is kept word for word.

A tool result means nothing without the call that asked for it, and a provider rejects a result whose
call is missing, so a cut never lands on a tool result. It may land on an assistant reply in the
middle of a long turn; the start of that turn is then summarized on its own (a split turn).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi.session.context import entry_to_message
from pi.session.entries import BranchSummaryEntry, CompactionEntry, CustomMessageEntry, MessageEntry, SessionEntry
from pi.session.tokens import estimate_tokens

_CUT_ROLES = frozenset({"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"})
_TURN_START_ROLES = frozenset({"user", "bashExecution"})


@dataclass(slots=True, frozen=True)
class CutPoint:
    first_kept_entry_index: int
    turn_start_index: int
    """Start of the turn the cut falls in, when the cut splits a turn; else -1."""
    is_split_turn: bool


def is_valid_cut_point(entry: SessionEntry) -> bool:
    if isinstance(entry, MessageEntry):
        return entry.role in _CUT_ROLES
    return isinstance(entry, BranchSummaryEntry | CustomMessageEntry)


def is_turn_start(entry: SessionEntry) -> bool:
    if isinstance(entry, MessageEntry):
        return entry.role in _TURN_START_ROLES
    return isinstance(entry, BranchSummaryEntry | CustomMessageEntry)


def find_valid_cut_points(entries: Sequence[SessionEntry], start: int, end: int) -> list[int]:
    return [i for i in range(start, end) if is_valid_cut_point(entries[i])]


def find_turn_start_index(entries: Sequence[SessionEntry], index: int, start: int) -> int:
    """The nearest turn start at or before `index` (not before `start`), or -1."""
    for i in range(index, start - 1, -1):
        if is_turn_start(entries[i]):
            return i
    return -1


def find_cut_point(entries: Sequence[SessionEntry], start: int, end: int, keep_recent_tokens: int) -> CutPoint:
    """Keep at least `keep_recent_tokens` of the newest messages in ``entries[start:end]``, cutting at a valid point."""
    cut_points = find_valid_cut_points(entries, start, end)
    if not cut_points:
        return CutPoint(start, -1, False)
    cut = cut_points[0]
    accumulated = 0
    for i in range(end - 1, start - 1, -1):
        message = entry_to_message(entries[i]) if not isinstance(entries[i], CompactionEntry) else None
        if message is None:
            continue
        accumulated += estimate_tokens(message)
        if accumulated >= keep_recent_tokens:
            cut = next((c for c in cut_points if c >= i), cut_points[-1])
            break
    turn_start = -1 if is_turn_start(entries[cut]) else find_turn_start_index(entries, cut, start)
    # Settings changes just before the cut belong to the kept part.
    while cut > start:
        previous = entries[cut - 1]
        if isinstance(previous, CompactionEntry) or entry_to_message(previous) is not None:
            break
        cut -= 1
    return CutPoint(cut, turn_start, turn_start != -1)


__all__ = [
    "CutPoint",
    "find_cut_point",
    "find_turn_start_index",
    "find_valid_cut_points",
    "is_turn_start",
    "is_valid_cut_point",
]
