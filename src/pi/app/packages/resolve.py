"""The packages a process loads: settings entries of both scopes, merged, located and filtered.

This is what the extension and resource loaders use: for each effective package, the selected
extension files (or `entrypoint:<dist>:<name>` names), skill, prompt and theme paths, and the
directories to add to `sys.path` (after the host's entries) before its first extension is imported.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from msgspec import Struct, field

from pi.app.packages.contents import PackageContents, discover_contents, distribution_contents
from pi.app.packages.filters import RESOURCE_TYPES, EffectivePackage, PackageEntry, Scope, merge_scopes, parse_entry
from pi.app.packages.install import PackageInstallError, PackageStore, install_package, is_installed
from pi.app.packages.settings_file import PackageLists, SettingsFileError, read_packages
from pi.app.packages.sources import PackageSource, PackageSourceError, parse_source


def settings_path(store: PackageStore, scope: Scope) -> Path:
    return store.settings_dir(scope) / "settings.json"


def source_of(store: PackageStore, entry: PackageEntry) -> PackageSource:
    """The entry's source; local paths are relative to the settings dir they were written in."""
    return parse_source(entry.source, base_dir=store.settings_dir(entry.scope))


def read_entries(
    store: PackageStore, scope: Scope, warnings: list[str], lists: PackageLists | None = None
) -> list[PackageEntry]:
    """The valid `packages` entries of one scope (project only when trusted); bad ones become warnings.

    With `lists`, a settings file already read through it is not read again."""
    if scope == "project" and not store.project_trusted:
        return []
    path = settings_path(store, scope)
    try:
        raw_entries = lists.read(path) if lists is not None else read_packages(path)
    except SettingsFileError as error:
        warnings.append(str(error))
        return []
    entries: list[PackageEntry] = []
    for raw in raw_entries:
        try:
            entry = parse_entry(raw, scope)
            source_of(store, entry)
        except (ValueError, PackageSourceError) as error:
            warnings.append(f"Skipping package entry {raw!r}: {error}")
            continue
        entries.append(entry)
    return entries


class ResolvedPackage(Struct):
    """One package to load, with what its filters selected (absolute paths, or entry-point names)."""

    source: PackageSource
    scope: Scope
    entry: PackageEntry
    installed: bool
    contents: list[PackageContents] = field(default_factory=list)
    selected: dict[str, list[str]] = field(default_factory=lambda: {t: [] for t in RESOURCE_TYPES})
    site_dirs: list[Path] = field(default_factory=list)


def package_contents(store: PackageStore, source: PackageSource, scope: Scope) -> list[PackageContents]:
    """Declared contents of an installed package (several roots for a wheel shipping several modules)."""
    path = store.install_path(source, scope)
    if source.kind == "pypi":
        return distribution_contents(path, source.name)
    return [discover_contents(path)]


def _select(effective: EffectivePackage, contents: Sequence[PackageContents], resource_type: str) -> list[str]:
    chosen: list[str] = []
    for part in contents:
        declared = part.resources[resource_type]
        for item in effective.select(resource_type, declared):
            chosen.append(item if item.startswith("entrypoint:") else str(part.root / item))
    return chosen


def resolve_packages(
    store: PackageStore, warnings: list[str], lists: PackageLists | None = None
) -> list[ResolvedPackage]:
    """Every effective package in load order (user entries first, project-only entries after)."""
    user = read_entries(store, "user", warnings, lists)
    project = read_entries(store, "project", warnings, lists)
    merged = merge_scopes(user, project, lambda entry: source_of(store, entry).identity)
    resolved: list[ResolvedPackage] = []
    for effective in merged:
        entry = effective.entry
        source = source_of(store, entry)
        try:
            installed = is_installed(store, source, entry.scope)
        except PackageInstallError as error:
            warnings.append(str(error))
            continue
        package = ResolvedPackage(source, entry.scope, entry, installed)
        if installed:
            package.contents = package_contents(store, source, entry.scope)
            package.site_dirs = store.site_dirs(source, entry.scope)
            for resource_type in RESOURCE_TYPES:
                package.selected[resource_type] = _select(effective, package.contents, resource_type)
        resolved.append(package)
    return resolved


async def install_missing(store: PackageStore, packages: Sequence[ResolvedPackage], warnings: list[str]) -> int:
    """Install configured packages that are missing (skipped offline); failures become warnings. Returns installs."""
    count = 0
    for package in packages:
        if package.installed or package.source.kind == "local" or store.offline:
            continue
        try:
            await install_package(store, package.source, package.scope)
        except PackageInstallError as error:
            warnings.append(f"Failed to install package {package.source.raw}: {error}")
            continue
        count += 1
    return count


__all__ = [
    "ResolvedPackage",
    "install_missing",
    "package_contents",
    "read_entries",
    "resolve_packages",
    "settings_path",
    "source_of",
]
