"""Payloads of the session lifecycle events (trust, start, switch, fork, compaction, tree, shutdown)."""

from __future__ import annotations

from typing import Any, Literal

from pi.app.extensions.event_base import EventModel, ResultModel, Shared


class ProjectTrustEvent(EventModel):
    type: Literal["project_trust"] = "project_trust"
    cwd: str


class ProjectTrustEventResult(ResultModel):
    trusted: Literal["yes", "no", "undecided"]
    remember: bool = False


class ResourcesDiscoverEvent(EventModel):
    type: Literal["resources_discover"] = "resources_discover"
    cwd: str
    reason: Literal["startup", "reload"]


class ResourcesDiscoverEventResult(ResultModel):
    skill_paths: list[str] | None = None
    prompt_paths: list[str] | None = None
    theme_paths: list[str] | None = None


class McpServersChangeEvent(EventModel):
    type: Literal["mcp_servers_change"] = "mcp_servers_change"
    servers: list[dict[str, Any]]


class SessionStartEvent(EventModel):
    type: Literal["session_start"] = "session_start"
    reason: Literal["startup", "reload", "new", "resume", "fork"]
    previous_session_file: str | None = None


class SessionInfoChangedEvent(EventModel):
    type: Literal["session_info_changed"] = "session_info_changed"
    name: str | None = None


class SessionBeforeSwitchEvent(EventModel):
    type: Literal["session_before_switch"] = "session_before_switch"
    reason: Literal["new", "resume"]
    target_session_file: str | None = None


class SessionBeforeSwitchEventResult(ResultModel):
    cancel: bool | None = None


class SessionBeforeForkEvent(EventModel):
    type: Literal["session_before_fork"] = "session_before_fork"
    entry_id: str
    position: Literal["before", "at"]


class SessionBeforeForkEventResult(ResultModel):
    cancel: bool | None = None
    skip_conversation_restore: bool | None = None


class SessionBeforeCompactEvent(EventModel):
    type: Literal["session_before_compact"] = "session_before_compact"
    preparation: Shared
    branch_entries: Shared
    custom_instructions: str | None = None
    reason: Literal["manual", "threshold", "overflow"]
    will_retry: bool
    signal: Shared = None


class SessionBeforeCompactEventResult(ResultModel):
    cancel: bool | None = None
    compaction: dict[str, Any] | None = None
    """`{summary, firstKeptEntryId, tokensBefore, details?, usage?}`."""


class SessionCompactEvent(EventModel):
    type: Literal["session_compact"] = "session_compact"
    compaction_entry: Shared
    from_extension: bool
    reason: Literal["manual", "threshold", "overflow"]
    will_retry: bool


class SessionCompactFailedEvent(EventModel):
    type: Literal["session_compact_failed"] = "session_compact_failed"
    reason: Literal["manual", "threshold", "overflow"]
    error_message: str | None = None
    aborted: bool
    will_retry: bool
    from_extension: bool


class SessionBeforeTreeEvent(EventModel):
    type: Literal["session_before_tree"] = "session_before_tree"
    preparation: Shared
    """`{target_id, old_leaf_id, common_ancestor_id, entries_to_summarize, user_wants_summary, ...}`."""
    signal: Shared = None


class SessionBeforeTreeEventResult(ResultModel):
    cancel: bool | None = None
    summary: dict[str, Any] | None = None
    custom_instructions: str | None = None
    replace_instructions: bool | None = None
    label: str | None = None


class SessionTreeEvent(EventModel):
    type: Literal["session_tree"] = "session_tree"
    new_leaf_id: str | None
    old_leaf_id: str | None
    summary_entry: Shared = None
    from_extension: bool | None = None


class SessionShutdownEvent(EventModel):
    type: Literal["session_shutdown"] = "session_shutdown"
    reason: Literal["quit", "reload", "new", "resume", "fork"]
    target_session_file: str | None = None


__all__ = [
    "McpServersChangeEvent",
    "ProjectTrustEvent",
    "ProjectTrustEventResult",
    "ResourcesDiscoverEvent",
    "ResourcesDiscoverEventResult",
    "SessionBeforeCompactEvent",
    "SessionBeforeCompactEventResult",
    "SessionBeforeForkEvent",
    "SessionBeforeForkEventResult",
    "SessionBeforeSwitchEvent",
    "SessionBeforeSwitchEventResult",
    "SessionBeforeTreeEvent",
    "SessionBeforeTreeEventResult",
    "SessionCompactEvent",
    "SessionCompactFailedEvent",
    "SessionInfoChangedEvent",
    "SessionShutdownEvent",
    "SessionStartEvent",
    "SessionTreeEvent",
]
