"""One session: a tree of entries in memory, mirrored line by line into a JSONL file.

The file is append-only while the session runs: a new entry is one appended line, moving the leaf
(`branch`) appends nothing, and the next entry simply names an older parent, so every branch ever
taken stays in the same file. A new session writes nothing until the first assistant reply exists,
so a prompt that failed before any answer leaves no empty file behind.
"""

from __future__ import annotations

import builtins
import dataclasses
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi.agent.messages import AgentMessage
from pi.session.context import SessionContext, build_session_context, path_to
from pi.session.entries import (
    ENTRY_TYPES,
    BranchSummaryEntry,
    CompactionEntry,
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
    entry_from_dict,
    iso_now,
    new_entry_id,
)
from pi.session.listing import (
    FoundSession,
    SessionInfo,
    find_session_by_id_prefix,
    list_all_sessions,
    list_sessions,
)
from pi.session.migrate import migrate_lines
from pi.session.storage import (
    SessionFileError,
    append_lines,
    default_session_dir,
    dumps_line,
    gc_paused,
    read_header,
    read_session_file,
    session_file_name,
    write_file_atomic,
)


@dataclass(slots=True)
class SessionTreeNode:
    entry: SessionEntry
    children: list[SessionTreeNode] = field(default_factory=list)
    """Sorted oldest first."""
    label: str | None = None


