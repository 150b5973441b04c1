"""/export and /import: the session as an HTML page or a JSONL file, and a JSONL file as the session.

A path may be quoted (`/export "my file.html"`). Relative paths are taken from the session's
working directory. Import copies the file into the session store of the folder it belongs to, so
it keeps its id and working directory, and then continues it.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from pi.app.modes.interactive.pickers.dialogs import confirm_dialog

if TYPE_CHECKING:
    from pi.app.modes.interactive.commands.api import InteractiveApi
    from pi.app.modes.interactive.commands.registry import Handler

IMPORT_USAGE = "Usage: /import <path.jsonl>"


def path_argument(args: str) -> str:
    """The one path in `args`, with surrounding quotes removed (an unbalanced quote is kept as typed)."""
    text = args.strip()
    if not text:
        return ""
    try:
        parts = shlex.split(text)
    except ValueError:
        return text
    return " ".join(parts)


def _resolve(api: InteractiveApi, raw: str) -> Path:
    path = Path(raw).expanduser()
    return path if path.is_absolute() else api.session.cwd / path


def _export_jsonl(api: InteractiveApi, target: Path) -> None:
    from pi.app.atomic_file import write_atomic

    source = api.session.session_file
    if source is None or not Path(source).is_file():
        raise OSError("this session is not saved to a file yet (nothing was sent, or --no-session)")
    write_atomic(target, Path(source).read_text(encoding="utf-8"))


async def cmd_export(api: InteractiveApi, args: str) -> None:
    raw = path_argument(args)
    session = api.session
    try:
        if raw.endswith(".jsonl"):
            target = _resolve(api, raw)
            _export_jsonl(api, target)
        else:
            if raw:
                target = _resolve(api, raw)
            else:
                file = session.session_file
                stem = Path(file).name.removesuffix(".jsonl") if file else session.session_id
                target = session.cwd / f"pi-session-{stem}.html"
            target = Path(session.export_html(str(target)))
    except (OSError, ValueError) as exc:
        api.show_error(f"Failed to export session: {exc}")
        return
    api.show_status(f"Session exported to: {target}")


def import_destination(api: InteractiveApi, source: Path) -> Path:
    """Where the imported file is stored: its own folder's session directory, under its own name."""
    from pi.session.storage import default_session_dir, read_header

    header = read_header(source)
    if header is None or not header.id:
        raise ValueError(f"{source} is not a pi session file (its first line is not a session header)")
    directory = default_session_dir(header.cwd or str(api.session.cwd), api.agent_dir)
    return directory / source.name


async def _import(api: InteractiveApi, source: Path, raw: str) -> None:
    from pi.app.atomic_file import write_atomic

    try:
        destination = import_destination(api, source)
        if destination.resolve() != source.resolve():
            destination.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(destination, source.read_text(encoding="utf-8"))
        await api.session.switch_session(str(destination))
    except (OSError, ValueError) as exc:
        api.show_error(f"Failed to import session: {exc}")
        return
    api.rebuild_chat()
    api.show_status(f"Session imported from: {raw}")


async def cmd_import(api: InteractiveApi, args: str) -> None:
    raw = path_argument(args)
    if not raw or not raw.endswith(".jsonl"):
        api.show_warning(IMPORT_USAGE)
        return
    source = _resolve(api, raw)
    if not source.is_file():
        api.show_error(f"Failed to import session: file not found: {source}")
        return

    def answered(yes: bool) -> None:
        from pi.app.modes.interactive.missing_cwd import ask_in_app

        api.close_selector()
        if not yes:
            api.show_status("Import cancelled")
        elif not ask_in_app(api, source, None, chosen, lambda: api.show_status("Import cancelled")):
            chosen(str(source))

    def chosen(path: str) -> None:
        api.spawn(_import(api, Path(path), raw))

    dialog = confirm_dialog(
        "Import session", f"Replace current session with {raw}?", api.theme, api.keybindings, answered
    )
    api.show_selector(dialog)


HANDLERS: dict[str, Handler] = {"export": cmd_export, "import": cmd_import}

__all__ = ["HANDLERS", "IMPORT_USAGE", "import_destination", "path_argument"]
