"""The lines of a session file, as light typed objects that turn back into exactly the JSON they came from.

A session file is written by more than one program (this one, the TypeScript pi, newer versions of
either), so every entry keeps the fields it does not know in `extra` and an entry of an unknown type
is kept whole as `UnknownEntry`. Messages are stored as the JSON dict read from disk and parsed into
message objects only when first asked for: resuming a long session then costs little more than
reading its lines, and a message this version cannot parse is still written back unchanged.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Container
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Annotated, Any, ClassVar, Literal, TypeAlias

from pydantic import Field, TypeAdapter, ValidationError

from pi.agent.messages import AgentMessage, to_jsonable
from pi.ai.types import AssistantMessage, ToolResultMessage, UserMessage
from pi.session.messages import (
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    UnknownRoleMessage,
    parse_agent_message,
)

CURRENT_SESSION_VERSION = 3

_KnownMessage: TypeAlias = Annotated[
    UserMessage
    | AssistantMessage
    | ToolResultMessage
    | BashExecutionMessage
    | CustomMessage
    | BranchSummaryMessage
    | CompactionSummaryMessage,
    Field(discriminator="role"),
]


@functools.cache
def _message_adapter() -> TypeAdapter[_KnownMessage]:
    """Built on first use: a new session never parses a stored message, and building costs ~1 ms."""
    return TypeAdapter(_KnownMessage)


@functools.cache
def _messages_adapter() -> TypeAdapter[list[_KnownMessage]]:
    return TypeAdapter(list[_KnownMessage])


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


def parse_stored_message(data: dict[str, Any]) -> AgentMessage:
    """A stored message as an object; a message this version cannot read is kept as `UnknownRoleMessage`."""
    try:
        return _message_adapter().validate_python(data)
    except ValidationError:
        pass
    try:
        return parse_agent_message(data)
    except ValidationError:
        role = data.get("role")
        return UnknownRoleMessage.model_construct(role=role if isinstance(role, str) else "unknown")


def parse_messages(entries: list[MessageEntry]) -> None:
    """Parse the messages of many entries in one validator call (a long branch resumes noticeably faster)."""
    pending = [e for e in entries if e.parsed is None]
    if not pending:
        return
    try:
        parsed = _messages_adapter().validate_python([e.message_json for e in pending])
    except ValidationError:
        return  # some message is unusual: each entry parses on its own when read
    for entry, message in zip(pending, parsed, strict=True):
        entry.parsed = message


# --- header ---------------------------------------------------------------------------------------


@dataclass(slots=True, kw_only=True)
class SessionHeader:
    """Line 1 of a session file; not part of the entry tree."""

    type: Literal["session"] = "session"
    id: str
    timestamp: str
    cwd: str
    version: int = CURRENT_SESSION_VERSION
    parent_session: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

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
        return out

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
        return cls(
            id=rest.pop("id"),
            timestamp=timestamp if isinstance(timestamp, str) else "",
            cwd=cwd if isinstance(cwd, str) else "",
            version=version if isinstance(version, int) else 1,
            parent_session=parent if isinstance(parent, str) else None,
            extra=rest,
        )


# --- entries --------------------------------------------------------------------------------------


@dataclass(slots=True, kw_only=True)
class _Entry:
    """Fields every tree entry has. `extra` holds JSON fields this version does not know."""

    id: str
    parent_id: str | None
    timestamp: str = field(default_factory=iso_now)
    extra: dict[str, Any] = field(default_factory=dict)

    FIELDS: ClassVar[tuple[tuple[str, str, bool], ...]] = ()
    """(attribute, JSON key, required) of the type's own fields, in pi's order."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": getattr(self, "type"),  # noqa: B009 - every concrete entry declares its literal type
            "id": self.id,
            "parentId": self.parent_id,
            "timestamp": self.timestamp,
        }
        for attr, key, required in self.FIELDS:
            value = getattr(self, attr)
            if required or value is not None:
                out[key] = value
        out.update(self.extra)
        return out


