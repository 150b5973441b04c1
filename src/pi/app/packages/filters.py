"""Settings `packages` entries and the per-type filters that narrow what a package provides.

Per resource type: key omitted → everything; `[]` → nothing; a glob includes what it matches; `!glob`
excludes; `+path` includes one exact path; `-path` excludes one. Filters only ever pick from what the
package declares. User and project settings merge by identity: the project entry wins, unless it has
`autoload: false`, in which case its filters narrow the user entry further.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Mapping, Sequence
from typing import Literal

from msgspec import Struct, field

RESOURCE_TYPES = ("extensions", "skills", "prompts", "themes")
Scope = Literal["user", "project"]


class PackageEntryError(ValueError):
    """A settings entry that is neither a source string nor a `{source, …}` object."""


class PackageEntry(Struct, frozen=True):
    """One `packages` entry of one settings file. `filters[type]` is None when the key is omitted."""

    source: str
    scope: Scope
    filters: Mapping[str, tuple[str, ...] | None] = field(default_factory=dict)
    autoload: bool = True
    is_object: bool = False

    def filter_for(self, resource_type: str) -> tuple[str, ...] | None:
        return self.filters.get(resource_type)


def parse_entry(raw: object, scope: Scope) -> PackageEntry:
    """Read one entry of `packages`; raises PackageEntryError with what is wrong."""
    if isinstance(raw, str):
        return PackageEntry(raw, scope)
    if not isinstance(raw, dict) or not isinstance(raw.get("source"), str) or not raw["source"]:
        raise PackageEntryError('Package entries must be a source string or an object with a "source" string')
    filters: dict[str, tuple[str, ...] | None] = {}
    for resource_type in RESOURCE_TYPES:
        value = raw.get(resource_type)
        if value is None:
            continue
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise PackageEntryError(f'"{resource_type}" of package {raw["source"]} must be a list of strings')
        filters[resource_type] = tuple(value)
    autoload = raw.get("autoload", True)
    if not isinstance(autoload, bool):
        raise PackageEntryError(f'"autoload" of package {raw["source"]} must be true or false')
    return PackageEntry(raw["source"], scope, filters, autoload, is_object=True)


def _matches(path: str, pattern: str) -> bool:
    if fnmatch.fnmatchcase(path, pattern):
        return True
    # `dir/**` also matches `dir/x` and `**/x` matches a top-level `x`.
    if pattern.startswith("**/") and fnmatch.fnmatchcase(path, pattern[3:]):
        return True
    return "/" not in pattern and fnmatch.fnmatchcase(path.rsplit("/", 1)[-1], pattern)


def apply_filter(
    declared: Sequence[str], patterns: Sequence[str] | None, *, start: Sequence[str] | None = None
) -> list[str]:
    """The declared paths a filter keeps, in declared order.

    `start` is what an earlier filter left (a delta narrows it); `+path` may re-add any declared path.
    """
    base = list(declared if start is None else start)
    if patterns is None:
        return base
    includes = [p for p in patterns if p and p[0] not in "!+-"]
    excludes = [p[1:] for p in patterns if p.startswith("!")]
    forced_in = {p[1:] for p in patterns if p.startswith("+")}
    forced_out = {p[1:] for p in patterns if p.startswith("-")}
    has_selection = bool(includes) or not patterns
    kept = {p for p in base if not has_selection or any(_matches(p, g) for g in includes)}
    kept = {p for p in kept if not any(_matches(p, g) for g in excludes)}
    kept |= forced_in & set(declared)
    kept -= forced_out
    return [p for p in declared if p in kept]


class EffectivePackage(Struct, frozen=True):
    """A package to load: its entry, and the filter layers applied in order (the entry's own first)."""

    entry: PackageEntry
    identity: str
    layers: tuple[PackageEntry, ...]

    def select(self, resource_type: str, declared: Sequence[str]) -> list[str]:
        kept: list[str] | None = None
        for layer in self.layers:
            kept = apply_filter(declared, layer.filter_for(resource_type), start=kept)
        return list(declared) if kept is None else kept


def merge_scopes(
    user: Sequence[PackageEntry], project: Sequence[PackageEntry], identity_of: Callable[[PackageEntry], str]
) -> list[EffectivePackage]:
    """User and project entries merged by identity: project entries replace user ones, `autoload: false` narrows.

    A project entry with `autoload: false` and no user entry of the same identity loads nothing.
    Order: user entries in their order (replaced ones in place), then project-only entries.
    """
    project_by_id = {identity_of(e): e for e in project}
    merged: list[EffectivePackage] = []
    seen: set[str] = set()
    for entry in user:
        identity = identity_of(entry)
        if identity in seen:
            continue
        seen.add(identity)
        override = project_by_id.get(identity)
        if override is None:
            merged.append(EffectivePackage(entry, identity, (entry,)))
        elif override.autoload:
            merged.append(EffectivePackage(override, identity, (override,)))
        else:
            merged.append(EffectivePackage(entry, identity, (entry, override)))
    for entry in project:
        identity = identity_of(entry)
        if identity not in seen and entry.autoload:
            seen.add(identity)
            merged.append(EffectivePackage(entry, identity, (entry,)))
    return merged


__all__ = [
    "RESOURCE_TYPES",
    "EffectivePackage",
    "PackageEntry",
    "PackageEntryError",
    "Scope",
    "apply_filter",
    "merge_scopes",
    "parse_entry",
]
