"""The resources a scope has of its own (not from a package), as `pi config` lists them.

User scope: `~/.pi/agent/extensions`, `skills`, `prompts` and `themes`, `~/.agents/skills`, and the
paths listed in the user settings' `extensions`, `skills`, `prompts` and `themes`. Project scope: the
same under `<cwd>/.pi`, the project's `.agents/skills` directories, and the project settings' paths.
Each is named as a settings switch names it (`-skills/review`), relative to the scope's settings dir.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from pi.app.packages.filters import Scope

if TYPE_CHECKING:
    from pi.app.resources import SettingsScope


class LocalResource(Struct, frozen=True):
    kind: str
    path: str
    """As a switch names it (relative to the scope's settings dir when inside it)."""
    location: Path
    enabled: bool


def local_resources(scope: Scope, base: Path, cwd: Path, settings: dict[str, Any]) -> list[LocalResource]:
    """Every extension, skill, prompt template and theme of the scope itself, in that order."""
    from pi.app.resources import SettingsScope, scope_theme_files

    lists = SettingsScope.of(base, settings)
    found = [*_extensions(base, settings), *_skills(scope, base, cwd, lists), *_prompts(base, lists)]
    found += [("themes", path) for path in scope_theme_files(base, lists)]
    return [_resource(kind, location, base, settings, lists) for kind, location in _unique(found)]


def _resource(kind: str, location: Path, base: Path, settings: dict[str, Any], lists: SettingsScope) -> LocalResource:
    from pi.app.packages.config_items import switched
    from pi.app.resources import switch_path

    path = switch_path(location, base)
    if kind == "extensions":
        entries = settings.get("extensions")
        patterns = [e for e in entries if isinstance(e, str)] if isinstance(entries, list) else []
        return LocalResource(kind, path, location, switched(patterns, path, True))
    return LocalResource(kind, path, location, lists.switch(kind, location, True))


def _unique(found: list[tuple[str, Path]]) -> list[tuple[str, Path]]:
    seen: set[tuple[str, Path]] = set()
    out: list[tuple[str, Path]] = []
    for kind, path in found:
        key = (kind, path.resolve())
        if key not in seen:
            seen.add(key)
            out.append((kind, path))
    return out


def _extensions(base: Path, settings: dict[str, Any]) -> list[tuple[str, Path]]:
    from pi.app.extensions.discovery import resolve_directory, scan_directory

    entries = settings.get("extensions")
    plain = [e for e in entries if isinstance(e, str)] if isinstance(entries, list) else []
    targets = [base / "extensions"]
    targets += [base / Path(e).expanduser() for e in plain if e and e[0] not in "!+-" and not e.startswith("builtin:")]
    found: list[tuple[str, Path]] = []
    for index, target in enumerate(targets):
        if target.is_file():
            found.append(("extensions", target))
            continue
        if not target.is_dir():
            continue
        modules = (None if index == 0 else resolve_directory(target, [])) or scan_directory(target, [])
        found.extend(("extensions", file.parent if kind == "package" else file) for file, kind in modules)
    return found


def _skills(scope: Scope, base: Path, cwd: Path, lists: SettingsScope) -> list[tuple[str, Path]]:
    from pi.app.resources import git_root, resource_path
    from pi.app.skills import load_skills, project_skill_roots, user_skill_roots

    home = Path.home()
    roots = user_skill_roots(base, home) if scope == "user" else project_skill_roots(cwd, home, git_root(cwd))
    roots += [(path, "path") for path in lists.paths("skills")]
    return [("skills", resource_path("skills", skill.path)) for skill in load_skills(roots).skills]


def _prompts(base: Path, lists: SettingsScope) -> list[tuple[str, Path]]:
    from pi.app.prompt_templates import load_prompt_templates

    roots = [(base / "prompts", "local"), *((path, "path") for path in lists.paths("prompts"))]
    return [("prompts", template.path) for template in load_prompt_templates(roots, [])]


__all__ = ["LocalResource", "local_resources"]