@dataclass(slots=True, kw_only=True)
class MessageEntry(_Entry):
    type: Literal["message"] = "message"
    message_json: dict[str, Any]
    """The message as stored (pi's camelCase JSON): what is written back, unknown fields included."""
    parsed: AgentMessage | None = field(default=None, repr=False, compare=False)

    FIELDS: ClassVar[tuple[tuple[str, str, bool], ...]] = (("message_json", "message", True),)

    @classmethod
    def of(cls, message: AgentMessage, *, id: str, parent_id: str | None, timestamp: str | None = None) -> MessageEntry:
        data = to_jsonable(message)
        return cls(
            id=id,
            parent_id=parent_id,
            timestamp=timestamp or iso_now(),
            message_json=data if isinstance(data, dict) else {"role": message.role},
            parsed=message,
        )

    @property
    def message(self) -> AgentMessage:
        """The message object, parsed from the stored JSON on first use."""
        if self.parsed is None:
            self.parsed = parse_stored_message(self.message_json)
        return self.parsed

    @property
    def role(self) -> str | None:
        """The message's role without parsing it."""
        role = self.message_json.get("role")
        return role if isinstance(role, str) else None


@dataclass(slots=True, kw_only=True)
class ThinkingLevelChangeEntry(_Entry):
    type: Literal["thinking_level_change"] = "thinking_level_change"
    thinking_level: str

    FIELDS: ClassVar[tuple[tuple[str, str, bool], ...]] = (("thinking_level", "thinkingLevel", True),)


@dataclass(slots=True, kw_only=True)
class ModelChangeEntry(_Entry):
    type: Literal["model_change"] = "model_change"
    provider: str
    model_id: str

    FIELDS: ClassVar[tuple[tuple[str, str, bool], ...]] = (
        ("provider", "provider", True),
        ("model_id", "modelId", True),
    )


@dataclass(slots=True, kw_only=True)
class CompactionEntry(_Entry):
    """History before `first_kept_entry_id` on this branch is replaced by `summary` in the context."""

    type: Literal["compaction"] = "compaction"
    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: Any = None
    """pi's own compactions store ``{"readFiles": [...], "modifiedFiles": [...]}``."""
    from_hook: bool | None = None

    FIELDS: ClassVar[tuple[tuple[str, str, bool], ...]] = (
        ("summary", "summary", True),
        ("first_kept_entry_id", "firstKeptEntryId", True),
        ("tokens_before", "tokensBefore", True),
        ("details", "details", False),
        ("from_hook", "fromHook", False),
    )


@dataclass(slots=True, kw_only=True)
class BranchSummaryEntry(_Entry):
    """What happened on a branch the user left; `from_id` is the entry returned to (as pi writes it), or ``"root"``."""

    type: Literal["branch_summary"] = "branch_summary"
    from_id: str
    summary: str
    details: Any = None
    from_hook: bool | None = None

    FIELDS: ClassVar[tuple[tuple[str, str, bool], ...]] = (
        ("from_id", "fromId", True),
        ("summary", "summary", True),
        ("details", "details", False),
        ("from_hook", "fromHook", False),
    )


@dataclass(slots=True, kw_only=True)
class CustomEntry(_Entry):
    """An extension's state; never sent to the model."""

    type: Literal["custom"] = "custom"
    custom_type: str
    data: Any = None

    FIELDS: ClassVar[tuple[tuple[str, str, bool], ...]] = (("custom_type", "customType", True), ("data", "data", False))


@dataclass(slots=True, kw_only=True)
class CustomMessageEntry(_Entry):
    """An extension's message; reaches the model as a user message."""

    type: Literal["custom_message"] = "custom_message"
    custom_type: str
    content: Any
    """A string, or a list of text/image block dicts."""
    display: bool
    details: Any = None

    FIELDS: ClassVar[tuple[tuple[str, str, bool], ...]] = (
        ("custom_type", "customType", True),
        ("content", "content", True),
        ("display", "display", True),
        ("details", "details", False),
    )


@dataclass(slots=True, kw_only=True)
class LabelEntry(_Entry):
    """Sets (or with no `label`, clears) the bookmark of `target_id`."""

    type: Literal["label"] = "label"
    target_id: str
    label: str | None = None

    FIELDS: ClassVar[tuple[tuple[str, str, bool], ...]] = (("target_id", "targetId", True), ("label", "label", False))


