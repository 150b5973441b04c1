"""One session: a tree of entries in memory, mirrored line by line into a JSONL file.

The file is append-only while the session runs: a new entry is one appended line, moving the leaf
(`branch`) appends nothing, and the next entry simply names an older parent, so every branch ever
taken stays in the same file. A new session writes nothing until its first user or assistant message
exists (see `pi.session.writer`). An entry whose line could not be written is taken back out of
memory, so no later entry ever names a parent the file does not have.
"""

from __future__ import annotations

import builtins
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pi.agent.messages import AgentMessage, to_jsonable
from pi.session.context import (
    EDITABLE_ROLES,
    path_to,
)
from pi.session.entries import (
    CURRENT_SESSION_VERSION,
    ENTRY_TYPES,
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    SessionHeader,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    UnknownEntry,
    UsageEntry,
    entry_from_dict,
    iso_now,
    iso_to_ms,
    new_entry_id,
)
from pi.session.ids import create_session_id, normalize_session_name, validate_session_id
from pi.session.listing import SessionDirectoryQueries, is_custom_dir, most_recent_session_file
from pi.session.manager_reads import SessionReads
from pi.session.migrate import file_version, migrate_lines
from pi.session.storage import (
    LazyMessageLine,
    SessionFileError,
    create_exclusive,
    default_session_dir,
    dumps_line,
    invalid_session_file,
    read_header,
    read_session_file,
    read_session_file_lazily,
    session_file_name,
)
from pi.session.tree import Label, SessionTreeNode, without_labels
from pi.session.writer import SessionWriter

_CONVERSATION_ROLES = frozenset({"user", "assistant"})


def _entry_of(line: dict[str, Any] | LazyMessageLine) -> SessionEntry:
    if isinstance(line, LazyMessageLine):
        return MessageEntry(id=line.id, parent_id=line.parent_id, timestamp=line.timestamp, raw=line.text)
    return entry_from_dict(line)


