"""The pending area above the editor: `!` blocks started while the agent works, then the queue.

Queue display: a blank line, then one dim line per message (steers first), cut to the width, and
the hint for restoring them (`↳ Alt+Up to edit all queued messages`, following the keybinding).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi.tui.component import Component
from pi.tui.keybindings import format_key
from pi.tui.text_width import truncate_to_width

if TYPE_CHECKING:
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.theme import Theme


class QueueView:
    """Steering and follow-up messages waiting to be sent (see the module docstring)."""

    def __init__(self, theme: Theme, keybindings: KeybindingsManager) -> None:
        self.theme = theme
        self.keybindings = keybindings
        self.steering: list[str] = []
        self.follow_up: list[str] = []
        self.compaction_queue: list[str] = []
        self._cache: tuple[tuple[object, ...], list[str]] | None = None

    def set_queues(self, steering: list[str], follow_up: list[str]) -> None:
        self.steering = list(steering)
        self.follow_up = list(follow_up)

    @property
    def empty(self) -> bool:
        return not (self.steering or self.follow_up or self.compaction_queue)

    def invalidate(self) -> None:
        self._cache = None

    def _hint(self) -> str:
        keys = self.keybindings.keys("app.message.dequeue")
        label = format_key(keys[0], capitalize=True, macos=self.keybindings.macos) if keys else "Alt+Up"
        return f"↳ {label} to edit all queued messages"

    def render(self, width: int) -> list[str]:
        key = (width, tuple(self.steering), tuple(self.follow_up), tuple(self.compaction_queue))
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        lines: list[str] = []
        if not self.empty:
            entries = [f"Steering: {t}" for t in self.steering]
            entries += [f"Follow-up: {t}" for t in self.follow_up]
            entries += [f"Queued: {t}" for t in self.compaction_queue]
            lines.append("")
            for entry in [*entries, self._hint()]:
                flat = " ".join(entry.split("\n"))
                lines.append(self.theme.dim(truncate_to_width(" " + flat, width)))
        self._cache = (key, lines)
        return lines


class PendingArea:
    """`!` blocks waiting for the run to end, then the queue."""

    def __init__(self, queue: QueueView) -> None:
        self.queue = queue
        self.bash_blocks: list[Component] = []

    def invalidate(self) -> None:
        for block in self.bash_blocks:
            block.invalidate()
        self.queue.invalidate()

    def render(self, width: int) -> list[str]:
        lines: list[str] = []
        for block in self.bash_blocks:
            lines.extend(block.render(width))
        lines.extend(self.queue.render(width))
        return lines


__all__ = ["PendingArea", "QueueView"]
