"""What the configured packages contribute to a session: extension, skill, prompt and theme paths.

Called on every start and reload, so it stays cheap when no package is configured: it reads the
`packages` lists of the user settings and (when the project is trusted) the project settings, and
returns at once when both are empty, without importing the install machinery. Otherwise it resolves
each effective package (user/project precedence, filters), installs configured packages that are
missing (unless offline), and collects what the filters selected.

A missing package is installed at most once per process, announced through the caller's `notice`
(`Installing <source>...`); a failure is a warning, and the next start or `/reload`
(`forget_install_attempts`) tries again. When everything is installed no network or pip work happens.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Coroutine, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field

from pi.app.packages.settings_file import PackageLists, SettingsFileError

if TYPE_CHECKING:
    from importlib import metadata

    from pi.app.packages.install import PackageStore
    from pi.app.packages.resolve import ResolvedPackage

logger = logging.getLogger(__name__)
ENTRY_POINT_GROUP = "pi.extensions"


class PackageEntryPoint(Struct, frozen=True):
    """A `pi.extensions` entry point of an installed package, named `entrypoint:<dist>:<name>` in filters."""

    label: str
    entry_point: metadata.EntryPoint
    package: str
    """The package source as written in settings."""


class PackageResourcePaths(Struct):
    """Selected resources of every effective package, in package load order.

    `extensions` are extension files or package directories; `entry_points` are the selected
    `pi.extensions` entry points of pip-installed packages. Before importing any of them, call
    `activate_site_dirs()` so the packages' own dependencies (and entry-point modules) can be imported.
    """

    extensions: list[Path] = field(default_factory=list)
    skills: list[Path] = field(default_factory=list)
    prompts: list[Path] = field(default_factory=list)
    themes: list[Path] = field(default_factory=list)
    entry_points: list[PackageEntryPoint] = field(default_factory=list)
    site_dirs: list[Path] = field(default_factory=list)
    owners: dict[Path, str] = field(default_factory=dict)
    """Extension path → the package source that provides it (for messages)."""
    changelogs: list[PackageChangelog] = field(default_factory=list)

    def activate_site_dirs(self) -> None:
        """Append the packages' import directories to `sys.path`, after the host's own entries (idempotent)."""
        for directory in self.site_dirs:
            text = str(directory)
            if text not in sys.path:
                sys.path.append(text)


class PackageChangelog(Struct, frozen=True):
    """A package that loads at least one extension, with its changelog file and installed version."""

    identity: str
    source: str
    path: Path | None
    version: str | None


def offline_from_env() -> bool:
    return os.environ.get("PI_OFFLINE", "").strip().lower() in ("1", "true", "yes")


def _configured(agent_dir: Path, cwd: Path, project_trusted: bool, warnings: list[str], lists: PackageLists) -> bool:
    files = [agent_dir / "settings.json"] + ([cwd / ".pi" / "settings.json"] if project_trusted else [])
    for path in files:
        try:
            if lists.read(path):
                return True
        except SettingsFileError as error:
            warnings.append(str(error))
    return False


def package_resources(
    agent_dir: Path,
    cwd: Path,
    *,
    project_trusted: bool,
    warnings: list[str],
    offline: bool | None = None,
    install_missing: bool = True,
    notice: Callable[[str], None] | None = None,
    lists: PackageLists | None = None,
) -> PackageResourcePaths:
    """The resources of the packages in settings (project packages only when `project_trusted`).

    Problems (bad entries, failed installs, module name clashes) are appended to `warnings`; they are
    never fatal. `offline` defaults to `PI_OFFLINE`; offline, missing packages are skipped. `notice`
    is told of each install before it starts. `lists` holds the settings' package lists as an earlier
    step read them (`install_missing_packages` at start-up), so the files are not read again.
    """
    lists = lists if lists is not None else PackageLists()
    if not _configured(agent_dir, cwd, project_trusted, warnings, lists):
        return PackageResourcePaths()
    from pi.app.packages.resolve import resolve_packages

    store = _store(agent_dir, cwd, project_trusted, offline)
    scratch: list[str] = []
    packages = resolve_packages(store, scratch, lists)
    if install_missing and _install_once(store, packages, scratch, notice):
        packages = resolve_packages(store, [], lists)
    for package in packages:
        if not package.installed:
            if package.source.kind == "local":
                scratch.append(f"Package directory does not exist: {package.source.location}")
            elif store.offline:
                scratch.append(f"Package {package.source.raw} is not installed (offline mode)")
    warnings.extend(dict.fromkeys(scratch))
    return collect_resources([p for p in packages if p.installed], warnings)


def install_missing_packages(
    agent_dir: Path,
    cwd: Path,
    *,
    project_trusted: bool,
    warnings: list[str],
    notice: Callable[[str], None] | None = None,
    offline: bool | None = None,
    lists: PackageLists | None = None,
) -> None:
    """Install the configured packages that are missing, before anything of the session is shown.

    Cheap when no package is configured or all are installed (settings and install paths are read,
    nothing is imported from pip or git). Each package is tried once per process (see the module
    docstring); failures go to `warnings` and are logged. Pass the same `lists` to `package_resources`
    later, and the settings files are read once for both.
    """
    lists = lists if lists is not None else PackageLists()
    if not _configured(agent_dir, cwd, project_trusted, warnings, lists):
        return
    from pi.app.packages.resolve import resolve_packages

    store = _store(agent_dir, cwd, project_trusted, offline)
    _install_once(store, resolve_packages(store, warnings, lists), warnings, notice)


def _store(agent_dir: Path, cwd: Path, project_trusted: bool, offline: bool | None) -> PackageStore:
    from pi.app.packages.install import PackageStore

    return PackageStore(agent_dir, cwd, project_trusted, offline=offline_from_env() if offline is None else offline)


_attempted: set[tuple[str, str, str]] = set()
"""(settings dir, scope, identity) of every install tried in this process."""


def forget_install_attempts() -> None:
    """Let missing packages be tried again (a `/reload` retries failed installs)."""
    _attempted.clear()


def _install_once(
    store: PackageStore, packages: list[ResolvedPackage], warnings: list[str], notice: Callable[[str], None] | None
) -> bool:
    """Install the missing, not yet tried packages (none offline); True when some install was tried."""
    if store.offline:
        return False
    pending: list[ResolvedPackage] = []
    for package in packages:
        key = (str(store.settings_dir(package.scope)), package.scope, package.source.identity)
        if package.installed or package.source.kind == "local" or key in _attempted:
            continue
        _attempted.add(key)
        pending.append(package)
    if not pending:
        return False
    failures: list[str] = []
    run_to_completion(_install_each(store, pending, failures, notice))
    warnings.extend(failures)
    _log_once(failures)
    return True


async def _install_each(
    store: PackageStore, packages: list[ResolvedPackage], failures: list[str], notice: Callable[[str], None] | None
) -> None:
    from pi.app.packages.resolve import install_missing

    for package in packages:
        if notice is not None:
            notice(f"Installing {package.source.raw}...")
        await install_missing(store, [package], failures)


_logged: set[str] = set()


def _log_once(messages: Iterable[str]) -> None:
    """Log problems the user must see even without `--verbose` (failed installs, module clashes), once per process."""
    for message in messages:
        if message not in _logged:
            _logged.add(message)
            logger.warning("%s", message)


def run_to_completion(work: Coroutine[Any, Any, object]) -> None:
    """Run async package work from synchronous code: in a fresh loop, or on a worker thread with its own
    loop when a loop already runs here (resources are gathered synchronously from async callers too)."""
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(work)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, work).result()


def collect_resources(packages: list[ResolvedPackage], warnings: list[str]) -> PackageResourcePaths:
    """Turn resolved, installed packages into paths, entry points and import directories."""
    result = PackageResourcePaths()
    loading: list[ResolvedPackage] = []
    for package in packages:
        selected = package.selected
        extensions = [Path(p) for p in selected["extensions"] if not p.startswith("entrypoint:")]
        labels = [p for p in selected["extensions"] if p.startswith("entrypoint:")]
        result.extensions.extend(extensions)
        for path in extensions:
            result.owners[path] = package.source.raw
        for kind in ("skills", "prompts", "themes"):
            getattr(result, kind).extend(Path(p) for p in selected[kind])
        if labels:
            result.entry_points.extend(_entry_points(package, labels))
        if extensions or labels:
            loading.append(package)
            result.site_dirs.extend(d for d in package.site_dirs if d not in result.site_dirs)
            result.changelogs.append(_changelog(package))
    clashes = module_clashes(loading)
    warnings.extend(clashes)
    _log_once(clashes)
    return result


def _entry_points(package: ResolvedPackage, labels: list[str]) -> list[PackageEntryPoint]:
    from importlib import metadata

    wanted = set(labels)
    found: list[PackageEntryPoint] = []
    for dist in metadata.distributions(path=[str(d) for d in package.site_dirs]):
        name = dist.metadata["Name"] or ""
        for point in dist.entry_points:
            label = f"entrypoint:{name}:{point.name}"
            if point.group == ENTRY_POINT_GROUP and label in wanted:
                found.append(PackageEntryPoint(label, point, package.source.raw))
    return found


def _changelog(package: ResolvedPackage) -> PackageChangelog:
    contents = package.contents[0] if package.contents else None
    changelog = contents.changelog_path if contents is not None else None
    path = contents.root / changelog if contents is not None and changelog else None
    return PackageChangelog(package.source.identity, package.source.raw, path, contents.version if contents else None)


def _top_level_modules(directory: Path) -> set[str]:
    try:
        children = list(directory.iterdir())
    except OSError:
        return set()
    names: set[str] = set()
    for child in children:
        if child.name.startswith((".", "_")) or child.name.endswith((".dist-info", ".data", ".egg-info")):
            continue
        if child.is_dir() and (child / "__init__.py").is_file():
            names.add(child.name)
        elif child.is_file() and child.suffix == ".py":
            names.add(child.stem)
    return names


def module_clashes(packages: list[ResolvedPackage]) -> list[str]:
    """Warnings for top-level modules that two packages' import directories both provide.

    Python has one module namespace: whichever copy is imported first serves both packages.
    """
    owner: dict[str, str] = {}
    messages: list[str] = []
    for package in packages:
        for directory in package.site_dirs:
            for module in sorted(_top_level_modules(directory)):
                first = owner.setdefault(module, package.source.raw)
                if first != package.source.raw:
                    messages.append(
                        f'Packages {first} and {package.source.raw} both provide the Python module "{module}"; '
                        f"only one copy can be imported (the first one found, from {first})"
                    )
    return messages


__all__ = [
    "PackageChangelog",
    "PackageEntryPoint",
    "PackageResourcePaths",
    "collect_resources",
    "forget_install_attempts",
    "install_missing_packages",
    "module_clashes",
    "offline_from_env",
    "package_resources",
    "run_to_completion",
]
