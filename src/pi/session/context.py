"""What the model sees of a session: the messages on the path from the root to one leaf.

The file is a tree; the conversation is one branch of it. Walking that branch also restores the
state the user last chose on it (thinking level, model), and applies the latest compaction, which
stands in for everything before the first entry it kept.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from pydantic import ValidationError

from pi.agent.messages import AgentMessage
from pi.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    ThinkingLevelChangeEntry,
    iso_to_ms,
    parse_messages,
)
from pi.session.messages import BranchSummaryMessage, CompactionSummaryMessage, CustomMessage
from pi.session.storage import gc_paused


class ModelRef(NamedTuple):
    provider: str
    model_id: str


@dataclass(slots=True)
class SessionContext:
    messages: list[AgentMessage] = field(default_factory=list)
    thinking_level: str = "off"
    model: ModelRef | None = None


class _Leaf(enum.Enum):
    LATEST = "latest"


LATEST = _Leaf.LATEST
"""Leaf argument meaning "the last entry in the file" (as opposed to None: before the first entry)."""


def path_to(leaf_id: str | None, by_id: Mapping[str, SessionEntry]) -> list[SessionEntry]:
    """Entries from the root to `leaf_id`, root first; stops at a dangling parent or a cycle."""
    path: list[SessionEntry] = []
    seen: set[str] = set()
    current = by_id.get(leaf_id) if leaf_id is not None else None
    while current is not None and current.id not in seen:
        seen.add(current.id)
        path.append(current)
        current = by_id.get(current.parent_id) if current.parent_id is not None else None
    path.reverse()
    return path


def entry_to_message(entry: SessionEntry) -> AgentMessage | None:
    """The context message of an entry, or None for entries the model never sees."""
    if isinstance(entry, MessageEntry):
        return entry.message
    if isinstance(entry, CustomMessageEntry):
        try:
            return CustomMessage.model_validate(
                {
                    "customType": entry.custom_type,
                    "content": entry.content,
                    "display": entry.display,
                    "details": entry.details,
                    "timestamp": iso_to_ms(entry.timestamp),
                }
            )
        except ValidationError:
            return None
    if isinstance(entry, BranchSummaryEntry) and entry.summary:
        return BranchSummaryMessage(summary=entry.summary, from_id=entry.from_id, timestamp=iso_to_ms(entry.timestamp))
    if isinstance(entry, CompactionEntry):
        return compaction_message(entry)
    return None


def compaction_message(entry: CompactionEntry) -> CompactionSummaryMessage:
    """The summary message; a token count that is not a number (JSON turns NaN into null) counts as 0."""
    tokens = entry.tokens_before
    valid = isinstance(tokens, int | float) and not isinstance(tokens, bool) and math.isfinite(tokens)
    return CompactionSummaryMessage(
        summary=entry.summary, tokens_before=int(tokens) if valid else 0, timestamp=iso_to_ms(entry.timestamp)
    )


def build_session_context(
    entries: Sequence[SessionEntry],
    leaf_id: str | _Leaf | None = LATEST,
    by_id: Mapping[str, SessionEntry] | None = None,
) -> SessionContext:
    """The context of the branch ending at `leaf_id` (default: the last entry; None: empty)."""
    if leaf_id is None or not entries:
        return SessionContext()
    with gc_paused():
        return _build(entries, leaf_id, by_id)


def _build(
    entries: Sequence[SessionEntry], leaf_id: str | _Leaf, by_id: Mapping[str, SessionEntry] | None
) -> SessionContext:
    index = by_id if by_id is not None else {e.id: e for e in entries if e.id}
    leaf = index.get(leaf_id) if isinstance(leaf_id, str) else None
    if leaf is None:
        leaf = entries[-1]
    path = path_to(leaf.id, index) if leaf.id else [leaf]

    context = SessionContext()
    compaction_at = -1
    for position, entry in enumerate(path):
        if isinstance(entry, ThinkingLevelChangeEntry):
            context.thinking_level = entry.thinking_level
        elif isinstance(entry, ModelChangeEntry):
            context.model = ModelRef(entry.provider, entry.model_id)
        elif isinstance(entry, MessageEntry) and entry.role == "assistant":
            provider, model = entry.message_json.get("provider"), entry.message_json.get("model")
            if isinstance(provider, str) and isinstance(model, str):
                context.model = ModelRef(provider, model)
        elif isinstance(entry, CompactionEntry):
            compaction_at = position

    parse_messages([e for e in path[max(compaction_at, 0) :] if isinstance(e, MessageEntry)])
    messages = context.messages
    if compaction_at >= 0:
        compaction = path[compaction_at]
        assert isinstance(compaction, CompactionEntry)
        messages.append(compaction_message(compaction))
        keeping = False
        for entry in path[:compaction_at]:
            keeping = keeping or entry.id == compaction.first_kept_entry_id
            if keeping:
                _append(messages, entry)
        for entry in path[compaction_at + 1 :]:
            _append(messages, entry)
    else:
        for entry in path:
            _append(messages, entry)
    return context


def _append(messages: list[AgentMessage], entry: SessionEntry) -> None:
    """Only the latest compaction speaks for the history; older ones on the path are already inside it."""
    if isinstance(entry, CompactionEntry):
        return
    message = entry_to_message(entry)
    if message is not None:
        messages.append(message)


__all__ = [
    "LATEST",
    "ModelRef",
    "SessionContext",
    "build_session_context",
    "compaction_message",
    "entry_to_message",
    "path_to",
]
