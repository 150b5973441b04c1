"""The "Extension Updates" startup notice: changelog entries of packages updated since the last start.

Only packages that load at least one extension take part. The version last seen for each package
(by identity) is kept in `<agent dir>/package-changelogs.json`; the first time a package is seen its
version is recorded without a notice. When a later start finds a newer version, the changelog
sections whose `## [x.y.z]` (or `## x.y.z`) heading is newer than the recorded version and not newer
than the installed one are shown, and the new version is recorded.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi.atomic_file import write_file_atomically

if TYPE_CHECKING:
    from pi.app.packages.session_resources import PackageChangelog
    from pi.tui.component import Component

logger = logging.getLogger(__name__)
STATE_FILE = "package-changelogs.json"
TITLE = "Extension Updates"
_HEADING = re.compile(r"^##\s+\[?v?(\d+(?:\.\d+)*)[^\n]*$", re.MULTILINE)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text)[:4])


def sections_between(changelog: str, after: str, upto: str) -> str:
    """The `## <version>` sections newer than `after` and not newer than `upto`, in file order."""
    headings = list(_HEADING.finditer(changelog))
    low, high = _version(after), _version(upto)
    parts: list[str] = []
    for index, match in enumerate(headings):
        if low < _version(match.group(1)) <= high:
            end = headings[index + 1].start() if index + 1 < len(headings) else len(changelog)
            parts.append(changelog[match.start() : end].strip())
    return "\n\n".join(parts)


def _read_state(path: Path) -> dict[str, str]:
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        logger.debug("ignoring unreadable %s: %s", path, error)
        return {}
    return {k: v for k, v in data.items() if isinstance(v, str)} if isinstance(data, dict) else {}


def pending_updates(agent_dir: Path, changelogs: Sequence[PackageChangelog]) -> str | None:
    """Markdown for the packages updated since they were last seen (None when there is nothing to say).

    Records every package's current version, so each update is announced once.
    """
    state_path = agent_dir / STATE_FILE
    state = _read_state(state_path)
    updated = dict(state)
    blocks: list[str] = []
    for package in changelogs:
        if package.version is None:
            continue
        seen = state.get(package.identity)
        updated[package.identity] = package.version
        if seen is None or _version(package.version) <= _version(seen) or package.path is None:
            continue
        try:
            changelog = package.path.read_text(encoding="utf-8")
        except OSError:
            continue
        notes = sections_between(changelog, seen, package.version)
        if notes:
            blocks.append(f"**{package.source}** {seen} → {package.version}\n\n{_demote(notes)}")
    if updated != state:
        try:
            write_file_atomically(state_path, json.dumps(dict(sorted(updated.items())), indent=2) + "\n")
        except OSError as error:
            logger.warning("Could not record package versions in %s: %s", state_path, error)
    return "\n\n".join(blocks) if blocks else None


def _demote(notes: str) -> str:
    """Changelog headings one level down, so they sit under the package line."""
    return re.sub(r"^(#+)", r"#\1", notes, flags=re.MULTILINE)


def extension_updates_panel(app: Any) -> Component | None:
    """The notice for the interactive startup (`app` is the interactive app), or None."""
    packages = getattr(app.session.resources, "packages", None)
    if packages is None or not packages.changelogs:
        return None
    notes = pending_updates(app.context.agent_dir, packages.changelogs)
    if notes is None:
        return None
    from pi.app.modes.interactive.commands.blocks import BorderedPanel
    from pi.tui.markdown import Markdown

    panel: Component = BorderedPanel(app.theme, TITLE, Markdown(notes, app.theme, padding_x=1, padding_y=1))
    return panel


__all__ = ["STATE_FILE", "TITLE", "extension_updates_panel", "pending_updates", "sections_between"]
