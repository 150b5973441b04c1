"""What the model sees of a session: the messages on the path from the root to one leaf.

The file is a tree; the conversation is one branch of it. Building the context of a branch takes
three steps, each available on its own:

1. `build_context_entries`: the entries that still count. With a compaction on the path, the latest
   one stands in for everything before the first entry it kept; system messages in the kept range
   are left out, because the compaction carries its own checkpoint of the prompt and tools.
2. `build_session_projection`: those entries as messages, with the latest `context_edit` of each
   target applied (the target omitted, or its content replaced). The file keeps the originals.
3. `build_session_context`: the messages plus the state the user last chose on the whole path
   (thinking level, model).

Everything is one pass over the path, so a branch 20,000 entries deep costs no more than a list walk.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from msgspec import Struct, field
from pydantic import ValidationError

from pi.agent.messages import AgentMessage, DeferredMessages
from pi.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    CustomMessageEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    ThinkingLevelChangeEntry,
    iso_to_ms,
    parse_messages,
    parse_stored_message,
)
from pi.session.messages import BranchSummaryMessage, CompactionSummaryMessage, CustomMessage

EDITABLE_ROLES = frozenset({"user", "assistant", "toolResult"})
"""Message roles whose content a `context_edit` may replace (besides `custom_message` entries)."""
_TEXT_BLOCK_ROLES = frozenset({"assistant", "toolResult"})


class ModelRef(NamedTuple):
    provider: str
    model_id: str


class SessionContext(Struct):
    """What the model sees of one branch, and the thinking level and model last chosen on it.

    `thinking_level` is ``"off"`` and `model` None when the branch never chose one.
    """

    messages: list[AgentMessage] = field(default_factory=list)
    thinking_level: str = "off"
    model: ModelRef | None = None


class DeferredSessionContext(Struct):
    """A `SessionContext` whose messages are built on first read (see `DeferredContextMessages`)."""

    messages: DeferredContextMessages
    thinking_level: str = "off"
    model: ModelRef | None = None


class ProjectedMessage(Struct, frozen=True):
    """One message of the context and the entry it comes from (a compaction gives two: checkpoint, summary)."""

    entry: SessionEntry
    message: AgentMessage
    edited: bool = False
    """True when a `context_edit` replaced the entry's content."""


class _Leaf(enum.Enum):
    LATEST = "latest"


LATEST = _Leaf.LATEST
"""Leaf argument meaning "the last entry in the file" (as opposed to None: before the first entry)."""

LeafArg = str | _Leaf | None


def path_to(leaf_id: str | None, by_id: Mapping[str, SessionEntry]) -> list[SessionEntry]:
    """Entries from the root to `leaf_id`, root first; stops at a dangling parent or a cycle.

    A walk longer than the number of entries must have met a cycle (only a hand-edited file has one);
    only then is it walked again remembering every id, so the usual walk stays a bare loop.
    """
    path: list[SessionEntry] = []
    limit = len(by_id)
    current = by_id.get(leaf_id) if leaf_id is not None else None
    while current is not None:
        path.append(current)
        if len(path) > limit:
            return _path_to_checking_cycles(leaf_id, by_id)
        parent = current.parent_id
        current = by_id.get(parent) if parent is not None else None
    path.reverse()
    return path


def _path_to_checking_cycles(leaf_id: str | None, by_id: Mapping[str, SessionEntry]) -> list[SessionEntry]:
    path: list[SessionEntry] = []
    seen: set[str] = set()
    current = by_id.get(leaf_id) if leaf_id is not None else None
    while current is not None and current.id not in seen:
        seen.add(current.id)
        path.append(current)
        current = by_id.get(current.parent_id) if current.parent_id is not None else None
    path.reverse()
    return path


def resolve_path(
    entries: Sequence[SessionEntry], leaf_id: LeafArg = LATEST, by_id: Mapping[str, SessionEntry] | None = None
) -> list[SessionEntry]:
    """The path (root first) ending at `leaf_id`: LATEST means the last entry, None or an empty file nothing."""
    if leaf_id is None or not entries:
        return []
    index = by_id if by_id is not None else {e.id: e for e in entries if e.id}
    leaf = index.get(leaf_id) if isinstance(leaf_id, str) else None
    if leaf is None:
        leaf = entries[-1]
    return path_to(leaf.id, index) if leaf.id else [leaf]


def entry_to_message(entry: SessionEntry) -> AgentMessage | None:
    """The context message of an entry, or None for entries the model never sees."""
    if isinstance(entry, MessageEntry):
        return entry.message
    if isinstance(entry, CustomMessageEntry):
        return custom_entry_message(entry, entry.content)
    if isinstance(entry, BranchSummaryEntry) and entry.summary:
        return BranchSummaryMessage(summary=entry.summary, from_id=entry.from_id, timestamp=iso_to_ms(entry.timestamp))
    if isinstance(entry, CompactionEntry):
        return compaction_message(entry)
    return None


