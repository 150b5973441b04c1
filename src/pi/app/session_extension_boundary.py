"""Entries that `turn_end` and `agent_before_settle` handlers draft, checked and appended to the session.

Four draft types exist (extension spec §1.6, boundary protocol):

- `{type: "custom", customType, data?}`: state for the extension, not model context;
- `{type: "custom_message", customType, content, display, details?}`: a message for the model;
- `{type: "context_edit", targetId, replacement: None | {content}}`: hides an earlier message from
  the model's context (None) or replaces its content;
- `{type: "compaction", summary, firstKeptEntryId | None, details?, usage?}`: a compaction written by
  the extension; the context restarts at its summary and the entries kept.

`check` rejects a draft that cannot be applied (ValueError with the reason), so a proposal is applied
whole or not at all; `preview` shows handlers the context their drafts lead to; `append` records them.
"""

from __future__ import annotations

from typing import Any

from pi.app.extensions.results import result_field

DRAFT_TYPES = ("custom", "custom_message", "context_edit", "compaction")


def _custom_type(draft: dict[str, Any]) -> Any:
    return result_field(draft, "customType", "custom_type")


def check(draft: Any, manager: Any = None) -> dict[str, Any]:
    """`draft` when the session can append it, else ValueError saying what is wrong.

    Without `manager`, entry ids (`targetId`, `firstKeptEntryId`) are not looked up."""
    if not isinstance(draft, dict):
        raise ValueError(f"a draft entry must be an object, got {type(draft).__name__}")
    kind = draft.get("type")
    if kind not in DRAFT_TYPES:
        raise ValueError(f"unsupported draft type {kind!r} (use {', '.join(DRAFT_TYPES)})")
    if kind in ("custom", "custom_message") and not isinstance(_custom_type(draft), str):
        raise ValueError("a draft entry needs a customType")
    if kind == "context_edit":
        _check_edit(draft, manager)
    elif kind == "compaction":
        _check_compaction(draft, manager)
    return draft


def _branch_ids(manager: Any) -> set[str]:
    return {entry.id for entry in manager.get_branch()}


def _check_edit(draft: dict[str, Any], manager: Any) -> None:
    target = result_field(draft, "targetId", "target_id")
    if not isinstance(target, str) or not target:
        raise ValueError("a context_edit draft needs a targetId")
    replacement = draft.get("replacement")
    if replacement is not None and not (isinstance(replacement, dict) and "content" in replacement):
        raise ValueError('a context_edit replacement must be null or {"content": ...}')
    if manager is None:
        return
    from pi.session.context import EDITABLE_ROLES
    from pi.session.entries import CustomMessageEntry, MessageEntry

    entry = manager.get_entry(target)
    if entry is None:
        raise ValueError(f"Entry {target} not found")
    if target not in _branch_ids(manager):
        raise ValueError(f"Entry {target} is not on the active branch")
    if not (
        isinstance(entry, CustomMessageEntry) or (isinstance(entry, MessageEntry) and entry.role in EDITABLE_ROLES)
    ):
        raise ValueError(f"Entry {target} does not contribute editable model content")


def _check_compaction(draft: dict[str, Any], manager: Any) -> None:
    if not isinstance(draft.get("summary"), str):
        raise ValueError("a compaction draft needs a summary string")
    if "firstKeptEntryId" not in draft and "first_kept_entry_id" not in draft:
        raise ValueError("a compaction draft needs firstKeptEntryId (an entry id, or null to keep nothing)")
    first = result_field(draft, "firstKeptEntryId", "first_kept_entry_id")
    if first is not None and not isinstance(first, str):
        raise ValueError("firstKeptEntryId must be an entry id or null")
    if first is not None and manager is not None and first not in _branch_ids(manager):
        raise ValueError(f"Entry {first} is not on the active branch")


def preview(messages: list[Any], drafts: list[Any], manager: Any) -> list[Any]:
    """The context messages after `drafts` (each checked; raises ValueError for one that does not apply)."""
    from pi.app.session_extension_host import custom_message

    out = list(messages)
    for draft in drafts:
        kind = check(draft, manager)["type"]
        if kind == "custom_message":
            out.append(custom_message(draft))
        elif kind == "context_edit":
            out = _edited(out, draft, manager)
        elif kind == "compaction":
            out = _compacted(out, draft, manager)
    return out


def _entry_message(manager: Any, entry_id: str | None) -> Any:
    entry = manager.get_entry(entry_id) if entry_id is not None else None
    return getattr(entry, "parsed", None) or getattr(entry, "message", None)


def _edited(messages: list[Any], draft: dict[str, Any], manager: Any) -> list[Any]:
    target = _entry_message(manager, result_field(draft, "targetId", "target_id"))
    replacement = draft.get("replacement")
    out: list[Any] = []
    for message in messages:
        if message is not target:
            out.append(message)
        elif replacement is not None and hasattr(message, "model_copy"):
            out.append(message.model_copy(update={"content": replacement["content"]}))
    return out


def _compacted(messages: list[Any], draft: dict[str, Any], manager: Any) -> list[Any]:
    from pi.session.messages import CompactionSummaryMessage

    summary = CompactionSummaryMessage(summary=str(draft["summary"]), tokens_before=0)
    first = _entry_message(manager, result_field(draft, "firstKeptEntryId", "first_kept_entry_id"))
    kept = next((i for i, m in enumerate(messages) if m is first), len(messages)) if first is not None else None
    return [summary, *(messages[kept:] if kept is not None else [])]


def append(session: Any, drafts: list[dict[str, Any]]) -> None:
    """Record checked drafts in order; the agent's context is rebuilt when an edit or compaction changed it."""
    manager = session.session
    rebuild = False
    for draft in drafts:
        kind = draft["type"]
        if kind == "custom":
            session.append_entry(str(_custom_type(draft)), result_field(draft, "data"))
        elif kind == "custom_message":
            from pi.app.session_extension_host import custom_message

            message = custom_message(draft)
            session.agent.append_message(message)
            manager.append_custom_message_entry(message.custom_type, message.content, message.display, message.details)
        elif kind == "context_edit":
            manager.append_context_edit(str(result_field(draft, "targetId", "target_id")), draft.get("replacement"))
            rebuild = True
        else:
            _append_compaction(session, draft)
            rebuild = True
    if rebuild:
        session.agent.replace_messages(manager.build_session_context().messages)


def _append_compaction(session: Any, draft: dict[str, Any]) -> None:
    from pi.session.tokens import estimate_context_tokens

    session.session.append_compaction(
        str(draft["summary"]),
        result_field(draft, "firstKeptEntryId", "first_kept_entry_id"),
        estimate_context_tokens(list(session.agent.state.messages)).tokens,
        draft.get("details"),
        True,
        usage=draft.get("usage"),
    )


__all__ = ["DRAFT_TYPES", "append", "check", "preview"]
