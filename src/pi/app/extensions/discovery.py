"""Finding extensions: which files and packages to load, in which order, and which are switched off.

Locations (extension spec §1.2): `-e` paths from the command line, the user's
`<agent dir>/extensions/`, the project's `.pi/extensions/` (only when the project is trusted),
`extensions` entries of the user and project settings, the `pi.extensions` entry-point group of
installed distributions, and built-in extensions. In a directory, a `.py` file is an extension
(names starting `_` or `.` are helpers), and so is a sub-directory with a manifest
(`pyproject.toml` `[tool.pi] extensions = [...]` or `pi.toml` `extensions = [...]`) or an
`__init__.py`. Settings entries starting `!` (glob), `+` or `-` (path) switch found entries off or on.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from msgspec import Struct, field

from pi.app.extensions import errors
from pi.app.extensions.types import Diagnostic, ExtensionOrigin, ExtensionScope
from pi.app.packages.sources import is_package_source

SourceKind = Literal["file", "package", "entry_point", "builtin", "inline"]
ENTRY_POINT_GROUP = "pi.extensions"
RANK_CLI = -1
RANK_PROJECT_SETTINGS = 0
RANK_PROJECT_AUTO = 1
RANK_USER_SETTINGS = 2
RANK_USER_AUTO = 3
RANK_PACKAGE = 4
RANK_BUILTIN = 5


class ExtensionSource(Struct):
    """One extension to load (or, when `enabled` is False, found but switched off)."""

    path: str
    """How it is named in messages: the absolute file path, `builtin:<name>`, `<inline:name>`, or the
    entry point's `module:attr` value."""
    kind: SourceKind
    scope: ExtensionScope
    origin: ExtensionOrigin
    rank: int
    file: Path | None = None
    """The module file (`__init__.py` for a package)."""
    enabled: bool = True
    factory: Callable[..., Any] | None = None
    entry_point: Any = None
    name: str | None = None
    """Built-in or inline extension name."""
    replaceable: bool = False
    hidden: bool = False
    base_dir: str | None = None

    @property
    def key(self) -> str:
        """What de-duplication compares: the real path of the file, else the display path."""
        return os.path.realpath(self.file) if self.file is not None else self.path


class DiscoveryOptions(Struct):
    cwd: Path
    agent_dir: Path
    project_trusted: bool
    cli_paths: Sequence[str] = ()
    no_extensions: bool = False
    user_entries: Sequence[str] = ()
    """The user settings' `extensions` list (paths relative to the agent dir, and patterns)."""
    project_entries: Sequence[str] = ()
    """The project settings' `extensions` list (paths relative to `<cwd>/.pi`); ignored when untrusted."""
    builtins: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    disabled_builtins: Sequence[str] = ()
    """Built-ins switched off for this run (e.g. `mcp` for `--no-mcp`)."""
    entry_points: bool = True
    """Look at installed distributions' `pi.extensions` entry points."""
    load_builtins: bool = True
    """Load `builtins` by default (else only those named `-e builtin:<name>`)."""
    package_paths: Sequence[Path] = ()
    """Extension files and directories that configured packages provide (load rank 4)."""
    package_entry_points: Sequence[tuple[str, Any]] = ()
    """(label, entry point) of the `pi.extensions` entry points configured packages select."""


class DiscoveryResult(Struct):
    sources: list[ExtensionSource]
    """Everything found, load order; disabled ones included with `enabled=False`."""
    diagnostics: list[Diagnostic]

    def enabled(self) -> list[ExtensionSource]:
        return [s for s in self.sources if s.enabled]


def _is_script(path: Path) -> bool:
    return path.suffix in errors.UNSUPPORTED_SCRIPT_EXTENSIONS


def _manifest_entries(directory: Path) -> list[str] | None:
    """The `extensions` list of the directory's manifest, if it has one."""
    import tomllib

    for name, table_path in (("pyproject.toml", ("tool", "pi")), ("pi.toml", ())):
        manifest = directory / name
        if not manifest.is_file():
            continue
        try:
            data: Any = tomllib.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for key in table_path:
            data = data.get(key) if isinstance(data, dict) else None
        entries = data.get("extensions") if isinstance(data, dict) else None
        if isinstance(entries, list):
            return [str(e) for e in entries]
    return None


