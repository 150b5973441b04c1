"""The resources `pi config` can switch on and off, and how a switch is written to settings.

Three kinds of rows, per scope (user: `~/.pi/agent/settings.json`, project: `<cwd>/.pi/settings.json`):

- built-in extensions, switched by `-builtin:<name>` / `+builtin:<name>` in the scope's `extensions`
  (a project entry overrides the user one);
- the scope's own extensions, skills, prompt templates and themes (its directories and the paths its
  settings list, `pi.app.packages.config_local`), switched by `-<path>` / `+<path>` in the scope's list
  of that kind (`-extensions/<file>`, `-skills/<name>`);
- what each package declares (extensions, skills, prompt templates, themes), switched by `+path` /
  `-path` filters of the package's entry. In the project scope the user's packages are listed too;
  switching one of them writes a project entry with `autoload: false`, a filtering delta that leaves
  the user entry as it is.

Every change rewrites the settings file atomically, keeping its other keys.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from msgspec import Struct

from pi.app.packages.filters import RESOURCE_TYPES, EffectivePackage, PackageEntry, Scope, parse_entry
from pi.app.packages.install import PackageInstallError, PackageStore
from pi.app.packages.resolve import package_contents, settings_path, source_of
from pi.app.packages.settings_file import read_settings
from pi.app.packages.sources import settings_form
from pi.atomic_file import write_file_atomically

UNTRUSTED_CONFIG = "Project is not trusted. Use --approve to modify local resource config."
TYPE_TITLES = {"extensions": "Extensions", "skills": "Skills", "prompts": "Prompts", "themes": "Themes"}


class ConfigItem(Struct):
    """One switchable resource. `path` is relative to the package root (or the scope dir, or `builtin:<name>`)."""

    key: str
    group: str
    kind: str
    path: str
    enabled: bool
    identity: str | None = None
    """The package identity (None for built-ins and the scope's own extensions)."""
    location: str = ""
    """Where the resource is on disk (shown as the row's description)."""
    declared: tuple[str, ...] = ()
    """Everything of this kind the package root declares (what filters choose from)."""


def builtin_names() -> list[str]:
    """The built-in extensions this installation ships (`builtin:<name>`)."""
    from pi.app.extensions.builtins import BUILTINS

    return list(BUILTINS)


def _patterns(settings: dict[str, Any], kind: str = "extensions") -> list[str]:
    value = settings.get(kind)
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def switched(patterns: list[str], path: str, default: bool) -> bool:
    """The state `patterns` leave `path` in: the last `+path`/`-path` (or `!glob` match) decides."""
    import fnmatch

    state = default
    for pattern in patterns:
        sign, body = pattern[:1], pattern[1:].strip()
        if sign in "+-" and body == path:
            state = sign == "+"
        elif sign == "!" and fnmatch.fnmatch(path, body):
            state = False
    return state


class ConfigModel:
    """Reads the rows of a scope and writes switches back (see the module docstring)."""

    def __init__(self, agent_dir: Path, cwd: Path, *, project_trusted: bool) -> None:
        self.store = PackageStore(agent_dir, cwd, project_trusted, offline=True)

    def scopes(self) -> list[Scope]:
        return ["user", "project"] if self.store.project_trusted else ["user"]

    def _settings(self, scope: Scope) -> dict[str, Any]:
        return read_settings(settings_path(self.store, scope))

    def _write(self, scope: Scope, data: dict[str, Any]) -> None:
        if scope == "project" and not self.store.project_trusted:
            raise PermissionError(UNTRUSTED_CONFIG)
        path = settings_path(self.store, scope)
        write_file_atomically(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")

    # -- reading ----------------------------------------------------------------------------
    def items(self, scope: Scope) -> list[ConfigItem]:
        return [*self._builtin_items(scope), *self._local_items(scope), *self._package_items(scope)]

    def _builtin_items(self, scope: Scope) -> list[ConfigItem]:
        user = _patterns(self._settings("user"))
        project = _patterns(self._settings("project")) if scope == "project" else []
        rows = []
        for name in builtin_names():
            path = f"builtin:{name}"
            enabled = switched(project, path, switched(user, path, True))
            rows.append(ConfigItem(f"builtin:{name}", "Built-in extensions", "extensions", path, enabled))
        return rows

    def _local_items(self, scope: Scope) -> list[ConfigItem]:
        from pi.app.packages.config_local import local_resources

        base = self.store.settings_dir(scope)
        owner = "User" if scope == "user" else "Project"
        return [
            ConfigItem(
                f"{scope}:{r.kind}:{r.path}" if r.kind != "extensions" else f"{scope}:{r.path}",
                f"{owner} {r.kind}",
                r.kind,
                r.path,
                r.enabled,
                location=str(r.location),
            )
            for r in local_resources(scope, base, self.store.cwd, self._settings(scope))
        ]

    def _entries(self, scope: Scope, data: dict[str, Any] | None = None) -> list[PackageEntry]:
        """The valid package entries of a scope (from `data` instead of the file when given)."""
        if scope == "project" and not self.store.project_trusted:
            return []
        settings = self._settings(scope) if data is None else data
        raw_entries = settings.get("packages")
        entries: list[PackageEntry] = []
        for raw in raw_entries if isinstance(raw_entries, list) else []:
            try:
                entry = parse_entry(raw, scope)
                source_of(self.store, entry)
            except ValueError:
                continue
            entries.append(entry)
        return entries

    def _package_entries(
        self, scope: Scope, data: dict[str, Any] | None = None
    ) -> list[tuple[PackageEntry, EffectivePackage]]:
        """(entry written in `scope` or inherited from the user, filter layers as this scope sees them)."""
        own = self._entries(scope, data)
        if scope == "user":
            return [(e, EffectivePackage(e, source_of(self.store, e).identity, (e,))) for e in own]
        by_id = {source_of(self.store, e).identity: e for e in own}
        result: list[tuple[PackageEntry, EffectivePackage]] = []
        for user_entry in self._entries("user"):
            identity = source_of(self.store, user_entry).identity
            override = by_id.pop(identity, None)
            if override is None:
                result.append((user_entry, EffectivePackage(user_entry, identity, (user_entry,))))
            elif override.autoload:
                result.append((override, EffectivePackage(override, identity, (override,))))
            else:
                result.append((user_entry, EffectivePackage(user_entry, identity, (user_entry, override))))
        result.extend((e, EffectivePackage(e, identity, (e,))) for identity, e in by_id.items())
        return result

    def _package_items(self, scope: Scope) -> list[ConfigItem]:
        rows: list[ConfigItem] = []
        for entry, effective in self._package_entries(scope):
            source = source_of(self.store, entry)
            try:
                contents = package_contents(self.store, source, entry.scope)
            except PackageInstallError:  # project storage without trust: nothing to switch
                continue
            for part in contents:
                for kind in RESOURCE_TYPES:
                    declared = part.resources[kind]
                    chosen = set(effective.select(kind, declared))
                    for path in declared:
                        shown = path if path.startswith("entrypoint:") else str(part.root / path)
                        rows.append(
                            ConfigItem(
                                f"{effective.identity}:{kind}:{path}",
                                entry.source,
                                kind,
                                path,
                                path in chosen,
                                identity=effective.identity,
                                location=shown,
                                declared=tuple(declared),
                            )
                        )
        return rows

    # -- writing ----------------------------------------------------------------------------
    def set_enabled(self, scope: Scope, item: ConfigItem, enabled: bool) -> None:
        """Write the switch for `item` into the scope's settings."""
        if item.identity is not None:
            self._set_package_resource(scope, item, enabled)
            return
        data = self._settings(scope)
        kind = item.kind
        patterns = [p for p in _patterns(data, kind) if not (p[:1] in "+-" and p[1:].strip() == item.path)]
        listed = data.get(kind)
        others = [v for v in listed if not isinstance(v, str)] if isinstance(listed, list) else []
        inherited = True
        if item.path.startswith("builtin:") and scope == "project":
            inherited = switched(_patterns(self._settings("user")), item.path, True)
        if switched(patterns, item.path, inherited) != enabled:
            patterns.append(("+" if enabled else "-") + item.path)
        data[kind] = [*patterns, *others]
        self._write(scope, data)
        item.enabled = enabled

    def _set_package_resource(self, scope: Scope, item: ConfigItem, enabled: bool) -> None:
        data = self._settings(scope)
        raw_entries = data.get("packages") if isinstance(data.get("packages"), list) else []
        entries: list[Any] = list(raw_entries or [])
        index = self._entry_index(scope, entries, item.identity or "")
        if index is None:  # a user package seen from the project: add a filtering delta
            user = next(e for e, eff in self._package_entries(scope) if eff.identity == item.identity)
            form = settings_form(source_of(self.store, user), self.store.settings_dir(scope))
            entries.append({"source": form, "autoload": False})
            index = len(entries) - 1
        entry = entries[index]
        if isinstance(entry, str):
            entry = {"source": entry}
        entries[index] = entry
        patterns = entry.get(item.kind)
        had = list(patterns) if isinstance(patterns, list) else None
        kept = [p for p in had if p not in (f"+{item.path}", f"-{item.path}")] if had is not None else None
        if had and not kept:
            kept = None
        if kept is None:
            entry.pop(item.kind, None)
        else:
            entry[item.kind] = kept
        data["packages"] = entries
        if self._selected(scope, data, item) != enabled:
            # `[]` selects nothing, while a list of only `+path` entries keeps everything: name the path.
            added = item.path if enabled and kept == [] else ("+" if enabled else "-") + item.path
            entry[item.kind] = [*(kept or []), added]
        self._write(scope, data)
        item.enabled = enabled

    def _entry_index(self, scope: Scope, entries: list[Any], identity: str) -> int | None:
        for index, raw in enumerate(entries):
            try:
                entry = parse_entry(raw, scope)
            except ValueError:
                continue
            if source_of(self.store, entry).identity == identity:
                return index
        return None

    def _selected(self, scope: Scope, data: dict[str, Any], item: ConfigItem) -> bool:
        """Whether `item` would load if the scope's settings were `data` (not yet written)."""
        for _entry, effective in self._package_entries(scope, data):
            if effective.identity == item.identity:
                return item.path in effective.select(item.kind, item.declared)
        return False


__all__ = ["TYPE_TITLES", "UNTRUSTED_CONFIG", "ConfigItem", "ConfigModel", "builtin_names", "switched"]
