"""Temporary packages from `-e <source>`: installed into a cache, never written to settings.

Cache layout under `<agent dir>/tmp/extensions/` (mode 0700): `pypi/<sha256 8>/<name>/` for PyPI
requirements and `git-<host>/<sha256 8>/<path>` for git sources, the hash taken over the source text,
so two spellings with different versions or refs get separate copies. Each use re-checks the source:
pip upgrades an unpinned requirement, git fetches and resets unless the ref is the checked-out commit.
When offline or when the check fails, the cached copy is used (with a warning); without one, the
source cannot load.

One start asks for a source several times (the trust pass, the resource loader, the extension
loader): `checked_temporary_package` checks it once and hands the same answer to each, until
`forget_checked_temporary_packages` (on `/reload`) asks for a fresh check.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from pi.app.packages.contents import PackageContents, discover_contents, distribution_contents
from pi.app.packages.filters import RESOURCE_TYPES, PackageEntry
from pi.app.packages.install import (
    SITE_DIR,
    PackageInstallError,
    clone_repository,
    ensure_install_root,
    install_clone_dependencies,
    pip_install,
    run_git,
)
from pi.app.packages.resolve import ResolvedPackage
from pi.app.packages.session_resources import (
    PackageResourcePaths,
    collect_resources,
    offline_from_env,
    run_to_completion,
)
from pi.app.packages.sources import (
    NPM_NOT_SUPPORTED,
    PackageSource,
    PackageSourceError,
    is_package_source,
    parse_source,
)


class TemporaryPackageError(Exception):
    """A `-e` package source with no usable copy; the message says why."""


def temporary_root(agent_dir: Path) -> Path:
    return agent_dir / "tmp" / "extensions"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def cache_path(agent_dir: Path, source: PackageSource) -> Path:
    """Where a temporary package is kept (see the module docstring)."""
    root = temporary_root(agent_dir)
    if source.kind == "pypi":
        return root / "pypi" / _digest(source.raw) / source.name
    return root / f"git-{source.host}" / _digest(source.raw) / source.repo_path


def _prepare_root(agent_dir: Path) -> None:
    root = temporary_root(agent_dir)
    ensure_install_root(root)
    os.chmod(root, 0o700)


def _contents(source: PackageSource, path: Path) -> list[PackageContents]:
    if source.kind == "pypi":
        return distribution_contents(path, source.name)
    return [discover_contents(path)]


def _cached(source: PackageSource, path: Path) -> bool:
    if source.kind == "pypi":
        return bool(path.is_dir() and _contents(source, path))
    return (path / ".git").exists()


def _is_commit(ref: str | None) -> bool:
    return ref is not None and len(ref) >= 7 and all(c in "0123456789abcdef" for c in ref.lower())


async def _head(source: PackageSource, path: Path) -> str:
    return (await run_git(source, ["rev-parse", "HEAD"], cwd=path)).stdout.strip()


async def _refresh_git(source: PackageSource, path: Path) -> None:
    """Clone, or bring a clone up to date (a ref that is the checked-out commit is left alone)."""
    if not (path / ".git").exists():
        await clone_repository(source, path)
    else:
        if _is_commit(source.ref) and (await _head(source, path)).startswith(str(source.ref).lower()):
            return
        await run_git(source, ["fetch", "--quiet", "--tags", "--force", "origin"], cwd=path)
        if source.ref is None:
            await run_git(source, ["reset", "--quiet", "--hard", "origin/HEAD"], cwd=path)
        else:
            branch = await _remote_branch(source, path)
            await run_git(source, ["checkout", "--quiet", "--detach", branch or source.ref], cwd=path)
    await install_clone_dependencies(path)


async def _remote_branch(source: PackageSource, path: Path) -> str | None:
    assert source.ref is not None
    listed = await run_git(source, ["branch", "--remotes", "--list", f"origin/{source.ref}"], cwd=path)
    return f"origin/{source.ref}" if listed.stdout.strip() else None


async def _refresh(source: PackageSource, path: Path, agent_dir: Path) -> None:
    _prepare_root(agent_dir)
    if source.kind == "pypi":
        if source.pinned and _cached(source, path):
            return
        await pip_install(path, [source.location])
    else:
        await _refresh_git(source, path)


def _run(source: PackageSource, path: Path, agent_dir: Path) -> None:
    run_to_completion(_refresh(source, path, agent_dir))


def _resolved(source: PackageSource, path: Path) -> ResolvedPackage:
    """The package with everything it declares selected (temporary packages have no filters)."""
    package = ResolvedPackage(source, "user", PackageEntry(source.raw, "user"), True)
    package.contents = _contents(source, path)
    for resource_type in RESOURCE_TYPES:
        package.selected[resource_type] = [
            item if item.startswith("entrypoint:") else str(part.root / item)
            for part in package.contents
            for item in part.resources[resource_type]
        ]
    site = path / SITE_DIR
    package.site_dirs = [path] if source.kind == "pypi" else [site] if site.is_dir() else []
    return package


def resolve_temporary_package(
    source: str, agent_dir: Path, cwd: Path, *, warnings: list[str], offline: bool | None = None
) -> PackageResourcePaths:
    """Install or re-check a `-e` package source and return what it provides.

    Raises TemporaryPackageError when the source is not a package source pi can install, or when it
    could not be installed and no cached copy exists.
    """
    try:
        parsed = parse_source(source, base_dir=cwd)
    except PackageSourceError as error:
        raise TemporaryPackageError(str(error)) from error
    if source.strip().startswith("github:"):
        raise TemporaryPackageError(f"Unsupported package source {source}; use git:github.com/<owner>/<repo>")
    if parsed.kind == "local":
        raise TemporaryPackageError(f"{source} is not a package source")
    path = cache_path(agent_dir, parsed)
    is_offline = offline_from_env() if offline is None else offline
    if not is_offline:
        try:
            _run(parsed, path, agent_dir)
        except PackageInstallError as error:
            if not _cached(parsed, path):
                raise TemporaryPackageError(str(error)) from error
            warnings.append(f"Could not check {source} for updates, using the cached copy: {error}")
    elif not _cached(parsed, path):
        raise TemporaryPackageError(f"Cannot install {source} in offline mode")
    return collect_resources([_resolved(parsed, path)], warnings)


_checked: dict[tuple[str, Path, Path], tuple[PackageResourcePaths | TemporaryPackageError, list[str]]] = {}


def checked_temporary_package(
    source: str, agent_dir: Path, cwd: Path, *, warnings: list[str], offline: bool | None = None
) -> PackageResourcePaths:
    """`resolve_temporary_package`, checked once until `forget_checked_temporary_packages`.

    Every caller gets the first check's warnings and its result (or its error, raised again).
    """
    key = (source, agent_dir, cwd)
    if key not in _checked:
        found: list[str] = []
        try:
            outcome: PackageResourcePaths | TemporaryPackageError = resolve_temporary_package(
                source, agent_dir, cwd, warnings=found, offline=offline
            )
        except TemporaryPackageError as error:
            outcome = error
        _checked[key] = (outcome, found)
    outcome, found = _checked[key]
    warnings.extend(found)
    if isinstance(outcome, TemporaryPackageError):
        raise TemporaryPackageError(str(outcome))
    return outcome


def forget_checked_temporary_packages() -> None:
    """Let the next `checked_temporary_package` check its source again (a reload re-checks `-e` packages)."""
    _checked.clear()


__all__ = [
    "NPM_NOT_SUPPORTED",
    "TemporaryPackageError",
    "cache_path",
    "checked_temporary_package",
    "forget_checked_temporary_packages",
    "is_package_source",
    "resolve_temporary_package",
    "temporary_root",
]
