"""`/tree`: the session's entries as a branch structure, with filters, search, labels and copy (§10.6).

`• ` marks the active path, `› ` the cursor (bold row); labels show as `[label] ` in the warning
colour. Ctrl+D/T/U/L/A pick a filter and Ctrl+O / Shift+Ctrl+O cycle them (the tag after the
counter says which); typed text searches; ←/→ page; Shift+L edits the selected entry's label,
Shift+T shows when labels were set; Ctrl+X copies the selected entry's text. Ctrl+← on a branch
start folds it (`⊞`, its rows hidden) and Ctrl+→ unfolds it; elsewhere they jump to the
previous/next branch start. What the actions do to the session is up to the callbacks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pi.app.modes.interactive.pickers.frame import fit, rule
from pi.app.modes.interactive.pickers.tree_rows import (
    FILTER_MODES,
    FILTER_TAGS,
    FilterMode,
    TreeRow,
    entry_text,
    keep_row,
    matches_query,
    tree_rows,
)
from pi.tui.keys import decode_printable, matches_key
from pi.tui.select_list import visible_window

if TYPE_CHECKING:
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.theme import Theme

TITLE = "Session Tree"
HINT = "↑/↓ move · ←/→ page · ctrl+←/→ branch · ctrl+x copy · shift+l label · shift+t label time"
FILTER_HINT = "filters ctrl+d/t/u/l/a · cycle ctrl+o/shift+ctrl+o"
SEARCH_PROMPT = "Type to search:"

_FILTER_KEYS: dict[str, FilterMode] = {
    "app.tree.filter.default": "default",
    "app.tree.filter.noTools": "no-tools",
    "app.tree.filter.userOnly": "user-only",
    "app.tree.filter.labeledOnly": "labeled-only",
    "app.tree.filter.all": "all",
}


class TreeView:
    """See the module docstring. `on_label(row)` and `on_copy(row)` are optional actions."""

    def __init__(
        self,
        rows: Sequence[TreeRow],
        theme: Theme,
        keybindings: KeybindingsManager,
        *,
        current_id: str | None,
        on_select: Callable[[str], None],
        on_cancel: Callable[[], None],
        max_visible: int = 12,
        filter_mode: str = "default",
        on_label: Callable[[TreeRow], None] | None = None,
        on_copy: Callable[[TreeRow], None] | None = None,
    ) -> None:
        self.all_rows = list(rows)
        self.theme = theme
        self.keybindings = keybindings
        self.on_select = on_select
        self.on_cancel = on_cancel
        self.on_label = on_label
        self.on_copy = on_copy
        self.max_visible = max_visible
        self.focused = True
        self.filter_mode: FilterMode = next((m for m in FILTER_MODES if m == filter_mode), "default")
        self.query = ""
        self.show_label_time = False
        self.folded: set[str] = set()
        self.rows: list[TreeRow] = []
        self.selected = 0
        self._refilter(current_id)

    # --- rows -------------------------------------------------------------------------------
    def _refilter(self, keep_id: str | None) -> None:
        rows = [r for r in self.all_rows if keep_row(r, self.filter_mode)]
        if self.query.strip():
            rows = [r for r in rows if matches_query(r, self.query)]
        self.rows = _without_folded(rows, self.folded)
        ids = [r.entry_id for r in self.rows]
        self.selected = ids.index(keep_id) if keep_id in ids else max(0, len(ids) - 1)

    def set_rows(self, rows: Sequence[TreeRow]) -> None:
        """New rows (after a label change), keeping the cursor on the same entry."""
        keep = self.current_row.entry_id if self.current_row is not None else None
        self.all_rows = list(rows)
        self._refilter(keep)

    @property
    def current_row(self) -> TreeRow | None:
        return self.rows[self.selected] if self.rows else None

    def set_filter(self, mode: FilterMode) -> None:
        keep = self.current_row.entry_id if self.current_row is not None else None
        self.filter_mode = mode
        self._refilter(keep)

    def _cycle_filter(self, step: int) -> None:
        index = FILTER_MODES.index(self.filter_mode)
        self.set_filter(FILTER_MODES[(index + step) % len(FILTER_MODES)])

    def _jump_branch(self, step: int) -> None:
        """The previous/next row that starts a branch (`├`/`└`), else the first/last row."""
        index = self.selected + step
        while 0 <= index < len(self.rows):
            if self.rows[index].prefix.endswith(("├⊟ ", "└⊟ ")):
                self.selected = index
                return
            index += step
        self.selected = 0 if step < 0 else max(0, len(self.rows) - 1)

    def _fold_or_jump(self, *, fold: bool) -> None:
        """Fold (unfold) the branch at the cursor; on anything else, go to the previous (next) branch."""
        row = self.current_row
        if row is not None and _starts_branch(row) and (row.entry_id in self.folded) != fold:
            if fold:
                self.folded.add(row.entry_id)
            else:
                self.folded.discard(row.entry_id)
            self._refilter(row.entry_id)
            return
        self._jump_branch(-1 if fold else 1)

    # --- input ------------------------------------------------------------------------------
    def invalidate(self) -> None:
        return None

    def handle_input(self, data: str) -> bool:
        kb = self.keybindings
        count = len(self.rows)
        action = kb.action_for(
            data,
            [
                *_FILTER_KEYS,
                "app.tree.filter.cycleForward",
                "app.tree.filter.cycleBackward",
                "app.tree.foldOrUp",
                "app.tree.unfoldOrDown",
                "app.tree.editLabel",
                "app.tree.toggleLabelTimestamp",
                "app.message.copy",
            ],
        )
        if action in _FILTER_KEYS:
            self.set_filter(_FILTER_KEYS[action])
        elif action == "app.tree.filter.cycleForward":
            self._cycle_filter(1)
        elif action == "app.tree.filter.cycleBackward":
            self._cycle_filter(-1)
        elif action in ("app.tree.foldOrUp", "app.tree.unfoldOrDown"):
            self._fold_or_jump(fold=action == "app.tree.foldOrUp")
        elif action == "app.tree.editLabel":
            if self.on_label is not None and self.current_row is not None:
                self.on_label(self.current_row)
        elif action == "app.tree.toggleLabelTimestamp":
            self.show_label_time = not self.show_label_time
        elif action == "app.message.copy":
            if self.on_copy is not None and self.current_row is not None:
                self.on_copy(self.current_row)
        elif kb.matches(data, "tui.select.up") and count:
            self.selected = (self.selected - 1) % count
        elif kb.matches(data, "tui.select.down") and count:
            self.selected = (self.selected + 1) % count
        elif kb.matches(data, "tui.select.pageUp") or matches_key(data, "left"):
            self.selected = max(0, self.selected - self.max_visible)
        elif kb.matches(data, "tui.select.pageDown") or matches_key(data, "right"):
            self.selected = max(0, min(count - 1, self.selected + self.max_visible))
        elif kb.matches(data, "tui.select.confirm") and count:
            self.on_select(self.rows[self.selected].entry_id)
        elif kb.matches(data, "tui.select.cancel"):
            self.on_cancel()
        else:
            return self._search_key(data)
        return True

    def _search_key(self, data: str) -> bool:
        keep = self.current_row.entry_id if self.current_row is not None else None
        if data in ("\x7f", "\x08"):
            if not self.query:
                return True
            self.query = self.query[:-1]
        else:
            text = decode_printable(data)
            if text is None:
                return False
            self.query += text
        self._refilter(keep)
        return True

    # --- drawing ----------------------------------------------------------------------------
    def _row(self, row: TreeRow, selected: bool) -> str:
        theme = self.theme
        cursor = "› " if selected else "  "
        dot = theme.fg("accent", "• ") if row.on_path else ""
        label = ""
        if row.label:
            when = f" {row.label_time[11:16]}" if self.show_label_time and row.label_time else ""
            label = theme.fg("warning", f"[{row.label}{when}] ")
        text = theme.bold(row.text) if selected else row.text
        prefix = row.prefix[:-2] + "⊞ " if row.entry_id in self.folded and _starts_branch(row) else row.prefix
        return cursor + theme.fg("dim", prefix) + dot + label + text

    def _counter(self) -> str:
        tags = [FILTER_TAGS[self.filter_mode]] if self.filter_mode in FILTER_TAGS else []
        if self.show_label_time:
            tags.append("[+label time]")
        count = f"({self.selected + 1 if self.rows else 0}/{len(self.rows)})"
        return "  " + " ".join([count, *tags])

    def render(self, width: int) -> list[str]:
        theme = self.theme
        lines = [
            rule(theme, width),
            "   " + theme.bold(TITLE),
            theme.fg("muted", "  " + HINT),
            theme.fg("muted", "  " + FILTER_HINT),
            "  " + SEARCH_PROMPT + (" " + self.query if self.query else ""),
            rule(theme, width),
        ]
        start = visible_window(self.selected, len(self.rows), self.max_visible)
        for index in range(start, min(len(self.rows), start + self.max_visible)):
            lines.append(self._row(self.rows[index], index == self.selected))
        lines.append(theme.fg("muted", self._counter()))
        lines.append(rule(theme, width))
        return [fit(line, width) for line in lines]


def _starts_branch(row: TreeRow) -> bool:
    return row.prefix.endswith(("├⊟ ", "└⊟ "))


def _without_folded(rows: list[TreeRow], folded: set[str]) -> list[TreeRow]:
    """`rows` minus everything under a folded branch start (deeper rows, and same-depth continuations)."""
    if not folded:
        return rows
    out: list[TreeRow] = []
    depth: int | None = None
    for row in rows:
        if depth is not None:
            size = len(row.prefix)
            if size > depth or (size == depth and not _starts_branch(row)):
                continue
            depth = None
        out.append(row)
        if row.entry_id in folded and _starts_branch(row):
            depth = len(row.prefix)
    return out


__all__ = ["TITLE", "TreeRow", "TreeView", "entry_text", "tree_rows"]