class SessionManager(SessionReads, SessionDirectoryQueries):
    """A session's entries, its current leaf and its file. Build one with the class methods."""

    def __init__(
        self,
        cwd: str,
        session_dir: Path | None,
        session_file: Path | None,
        persist: bool,
        *,
        fsync: bool = False,
        session_id: str | None = None,
    ) -> None:
        self._cwd = cwd
        self._session_dir = session_dir
        self._persist = persist
        self._writer = SessionWriter(None, fsync=fsync)
        self.warnings: list[str] = []
        """Lines skipped or kept unread while loading (torn writes, hand edits, newer entry shapes)."""
        self._header = SessionHeader(id="", timestamp="", cwd=cwd)
        self._entries: list[SessionEntry] = []
        self._by_id: dict[str, SessionEntry] = {}
        self._labels: dict[str, Label] = {}
        self._leaf_id: str | None = None
        self._branch_memo: tuple[str | None, int, SessionEntry | None, builtins.list[SessionEntry]] | None = None
        self._has_conversation = False
        if session_file is not None:
            self.set_session_file(session_file)
        else:
            self.new_session(session_id)

    # --- construction -----------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        cwd: str,
        session_dir: str | Path | None = None,
        agent_dir: str | Path | None = None,
        *,
        id: str | None = None,
        fsync: bool = False,
    ) -> SessionManager:
        """A new session of `cwd`, stored under the project's session directory once the conversation starts.

        `id` must satisfy `pi.session.ids.validate_session_id` (raises InvalidSessionIdError).
        """
        directory = Path(session_dir) if session_dir is not None else default_session_dir(cwd, agent_dir)
        return cls(cwd, directory, None, True, fsync=fsync, session_id=id)

    @classmethod
    def open(
        cls,
        path: str | Path,
        session_dir: str | Path | None = None,
        *,
        cwd_override: str | None = None,
        cwd: str | None = None,
        fsync: bool = False,
    ) -> SessionManager:
        """The session stored at `path`; a missing or empty file starts a new session there.

        The cwd is the header's unless `cwd_override` is given (`cwd` is only the fallback for a header
        without one). Raises SessionFileError (``Session file is not a valid pi session: …``) when the
        file has content but no session header; such a file is never overwritten.
        """
        file = Path(path).absolute()
        header = read_header(file) if file.exists() else None
        session_cwd = cwd_override or (header.cwd if header is not None and header.cwd else (cwd or os.getcwd()))
        directory = Path(session_dir) if session_dir is not None else file.parent
        return cls(session_cwd, directory, file, True, fsync=fsync)

    @classmethod
    def continue_recent(
        cls,
        cwd: str,
        session_dir: str | Path | None = None,
        agent_dir: str | Path | None = None,
        *,
        fsync: bool = False,
    ) -> SessionManager:
        """The project's most recently written session (by file mtime), or a new one.

        In a custom session directory only sessions whose header `cwd` is `cwd` count.
        """
        directory = Path(session_dir) if session_dir is not None else default_session_dir(cwd, agent_dir)
        scope = cwd if is_custom_dir(cwd, session_dir, agent_dir) else None
        recent = most_recent_session_file(directory, scope)
        return cls(cwd, directory, recent, True, fsync=fsync)

    @classmethod
    def in_memory(
        cls,
        cwd: str | None = None,
        id: str | None = None,
        entries: Sequence[SessionEntry | dict[str, Any]] | None = None,
    ) -> SessionManager:
        """A session that is never written to disk, optionally restored from `entries` (objects or JSON dicts)."""
        manager = cls(cwd or os.getcwd(), None, None, False, session_id=id)
        if entries:
            restored = [e if not isinstance(e, dict) else entry_from_dict(e) for e in entries]
            manager._reset_state(restored)
        return manager

    @classmethod
    def fork_from(
        cls,
        source_path: str | Path,
        target_cwd: str,
        session_dir: str | Path | None = None,
        agent_dir: str | Path | None = None,
        *,
        id: str | None = None,
        fsync: bool = False,
    ) -> SessionManager:
        """A new session of `target_cwd` holding a copy of every entry of `source_path` (e.g. another project's)."""
        source = Path(source_path).absolute()
        try:
            raw = read_session_file(source)
        except OSError:
            raw = None
        if raw is None or not raw.lines:
            raise SessionFileError(f"Cannot fork: source session file is empty or invalid: {source}")
        if SessionHeader.from_dict(raw.lines[0]) is None:
            raise SessionFileError(f"Cannot fork: source session has no header: {source}")
        migrate_lines(raw.lines)
        directory = Path(session_dir) if session_dir is not None else default_session_dir(target_cwd, agent_dir)
        timestamp = iso_now()
        session_id = validate_session_id(id) if id is not None else create_session_id()
        header = SessionHeader(id=session_id, timestamp=timestamp, cwd=target_cwd, parent_session=str(source))
        target = directory / session_file_name(timestamp, header.id)
        create_exclusive(target, [dumps_line(header.to_dict()), *(dumps_line(d) for d in raw.lines[1:])], fsync=fsync)
        return cls(target_cwd, directory, target, True, fsync=fsync)

    def new_session(self, id: str | None = None, parent_session: str | None = None) -> Path | None:
        """Start over with an empty tree (and, when persisted, a new file name); returns that file."""
        timestamp = iso_now()
        session_id = validate_session_id(id) if id is not None else create_session_id()
        self._header = SessionHeader(id=session_id, timestamp=timestamp, cwd=self._cwd, parent_session=parent_session)
        self._reset_state([])
        file = None
        if self._persist and self._session_dir is not None:
            file = self._session_dir / session_file_name(timestamp, self._header.id)
        self._writer.reset(file)
        return file

    def set_session_file(self, path: str | Path) -> None:
        """Load the session at `path` into this manager (a missing or empty file starts a new session there)."""
        self._load(Path(path).absolute())

    def _load(self, file: Path) -> None:
        if file.is_dir():
            raise SessionFileError(f"Session path is a directory, not a session file: {file}")
        raw = read_session_file_lazily(file) if file.exists() else None
        if raw is None or (not raw.lines and not raw.warnings):
            self.new_session()
            self._writer.reset(file)
            self._writer.adopt_empty = raw is not None
            self._writer.needs_newline = raw.needs_newline if raw is not None else False
            return
        first = raw.lines[0] if raw.lines else None
        if not isinstance(first, dict):
            raise invalid_session_file(file)
        header = SessionHeader.from_dict(first)
        if header is None:
            raise invalid_session_file(file)
        lines: Sequence[dict[str, Any] | LazyMessageLine] = raw.lines
        migrated = False
        if file_version([first]) < CURRENT_SESSION_VERSION:
            # An older format is upgraded line by line, as dicts, in the one list made for that.
            dicts = [line.as_dict() if isinstance(line, LazyMessageLine) else line for line in lines]
            migrated = migrate_lines(dicts)
            header = SessionHeader.from_dict(dicts[0]) or header
            lines = dicts
        entries = [_entry_of(line) for line in lines[1:]]
        self.warnings.extend(raw.warnings)
        for entry in entries:
            if isinstance(entry, UnknownEntry) and entry.type in ENTRY_TYPES:
                self.warnings.append(f"{file}: entry {entry.id or '?'} of type {entry.type!r} has an unexpected shape")
        self._header = header
        self._reset_state(entries)
        self._writer.loaded(file, len(entries), raw.needs_newline)
        if migrated:
            self._writer.rewrite(self._header, self._entries)

    def _reset_state(self, entries: list[SessionEntry]) -> None:
        self._entries = entries
        self._branch_memo = None
        self._by_id = {}
        self._labels = {}
        self._leaf_id = None
        self._has_conversation = False
        for entry in entries:
            self._index(entry)

    def _index(self, entry: SessionEntry) -> None:
        if not entry.id:
            return
        self._by_id[entry.id] = entry
        self._leaf_id = entry.id
        if isinstance(entry, LabelEntry):
            if entry.label:
                self._labels[entry.target_id] = Label(entry.label, entry.timestamp)
            else:
                self._labels.pop(entry.target_id, None)
        elif not self._has_conversation and isinstance(entry, MessageEntry) and entry.role in _CONVERSATION_ROLES:
            self._has_conversation = True

    # --- writing ----------------------------------------------------------------------------------

    def _append(self, entry: SessionEntry) -> str:
        """Add `entry` at the leaf and write it; a failed write takes it back out (and re-raises)."""
        leaf, label, had_conversation = self._leaf_id, None, self._has_conversation
        if isinstance(entry, LabelEntry):
            label = self._labels.get(entry.target_id)
        self._entries.append(entry)
        self._index(entry)
        try:
            if self._persist and (self._writer.on_disk or self._has_conversation):
                self._writer.flush(self._header, self._entries)
        except BaseException:
            self._entries.pop()
            self._by_id.pop(entry.id, None)
            self._leaf_id, self._has_conversation = leaf, had_conversation
            if isinstance(entry, LabelEntry):
                if label is None:
                    self._labels.pop(entry.target_id, None)
                else:
                    self._labels[entry.target_id] = label
            raise
        return entry.id

    def _next_id(self) -> str:
        return new_entry_id(self._by_id)

    def append_message(self, message: AgentMessage) -> str:
        return self._append(MessageEntry.of(message, id=self._next_id(), parent_id=self._leaf_id))

    def append_thinking_level_change(self, thinking_level: str) -> str:
        return self._append(
            ThinkingLevelChangeEntry(id=self._next_id(), parent_id=self._leaf_id, thinking_level=thinking_level)
        )

    def append_model_change(self, provider: str, model_id: str) -> str:
        return self._append(
            ModelChangeEntry(id=self._next_id(), parent_id=self._leaf_id, provider=provider, model_id=model_id)
        )

    def append_compaction(
        self,
        summary: str,
        first_kept_entry_id: str | None,
        tokens_before: int,
        details: Any = None,
        from_hook: bool | None = False,
        usage: Any = None,
        system_message: AgentMessage | dict[str, Any] | None = None,
    ) -> str:
        """Record a compaction at the leaf. `first_kept_entry_id` None keeps nothing (the entry names itself).

        `usage` is the summary call's usage; `system_message` the full prompt-and-tools checkpoint. Without
        one, the checkpoint is what the context's system messages declare now, as pi stores it: the
        compacted context then still starts with the prompt and tools, not with the summary.
        """
        entry_id = self._next_id()
        entry = CompactionEntry(
            id=entry_id,
            parent_id=self._leaf_id,
            summary=summary,
            first_kept_entry_id=first_kept_entry_id if first_kept_entry_id is not None else entry_id,
            tokens_before=tokens_before,
            details=details,
            usage=to_jsonable(usage) if usage is not None else None,
            from_hook=from_hook,
        )
        if system_message is None:
            system_message = self._current_checkpoint(iso_to_ms(entry.timestamp))
        checkpoint = to_jsonable(system_message) if system_message is not None else None
        entry.system_message = checkpoint if isinstance(checkpoint, dict) else None
        return self._append(entry)

    def _current_checkpoint(self, timestamp: int) -> AgentMessage | None:
        """The prompt and tools the current context declares, as one full system message (None: none)."""
        from pi.session.system_state import checkpoint_of, replay_system_messages

        state = replay_system_messages(p.message for p in self.build_session_projection())
        if state is None:
            return None
        message = checkpoint_of(state)
        message.timestamp = timestamp
        return message

    def append_usage(self, kind: str, provider: str, model: str, usage: Any, note: str | None = None) -> str:
        """Model work outside the conversation (e.g. ``cache_warm``): counted in totals, never in context."""
        return self._append(
            UsageEntry(
                id=self._next_id(),
                parent_id=self._leaf_id,
                kind=kind,
                provider=provider,
                model=model,
                usage=to_jsonable(usage),
                note=note,
            )
        )

    def append_context_edit(self, target_id: str, replacement: dict[str, Any] | None) -> str:
        """Omit (`replacement` None) or replace the content (``{"content": ...}``) of an earlier entry.

        Raises ValueError ``Entry {id} not found`` / ``… is not on the active branch`` / ``… does not
        contribute editable model content`` (only user, assistant, tool result and custom messages do).
        """
        target = self._by_id.get(target_id)
        if target is None:
            raise ValueError(f"Entry {target_id} not found")
        if all(e.id != target_id for e in path_to(self._leaf_id, self._by_id)):
            raise ValueError(f"Entry {target_id} is not on the active branch")
        editable = isinstance(target, CustomMessageEntry) or (
            isinstance(target, MessageEntry) and target.role in EDITABLE_ROLES
        )
        if not editable:
            raise ValueError(f"Entry {target_id} does not contribute editable model content")
        stored: dict[str, Any] | None = None
        if replacement is not None:
            if "content" not in replacement:
                raise ValueError('A context edit replacement must be null or {"content": ...}')
            stored = {**replacement, "content": to_jsonable(replacement["content"])}
        return self._append(
            ContextEditEntry(id=self._next_id(), parent_id=self._leaf_id, target_id=target_id, replacement=stored)
        )

    def append_custom_entry(self, custom_type: str, data: Any = None) -> str:
        return self._append(
            CustomEntry(id=self._next_id(), parent_id=self._leaf_id, custom_type=custom_type, data=data)
        )

    def append_session_info(self, name: str) -> str:
        """Name the session: line breaks become spaces, the name is trimmed; an empty name clears the title."""
        return self._append(
            SessionInfoEntry(id=self._next_id(), parent_id=self._leaf_id, name=normalize_session_name(name))
        )

    def append_custom_message_entry(self, custom_type: str, content: Any, display: bool, details: Any = None) -> str:
        """`content` is a string or a list of text/image blocks (objects or their JSON dicts)."""
        stored = content if isinstance(content, str) else [to_jsonable(b) for b in content]
        return self._append(
            CustomMessageEntry(
                id=self._next_id(),
                parent_id=self._leaf_id,
                custom_type=custom_type,
                content=stored,
                display=display,
                details=details,
            )
        )

    def append_label_change(self, target_id: str, label: str | None) -> str:
        """Bookmark `target_id` (None or "" clears its label)."""
        if target_id not in self._by_id:
            raise ValueError(f"Entry {target_id} not found")
        return self._append(LabelEntry(id=self._next_id(), parent_id=self._leaf_id, target_id=target_id, label=label))

    def branch(self, entry_id: str) -> None:
        """Move the leaf: the next entry becomes a child of `entry_id` (a sibling branch, in the same file)."""
        if entry_id not in self._by_id:
            raise ValueError(f"Entry {entry_id} not found")
        self._leaf_id = entry_id

    def reset_leaf(self) -> None:
        """Move the leaf before the first entry: the next entry starts a new root."""
        self._leaf_id = None

    def branch_with_summary(
        self,
        branch_from_id: str | None,
        summary: str,
        details: Any = None,
        from_hook: bool | None = False,
        usage: Any = None,
    ) -> str:
        """Move the leaf to `branch_from_id` and record there what the abandoned branch did.

        The entry's `fromId` is the leaf before the move (``"root"`` when there was none).
        """
        if branch_from_id is not None and branch_from_id not in self._by_id:
            raise ValueError(f"Entry {branch_from_id} not found")
        old_leaf = self._leaf_id
        self._leaf_id = branch_from_id
        try:
            return self._append(
                BranchSummaryEntry(
                    id=self._next_id(),
                    parent_id=branch_from_id,
                    from_id=old_leaf if old_leaf is not None else "root",
                    summary=summary,
                    details=details,
                    usage=to_jsonable(usage) if usage is not None else None,
                    from_hook=from_hook,
                )
            )
        except BaseException:
            self._leaf_id = old_leaf
            raise

    def create_branched_session(self, leaf_id: str) -> Path | None:
        """Switch to a new session holding only the path to `leaf_id` (labels on it kept); returns its file."""
        path = without_labels(self.get_branch(leaf_id))
        if not path:
            raise ValueError(f"Entry {leaf_id} not found")
        kept_ids = {e.id for e in path}
        labels: builtins.list[SessionEntry] = []
        parent_id = path[-1].id
        for entry in path:
            label = self._labels.get(entry.id)
            if label:
                label_entry = LabelEntry(
                    id=new_entry_id(kept_ids), parent_id=parent_id, target_id=entry.id, label=label.text
                )
                kept_ids.add(label_entry.id)
                labels.append(label_entry)
                parent_id = label_entry.id
        parent_session = str(self._writer.file) if self._persist and self._writer.file is not None else None
        self.new_session(parent_session=parent_session)
        self._reset_state([*path, *labels])
        if self._persist and self._writer.file is not None and self._has_conversation:
            self._writer.flush(self._header, self._entries)
        return self._writer.file


__all__ = ["SessionManager", "SessionTreeNode", "most_recent_session_file"]
