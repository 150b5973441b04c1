"""A basic `/tree`: every entry of the session as a row of the branch structure, Enter to go there.

Rows read `user: …`, `assistant: …`, `[compaction: 12k tokens]`, `[model: id]` and so on; `• `
marks the active path, `› ` the cursor; a branch point shows its children as `├⊟`/`└⊟` with `│`
gutters. Building rows is separate from the component so it can be tested on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi.app.modes.interactive.pickers.frame import fit, rule
from pi.tui.select_list import visible_window

if TYPE_CHECKING:
    from pi.session.entries import SessionEntry
    from pi.session.manager import SessionTreeNode
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.theme import Theme

TITLE = "Session Tree"
HINT = "↑/↓ move · enter go to this point · escape cancel"


@dataclass(frozen=True, slots=True)
class TreeRow:
    entry_id: str
    prefix: str
    text: str
    on_path: bool
    label: str | None = None


def content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        text = block.get("text") if isinstance(block, dict) else getattr(block, "text", None)
        if isinstance(text, str):
            parts.append(text)
    return " ".join(parts)


def _one_line(text: str, limit: int = 200) -> str:
    return " ".join(text.split())[:limit]


def entry_text(entry: SessionEntry) -> str | None:
    """The row text of an entry, or None for entries the tree leaves out (labels)."""
    kind = getattr(entry, "type", "")
    if kind == "message":
        data: dict[str, Any] = getattr(entry, "message_json", {})
        role = data.get("role")
        if role == "user":
            return "user: " + _one_line(content_text(data.get("content")))
        if role == "assistant":
            text = _one_line(content_text(data.get("content")))
            if data.get("stopReason") == "aborted":
                text = f"{text} (aborted)".strip()
            elif data.get("stopReason") == "error":
                text = f"{text} ({data.get('errorMessage') or 'error'})".strip()
            return "assistant: " + (text or "(no content)")
        if role == "toolResult":
            return f"[{data.get('toolName') or 'tool'}]"
        if role == "bashExecution":
            return f"[bash]: {_one_line(str(data.get('command', '')))}"
        return f"[{role}]"
    simple: dict[str, Callable[[Any], str]] = {
        "compaction": lambda e: f"[compaction: {round((e.tokens_before or 0) / 1000)}k tokens]",
        "branch_summary": lambda e: "[branch summary]: " + _one_line(getattr(e, "summary", "")),
        "model_change": lambda e: f"[model: {e.model_id}]",
        "thinking_level_change": lambda e: f"[thinking: {e.thinking_level}]",
        "session_info": lambda e: f"[title: {getattr(e, 'name', '') or ''}]",
        "custom": lambda e: f"[{getattr(e, 'custom_type', 'custom')}]",
        "custom_message": lambda e: f"[{getattr(e, 'custom_type', 'custom')}]: ",
    }
    if kind == "label":
        return None
    make = simple.get(kind)
    return make(entry) if make is not None else f"[{kind}]"


def tree_rows(roots: Sequence[SessionTreeNode], active: set[str]) -> list[TreeRow]:
    """Depth-first rows (iterative: a long session is a very deep tree)."""
    rows: list[TreeRow] = []
    stack: list[tuple[SessionTreeNode, str, str]] = [(r, "", "") for r in reversed(roots)]
    while stack:
        node, gutter, connector = stack.pop()
        text = entry_text(node.entry)
        if text is not None:
            rows.append(TreeRow(node.entry.id, gutter + connector, text, node.entry.id in active, node.label))
        children = node.children
        if len(children) == 1:
            child_gutter = gutter + ("│  " if connector.startswith("├") else "   " if connector else "")
            stack.append((children[0], child_gutter, ""))
            continue
        base = gutter + ("│  " if connector.startswith("├") else "   " if connector else "")
        for index in range(len(children) - 1, -1, -1):
            last = index == len(children) - 1
            stack.append((children[index], base, "└⊟ " if last else "├⊟ "))
    return rows


class TreeView:
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
    ) -> None:
        self.rows = list(rows)
        self.theme = theme
        self.keybindings = keybindings
        self.on_select = on_select
        self.on_cancel = on_cancel
        self.max_visible = max_visible
        self.focused = True
        ids = [r.entry_id for r in self.rows]
        self.selected = ids.index(current_id) if current_id in ids else max(0, len(ids) - 1)

    def invalidate(self) -> None:
        return None

    def handle_input(self, data: str) -> bool:
        kb = self.keybindings
        count = len(self.rows)
        if kb.matches(data, "tui.select.up") and count:
            self.selected = (self.selected - 1) % count
        elif kb.matches(data, "tui.select.down") and count:
            self.selected = (self.selected + 1) % count
        elif kb.matches(data, "tui.select.pageUp"):
            self.selected = max(0, self.selected - self.max_visible)
        elif kb.matches(data, "tui.select.pageDown"):
            self.selected = max(0, min(count - 1, self.selected + self.max_visible))
        elif kb.matches(data, "tui.select.confirm") and count:
            self.on_select(self.rows[self.selected].entry_id)
        elif kb.matches(data, "tui.select.cancel"):
            self.on_cancel()
        else:
            return False
        return True

    def _row(self, row: TreeRow, selected: bool) -> str:
        theme = self.theme
        cursor = "› " if selected else "  "
        dot = theme.fg("accent", "• ") if row.on_path else ""
        label = theme.fg("warning", f"[{row.label}] ") if row.label else ""
        text = theme.bold(row.text) if selected else row.text
        return cursor + theme.fg("dim", row.prefix) + dot + label + text

    def render(self, width: int) -> list[str]:
        theme = self.theme
        lines = [rule(theme, width), "   " + theme.bold(TITLE), theme.fg("muted", "  " + HINT), rule(theme, width)]
        start = visible_window(self.selected, len(self.rows), self.max_visible)
        for index in range(start, min(len(self.rows), start + self.max_visible)):
            lines.append(self._row(self.rows[index], index == self.selected))
        lines.append(theme.fg("muted", f"  ({self.selected + 1 if self.rows else 0}/{len(self.rows)})"))
        lines.append(rule(theme, width))
        return [fit(line, width) for line in lines]


__all__ = ["TITLE", "TreeRow", "TreeView", "content_text", "entry_text", "tree_rows"]
