"""The lines of a session file, as light typed objects that turn back into exactly the JSON they came from.

A session file is written by more than one program (this one, the TypeScript pi, newer versions of
either), so every entry keeps the fields it does not know in `extra` and an entry of an unknown type
is kept whole as `UnknownEntry`. A message read from disk stays JSON text until something needs it,
then becomes the stored dict, and a message object only when first asked for: resuming a long
session then costs little more than finding its lines' envelopes, and a message this version cannot
parse is still written back unchanged.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, ClassVar, Literal, TypeAlias

from msgspec import Struct, field
from msgspec.json import Decoder
from pydantic import Field, TypeAdapter, ValidationError

from pi.agent.messages import AgentMessage, to_jsonable
from pi.ai.types import AssistantMessage, ToolResultMessage, UserMessage
from pi.session.header import (
    CURRENT_SESSION_VERSION,
    SessionHeader,
    iso_from_datetime,
    iso_now,
    iso_to_ms,
    new_entry_id,
    reorder,
)
from pi.session.json_line import loads_bytes
from pi.session.messages import (
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    SystemMessage,
    UnknownRoleMessage,
    parse_agent_message,
)

_KnownMessage: TypeAlias = Annotated[
    UserMessage
    | AssistantMessage
    | ToolResultMessage
    | BashExecutionMessage
    | CustomMessage
    | BranchSummaryMessage
    | CompactionSummaryMessage
    | SystemMessage,
    Field(discriminator="role"),
]


@functools.cache
def _message_adapter() -> TypeAdapter[_KnownMessage]:
    """Built on first use: a new session never parses a stored message, and building costs ~1 ms."""
    return TypeAdapter(_KnownMessage)


@functools.cache
def _messages_adapter() -> TypeAdapter[list[_KnownMessage]]:
    return TypeAdapter(list[_KnownMessage])


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


# --- entries --------------------------------------------------------------------------------------


class _Entry(Struct, kw_only=True):
    """Fields every tree entry has. `extra` holds JSON fields this version does not know."""

    id: str
    parent_id: str | None
    timestamp: str = field(default_factory=iso_now)
    extra: dict[str, Any] = field(default_factory=dict)
    key_order: tuple[str, ...] | None = None
    """The JSON key order of the line this entry was read from, when it differs from pi's usual one."""

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
        return reorder(out, self.key_order) if self.key_order is not None else out


class MessageText(Struct, frozen=True, gc=False):
    """Where a message's JSON text lies in the bytes of the file it was read from.

    Every message line of a resumed file points into one shared copy of the file, so reading a long
    session costs no copy and no view per message, and nothing the collector must track; the bytes
    are freed once no entry still needs its text.
    """

    source: bytes
    start: int
    end: int

    def as_bytes(self) -> bytes:
        return self.source[self.start : self.end]

    def decoded(self) -> dict[str, Any]:
        """The message as `json.loads` gives it; {} for a message that is not a JSON object."""
        value = loads_bytes(self.as_bytes())
        return value if type(value) is dict else {}

    def __repr__(self) -> str:
        return f"MessageText({self.end - self.start} bytes at {self.start})"


class _Role(Struct):
    role: Any = None


_ROLE = Decoder(_Role)
"""Reads only a message's role; the rest of its JSON is skipped without building anything."""


class MessageEntry(_Entry, kw_only=True, gc=False):
    """One message of the conversation, held as stored JSON and parsed into an object on first use.

    A message read from a file may still be JSON text (`raw`): it is decoded into `stored` when
    first needed, and its role is read without decoding the rest. Construct entries with `stored`.

    The collector does not track message entries (``gc=False``): a resumed session holds one per
    message, tens of thousands of them, and every full collection, the last ones at exit included,
    would walk them all. Nothing they hold refers back to an entry (JSON data, one of pi's messages
    parsed from it, its text), so no reference cycle can pass through one; what they hold is still
    tracked. An entry made for a message object of an application's own class is a
    `TrackedMessageEntry` instead, since pi cannot know what that object refers to.
    """

    type: Literal["message"] = "message"
    stored: dict[str, Any] | None = None
    """The message as stored (pi's camelCase JSON), unknown fields included: what is written back."""
    raw: MessageText | None = None
    """The message's JSON text as read from the file, until `message_json` decodes it."""
    parsed: AgentMessage | None = None
    raw_role: str | None = None
    """The role read from `raw` ("" when it is not a string), so that asking again decodes nothing."""

    FIELDS: ClassVar[tuple[tuple[str, str, bool], ...]] = (("stored", "message", True),)

    @classmethod
    def of(cls, message: AgentMessage, *, id: str, parent_id: str | None, timestamp: str | None = None) -> MessageEntry:
        data = to_jsonable(message)
        kind = cls if type(message) in _PI_MESSAGE_TYPES else TrackedMessageEntry
        return kind(
            id=id,
            parent_id=parent_id,
            timestamp=timestamp or iso_now(),
            stored=data if isinstance(data, dict) else {"role": message.role},
            parsed=message,
        )

    @property
    def message_json(self) -> dict[str, Any]:
        """The message as stored (pi's camelCase JSON), decoded from the file's text on first use."""
        stored = self.stored
        if stored is None:
            stored = self.stored = self.raw.decoded() if self.raw is not None else {}
            self.raw = None
        return stored

    @property
    def message(self) -> AgentMessage:
        """The message object, parsed from the stored JSON on first use."""
        if self.parsed is None:
            self.parsed = parse_stored_message(self.message_json)
        return self.parsed

    @property
    def role(self) -> str | None:
        """The message's role without parsing it (or, for a message still in JSON text, decoding it)."""
        if self.stored is None and self.raw is not None:
            if self.raw_role is None:
                try:
                    role = _ROLE.decode(self.raw.as_bytes()).role
                except ValueError:
                    role = self.message_json.get("role")
                self.raw_role = role if isinstance(role, str) else ""
            return self.raw_role or None
        role = self.message_json.get("role")
        return role if isinstance(role, str) else None

    def to_dict(self) -> dict[str, Any]:
        self.message_json  # noqa: B018 - a message still in JSON text is decoded to be written
        return super().to_dict()


