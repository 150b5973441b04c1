"""Which session file a `pi` run works in (``--session``, ``-c``, ``--fork``, ``--session-id``, ``--no-session``).

A session of another project is only continued as a copy, after the user agrees; a session opened
with ``--session`` runs in the directory it was recorded in. Problems end `pi` through `CliError`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from pi.app.args import Args
from pi.app.cli_errors import CliError, SessionDeclined


def _warn(message: str) -> None:
    sys.stderr.write(f"{message}\n")


def declared_tool_names(manager: Any) -> list[str] | None:
    """The tools a resumed session's system messages declare (None for a new session or none recorded)."""
    if not manager.get_entries():
        return None
    state = manager.get_system_state()
    return list(state.tools) if state is not None else None


def stored_session_cwd(args: Args, manager: Any, cwd: Path, interactive: bool) -> Path | None:
    """The working directory of a session opened with ``--session`` when it is not `cwd` (None: stay).

    A resumed session runs where it was recorded; ``--continue`` and ``--fork`` stay in `cwd`. When
    the recorded directory is gone, only the interactive UI could offer a choice: elsewhere that
    is an error naming both directories and the file.
    """
    if not args.session or not manager.get_entries():
        return None
    stored = Path(manager.get_cwd())
    if stored == cwd:
        return None
    if stored.is_dir():
        return stored
    if interactive:
        return None
    raise CliError(
        f"Stored session working directory does not exist: {stored}\n"
        f"Session file: {manager.get_session_file()}\n"
        f"Current working directory: {cwd}"
    )


def open_session(args: Args, cwd: Path, agent_dir: Path) -> Any:
    """The session this run works in; ``--name`` is recorded first, before anything else is appended.

    A file that is not a session (``--session``, ``--fork``, a session found by id) ends the run with
    one ``Error:`` line naming it; such a file is never overwritten.
    """
    from pi.session.ids import InvalidSessionIdError
    from pi.session.storage import SessionFileError

    try:
        manager = _session_manager(args, cwd, agent_dir)
    except (InvalidSessionIdError, SessionFileError) as exc:
        raise CliError(f"Error: {exc}") from exc
    if args.name is not None:
        manager.append_session_info(args.name)
    return manager


def _session_manager(args: Args, cwd: Path, agent_dir: Path) -> Any:
    from pi.app.cli_config import session_dir_choice
    from pi.session.manager import SessionManager

    session_dir = session_dir_choice(args.session_dir, cwd, agent_dir)
    if args.no_session:
        return SessionManager.in_memory(str(cwd), id=args.session_id)
    if args.fork:
        source = _find_session(args.fork, cwd, agent_dir, session_dir)
        if args.session_id is not None and SessionManager.find_by_id(str(cwd), args.session_id, session_dir, agent_dir):
            raise CliError(f"Session already exists with id '{args.session_id}'")
        return SessionManager.fork_from(
            source, str(cwd), session_dir=session_dir, agent_dir=agent_dir, id=args.session_id
        )
    if args.session_id is not None:
        found = SessionManager.find_by_id(str(cwd), args.session_id, session_dir, agent_dir)
        if found is not None:
            return SessionManager.open(found, session_dir=session_dir)
        _warn(f"Warning: No project session found with id '{args.session_id}'; creating a new session with that id.")
        return SessionManager.create(str(cwd), session_dir=session_dir, agent_dir=agent_dir, id=args.session_id)
    if args.session:
        new_file = _new_session_file(args.session, cwd)
        if new_file is not None:
            return SessionManager.open(new_file, session_dir=session_dir, cwd=str(cwd))
        path, fork = _resolve_session_arg(args.session, cwd, agent_dir, session_dir, args.mode)
        if fork:
            return SessionManager.fork_from(path, str(cwd), session_dir=session_dir, agent_dir=agent_dir)
        return SessionManager.open(path, session_dir=session_dir)
    if args.continue_session:
        return SessionManager.continue_recent(str(cwd), session_dir=session_dir, agent_dir=agent_dir)
    return SessionManager.create(str(cwd), session_dir=session_dir, agent_dir=agent_dir)