def custom_entry_message(entry: CustomMessageEntry, content: Any) -> CustomMessage | None:
    try:
        return CustomMessage.model_validate(
            {
                "customType": entry.custom_type,
                "content": content,
                "display": entry.display,
                "details": entry.details,
                "timestamp": iso_to_ms(entry.timestamp),
            }
        )
    except ValidationError:
        return None


def compaction_message(entry: CompactionEntry) -> CompactionSummaryMessage:
    """The summary message; a token count that is not a number (JSON turns NaN into null) counts as 0."""
    tokens = entry.tokens_before
    valid = isinstance(tokens, int | float) and not isinstance(tokens, bool) and math.isfinite(tokens)
    return CompactionSummaryMessage(
        summary=entry.summary, tokens_before=int(tokens) if valid else 0, timestamp=iso_to_ms(entry.timestamp)
    )


def compaction_checkpoint(entry: CompactionEntry) -> AgentMessage | None:
    """The system message a compaction stored as the prompt and tools at its boundary, if any."""
    if not isinstance(entry.system_message, dict):
        return None
    message = parse_stored_message(entry.system_message)
    return message if message.role == "system" else None


def is_system_entry(entry: SessionEntry) -> bool:
    return isinstance(entry, MessageEntry) and entry.role == "system"


def latest_compaction_index(path: Sequence[SessionEntry]) -> int:
    for position in range(len(path) - 1, -1, -1):
        if isinstance(path[position], CompactionEntry):
            return position
    return -1


def context_entries_of_path(path: Sequence[SessionEntry]) -> list[SessionEntry]:
    """Step 1 on a path (root first): see the module docstring. Older compactions are dropped."""
    at = latest_compaction_index(path)
    if at < 0:
        return list(path)
    compaction = path[at]
    assert isinstance(compaction, CompactionEntry)
    out: list[SessionEntry] = [compaction]
    keeping = False
    for entry in path[:at]:
        keeping = keeping or entry.id == compaction.first_kept_entry_id
        if keeping and not isinstance(entry, CompactionEntry) and not is_system_entry(entry):
            out.append(entry)
    out.extend(e for e in path[at + 1 :] if not isinstance(e, CompactionEntry))
    return out


def latest_edits(path: Sequence[SessionEntry]) -> dict[str, ContextEditEntry]:
    """The latest `context_edit` of each target on the path."""
    return {e.target_id: e for e in path if isinstance(e, ContextEditEntry)}


def edited_message(entry: SessionEntry, replacement: dict[str, Any]) -> AgentMessage | None:
    """The entry's message with its content replaced; None when the replacement does not fit the entry."""
    content = replacement.get("content")
    if isinstance(entry, CustomMessageEntry):
        return custom_entry_message(entry, content)
    if not isinstance(entry, MessageEntry) or entry.role not in EDITABLE_ROLES:
        return None
    if isinstance(content, str) and entry.role in _TEXT_BLOCK_ROLES:
        content = [{"type": "text", "text": content}]
    message = parse_stored_message({**entry.message_json, "content": content})
    return message if message.role == entry.role else None


def _projected(
    entries: Sequence[SessionEntry], edits: Mapping[str, ContextEditEntry] | None
) -> Iterator[tuple[SessionEntry, AgentMessage | MessageEntry, bool]]:
    """Step 2 without parsing: each context message with its entry and whether it was edited.

    An unedited message entry stands for its own message (parsed by whoever needs it); every other
    context message (edits, summaries, extension messages: few in any session) is built here.
    """
    for entry in entries:
        edit = edits.get(entry.id) if edits else None
        if edit is not None:
            if edit.replacement is None:
                continue
            message = edited_message(entry, edit.replacement)
            if message is not None:
                yield entry, message, True
                continue
        if isinstance(entry, MessageEntry):
            yield entry, entry, False
            continue
        if isinstance(entry, CompactionEntry):
            checkpoint = compaction_checkpoint(entry)
            if checkpoint is not None:
                yield entry, checkpoint, False
        message = entry_to_message(entry)
        if message is not None:
            yield entry, message, False


def project_entries(
    entries: Sequence[SessionEntry], edits: Mapping[str, ContextEditEntry] | None = None
) -> list[ProjectedMessage]:
    """Step 2: the messages of `entries` (output of step 1, or any slice of a path) with `edits` applied."""
    items = list(_projected(entries, edits))
    parse_messages([m for _, m, _ in items if isinstance(m, MessageEntry)])
    return [
        ProjectedMessage(entry, message.message if isinstance(message, MessageEntry) else message, edited)
        for entry, message, edited in items
    ]