def _module_of(path: Path) -> tuple[Path, Literal["file", "package"]] | None:
    if path.is_file() and path.suffix == ".py":
        return path, "file"
    if path.is_dir() and (path / "__init__.py").is_file():
        return path / "__init__.py", "package"
    return None


def resolve_directory(directory: Path, warnings: list[Diagnostic]) -> list[tuple[Path, Literal["file", "package"]]]:
    """The extensions a directory stands for: its manifest's existing entries, else its `__init__.py`."""
    entries = _manifest_entries(directory)
    if entries:
        listed = [m for m in (_module_of(directory / e) for e in entries) if m is not None]
        if listed:
            return listed
    if (directory / "__init__.py").is_file():
        return [(directory / "__init__.py", "package")]
    for script in sorted(p for p in directory.glob("index.*") if _is_script(p)):
        warnings.append(Diagnostic("warning", errors.unsupported_script(str(script)), str(script)))
    return []


def scan_directory(directory: Path, warnings: list[Diagnostic]) -> list[tuple[Path, Literal["file", "package"]]]:
    """Every extension one level inside `directory`, by name."""
    try:
        children = sorted(directory.iterdir(), key=lambda p: p.name)
    except OSError:
        return []
    found: list[tuple[Path, Literal["file", "package"]]] = []
    for child in children:
        if child.name.startswith((".", "_")):
            continue
        if child.is_file():
            if child.suffix == ".py":
                found.append((child, "file"))
            elif _is_script(child):
                warnings.append(Diagnostic("warning", errors.unsupported_script(str(child)), str(child)))
        elif child.is_dir():
            found.extend(resolve_directory(child, warnings))
    return found


def _resolve_entry(raw: str, base: Path) -> Path:
    expanded = Path(os.path.expanduser(raw))
    return Path(os.path.abspath(expanded if expanded.is_absolute() else base / expanded))


def _explicit(path: Path, warnings: list[Diagnostic]) -> list[tuple[Path, Literal["file", "package"]]]:
    """A path named in settings or on the command line: a file, or a directory's extensions."""
    if path.is_file():
        if _is_script(path):
            warnings.append(Diagnostic("warning", errors.unsupported_script(str(path)), str(path)))
            return []
        return [(path, "file")]
    return resolve_directory(path, warnings) or scan_directory(path, warnings)


def _sources(
    found: Iterable[tuple[Path, Literal["file", "package"]]], scope: ExtensionScope, rank: int, base: Path
) -> list[ExtensionSource]:
    return [
        ExtensionSource(
            str(file.parent if kind == "package" else file), kind, scope, "top-level", rank, file, base_dir=str(base)
        )
        for file, kind in found
    ]


def _matches(source: ExtensionSource, pattern: str, base: Path) -> bool:
    candidates = [source.path]
    if source.file is not None:
        shown = Path(source.path)
        candidates.append(os.path.relpath(shown, base))
        candidates.append(shown.name)
    return any(fnmatch.fnmatch(c, pattern) for c in candidates)


def _same(source: ExtensionSource, path: Path) -> bool:
    if source.kind == "builtin":
        return False
    return os.path.realpath(source.path) == os.path.realpath(path) or source.key == os.path.realpath(path)


def apply_patterns(
    sources: list[ExtensionSource],
    patterns: Sequence[str],
    base: Path,
    warnings: list[Diagnostic],
    scope: ExtensionScope,
    rank: int,
) -> None:
    """Switch entries off (`!glob`, `-path`) or on (`+path`, adding it when not found), in order."""
    for pattern in patterns:
        sign, body = pattern[0], pattern[1:].strip()
        if body.startswith("builtin:"):
            for s in sources:
                if s.kind == "builtin" and ((sign == "!" and fnmatch.fnmatch(s.path, body)) or s.path == body):
                    s.enabled = sign == "+"
            continue
        if sign == "!":
            for s in sources:
                if s.kind != "builtin" and _matches(s, body, base):
                    s.enabled = False
            continue
        target = _resolve_entry(body, base)
        hits = [s for s in sources if _same(s, target)]
        for s in hits:
            s.enabled = sign == "+"
        if sign == "+" and not hits and target.exists():
            sources.extend(_sources(_explicit(target, warnings), scope, rank, base))