class TrackedMessageEntry(MessageEntry, kw_only=True, gc=True):
    """A message entry the collector tracks, for a message of an application's own class.

    Such an object may hold a reference back to its entry (a custom message keeping the record it was
    stored as, say); through an untracked entry that cycle would never be collected.
    """


_PI_MESSAGE_TYPES: frozenset[type] = frozenset(
    {
        UserMessage,
        AssistantMessage,
        ToolResultMessage,
        BashExecutionMessage,
        CustomMessage,
        BranchSummaryMessage,
        CompactionSummaryMessage,
        SystemMessage,
        UnknownRoleMessage,
    }
)
"""pi's own message classes, whose objects refer to no entry: their entries can stay untracked."""


class ThinkingLevelChangeEntry(_Entry, kw_only=True):
    """Records a change of thinking level; the latest one on a branch is restored when the branch is resumed."""

    type: Literal["thinking_level_change"] = "thinking_level_change"
    thinking_level: str

    FIELDS: ClassVar[tuple[tuple[str, str, bool], ...]] = (("thinking_level", "thinkingLevel", True),)


class ModelChangeEntry(_Entry, kw_only=True):
    """Records a change of model; on resume, the latest such entry or assistant reply on the branch names the model."""

    type: Literal["model_change"] = "model_change"
    provider: str
    model_id: str

    FIELDS: ClassVar[tuple[tuple[str, str, bool], ...]] = (
        ("provider", "provider", True),
        ("model_id", "modelId", True),
    )


class CompactionEntry(_Entry, kw_only=True):
    """History before `first_kept_entry_id` on this branch is replaced by `summary` in the context."""

    type: Literal["compaction"] = "compaction"
    summary: str
    first_kept_entry_id: str
    """The first entry kept word for word; the compaction's own id when it keeps nothing."""
    tokens_before: int
    details: Any = None
    """pi's own compactions store ``{"readFiles": [...], "modifiedFiles": [...]}``."""
    usage: Any = None
    """The summary request's usage (JSON, as an assistant message's ``usage``)."""
    from_hook: bool | None = None
    system_message: dict[str, Any] | None = None
    """The full prompt and tools in force at the boundary (a ``role:"system"`` message's JSON)."""

    FIELDS: ClassVar[tuple[tuple[str, str, bool], ...]] = (
        ("summary", "summary", True),
        ("first_kept_entry_id", "firstKeptEntryId", True),
        ("tokens_before", "tokensBefore", True),
        ("details", "details", False),
        ("usage", "usage", False),
        ("from_hook", "fromHook", False),
        ("system_message", "systemMessage", False),
    )

    @property
    def retains_none(self) -> bool:
        """True when nothing before the compaction is kept (it names itself as the first kept entry)."""
        return self.first_kept_entry_id == self.id


class BranchSummaryEntry(_Entry, kw_only=True):
    """What happened on a branch the user left; `from_id` is the leaf before navigating, or ``"root"``."""

    type: Literal["branch_summary"] = "branch_summary"
    from_id: str
    summary: str
    details: Any = None
    usage: Any = None
    """The summary request's usage (JSON)."""
    from_hook: bool | None = None

    FIELDS: ClassVar[tuple[tuple[str, str, bool], ...]] = (
        ("from_id", "fromId", True),
        ("summary", "summary", True),
        ("details", "details", False),
        ("usage", "usage", False),
        ("from_hook", "fromHook", False),
    )