@dataclass(slots=True, kw_only=True)
class SessionInfoEntry(_Entry):
    """The session's display name; the latest one wins."""

    type: Literal["session_info"] = "session_info"
    name: str | None = None

    FIELDS: ClassVar[tuple[tuple[str, str, bool], ...]] = (("name", "name", False),)


@dataclass(slots=True, kw_only=True)
class UnknownEntry(_Entry):
    """An entry this version cannot read (a newer type, or a known type with a broken shape), kept verbatim."""

    type: str
    data: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return dict(self.data)


SessionEntry: TypeAlias = (
    MessageEntry
    | ThinkingLevelChangeEntry
    | ModelChangeEntry
    | CompactionEntry
    | BranchSummaryEntry
    | CustomEntry
    | CustomMessageEntry
    | LabelEntry
    | SessionInfoEntry
    | UnknownEntry
)

ENTRY_TYPES: dict[str, type[_Entry]] = {
    "message": MessageEntry,
    "thinking_level_change": ThinkingLevelChangeEntry,
    "model_change": ModelChangeEntry,
    "compaction": CompactionEntry,
    "branch_summary": BranchSummaryEntry,
    "custom": CustomEntry,
    "custom_message": CustomMessageEntry,
    "label": LabelEntry,
    "session_info": SessionInfoEntry,
}

_STRING_FIELDS = frozenset(
    {"thinkingLevel", "provider", "modelId", "summary", "firstKeptEntryId", "fromId", "customType", "targetId"}
)


def entry_from_dict(data: dict[str, Any]) -> SessionEntry:
    """The typed entry of a JSON line; anything that does not fit its type becomes an `UnknownEntry`."""
    kind = data.get("type")
    entry_id = data.get("id")
    parent_id = data.get("parentId")
    timestamp = data.get("timestamp")
    if (
        kind == "message"
        and len(data) == 5
        and "parentId" in data
        and isinstance(entry_id, str)
        and isinstance(timestamp, str)
    ):
        message = data.get("message")
        if type(message) is dict and (parent_id is None or isinstance(parent_id, str)):
            return MessageEntry(id=entry_id, parent_id=parent_id, timestamp=timestamp, message_json=message)
    cls = ENTRY_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is not None and isinstance(entry_id, str) and (parent_id is None or isinstance(parent_id, str)):
        rest = dict(data)
        for key in ("type", "id", "parentId", "timestamp"):
            rest.pop(key, None)
        values: dict[str, Any] = {}
        for attr, key, required in cls.FIELDS:
            if key not in rest:
                if required:
                    break
                continue
            value = rest.pop(key)
            if key in _STRING_FIELDS and not isinstance(value, str):
                break
            if key == "message" and not isinstance(value, dict):
                break
            values[attr] = value
        else:
            return cls(  # type: ignore[return-value]
                id=entry_id,
                parent_id=parent_id,
                timestamp=timestamp if isinstance(timestamp, str) else "",
                extra=rest,
                **values,
            )
    return UnknownEntry(
        type=kind if isinstance(kind, str) else "",
        id=entry_id if isinstance(entry_id, str) else "",
        parent_id=parent_id if isinstance(parent_id, str) else None,
        timestamp=timestamp if isinstance(timestamp, str) else "",
        data=data,
    )


__all__ = [
    "CURRENT_SESSION_VERSION",
    "ENTRY_TYPES",
    "BranchSummaryEntry",
    "CompactionEntry",
    "CustomEntry",
    "CustomMessageEntry",
    "LabelEntry",
    "MessageEntry",
    "ModelChangeEntry",
    "SessionEntry",
    "SessionHeader",
    "SessionInfoEntry",
    "ThinkingLevelChangeEntry",
    "UnknownEntry",
    "entry_from_dict",
    "iso_from_datetime",
    "iso_now",
    "iso_to_ms",
    "new_entry_id",
    "parse_messages",
    "parse_stored_message",
]
