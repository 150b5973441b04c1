"""What a package provides: extensions, skills, prompt templates and themes, as paths relative to its root.

The manifest is `[tool.pi]` in `pyproject.toml` (source trees) or `pi.toml` (wheels, which do not
install `pyproject.toml`); without one, the conventional directories are walked, skipping what
`.gitignore`, `.ignore` and `.fdignore` exclude. Installed distributions add their `pi.extensions`
entry points, named `entrypoint:<dist>:<name>` so filter patterns can match them.
"""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from pi.app.ignore_files import IgnoreRules
from pi.app.packages.filters import RESOURCE_TYPES
from pi.app.packages.sources import normalize_name

_CONVENTIONAL_SUFFIX = {"prompts": ".md", "themes": ".json"}


class PackageContents(Struct):
    """Declared resources of one package root; paths are POSIX and relative to `root`."""

    root: Path
    resources: dict[str, list[str]] = field(default_factory=lambda: {t: [] for t in RESOURCE_TYPES})
    changelog_path: str | None = "CHANGELOG.md"
    version: str | None = None

    def absolute(self, resource_type: str, selected: list[str] | None = None) -> list[Path]:
        """Selected (default: all) file-system resources of a type; entry-point names are left out."""
        chosen = self.resources[resource_type] if selected is None else selected
        return [self.root / p for p in chosen if not p.startswith("entrypoint:")]


def read_manifest(root: Path) -> dict[str, Any] | None:
    """The `[tool.pi]` table of `pyproject.toml`, else `pi.toml`; None when neither declares one."""
    for name, table in (("pyproject.toml", ("tool", "pi")), ("pi.toml", ())):
        try:
            data: Any = tomllib.loads((root / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for key in table:
            data = data.get(key) if isinstance(data, dict) else None
        if isinstance(data, dict):
            return data
    return None


def project_version(root: Path) -> str | None:
    """`[project].version` of a source tree's `pyproject.toml`."""
    try:
        data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    version = data.get("project", {}).get("version")
    return version if isinstance(version, str) else None


def _relative(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def expand_patterns(root: Path, patterns: list[str]) -> list[str]:
    """Paths and globs relative to `root`, minus `!` exclusions, in order, without duplicates."""
    found: list[str] = []
    for pattern in (p for p in patterns if not p.startswith("!")):
        matches = sorted(root.glob(pattern)) if any(c in pattern for c in "*?[") else [root / pattern]
        for path in matches:
            if path.exists() and path.resolve().is_relative_to(root.resolve()):
                relative = _relative(root, path)
                if relative not in found:
                    found.append(relative)
    excluded = [p[1:] for p in patterns if p.startswith("!")]
    return [p for p in found if not any(Path(p).match(x) or p == x.strip("/") for x in excluded)]


def _walk(directory: Path, rules: IgnoreRules) -> list[Path]:
    """Entries one level inside `directory` that no ignore rule hides."""
    try:
        children = sorted(directory.iterdir())
    except OSError:
        return []
    return [c for c in children if not c.name.startswith(".") and not rules.ignores(c, is_dir=c.is_dir())]


def _conventional(root: Path, resource_type: str, rules: IgnoreRules) -> list[str]:
    directory = root / resource_type
    if not directory.is_dir():
        return []
    rules = rules.extended_by(directory)
    entries = _walk(directory, rules)
    if resource_type == "extensions":
        chosen = [
            e
            for e in entries
            if not e.name.startswith("_")
            and ((e.is_file() and e.suffix == ".py") or (e.is_dir() and (e / "__init__.py").is_file()))
        ]
    elif resource_type == "skills":
        chosen = [e for e in entries if (e.is_dir() and (e / "SKILL.md").is_file()) or e.suffix == ".md"]
    else:
        chosen = [e for e in entries if e.is_file() and e.suffix == _CONVENTIONAL_SUFFIX[resource_type]]
    return [_relative(root, e) for e in chosen]


def discover_contents(root: Path) -> PackageContents:
    """What the package rooted at `root` declares (manifest keys win; missing keys use conventions)."""
    contents = PackageContents(root, version=project_version(root))
    manifest = read_manifest(root) or {}
    rules = IgnoreRules().extended_by(root)
    for resource_type in RESOURCE_TYPES:
        declared = manifest.get(resource_type)
        if isinstance(declared, list):
            contents.resources[resource_type] = expand_patterns(root, [str(p) for p in declared])
        else:
            contents.resources[resource_type] = _conventional(root, resource_type, rules)
    changelog = manifest.get("changelog-path")
    if isinstance(changelog, str):
        contents.changelog_path = changelog or None
    return contents


class InstalledDistribution(Struct, frozen=True):
    """A distribution pip put into a package target dir, with the roots and entry points it contributes."""

    name: str
    version: str
    roots: tuple[Path, ...]
    entry_point_extensions: tuple[str, ...]


def _top_level_dirs(dist: metadata.Distribution, target: Path) -> list[Path]:
    names = {Path(str(f)).parts[0] for f in dist.files or () if len(Path(str(f)).parts) > 1}
    return sorted(
        target / n for n in names if not n.endswith((".dist-info", ".data")) and (target / n / "__init__.py").is_file()
    )


def installed_distributions(target: Path) -> list[InstalledDistribution]:
    """Distributions installed into `target` that are pi packages (a `pi.packages` or `pi.extensions` entry point).

    A `pi.packages` entry point names the module whose directory is the package root; without one,
    each top-level module directory of the distribution is a root.
    """
    found: list[InstalledDistribution] = []
    for dist in metadata.distributions(path=[str(target)]):
        name = dist.metadata["Name"] or ""
        points = list(dist.entry_points)
        packages = [p for p in points if p.group == "pi.packages"]
        extensions = tuple(f"entrypoint:{name}:{p.name}" for p in points if p.group == "pi.extensions")
        if not packages and not extensions:
            continue
        roots = [target / Path(*p.value.split(":")[0].strip().split(".")) for p in packages]
        if not roots:
            roots = _top_level_dirs(dist, target)
        found.append(InstalledDistribution(name, dist.version, tuple(r for r in roots if r.is_dir()), extensions))
    return sorted(found, key=lambda d: d.name)


def distribution_contents(target: Path, name: str | None = None) -> list[PackageContents]:
    """The contents of the pi package distributions in a pip target dir (only `name`'s when given).

    Entry-point extensions are listed with the first root's extensions.
    """
    result: list[PackageContents] = []
    for dist in installed_distributions(target):
        if name is not None and normalize_name(dist.name) != normalize_name(name):
            continue
        if not dist.roots:
            only_entry_points = PackageContents(target, version=dist.version, changelog_path=None)
            only_entry_points.resources["extensions"].extend(dist.entry_point_extensions)
            result.append(only_entry_points)
        for index, root in enumerate(dist.roots):
            contents = discover_contents(root)
            contents.version = dist.version
            if index == 0:
                contents.resources["extensions"].extend(dist.entry_point_extensions)
            result.append(contents)
    return result


__all__ = [
    "InstalledDistribution",
    "PackageContents",
    "discover_contents",
    "distribution_contents",
    "expand_patterns",
    "installed_distributions",
    "project_version",
    "read_manifest",
]
