"""Summaries of session files for pickers and ``--session <id prefix>``, read without typing every message.

A picker lists dozens of files; it needs each one's name, first prompt, message count and when the
conversation last moved, not message objects. Files that are not sessions are left out silently.
"""

from __future__ import annotations

import builtins
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from msgspec import Struct

from pi.session.entries import SessionHeader, iso_to_ms
from pi.session.ids import normalize_session_name
from pi.session.migrate import migrate_lines
from pi.session.storage import default_session_dir, read_header, read_session_file, sessions_root


class SessionInfo(Struct, frozen=True):
    """A summary of one session file for pickers and ``--session`` lookups; `created` and `modified` are in UTC."""

    path: Path
    id: str
    cwd: str
    name: str | None
    parent_session_path: str | None
    created: datetime
    modified: datetime
    """Time of the last user or assistant message (the header's time when there is none)."""
    message_count: int
    first_message: str
    """Text of the first user message, or ``(no messages)``."""
    all_messages_text: str
    """Every user and assistant text, for search."""
    written_ns: int = 0
    """The file's mtime in nanoseconds: orders sessions whose last messages share a millisecond."""

    @property
    def recency(self) -> tuple[datetime, int]:
        """What orders sessions by how recently they were active: the last message, then the last write."""
        return (self.modified, self.written_ns)


class FoundSession(Struct, frozen=True):
    """A session found by id prefix, and whether it belongs to the current project."""

    info: SessionInfo
    in_current_project: bool
    """False when the match came from another project's sessions (the caller may offer to fork it)."""


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))
    return ""