def _split(entries: Sequence[str]) -> tuple[list[str], list[str]]:
    plain = [e for e in entries if isinstance(e, str) and e and e[0] not in "!+-"]
    patterns = [e for e in entries if isinstance(e, str) and len(e) > 1 and e[0] in "!+-"]
    return plain, patterns


def _settings_sources(
    plain: Sequence[str], base: Path, scope: ExtensionScope, rank: int, warnings: list[Diagnostic]
) -> list[ExtensionSource]:
    out: list[ExtensionSource] = []
    for raw in plain:
        if raw.startswith("builtin:"):
            continue
        target = _resolve_entry(raw, base)
        if not target.exists():
            warnings.append(Diagnostic("warning", errors.missing_path(str(target)), raw))
            continue
        out.extend(_sources(_explicit(target, warnings), scope, rank, base))
    return out


def _cli_sources(options: DiscoveryOptions, diagnostics: list[Diagnostic]) -> list[ExtensionSource]:
    out: list[ExtensionSource] = []
    for raw in options.cli_paths:
        if raw.startswith("builtin:"):
            name = raw.removeprefix("builtin:")
            factory = options.builtins.get(name)
            if factory is None:
                diagnostics.append(
                    Diagnostic("error", errors.failed_to_load(raw, f"Unknown built-in extension: {name}"), raw)
                )
                continue
            out.append(ExtensionSource(raw, "builtin", "temporary", "top-level", RANK_CLI, factory=factory, name=name))
            continue
        if is_package_source(raw):
            out.extend(_temporary_package_sources(raw, options, diagnostics))
            continue
        target = _resolve_entry(raw, options.cwd)
        if not target.exists():
            diagnostics.append(Diagnostic("error", errors.failed_to_load(raw, errors.missing_path(str(target))), raw))
            continue
        out.extend(_sources(_explicit(target, diagnostics), "temporary", RANK_CLI, options.cwd))
    return out


def _temporary_package_sources(
    raw: str, options: DiscoveryOptions, diagnostics: list[Diagnostic]
) -> list[ExtensionSource]:
    """The extensions of a package given to `-e`: fetched into the temporary cache, never added to settings."""
    from pi.app.packages.temporary import TemporaryPackageError, checked_temporary_package

    warnings: list[str] = []
    try:
        resources = checked_temporary_package(raw, options.agent_dir, options.cwd, warnings=warnings)
    except TemporaryPackageError as exc:
        diagnostics.append(Diagnostic("error", errors.failed_to_load(raw, str(exc)), raw))
        return []
    diagnostics.extend(Diagnostic("warning", text, raw) for text in warnings)
    resources.activate_site_dirs()
    entry_points = [(entry.label, entry.entry_point) for entry in resources.entry_points]
    return _package_sources(resources.extensions, entry_points, "temporary", RANK_CLI, diagnostics)


def _entry_point_sources() -> list[ExtensionSource]:
    from importlib.metadata import entry_points

    return [
        ExtensionSource(ep.value, "entry_point", "user", "package", RANK_PACKAGE, entry_point=ep, name=ep.name)
        for ep in entry_points(group=ENTRY_POINT_GROUP)
    ]


def _package_sources(
    paths: Iterable[Path],
    entry_points: Iterable[tuple[str, Any]],
    scope: ExtensionScope,
    rank: int,
    warnings: list[Diagnostic],
) -> list[ExtensionSource]:
    """The extensions a package provides: its extension files and directories, then its selected entry points."""
    out: list[ExtensionSource] = []
    for path in paths:
        for file, kind in _explicit(Path(path), warnings):
            shown = str(file.parent if kind == "package" else file)
            out.append(ExtensionSource(shown, kind, scope, "package", rank, file, base_dir=str(path)))
    for label, ep in entry_points:
        out.append(ExtensionSource(label, "entry_point", scope, "package", rank, entry_point=ep, name=ep.name))
    return out