class DeferredContextMessages(DeferredMessages):
    """The context messages of a branch, parsed from their entries only when first asked for.

    What it holds is fixed when it is made (the entries are append-only and their stored JSON is never
    changed), so building later gives the same messages building at once would have given.
    """

    __slots__ = ("_items",)

    def __init__(self, items: list[AgentMessage | MessageEntry]) -> None:
        self._items = items

    def __len__(self) -> int:
        return len(self._items)

    def build(self) -> list[AgentMessage]:
        items = self._items
        parse_messages([m for m in items if isinstance(m, MessageEntry)])
        return [m.message if isinstance(m, MessageEntry) else m for m in items]


def build_context_entries(
    entries: Sequence[SessionEntry], leaf_id: LeafArg = LATEST, by_id: Mapping[str, SessionEntry] | None = None
) -> list[SessionEntry]:
    """The entries of the branch ending at `leaf_id` that still count for the context (step 1)."""
    return context_entries_of_path(resolve_path(entries, leaf_id, by_id))


def build_session_projection(
    entries: Sequence[SessionEntry], leaf_id: LeafArg = LATEST, by_id: Mapping[str, SessionEntry] | None = None
) -> list[ProjectedMessage]:
    """The context messages of the branch ending at `leaf_id`, context edits applied (steps 1 and 2)."""
    path = resolve_path(entries, leaf_id, by_id)
    return project_entries(context_entries_of_path(path), latest_edits(path))


def branch_choices(path: Sequence[SessionEntry]) -> tuple[str | None, ModelRef | None]:
    """The thinking level and model last chosen on `path`: a change entry, or an assistant reply's model.

    Read from the end, so that only the latest reply's stored JSON is looked at.
    """
    thinking: str | None = None
    model: ModelRef | None = None
    for entry in reversed(path):
        if isinstance(entry, ThinkingLevelChangeEntry):
            thinking = thinking if thinking is not None else entry.thinking_level
        elif model is not None:
            pass
        elif isinstance(entry, ModelChangeEntry):
            model = ModelRef(entry.provider, entry.model_id)
        elif isinstance(entry, MessageEntry) and entry.role == "assistant":
            provider, model_id = entry.message_json.get("provider"), entry.message_json.get("model")
            if isinstance(provider, str) and isinstance(model_id, str):
                model = ModelRef(provider, model_id)
        if thinking is not None and model is not None:
            break
    return thinking, model


def build_session_context(
    entries: Sequence[SessionEntry], leaf_id: LeafArg = LATEST, by_id: Mapping[str, SessionEntry] | None = None
) -> SessionContext:
    """The context of the branch ending at `leaf_id` (default: the last entry; None: empty)."""
    return session_context_of_path(resolve_path(entries, leaf_id, by_id))


def session_context_of_path(path: Sequence[SessionEntry]) -> SessionContext:
    """`build_session_context` of a path already resolved (root first)."""
    thinking, model = branch_choices(path)
    projection = project_entries(context_entries_of_path(path), latest_edits(path))
    return SessionContext([item.message for item in projection], "off" if thinking is None else thinking, model)


def build_deferred_context(
    entries: Sequence[SessionEntry], leaf_id: LeafArg = LATEST, by_id: Mapping[str, SessionEntry] | None = None
) -> DeferredSessionContext:
    """`build_session_context` with the messages left unparsed until they are read (for resuming)."""
    return deferred_context_of_path(resolve_path(entries, leaf_id, by_id))


def deferred_context_of_path(path: Sequence[SessionEntry]) -> DeferredSessionContext:
    """`build_deferred_context` of a path already resolved (root first)."""
    thinking, model = branch_choices(path)
    items = [message for _, message, _ in _projected(context_entries_of_path(path), latest_edits(path))]
    return DeferredSessionContext(DeferredContextMessages(items), "off" if thinking is None else thinking, model)


__all__ = [
    "EDITABLE_ROLES",
    "LATEST",
    "DeferredContextMessages",
    "DeferredSessionContext",
    "ModelRef",
    "ProjectedMessage",
    "SessionContext",
    "branch_choices",
    "build_context_entries",
    "build_deferred_context",
    "build_session_context",
    "build_session_projection",
    "compaction_checkpoint",
    "compaction_message",
    "context_entries_of_path",
    "deferred_context_of_path",
    "edited_message",
    "entry_to_message",
    "latest_compaction_index",
    "latest_edits",
    "path_to",
    "project_entries",
    "resolve_path",
    "session_context_of_path",
]
