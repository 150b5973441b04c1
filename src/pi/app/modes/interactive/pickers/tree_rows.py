"""The rows of `/tree`: one per session entry, in branch order, and the filters over them (§10.6).

Rows read `user: …`, `assistant: …`, `[bash: cmd]` / `[edit: path]` for tool results, `[bash]: cmd`
for `!` commands, `[compaction: 12k tokens]`, `[model: id]` and so on. A branch point shows its
children as `├⊟`/`└⊟` with `│` gutters. Building rows is separate from the component so it can be
tested on its own.

Filters (`treeFilterMode`): `default` leaves out bookkeeping entries (model and thinking changes,
titles, labels, extension state), `no-tools` also tool results, `user-only` keeps user messages,
`labeled-only` keeps labelled entries, `all` keeps everything.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from msgspec import Struct

from pi.app.modes.interactive.components.formatting import content_text

if TYPE_CHECKING:
    from pi.session.entries import SessionEntry
    from pi.session.manager import SessionTreeNode

RowKind = Literal["user", "assistant", "tool", "bash", "summary", "meta"]
FilterMode = Literal["default", "no-tools", "user-only", "labeled-only", "all"]
FILTER_MODES: tuple[FilterMode, ...] = ("default", "no-tools", "user-only", "labeled-only", "all")
FILTER_TAGS: dict[str, str] = {
    "no-tools": "[no-tools]",
    "user-only": "[user]",
    "labeled-only": "[labeled]",
    "all": "[all]",
}

#: Where a tool result row names what the call worked on.
_TOOL_SUBJECT = {"bash": "command", "read": "path", "write": "path", "edit": "path", "ls": "path"}


class TreeRow(Struct, frozen=True):
    entry_id: str
    prefix: str
    text: str
    on_path: bool
    label: str | None = None
    kind: RowKind = "meta"
    full_text: str = ""
    """The entry's whole text (Ctrl+X copies it)."""
    label_time: str | None = None


def _one_line(text: str, limit: int = 200) -> str:
    return " ".join(text.split())[:limit]


def _tool_text(data: dict[str, Any], calls: dict[str, dict[str, Any]]) -> str:
    name = str(data.get("toolName") or "tool")
    args = calls.get(str(data.get("toolCallId", "")), {})
    key = _TOOL_SUBJECT.get(name)
    subject = args.get(key) if key else None
    if subject is None:
        subject = args.get("pattern") if isinstance(args.get("pattern"), str) else None
    return f"[{name}: {_one_line(str(subject), 80)}]" if subject else f"[{name}]"


def _message_row(data: dict[str, Any], calls: dict[str, dict[str, Any]]) -> tuple[str, RowKind, str]:
    role = data.get("role")
    if role == "user":
        full = content_text(data.get("content"), " ")
        return "user: " + _one_line(full), "user", full
    if role == "assistant":
        full = content_text(data.get("content"), " ")
        text = _one_line(full)
        if data.get("stopReason") == "aborted":
            text = f"{text} (aborted)".strip()
        elif data.get("stopReason") == "error":
            text = f"{text} ({data.get('errorMessage') or 'error'})".strip()
        return "assistant: " + (text or "(no content)"), "assistant", full
    if role == "toolResult":
        return _tool_text(data, calls), "tool", content_text(data.get("content"), " ")
    if role == "bashExecution":
        command = str(data.get("command", ""))
        return f"[bash]: {_one_line(command)}", "bash", command
    return f"[{role}]", "summary" if role == "system" else "meta", content_text(data.get("content"), " ")


_SIMPLE: dict[str, tuple[Callable[[Any], str], RowKind]] = {
    "compaction": (lambda e: f"[compaction: {round((e.tokens_before or 0) / 1000)}k tokens]", "summary"),
    "branch_summary": (lambda e: "[branch summary]: " + _one_line(getattr(e, "summary", "")), "summary"),
    "model_change": (lambda e: f"[model: {e.model_id}]", "meta"),
    "thinking_level_change": (lambda e: f"[thinking: {e.thinking_level}]", "meta"),
    "session_info": (lambda e: f"[title: {getattr(e, 'name', '') or ''}]", "meta"),
    "custom": (lambda e: f"[{getattr(e, 'custom_type', 'custom')}]", "meta"),
    "custom_message": (lambda e: f"[{getattr(e, 'custom_type', 'custom')}]: ", "summary"),
}


def entry_row(entry: SessionEntry, calls: dict[str, dict[str, Any]] | None = None) -> tuple[str, RowKind, str] | None:
    """(row text, kind, full text) of an entry, or None for entries the tree never shows (labels)."""
    kind = getattr(entry, "type", "")
    if kind == "message":
        data: dict[str, Any] = getattr(entry, "message_json", {})
        if data.get("role") == "assistant":
            for block in data.get("content") or []:
                if isinstance(block, dict) and block.get("type") == "toolCall" and calls is not None:
                    calls[str(block.get("id", ""))] = dict(block.get("arguments") or {})
        return _message_row(data, calls or {})
    if kind == "label":
        return None
    simple = _SIMPLE.get(kind)
    if simple is None:
        return f"[{kind}]", "meta", ""
    make, row_kind = simple
    return make(entry), row_kind, getattr(entry, "summary", "") or ""


def entry_text(entry: SessionEntry) -> str | None:
    """The row text of an entry, or None for entries the tree leaves out (labels)."""
    row = entry_row(entry)
    return row[0] if row is not None else None


def tree_rows(roots: Sequence[SessionTreeNode], active: set[str]) -> list[TreeRow]:
    """Depth-first rows (iterative: a long session is a very deep tree)."""
    rows: list[TreeRow] = []
    calls: dict[str, dict[str, Any]] = {}
    stack: list[tuple[SessionTreeNode, str, str]] = [(r, "", "") for r in reversed(roots)]
    while stack:
        node, gutter, connector = stack.pop()
        made = entry_row(node.entry, calls)
        if made is not None:
            text, kind, full = made
            entry_id = node.entry.id
            rows.append(
                TreeRow(
                    entry_id, gutter + connector, text, entry_id in active, node.label, kind, full, node.label_timestamp
                )
            )
        children = node.children
        base = gutter + ("│  " if connector.startswith("├") else "   " if connector else "")
        if len(children) == 1:
            stack.append((children[0], base, ""))
            continue
        for index in range(len(children) - 1, -1, -1):
            last = index == len(children) - 1
            stack.append((children[index], base, "└⊟ " if last else "├⊟ "))
    return rows


def keep_row(row: TreeRow, mode: FilterMode) -> bool:
    if mode == "all":
        return True
    if mode == "user-only":
        return row.kind == "user"
    if mode == "labeled-only":
        return bool(row.label)
    if mode == "no-tools":
        return row.kind not in ("tool", "meta")
    return row.kind != "meta"


def matches_query(row: TreeRow, query: str) -> bool:
    """Every word of `query` occurs in the row (case-insensitive; the label counts)."""
    haystack = f"{row.label or ''} {row.text}".lower()
    return all(word in haystack for word in query.lower().split())


__all__ = [
    "FILTER_MODES",
    "FILTER_TAGS",
    "FilterMode",
    "RowKind",
    "TreeRow",
    "entry_row",
    "entry_text",
    "keep_row",
    "matches_query",
    "tree_rows",
]