class SessionManager:
    """A session's entries, its current leaf and its file. Build one with the class methods."""

    def __init__(
        self,
        cwd: str,
        session_dir: Path | None,
        session_file: Path | None,
        persist: bool,
        *,
        fsync: bool = False,
    ) -> None:
        self._cwd = cwd
        self._session_dir = session_dir
        self._persist = persist
        self._fsync = fsync
        self.warnings: list[str] = []
        """Lines skipped or kept unread while loading (torn writes, hand edits, newer entry shapes)."""
        self._header = SessionHeader(id="", timestamp="", cwd=cwd)
        self._entries: list[SessionEntry] = []
        self._by_id: dict[str, SessionEntry] = {}
        self._labels: dict[str, str] = {}
        self._leaf_id: str | None = None
        self._session_file: Path | None = None
        self._on_disk = False
        self._written = 0
        self._has_assistant = False
        self._needs_newline = False
        if session_file is not None:
            self.set_session_file(session_file)
        else:
            self.new_session()

    # --- construction -----------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        cwd: str,
        session_dir: str | Path | None = None,
        agent_dir: str | Path | None = None,
        *,
        fsync: bool = False,
    ) -> SessionManager:
        """A new session of `cwd`, stored under the project's session directory once it has a reply."""
        directory = Path(session_dir) if session_dir is not None else default_session_dir(cwd, agent_dir)
        return cls(cwd, directory, None, True, fsync=fsync)

    @classmethod
    def open(
        cls,
        path: str | Path,
        session_dir: str | Path | None = None,
        *,
        cwd: str | None = None,
        fsync: bool = False,
    ) -> SessionManager:
        """The session stored at `path` (its cwd comes from its header); a missing file starts a new one there.

        Raises SessionFileError when the file exists but its first line is not a session header.
        """
        file = Path(path).absolute()
        header = read_header(file) if file.exists() else None
        session_cwd = header.cwd if header is not None and header.cwd else (cwd or os.getcwd())
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
        """The project's most recently written session (by file mtime), or a new one."""
        directory = Path(session_dir) if session_dir is not None else default_session_dir(cwd, agent_dir)
        recent = most_recent_session_file(directory)
        return cls(cwd, directory, recent, True, fsync=fsync)

    @classmethod
    def in_memory(cls, cwd: str | None = None) -> SessionManager:
        """A session that is never written to disk."""
        return cls(cwd or os.getcwd(), None, None, False)

    @classmethod
    def fork_from(
        cls,
        source_path: str | Path,
        target_cwd: str,
        session_dir: str | Path | None = None,
        agent_dir: str | Path | None = None,
        *,
        fsync: bool = False,
    ) -> SessionManager:
        """A new session of `target_cwd` holding a copy of every entry of `source_path` (e.g. another project's)."""
        source = Path(source_path).absolute()
        raw = read_session_file(source)
        if not raw.lines or SessionHeader.from_dict(raw.lines[0]) is None:
            raise SessionFileError(f"Cannot fork: source session file is empty or invalid: {source}")
        migrate_lines(raw.lines)
        directory = Path(session_dir) if session_dir is not None else default_session_dir(target_cwd, agent_dir)
        timestamp = iso_now()
        header = SessionHeader(id=str(uuid.uuid4()), timestamp=timestamp, cwd=target_cwd, parent_session=str(source))
        target = directory / session_file_name(timestamp, header.id)
        write_file_atomic(target, [dumps_line(header.to_dict()), *(dumps_line(d) for d in raw.lines[1:])], fsync=fsync)
        return cls(target_cwd, directory, target, True, fsync=fsync)

    def new_session(self, id: str | None = None, parent_session: str | None = None) -> Path | None:
        """Start over with an empty tree (and, when persisted, a new file name); returns that file."""
        timestamp = iso_now()
        self._header = SessionHeader(
            id=id or str(uuid.uuid4()), timestamp=timestamp, cwd=self._cwd, parent_session=parent_session
        )
        self._reset_state([])
        self._on_disk = False
        self._written = 0
        self._needs_newline = False
        self._session_file = None
        if self._persist and self._session_dir is not None:
            self._session_file = self._session_dir / session_file_name(timestamp, self._header.id)
        return self._session_file

    def set_session_file(self, path: str | Path) -> None:
        """Load the session at `path` into this manager (a missing or empty file starts a new session there)."""
        with gc_paused():
            self._load(Path(path).absolute())

    def _load(self, file: Path) -> None:
        raw = read_session_file(file) if file.exists() else None
        if raw is None or (not raw.lines and not raw.warnings):
            self.new_session()
            self._session_file = file
            self._needs_newline = raw.needs_newline if raw is not None else False
            return
        header = SessionHeader.from_dict(raw.lines[0]) if raw.lines else None
        if header is None:
            raise SessionFileError(
                f"{file} is not a pi session file: its first line is not a session header "
                '({"type":"session","id":...}). Open another file or start a new session.'
            )
        migrated = migrate_lines(raw.lines)
        header = SessionHeader.from_dict(raw.lines[0]) or header
        entries = [entry_from_dict(d) for d in raw.lines[1:]]
        self.warnings.extend(raw.warnings)
        for entry in entries:
            if isinstance(entry, UnknownEntry) and entry.type in ENTRY_TYPES:
                self.warnings.append(f"{file}: entry {entry.id or '?'} of type {entry.type!r} has an unexpected shape")
        self._header = header
        self._session_file = file
        self._reset_state(entries)
        self._on_disk = True
        self._written = len(entries)
        self._needs_newline = raw.needs_newline
        if migrated:
            self._rewrite()

    def _reset_state(self, entries: list[SessionEntry]) -> None:
        self._entries = entries
        self._by_id = {}
        self._labels = {}
        self._leaf_id = None
        self._has_assistant = False
        for entry in entries:
            self._index(entry)

    def _index(self, entry: SessionEntry) -> None:
        if not entry.id:
            return
        self._by_id[entry.id] = entry
        self._leaf_id = entry.id
        if isinstance(entry, LabelEntry):
            if entry.label:
                self._labels[entry.target_id] = entry.label
            else:
                self._labels.pop(entry.target_id, None)
        elif isinstance(entry, MessageEntry) and entry.role == "assistant":
            self._has_assistant = True

    # --- writing ----------------------------------------------------------------------------------

    def _persist_pending(self) -> None:
        """Write what the file lacks: everything on the first flush, then one line per new entry.

        A failed write (disk full) raises and leaves the entries pending; the next append retries them.
        The first flush replaces the (absent or empty) file whole, so it never leaves half a header; a
        later append that failed may have left half a line, so the retry starts on a fresh line.
        """
        if not self._persist or self._session_file is None:
            return
        if not self._on_disk and not self._has_assistant:
            return
        if not self._on_disk:
            self._rewrite()
            return
        lines = [dumps_line(e.to_dict()) for e in self._entries[self._written :]]
        try:
            append_lines(self._session_file, lines, leading_newline=self._needs_newline, fsync=self._fsync)
        except BaseException:
            self._needs_newline = True
            raise
        self._written = len(self._entries)
        self._needs_newline = False

    def _rewrite(self) -> None:
        if not self._persist or self._session_file is None:
            return
        lines = [dumps_line(self._header.to_dict()), *(dumps_line(e.to_dict()) for e in self._entries)]
        write_file_atomic(self._session_file, lines, fsync=self._fsync)
        self._on_disk = True
        self._written = len(self._entries)
        self._needs_newline = False

    def _append(self, entry: SessionEntry) -> str:
        self._entries.append(entry)
        self._index(entry)
        self._persist_pending()
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
        first_kept_entry_id: str,
        tokens_before: int,
        details: Any = None,
        from_hook: bool | None = None,
    ) -> str:
        return self._append(
            CompactionEntry(
                id=self._next_id(),
                parent_id=self._leaf_id,
                summary=summary,
                first_kept_entry_id=first_kept_entry_id,
                tokens_before=tokens_before,
                details=details,
                from_hook=from_hook,
            )
        )

    def append_custom_entry(self, custom_type: str, data: Any = None) -> str:
        return self._append(
            CustomEntry(id=self._next_id(), parent_id=self._leaf_id, custom_type=custom_type, data=data)
        )

    def append_session_info(self, name: str) -> str:
        return self._append(SessionInfoEntry(id=self._next_id(), parent_id=self._leaf_id, name=name.strip()))

    def append_custom_message_entry(self, custom_type: str, content: Any, display: bool, details: Any = None) -> str:
        """`content` is a string or a list of text/image blocks (objects or their JSON dicts)."""
        stored = content if isinstance(content, str) else [_block_json(b) for b in content]
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

    # --- the tree ---------------------------------------------------------------------------------

    def get_leaf_id(self) -> str | None:
        return self._leaf_id

    def get_leaf_entry(self) -> SessionEntry | None:
        return self._by_id.get(self._leaf_id) if self._leaf_id is not None else None

    def get_entry(self, entry_id: str) -> SessionEntry | None:
        return self._by_id.get(entry_id)

    def get_label(self, entry_id: str) -> str | None:
        return self._labels.get(entry_id)

    def get_branch(self, from_id: str | None = None) -> builtins.list[SessionEntry]:
        """Entries from the root to `from_id` (default: the leaf), root first."""
        return path_to(from_id if from_id is not None else self._leaf_id, self._by_id)

    def get_children(self, parent_id: str) -> builtins.list[SessionEntry]:
        return [e for e in self._entries if e.parent_id == parent_id and e.id]

    def get_tree(self) -> builtins.list[SessionTreeNode]:
        """Every entry as a forest (orphans become roots), children oldest first."""
        nodes: dict[str, SessionTreeNode] = {}
        for entry in self._entries:
            if entry.id:
                nodes[entry.id] = SessionTreeNode(entry, label=self._labels.get(entry.id))
        roots: list[SessionTreeNode] = []
        for node in nodes.values():
            parent_id = node.entry.parent_id
            parent = nodes.get(parent_id) if parent_id is not None else None
            if parent is None or parent is node:
                roots.append(node)
            else:
                parent.children.append(node)
        for node in nodes.values():
            if len(node.children) > 1:
                node.children.sort(key=lambda n: n.entry.timestamp)
        return roots

    def branch(self, entry_id: str) -> None:
        """Move the leaf: the next entry becomes a child of `entry_id` (a sibling branch, in the same file)."""
        if entry_id not in self._by_id:
            raise ValueError(f"Entry {entry_id} not found")
        self._leaf_id = entry_id

    def reset_leaf(self) -> None:
        """Move the leaf before the first entry: the next entry starts a new root."""
        self._leaf_id = None

    def branch_with_summary(
        self, branch_from_id: str | None, summary: str, details: Any = None, from_hook: bool | None = None
    ) -> str:
        """Move the leaf to `branch_from_id` and record there what the abandoned branch did."""
        if branch_from_id is not None and branch_from_id not in self._by_id:
            raise ValueError(f"Entry {branch_from_id} not found")
        self._leaf_id = branch_from_id
        return self._append(
            BranchSummaryEntry(
                id=self._next_id(),
                parent_id=branch_from_id,
                from_id=branch_from_id if branch_from_id is not None else "root",
                summary=summary,
                details=details,
                from_hook=from_hook,
            )
        )

    def create_branched_session(self, leaf_id: str) -> Path | None:
        """Switch to a new session holding only the path to `leaf_id` (labels on it kept); returns its file."""
        path = _without_labels(self.get_branch(leaf_id))
        if not path:
            raise ValueError(f"Entry {leaf_id} not found")
        kept_ids = {e.id for e in path}
        labels: list[SessionEntry] = []
        parent_id = path[-1].id
        for entry in path:
            label = self._labels.get(entry.id)
            if label:
                label_entry = LabelEntry(
                    id=new_entry_id(kept_ids), parent_id=parent_id, target_id=entry.id, label=label
                )
                kept_ids.add(label_entry.id)
                labels.append(label_entry)
                parent_id = label_entry.id
        timestamp = iso_now()
        parent_session = str(self._session_file) if self._persist and self._session_file is not None else None
        self._header = SessionHeader(
            id=str(uuid.uuid4()), timestamp=timestamp, cwd=self._cwd, parent_session=parent_session
        )
        self._reset_state([*path, *labels])
        self._on_disk = False
        self._written = 0
        self._needs_newline = False
        if not self._persist or self._session_dir is None:
            self._session_file = None
            return None
        self._session_file = self._session_dir / session_file_name(timestamp, self._header.id)
        if self._has_assistant:
            self._rewrite()
        return self._session_file

    def build_session_context(self) -> SessionContext:
        """The messages, thinking level and model of the current branch."""
        return build_session_context(self._entries, self._leaf_id, self._by_id)

    # --- reading ----------------------------------------------------------------------------------

    def get_entries(self) -> builtins.list[SessionEntry]:
        """Every entry in file order (header excluded)."""
        return builtins.list(self._entries)

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
        return self._session_file

    def is_persisted(self) -> bool:
        return self._persist

    # --- listing (kept last: `list` shadows the builtin inside the class body) --------------------

    @staticmethod
    def find_by_id_prefix(
        prefix: str, cwd: str, session_dir: str | Path | None = None, agent_dir: str | Path | None = None
    ) -> FoundSession | None:
        return find_session_by_id_prefix(prefix, cwd, session_dir, agent_dir)

    @staticmethod
    def list_all(agent_dir: str | Path | None = None) -> builtins.list[SessionInfo]:
        return list_all_sessions(agent_dir)

    @staticmethod
    def list(
        cwd: str, session_dir: str | Path | None = None, agent_dir: str | Path | None = None
    ) -> builtins.list[SessionInfo]:
        """The project's sessions, most recently active first."""
        return list_sessions(cwd, session_dir, agent_dir)


