"""Which theme file a theme name means, among the files the session offers.

Once the session is built, the offered files (`pi.app.resources.offered_themes`: the user's, the
project's, then the packages', minus those `pi config` switched off) are the only ones a name can
mean, so a theme that was switched off is "not found" rather than loaded. Before that (the trust and
missing-cwd questions), names are looked up in the themes directories.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi.app.agent_session import AgentSession

BUILTIN_NAMES = ("dark", "light", "system")


def theme_dirs(agent_dir: Path, cwd: Path) -> list[Path]:
    return [agent_dir / "themes", cwd / ".pi" / "themes"]


def session_themes(session: AgentSession, agent_dir: Path) -> list[Path]:
    """The theme files `session` offers, in lookup order."""
    from pi.app.resources import offered_themes

    return offered_themes(session.resources, session.cwd, agent_dir)


def theme_target(name: str, offered: Sequence[Path] | None, dirs: Sequence[Path]) -> tuple[str, list[Path]]:
    """`(name or file, directories to search)` to hand `pi.tui.theme.load_theme` for `name`."""
    if offered is None or name in BUILTIN_NAMES or name.endswith(".json") or "/" in name:
        return name, list(dirs)
    match = next((path for path in offered if path.stem == name), None)
    return (str(match), []) if match is not None else (name, [])


def offered_names(offered: Sequence[Path]) -> list[str]:
    """The built-in names, then each offered file's name once."""
    names = list(BUILTIN_NAMES)
    names += [stem for stem in dict.fromkeys(path.stem for path in offered) if stem not in names]
    return names


__all__ = ["BUILTIN_NAMES", "offered_names", "session_themes", "theme_dirs", "theme_target"]