def _builtin_sources(options: DiscoveryOptions) -> list[ExtensionSource]:
    if not options.load_builtins:
        return []
    return [
        ExtensionSource(
            f"builtin:{name}",
            "builtin",
            "user",
            "top-level",
            RANK_BUILTIN,
            factory=factory,
            name=name,
            replaceable=True,
            enabled=name not in options.disabled_builtins,
        )
        for name, factory in options.builtins.items()
    ]


def _patterned(
    sources: list[ExtensionSource],
    builtins: list[ExtensionSource],
    patterns: Sequence[str],
    base: Path,
    warnings: list[Diagnostic],
    scope: ExtensionScope,
    rank: int,
) -> list[ExtensionSource]:
    """`sources` after the scope's patterns (which may also switch built-ins, shared, on or off)."""
    pool = [*sources, *builtins]
    apply_patterns(pool, patterns, base, warnings, scope, rank)
    return [s for s in pool if s.kind != "builtin"]


def discover_extensions(options: DiscoveryOptions) -> DiscoveryResult:
    """Every extension for this run, in load order (CLI first, then by rank), de-duplicated by real path."""
    diagnostics: list[Diagnostic] = []
    cli = _cli_sources(options, diagnostics)
    ranked: list[ExtensionSource] = []
    if not options.no_extensions:
        user_plain, user_patterns = _split(options.user_entries)
        user = _settings_sources(user_plain, options.agent_dir, "user", RANK_USER_SETTINGS, diagnostics)
        user += _sources(
            scan_directory(options.agent_dir / "extensions", diagnostics), "user", RANK_USER_AUTO, options.agent_dir
        )
        builtins = _builtin_sources(options)
        user = _patterned(user, builtins, user_patterns, options.agent_dir, diagnostics, "user", RANK_USER_SETTINGS)
        project: list[ExtensionSource] = []
        if options.project_trusted:
            base = options.cwd / ".pi"
            project_plain, project_patterns = _split(options.project_entries)
            project = _settings_sources(project_plain, base, "project", RANK_PROJECT_SETTINGS, diagnostics)
            project += _sources(scan_directory(base / "extensions", diagnostics), "project", RANK_PROJECT_AUTO, base)
            project = _patterned(
                project, builtins, project_patterns, base, diagnostics, "project", RANK_PROJECT_SETTINGS
            )
        packages = _entry_point_sources() if options.entry_points else []
        packages += _package_sources(
            options.package_paths, options.package_entry_points, "user", RANK_PACKAGE, diagnostics
        )
        ranked = sorted(project + user + packages + builtins, key=lambda s: s.rank)
    seen: set[str] = set()
    ordered: list[ExtensionSource] = []
    for source in [*cli, *ranked]:
        if source.key in seen:
            continue
        seen.add(source.key)
        ordered.append(source)
    return DiscoveryResult(ordered, diagnostics)


def inline_sources(factories: Sequence[Any]) -> list[ExtensionSource]:
    """SDK inline factories: plain callables or `{name, factory, hidden?, replaceable?}` dicts."""
    out: list[ExtensionSource] = []
    for index, item in enumerate(factories):
        spec = item if isinstance(item, Mapping) else {"factory": item}
        name = spec.get("name")
        label = f"<inline:{name if name else index}>"
        out.append(
            ExtensionSource(
                label,
                "inline",
                "temporary",
                "top-level",
                RANK_BUILTIN + 1,
                factory=spec["factory"],
                name=name,
                replaceable=bool(spec.get("replaceable")),
                hidden=bool(spec.get("hidden")),
            )
        )
    return out


__all__ = [
    "ENTRY_POINT_GROUP",
    "DiscoveryOptions",
    "DiscoveryResult",
    "ExtensionSource",
    "apply_patterns",
    "discover_extensions",
    "inline_sources",
    "resolve_directory",
    "scan_directory",
]