class CustomEntry(_Entry, kw_only=True):
    """An extension's state; never sent to the model."""

    type: Literal["custom"] = "custom"
    custom_type: str
    data: Any = None

    FIELDS: ClassVar[tuple[tuple[str, str, bool], ...]] = (("custom_type", "customType", True), ("data", "data", False))


class CustomMessageEntry(_Entry, kw_only=True):
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


class LabelEntry(_Entry, kw_only=True):
    """Sets (or with no `label`, clears) the bookmark of `target_id`."""

    type: Literal["label"] = "label"
    target_id: str
    label: str | None = None

    FIELDS: ClassVar[tuple[tuple[str, str, bool], ...]] = (("target_id", "targetId", True), ("label", "label", False))


class SessionInfoEntry(_Entry, kw_only=True):
    """The session's display name; the latest one wins."""

    type: Literal["session_info"] = "session_info"
    name: str | None = None

    FIELDS: ClassVar[tuple[tuple[str, str, bool], ...]] = (("name", "name", False),)


class UsageEntry(_Entry, kw_only=True):
    """Model work outside the conversation (e.g. ``kind:"cache_warm"``): counts toward totals, never in context."""

    type: Literal["usage"] = "usage"
    kind: str
    provider: str
    model: str
    usage: Any
    """JSON of a `pi.ai.types.Usage`."""
    note: str | None = None

    FIELDS: ClassVar[tuple[tuple[str, str, bool], ...]] = (
        ("kind", "kind", True),
        ("provider", "provider", True),
        ("model", "model", True),
        ("usage", "usage", True),
        ("note", "note", False),
    )


class ContextEditEntry(_Entry, kw_only=True):
    """An append-only edit of what an earlier entry contributes to the model's context.

    `replacement` None omits the target from future requests; ``{"content": ...}`` replaces its
    content. The file keeps the original; the latest edit of a target on the branch wins.
    """

    type: Literal["context_edit"] = "context_edit"
    target_id: str
    replacement: dict[str, Any] | None

    FIELDS: ClassVar[tuple[tuple[str, str, bool], ...]] = (
        ("target_id", "targetId", True),
        ("replacement", "replacement", True),
    )


class UnknownEntry(_Entry, kw_only=True):
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
    | UsageEntry
    | ContextEditEntry
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
    "usage": UsageEntry,
    "context_edit": ContextEditEntry,
}

_STRING_FIELDS = frozenset(
    {
        "thinkingLevel",
        "provider",
        "modelId",
        "summary",
        "firstKeptEntryId",
        "fromId",
        "customType",
        "targetId",
        "kind",
        "model",
    }
)
_DICT_OR_NULL_FIELDS = frozenset({"replacement", "systemMessage"})
_MESSAGE_KEYS = ("type", "id", "parentId", "timestamp", "message")


def entry_from_dict(data: dict[str, Any]) -> SessionEntry:
    """The typed entry of a JSON line; anything that does not fit its type becomes an `UnknownEntry`."""
    if tuple(data) == _MESSAGE_KEYS and data["type"] == "message":
        # The common line, in pi's own key order: checked and built without the general path.
        entry_id, parent_id, timestamp, message = data["id"], data["parentId"], data["timestamp"], data["message"]
        valid = type(entry_id) is str and type(timestamp) is str and type(message) is dict
        if valid and (parent_id is None or type(parent_id) is str):
            return MessageEntry(id=entry_id, parent_id=parent_id, timestamp=timestamp, stored=message)
    kind = data.get("type")
    entry_id = data.get("id")
    parent_id = data.get("parentId")
    timestamp = data.get("timestamp")
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
            if key in _DICT_OR_NULL_FIELDS and value is not None and not isinstance(value, dict):
                break
            values[attr] = value
        else:
            entry = cls(
                id=entry_id,
                parent_id=parent_id,
                timestamp=timestamp if isinstance(timestamp, str) else "",
                extra=rest,
                **values,
            )
            if list(entry.to_dict()) != list(data):
                entry.key_order = tuple(data)
            return entry  # type: ignore[return-value]
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
    "ContextEditEntry",
    "CustomEntry",
    "CustomMessageEntry",
    "LabelEntry",
    "MessageEntry",
    "MessageText",
    "ModelChangeEntry",
    "SessionEntry",
    "SessionHeader",
    "SessionInfoEntry",
    "ThinkingLevelChangeEntry",
    "TrackedMessageEntry",
    "UnknownEntry",
    "UsageEntry",
    "entry_from_dict",
    "iso_from_datetime",
    "iso_now",
    "iso_to_ms",
    "new_entry_id",
    "parse_messages",
    "parse_stored_message",
    "reorder",
]
