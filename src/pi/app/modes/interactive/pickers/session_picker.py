"""The session picker (`/resume`, `pi --resume`): sessions of this folder or of all, searchable.

Tab switches Current Folder / All, Ctrl+S the sort (Threaded → Recent → Fuzzy), Ctrl+N the
named-only filter, Ctrl+P the path column, Ctrl+R renames (not in the startup picker), Ctrl+D
deletes after a confirmation. Loading, renaming and deleting are the caller's callbacks, so the
picker works before a session exists (`pi --resume`) and inside one (`/resume`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pi.app.modes.interactive.pickers.frame import fit, framed, right_align
from pi.app.modes.interactive.pickers.session_rows import SORTS, SessionRow, Sort, age, arrange, title_of
from pi.tui.input import Input
from pi.tui.keys import matches_key
from pi.tui.select_list import visible_window
from pi.tui.text_width import truncate_to_width, visible_width

if TYPE_CHECKING:
    from pi.session.listing import SessionInfo
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.theme import Theme

Scope = Literal["current", "all"]
NO_SESSION_SELECTED = "No session selected"
DELETE_PROMPT = "Delete session? enter confirm · escape cancel"
SORT_LABELS = {"threaded": "Threaded", "recent": "Recent", "fuzzy": "Fuzzy"}


class SessionPicker:
    def __init__(
        self,
        load: Callable[[Scope], list[SessionInfo]],
        theme: Theme,
        keybindings: KeybindingsManager,
        *,
        on_select: Callable[[SessionInfo], None],
        on_cancel: Callable[[], None],
        on_rename: Callable[[SessionInfo, str], None] | None = None,
        on_delete: Callable[[SessionInfo], None] | None = None,
        current_path: str | None = None,
        max_visible: int = 10,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self.load = load
        self.theme = theme
        self.keybindings = keybindings
        self.on_select = on_select
        self.on_cancel = on_cancel
        self.on_rename = on_rename
        self.on_delete = on_delete
        self.current_path = current_path
        self.max_visible = max_visible
        self.now = now
        self.focused = True
        self.scope: Scope = "current"
        self.sort: Sort = "threaded"
        self.named_only = False
        self.show_path = False
        self.search = Input(theme, prompt="> ", keybindings=keybindings)
        self.confirm_delete = False
        self.rename_input: Input | None = None
        self.message = ""
        self._loaded: dict[Scope, list[SessionInfo]] = {}
        self.rows: list[SessionRow] = []
        self.selected = 0
        self.refresh()

    # -- state ---------------------------------------------------------------------------------
    def sessions(self) -> list[SessionInfo]:
        if self.scope not in self._loaded:
            self._loaded[self.scope] = self.load(self.scope)
        return self._loaded[self.scope]

    def refresh(self, reload: bool = False) -> None:
        if reload:
            self._loaded.clear()
        keep = self.current_row()
        self.rows = arrange(self.sessions(), self.sort, self.search.value, self.named_only)
        paths = [str(r.info.path) for r in self.rows]
        wanted = str(keep.info.path) if keep is not None else None
        self.selected = paths.index(wanted) if wanted in paths else 0

    def current_row(self) -> SessionRow | None:
        rows = self.rows
        return rows[self.selected] if rows and self.selected < len(rows) else None

    # -- input ---------------------------------------------------------------------------------
    def handle_input(self, data: str) -> bool:
        if self.rename_input is not None:
            return self._rename_key(data)
        if self.confirm_delete:
            return self._delete_key(data)
        kb = self.keybindings
        self.message = ""
        row = self.current_row()
        if kb.matches(data, "tui.select.confirm"):
            if row is not None:
                self.on_select(row.info)
        elif kb.matches(data, "tui.select.cancel"):
            self.on_cancel()
        elif matches_key(data, "tab"):
            self.scope = "all" if self.scope == "current" else "current"
            self.selected = 0
            self.refresh()
        elif kb.matches(data, "app.session.toggleSort"):
            self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
            self.refresh()
        elif kb.matches(data, "app.session.toggleNamedFilter"):
            self.named_only = not self.named_only
            self.refresh()
        elif kb.matches(data, "app.session.togglePath"):
            self.show_path = not self.show_path
        elif kb.matches(data, "app.session.rename") and self.on_rename is not None:
            if row is not None:
                self.rename_input = Input(self.theme, prompt="Rename: ", value=row.info.name or "", keybindings=kb)
        elif kb.matches(data, "app.session.delete") or (
            kb.matches(data, "app.session.deleteNoninvasive") and not self.search.value
        ):
            if row is not None and self.on_delete is not None:
                self.confirm_delete = True
        else:
            return self._move_or_type(data)
        return True

    def _move_or_type(self, data: str) -> bool:
        kb = self.keybindings
        count = len(self.rows)
        if kb.matches(data, "tui.select.up"):
            self.selected = (self.selected - 1) % count if count else 0
        elif kb.matches(data, "tui.select.down"):
            self.selected = (self.selected + 1) % count if count else 0
        elif kb.matches(data, "tui.select.pageUp"):
            self.selected = max(0, self.selected - self.max_visible)
        elif kb.matches(data, "tui.select.pageDown"):
            self.selected = max(0, min(count - 1, self.selected + self.max_visible))
        else:
            before = self.search.value
            if not self.search.handle_input(data):
                return False
            if self.search.value != before:
                self.selected = 0
                self.rows = arrange(self.sessions(), self.sort, self.search.value, self.named_only)
        return True

    def _delete_key(self, data: str) -> bool:
        row = self.current_row()
        self.confirm_delete = False
        if self.keybindings.matches(data, "tui.select.confirm") and row is not None and self.on_delete is not None:
            if self.current_path is not None and str(row.info.path) == self.current_path:
                self.message = "Cannot delete the current session"
                return True
            self.on_delete(row.info)
            self.refresh(reload=True)
        return True

    def _rename_key(self, data: str) -> bool:
        field = self.rename_input
        assert field is not None
        row = self.current_row()
        if self.keybindings.matches(data, "tui.select.confirm"):
            self.rename_input = None
            name = " ".join(field.value.split())
            if row is not None and name and self.on_rename is not None:
                self.on_rename(row.info, name)
                self.refresh(reload=True)
        elif self.keybindings.matches(data, "tui.select.cancel"):
            self.rename_input = None
        else:
            field.handle_input(data)
        return True

    def invalidate(self) -> None:
        self.search.invalidate()

    # -- output --------------------------------------------------------------------------------
    def _header(self, width: int) -> list[str]:
        theme = self.theme
        scope_name = "Current Folder" if self.scope == "current" else "All"
        if self.scope == "current":
            scope = theme.fg("accent", "◉ Current Folder") + theme.fg("muted", " | ○ All")
        else:
            scope = theme.fg("muted", "○ Current Folder | ") + theme.fg("accent", "◉ All")
        right = (
            scope
            + "  "
            + theme.fg("muted", "Name: ")
            + theme.fg("accent", "Named" if self.named_only else "All")
            + "  "
            + theme.fg("muted", "Sort: ")
            + theme.fg("accent", SORT_LABELS[self.sort])
        )
        keys = [("ctrl+s", "sort"), ("ctrl+n", "named"), ("ctrl+d", "delete")]
        keys.append(("ctrl+p", f"path ({'on' if self.show_path else 'off'})"))
        if self.on_rename is not None:
            keys.append(("ctrl+r", "rename"))
        dot = theme.fg("muted", " · ")
        return [
            right_align(theme.bold(f"Resume Session ({scope_name})"), right, width),
            theme.fg("dim", "tab") + theme.fg("muted", ' scope · re:<pattern> regex · "phrase" exact'),
            dot.join(theme.fg("dim", k) + theme.fg("muted", " " + w) for k, w in keys),
        ]

    def _row(self, row: SessionRow, selected: bool, width: int) -> str:
        theme = self.theme
        info = row.info
        prefix = theme.fg("accent", "› ") if selected else "  "
        tree = theme.fg("dim", "   " * row.depth + "└─ ") if row.depth else ""
        title = title_of(info)
        is_current = self.current_path is not None and str(info.path) == self.current_path
        if self.show_path:
            short = title if visible_width(title) <= 10 else truncate_to_width(title, 9, "") + "…"
            path = str(info.path)
            room = max(1, width - 2 - visible_width(tree) - visible_width(short) - 1)
            if len(path) > room:
                path = path[: max(0, room - 3)] + "..."
            return prefix + tree + short + " " + theme.fg("dim", path)
        styled = theme.bold(theme.fg("warning", title)) if selected and info.name else title
        if is_current:
            styled = theme.fg("accent", title)
        elif info.name and not selected:
            styled = theme.fg("warning", title)
        right = theme.fg("dim", f"{info.message_count} {age(info.modified, self.now() if self.now else None)}")
        line = right_align(prefix + tree + styled, right, width)
        return theme.bg("selectedBg", line) if selected else line

    def render(self, width: int) -> list[str]:
        theme = self.theme
        body = ["", *self._header(width), ""]
        if self.rename_input is not None:
            body.extend(self.rename_input.render(width))
        else:
            body.extend(self.search.render(width))
        body.append("")
        start = visible_window(self.selected, len(self.rows), self.max_visible)
        for index in range(start, min(len(self.rows), start + self.max_visible)):
            body.append(self._row(self.rows[index], index == self.selected, width))
        if not self.rows:
            body.append(theme.fg("muted", "  No sessions found"))
        if len(self.rows) > self.max_visible:
            body.append(theme.fg("muted", f"  ({self.selected + 1}/{len(self.rows)})"))
        if self.confirm_delete:
            body.extend(["", theme.fg("warning", "  " + DELETE_PROMPT)])
        elif self.message:
            body.extend(["", theme.fg("warning", "  " + self.message)])
        body.append("")
        return framed(theme, width, [fit(line, width) for line in body])


def delete_session_file(info: SessionInfo) -> None:
    """Remove a session file (the picker refuses the current one before calling this)."""
    Path(info.path).unlink(missing_ok=True)


def startup_session_picker(
    cwd: str,
    agent_dir: Path,
    theme: Theme,
    keybindings: KeybindingsManager,
    on_done: Callable[[SessionInfo | None], None],
    session_dir: str | Path | None = None,
) -> SessionPicker:
    """The picker of `pi --resume`, shown before any session is open (so no rename).

    `on_done(None)` means it was cancelled: the caller prints `NO_SESSION_SELECTED` and exits with 0.
    """
    from pi.session.listing import list_all_sessions, list_sessions

    def load(scope: Scope) -> list[SessionInfo]:
        return list_all_sessions(agent_dir) if scope == "all" else list_sessions(cwd, session_dir, agent_dir)

    return SessionPicker(
        load,
        theme,
        keybindings,
        on_select=on_done,
        on_cancel=lambda: on_done(None),
        on_delete=delete_session_file,
    )


__all__ = [
    "DELETE_PROMPT",
    "NO_SESSION_SELECTED",
    "Scope",
    "SessionPicker",
    "delete_session_file",
    "startup_session_picker",
]
