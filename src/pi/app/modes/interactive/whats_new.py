"""What's New at startup: after an update, the changelog entries since the version last seen.

`lastChangelogVersion` in settings.json records the last version whose notes were shown. The first
run only records it; a resumed session with messages never shows the notes. With
`collapseChangelog` (or when this build carries no changelog) a single line points to /changelog.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pi.tui.component import Component

if TYPE_CHECKING:
    from pi.app.modes.interactive.app import InteractiveApp

_HEADING = re.compile(r"^##\s+\[?v?(\d+(?:\.\d+)*)", re.MULTILINE)


def version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text)[:3])


def entries_since(changelog: str, since: str) -> str:
    """The `## <version>` sections newer than `since`, in file order."""
    matches = list(_HEADING.finditer(changelog))
    floor = version_tuple(since)
    parts = []
    for i, m in enumerate(matches):
        if version_tuple(m.group(1)) > floor:
            end = matches[i + 1].start() if i + 1 < len(matches) else len(changelog)
            parts.append(changelog[m.start() : end].strip())
    return "\n\n".join(parts)


class _RuledLine:
    """One dim line between two full-width rules."""

    def __init__(self, app: InteractiveApp, text: str) -> None:
        self.app = app
        self.text = text

    def invalidate(self) -> None:
        return None

    def render(self, width: int) -> list[str]:
        from pi.tui.text_width import truncate_to_width

        theme = self.app.theme
        rule = theme.fg("border", "─" * width)
        return ["", rule, truncate_to_width(" " + self.text, width), rule]


def whats_new(app: InteractiveApp) -> Component | None:
    """The block to show at startup (and record the version), or None."""
    from pi.version import __version__

    settings = app.settings
    last = settings.get("lastChangelogVersion")
    if not isinstance(last, str):
        settings.set("lastChangelogVersion", __version__)
        return None
    if version_tuple(last) >= version_tuple(__version__) or app.session.messages:
        return None
    settings.set("lastChangelogVersion", __version__)
    from pi.app.modes.interactive.commands.info_commands import bundled_changelog

    changelog = bundled_changelog()
    notes = entries_since(changelog, last) if changelog else ""
    if settings.get("collapseChangelog") is True or not notes:
        return _RuledLine(app, f"Updated to v{__version__}. Use /changelog to view full changelog.")
    from pi.app.modes.interactive.commands.blocks import BorderedPanel
    from pi.tui.markdown import Markdown

    return BorderedPanel(app.theme, "What's New", Markdown(notes, app.theme, padding_x=1, padding_y=1))


__all__ = ["entries_since", "version_tuple", "whats_new"]