def _datetime(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


def session_info(path: str | Path) -> SessionInfo | None:
    """The summary of one file, or None when it is not a session."""
    file = Path(path)
    try:
        raw = read_session_file(file)
        written_ns = file.stat().st_mtime_ns
    except OSError:
        return None
    header = SessionHeader.from_dict(raw.lines[0]) if raw.lines else None
    if header is None:
        return None
    migrate_lines(raw.lines)
    name: str | None = None
    count = 0
    first: str | None = None
    texts: list[str] = []
    last_activity = 0
    for line in raw.lines[1:]:
        kind = line.get("type")
        if kind == "session_info":
            value = line.get("name")
            name = (normalize_session_name(value) or None) if isinstance(value, str) else None
            continue
        message = line.get("message")
        if kind != "message" or not isinstance(message, dict):
            continue
        count += 1
        role = message.get("role")
        if role not in ("user", "assistant"):
            continue
        text = _text_of(message.get("content"))
        if text:
            texts.append(text)
        if role == "user" and first is None and text:
            first = text
        stamp = message.get("timestamp")
        moment = stamp if isinstance(stamp, int | float) else iso_to_ms(str(line.get("timestamp", "")))
        last_activity = max(last_activity, int(moment))
    created_ms = iso_to_ms(header.timestamp)
    created = _datetime(created_ms) if created_ms else datetime.fromtimestamp(written_ns / 1e9, UTC)
    if last_activity > 0:
        modified = _datetime(last_activity)
    else:
        modified = created if created_ms else datetime.fromtimestamp(written_ns / 1e9, UTC)
    return SessionInfo(
        path=file,
        id=header.id,
        cwd=header.cwd,
        name=name,
        parent_session_path=header.parent_session,
        created=created,
        modified=modified,
        message_count=count,
        first_message=first if first is not None else "(no messages)",
        all_messages_text=" ".join(texts),
        written_ns=written_ns,
    )


def _session_files(directory: Path) -> list[Path]:
    try:
        return [p for p in directory.iterdir() if p.suffix == ".jsonl" and p.is_file()]
    except OSError:
        return []


def _project_dirs(agent_dir: str | Path | None) -> list[Path]:
    root = sessions_root(agent_dir) / "sessions"
    try:
        return [p for p in root.iterdir() if p.is_dir()]
    except OSError:
        return []


def _newest_first(files: list[Path]) -> list[SessionInfo]:
    infos = [info for info in map(session_info, files) if info is not None]
    infos.sort(key=lambda i: i.recency, reverse=True)
    return infos


def list_sessions_in(directory: Path) -> list[SessionInfo]:
    """Sessions of one directory, most recently active first."""
    return _newest_first(_session_files(directory))


def is_custom_dir(cwd: str, session_dir: str | Path | None, agent_dir: str | Path | None = None) -> bool:
    """True when `session_dir` is not the project's default one: it may hold other projects' sessions too."""
    if session_dir is None:
        return False
    return Path(session_dir).absolute() != default_session_dir(cwd, agent_dir).absolute()


def _in_scope(path: Path, cwd: str | None) -> bool:
    """`path` is a session (of `cwd`, when given), judged by its header alone."""
    header = read_header(path)
    return header is not None and (cwd is None or header.cwd == cwd)


def most_recent_session_file(directory: Path, cwd: str | None = None) -> Path | None:
    """The newest file (by mtime) in `directory` that starts with a session header (of `cwd`, when given)."""
    candidates = _session_files(directory)
    candidates.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    return next((p for p in candidates if _in_scope(p, cwd)), None)


def list_sessions(
    cwd: str, session_dir: str | Path | None = None, agent_dir: str | Path | None = None
) -> list[SessionInfo]:
    """The project's sessions; in a custom session directory only those whose header `cwd` is `cwd`."""
    directory = Path(session_dir) if session_dir is not None else default_session_dir(cwd, agent_dir)
    if is_custom_dir(cwd, session_dir, agent_dir):
        return _newest_first([f for f in _session_files(directory) if _in_scope(f, cwd)])
    return list_sessions_in(directory)


def find_session_by_id(
    cwd: str, session_id: str, session_dir: str | Path | None = None, agent_dir: str | Path | None = None
) -> Path | None:
    """The file of the project's session whose id is exactly `session_id`, from headers only."""
    directory = Path(session_dir) if session_dir is not None else default_session_dir(cwd, agent_dir)
    scope = cwd if is_custom_dir(cwd, session_dir, agent_dir) else None
    for path in _session_files(directory):
        header = read_header(path)
        if header is not None and header.id == session_id and (scope is None or header.cwd == scope):
            return path
    return None


def list_all_sessions(agent_dir: str | Path | None = None) -> list[SessionInfo]:
    """Sessions of every project, most recently active first."""
    return _newest_first([f for d in _project_dirs(agent_dir) for f in _session_files(d)])


def _with_id_prefix(files: list[Path], prefix: str) -> list[SessionInfo]:
    """The sessions among `files` whose id starts with `prefix`: the one with exactly that id first, then
    the others newest first; only their bodies are read."""
    headers = [(f, h) for f in files if (h := read_header(f)) is not None and h.id.startswith(prefix)]
    exact = [f for f, h in headers if h.id == prefix]
    return _newest_first(exact) + _newest_first([f for f, h in headers if h.id != prefix])


def find_session_by_id_prefix(
    prefix: str, cwd: str, session_dir: str | Path | None = None, agent_dir: str | Path | None = None
) -> FoundSession | None:
    """The session whose id is `prefix`, else the newest whose id starts with it: this project's first.

    Then every session: those of all projects, or, with a `session_dir`, every session kept there
    (a custom directory shared by several projects). Ids are matched on the headers alone: a lookup
    costs one line per file, not every session's history.
    """
    if not prefix:
        return None
    directory = Path(session_dir) if session_dir is not None else default_session_dir(cwd, agent_dir)
    files = _session_files(directory)
    if is_custom_dir(cwd, session_dir, agent_dir):
        files = [f for f in files if _in_scope(f, cwd)]
    for info in _with_id_prefix(files, prefix):
        return FoundSession(info, True)
    if session_dir is not None:
        everywhere = _session_files(directory)
    else:
        everywhere = [f for d in _project_dirs(agent_dir) for f in _session_files(d)]
    for info in _with_id_prefix(everywhere, prefix):
        return FoundSession(info, info.cwd == cwd)
    return None


class SessionDirectoryQueries:
    """Finding and listing session files, offered on `SessionManager` as static methods.

    Kept in a class of its own, after everything else: `list` shadows the builtin inside it.
    """

    @staticmethod
    def find_by_id(
        cwd: str, session_id: str, session_dir: str | Path | None = None, agent_dir: str | Path | None = None
    ) -> Path | None:
        """The file of the project's session with exactly this id (reads headers only)."""
        return find_session_by_id(cwd, session_id, session_dir, agent_dir)

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


__all__ = [
    "FoundSession",
    "SessionDirectoryQueries",
    "SessionInfo",
    "find_session_by_id",
    "find_session_by_id_prefix",
    "is_custom_dir",
    "list_all_sessions",
    "list_sessions",
    "list_sessions_in",
    "most_recent_session_file",
    "session_info",
]