def _new_session_file(value: str, cwd: Path) -> Path | None:
    """A ``--session`` path ending in ``.jsonl`` that does not exist yet: the session starts there."""
    if not value.endswith(".jsonl"):
        return None
    path = Path(value).expanduser()
    path = path if path.is_absolute() else cwd / path
    if path.exists():
        return None
    if not path.parent.is_dir():
        raise CliError(f"Error: Cannot create session file {path}: the folder {path.parent} does not exist")
    return path


def _find_session(value: str, cwd: Path, agent_dir: Path, session_dir: str | None) -> str:
    from pi.session.manager import SessionManager

    if _names_a_path(value):
        path = Path(value).expanduser()
        if not path.is_file():
            raise CliError(f"No session found matching '{value}'")
        return str(path.resolve())
    found = SessionManager.find_by_id_prefix(value, str(cwd), session_dir=session_dir, agent_dir=agent_dir)
    if found is None:
        raise CliError(f"No session found matching '{value}'")
    return str(found.info.path)


def _resolve_session_arg(
    value: str, cwd: Path, agent_dir: Path, session_dir: str | None, args_mode: str | None
) -> tuple[str, bool]:
    """(path, fork?): a session of another project is only continued as a copy, and only if the user agrees."""
    from pi.session.manager import SessionManager

    if _names_a_path(value):
        return _find_session(value, cwd, agent_dir, session_dir), False
    found = SessionManager.find_by_id_prefix(value, str(cwd), session_dir=session_dir, agent_dir=agent_dir)
    if found is None:
        raise CliError(f"No session found matching '{value}'")
    if found.in_current_project:
        return str(found.info.path), False
    if args_mode == "rpc":  # stdin carries the commands: no line of it is an answer
        raise CliError(
            f"Error: Session found in different project: {found.info.cwd}\n"
            f"RPC mode cannot ask whether to fork it; run with --fork {value} to continue a copy here."
        )
    if not _user_agrees_to_fork(found.info.cwd):
        raise SessionDeclined()
    return str(found.info.path), True


def confirm_cross_project_session(args: Args, cwd: Path, agent_dir: Path) -> bool:
    """Ask before ``--session <id>`` of another project continues as a copy here; False: the user declined.

    Asked before anything else reads stdin, so that a piped answer (``echo y | pi --session <id> ...``)
    is the answer; what follows it stays for the prompt. Once agreed, the run is a ``--fork`` of that
    session (a new session in `cwd`). Not in RPC mode, whose stdin carries the commands: there
    `open_session` reports the session instead.
    """
    from pi.app.cli_config import session_dir_choice
    from pi.session.manager import SessionManager

    value = args.session
    if value is None or args.mode == "rpc" or args.export is not None or args.list_models or _names_a_path(value):
        return True
    session_dir = session_dir_choice(args.session_dir, cwd, agent_dir)
    found = SessionManager.find_by_id_prefix(value, str(cwd), session_dir=session_dir, agent_dir=agent_dir)
    if found is None or found.in_current_project:
        return True  # opened, or reported as not found, with the rest of the session flags
    if not _user_agrees_to_fork(found.info.cwd):
        return False
    args.session, args.fork = None, str(found.info.path)
    return True


def _names_a_path(value: str) -> bool:
    return "/" in value or "\\" in value or value.endswith(".jsonl")


def _user_agrees_to_fork(session_cwd: str) -> bool:
    """pi's question on stderr (stdout is the answer's in print mode), the answer a line of stdin.

    No answer (stdin closed or at its end) is a no, as any answer but ``y`` or ``yes`` is.
    """
    sys.stderr.write(f"Session found in different project: {session_cwd}\n")
    sys.stderr.write("Fork this session into current directory? [y/N] ")
    sys.stderr.flush()
    try:
        answer = sys.stdin.readline() if sys.stdin is not None else ""
    except (OSError, ValueError):
        answer = ""
    if answer.strip().lower() in ("y", "yes"):
        return True
    sys.stderr.write("Aborted.\n" if answer.endswith("\n") else "\nAborted.\n")
    return False


__all__ = ["confirm_cross_project_session", "declared_tool_names", "open_session", "stored_session_cwd"]