def most_recent_session_file(directory: Path) -> Path | None:
    """The newest file (by mtime) in `directory` that starts with a session header."""
    try:
        candidates = [p for p in directory.iterdir() if p.suffix == ".jsonl" and p.is_file()]
    except OSError:
        return None
    candidates.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    return next((p for p in candidates if read_header(p) is not None), None)


def _without_labels(path: builtins.list[SessionEntry]) -> builtins.list[SessionEntry]:
    """`path` (root first) without its label entries, still one chain.

    Labelling moves the leaf, so the entry after a label names the label as its parent; such an entry
    is re-linked to the entry before the label, or the copy would start a new root there.
    """
    out: builtins.list[SessionEntry] = []
    for entry in path:
        if isinstance(entry, LabelEntry):
            continue
        parent_id = out[-1].id if out else None
        if entry.parent_id != parent_id:
            if isinstance(entry, UnknownEntry):
                entry = dataclasses.replace(entry, parent_id=parent_id, data={**entry.data, "parentId": parent_id})
            else:
                entry = dataclasses.replace(entry, parent_id=parent_id)
        out.append(entry)
    return out


def _block_json(block: Any) -> Any:
    to_json = getattr(block, "to_json_dict", None)
    return to_json() if callable(to_json) else block


__all__ = ["SessionManager", "SessionTreeNode", "most_recent_session_file"]
