"""The read side of `SessionManager`: looking at the tree, the branch and its context, without changing them.

Kept apart from the writing side so that each stays small; `SessionManager` is the only class that
mixes it in and owns the state it reads.
"""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Any

from pi.session.context import (
    DeferredSessionContext,
    ProjectedMessage,
    SessionContext,
    context_entries_of_path,
    deferred_context_of_path,
    latest_edits,
    path_to,
    project_entries,
    session_context_of_path,
)
from pi.session.entries import MessageEntry, SessionEntry, SessionHeader, SessionInfoEntry
from pi.session.system_state import SystemState, replay_system_messages
from pi.session.tree import Label, SessionTreeNode, build_tree, tree_json
from pi.session.writer import SessionWriter


class SessionReads:
    """Queries over the state a `SessionManager` keeps (declared here for the type checker)."""

    _cwd: str
    _session_dir: Path | None
    _persist: bool
    _writer: SessionWriter
    _header: SessionHeader
    _entries: builtins.list[SessionEntry]
    _by_id: dict[str, SessionEntry]
    _labels: dict[str, Label]
    _leaf_id: str | None
    _branch_memo: tuple[str | None, int, SessionEntry | None, builtins.list[SessionEntry]] | None

    # --- the tree ---------------------------------------------------------------------------------

    def get_leaf_id(self) -> str | None:
        return self._leaf_id

    def get_leaf_entry(self) -> SessionEntry | None:
        return self._by_id.get(self._leaf_id) if self._leaf_id is not None else None

    def get_entry(self, entry_id: str) -> SessionEntry | None:
        return self._by_id.get(entry_id)

    def get_label(self, entry_id: str) -> str | None:
        label = self._labels.get(entry_id)
        return label.text if label is not None else None

    def get_branch(self, from_id: str | None = None) -> builtins.list[SessionEntry]:
        """Entries from the root to `from_id` (default: the leaf), root first."""
        if from_id is None or from_id == self._leaf_id:
            return builtins.list(self._current_branch())
        return path_to(from_id, self._by_id)

    def _current_branch(self) -> builtins.list[SessionEntry]:
        """The path to the leaf, walked once per leaf and entry count (callers must not change it).

        Resuming asks for it several times (context, system state, tools); on a long branch each walk
        is a noticeable part of the start. Entries are only ever appended (a failed append is taken back
        out), so the same leaf, entry count and last entry mean the same path; loading a file forgets
        it (`_branch_memo` is reset with the entries).
        """
        entries = self._entries
        last = entries[-1] if entries else None
        memo = self._branch_memo
        if memo is not None and memo[0] == self._leaf_id and memo[1] == len(entries) and memo[2] is last:
            return memo[3]
        path = path_to(self._leaf_id, self._by_id)
        self._branch_memo = (self._leaf_id, len(entries), last, path)
        return path

    def get_children(self, parent_id: str) -> builtins.list[SessionEntry]:
        return [e for e in self._entries if e.parent_id == parent_id and e.id]

    def get_tree(self) -> builtins.list[SessionTreeNode]:
        """Every entry as a forest (orphans become roots), children oldest first."""
        return build_tree(self._entries, self._labels)

    def get_tree_data(self) -> dict[str, Any]:
        """RPC ``get_tree``: ``{"tree": [{entry, children, label?, labelTimestamp?}], "leafId"}``."""
        return {"tree": tree_json(self.get_tree()), "leafId": self._leaf_id}

    def build_session_context(self) -> SessionContext:
        """The messages, thinking level and model of the current branch (context edits applied)."""
        return session_context_of_path(self._current_branch())

    def build_deferred_context(self) -> DeferredSessionContext:
        """`build_session_context` with the messages parsed only when first read (resuming a session).

        Hand its `messages` to the one owner of the transcript (the `Agent`); counting them is free.
        """
        return deferred_context_of_path(self._current_branch())

    def build_context_entries(self) -> builtins.list[SessionEntry]:
        """The current branch's entries that still count (latest compaction, then what it kept and what followed)."""
        return context_entries_of_path(self._current_branch())

    def get_system_state(self) -> SystemState | None:
        """The prompt sections and tools the system messages on the current branch declare (None: none stored).

        Every system message on the branch counts, also those a compaction replaced in the context
        (as pi 1.6.0 restores a session's active tools). Compare with what the next request will use
        to store a patch (`system_message_patch`), or store it whole as a compaction's checkpoint
        (`checkpoint_of`).
        """
        messages = [e.message for e in self._current_branch() if isinstance(e, MessageEntry) and e.role == "system"]
        return replay_system_messages(messages)

    def build_session_projection(self) -> builtins.list[ProjectedMessage]:
        """The current branch's context messages with their entries, context edits applied."""
        path = self._current_branch()
        return project_entries(context_entries_of_path(path), latest_edits(path))

    # --- reading ----------------------------------------------------------------------------------

    def get_entries(self, since: str | None = None) -> builtins.list[SessionEntry]:
        """Every entry in file order (header excluded); with `since`, only those appended after it.

        Raises ValueError ``Entry not found: {id}`` for an unknown `since`.
        """
        if since is None:
            return builtins.list(self._entries)
        if since not in self._by_id:
            raise ValueError(f"Entry not found: {since}")
        for position in range(len(self._entries) - 1, -1, -1):
            if self._entries[position].id == since:
                return self._entries[position + 1 :]
        return []

    def get_entries_data(self, since: str | None = None) -> dict[str, Any]:
        """RPC ``get_entries``: ``{"entries": [entry JSON, in append order], "leafId"}``."""
        return {"entries": [e.to_dict() for e in self.get_entries(since)], "leafId": self._leaf_id}

    def get_entry_count(self) -> int:
        return len(self._entries)

    def get_header(self) -> SessionHeader:
        return self._header

    def get_session_name(self) -> str | None:
        for entry in reversed(self._entries):
            if isinstance(entry, SessionInfoEntry):
                return entry.name or None
        return None

    def get_cwd(self) -> str:
        return self._cwd

    def get_session_dir(self) -> Path | None:
        return self._session_dir

    def get_session_id(self) -> str:
        return self._header.id

    def get_session_file(self) -> Path | None:
        return self._writer.file if self._persist else None

    def is_persisted(self) -> bool:
        return self._persist


__all__ = ["SessionReads"]
