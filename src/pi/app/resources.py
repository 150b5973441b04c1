"""Everything pi reads from the user's config and project before a session starts.

Context files, skills, prompt templates and the system prompt sources (``--system-prompt``, then
``.pi/SYSTEM.md``, then ``~/.pi/agent/SYSTEM.md``; likewise APPEND_SYSTEM.md). Loaded once at start-up
and again on reload; problems are collected as warnings, never fatal.

Installed pi packages (settings ``packages``) add their skills, prompt templates and themes after
the user's and project's own (`pi.app.packages.session_resources`); the same resolution is kept on
`Resources.packages` so extension loading does not repeat it. Packages given to ``-e`` add theirs
too (before the configured packages', as their extensions load first); `reload_packages` re-reads
both for ``/reload``, so a package installed by another `pi` process shows up.

The ``skills``, ``prompts`` and ``themes`` lists of each settings file hold paths (relative to the
agent dir, or to ``<cwd>/.pi`` for the project file) and switches: ``-path`` turns one found resource
off, ``+path`` back on, ``!glob`` turns off what matches (`SettingsScope`; ``pi config`` writes them).

Project resources (``.pi/skills``, ``.agents/skills`` of the project, ``.pi/prompts``,
``.pi/SYSTEM.md``, ``.pi/APPEND_SYSTEM.md``) can steer the model, so they load only when the
project is trusted (`pi.app.trust`). Context files (AGENTS.md, CLAUDE.md) are plain instructions
the user can read and always load unless turned off.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field

from pi.app.context_files import ContextFile, load_context_files
from pi.app.paths import project_dir
from pi.app.prompt_templates import PromptTemplate, load_prompt_templates
from pi.app.skills import Skill, load_skills, project_skill_roots, user_skill_roots
from pi.app.system_prompt import read_text_or_file

if TYPE_CHECKING:
    from pi.app.packages.session_resources import PackageResourcePaths
    from pi.app.packages.settings_file import PackageLists


class SettingsScope(Struct, frozen=True):
    """The resource lists of one settings file, and the directory their relative paths start from."""

    base: Path
    lists: Mapping[str, Sequence[str]]

    @classmethod
    def of(cls, base: Path, data: Mapping[str, Any]) -> SettingsScope:
        lists = {k: [v for v in data.get(k) or [] if isinstance(v, str)] for k in ("skills", "prompts", "themes")}
        return cls(base, lists)

    def paths(self, kind: str) -> list[Path]:
        """The plain entries of `kind` (no switches), as paths."""
        entries = [e for e in self.lists.get(kind, ()) if e and e[0] not in "!+-"]
        return [self.base / Path(e).expanduser() for e in entries]

    def switch(self, kind: str, path: Path, state: bool) -> bool:
        """The state this scope's switches leave `path` in (the last matching one decides)."""
        shown = switch_path(path, self.base)
        for entry in self.lists.get(kind, ()):
            sign, body = entry[:1], entry[1:].strip()
            if sign in "+-" and body and (self.base / Path(body).expanduser()).resolve() == path.resolve():
                state = sign == "+"
            elif sign == "!" and body and (fnmatch.fnmatch(shown, body) or fnmatch.fnmatch(path.name, body)):
                state = False
        return state


def switch_path(path: Path, base: Path) -> str:
    """How a switch names `path`: relative to `base` when inside it, else absolute."""
    return os.path.relpath(path, base) if path.resolve().is_relative_to(base.resolve()) else os.path.normpath(path)


def resource_path(kind: str, file: Path) -> Path:
    """What a switch names for a found file: a skill's directory for `SKILL.md`, else the file."""
    return file.parent if kind == "skills" and file.name == "SKILL.md" else file


def switched_on(kind: str, file: Path, scopes: Sequence[SettingsScope]) -> bool:
    """Whether the settings leave a found resource file on (user switches first, then the project's)."""
    state = True
    for scope in scopes:
        state = scope.switch(kind, resource_path(kind, file), state)
    return state


def _switches(kind: str, opts: ResourceOptions, local_roots: list[Path]) -> Callable[[Path], bool] | None:
    """The `enabled` test for the user's and project's own resources (packages have their own filters)."""
    if not any(scope.lists.get(kind) for scope in opts.settings_scopes):
        return None
    roots = [root.resolve() for root in local_roots]

    def enabled(file: Path) -> bool:
        local = any(file.resolve().is_relative_to(root) for root in roots)
        return not local or switched_on(kind, file, opts.settings_scopes)

    return enabled


class ResourceOptions(Struct):
    """How `load_resources` should look: command-line choices, settings paths and project trust.

    `extra_*` paths (from the command line) are relative to the working directory, `settings_*` paths to the agent dir.
    """

    system_prompt: str | None = None
    append_system_prompt: str | Sequence[str] | None = None
    """One value or several (``--append-system-prompt`` repeats); each is text or a file, joined by blank lines."""
    extra_skill_paths: list[str] = field(default_factory=list)
    extra_template_paths: list[str] = field(default_factory=list)
    no_skills: bool = False
    no_prompt_templates: bool = False
    no_context_files: bool = False
    settings_skill_paths: list[str] = field(default_factory=list)
    settings_template_paths: list[str] = field(default_factory=list)
    settings_scopes: list[SettingsScope] = field(default_factory=list)
    """The user's (then the trusted project's) settings lists: more paths, and switches for what is found."""
    project_trusted: bool = True
    """Whether the project's own resources may load (see `pi.app.trust.resolve_project_trust`)."""
    load_packages: bool = True
    """Whether the packages of the settings contribute resources (project ones only when trusted)."""
    offline: bool | None = None
    """Skip installing missing packages (None: the `PI_OFFLINE` environment variable decides)."""
    temporary_packages: list[str] = field(default_factory=list)
    """Package sources given to ``-e`` (``pypi:``, ``git:``, URLs): their skills, prompts and themes load too."""
    package_notice: Callable[[str], None] | None = None
    """Told ``Installing <source>...`` before a missing package is installed."""
    package_lists: PackageLists | None = None
    """The settings' package lists as already read (the start-up's install step); None reads them."""


class Resources(Struct):
    """What `load_resources` found for one working directory; `reload_packages` updates it in place."""

    context_files: list[ContextFile] = field(default_factory=list)
    skills: list[Skill] = field(default_factory=list)
    templates: list[PromptTemplate] = field(default_factory=list)
    themes: list[Path] = field(default_factory=list)
    """Theme files provided by packages (the interactive UI also looks in the themes directories)."""
    packages: PackageResourcePaths | None = None
    """What the configured packages provide (None when packages were not loaded)."""
    temporary_packages: list[PackageResourcePaths] = field(default_factory=list)
    """What the ``-e`` packages provide (those that could not load are reported by the extension loader)."""
    options: ResourceOptions | None = None
    """The options these resources were loaded with (a reload loads them again the same way)."""
    custom_system_prompt: str | None = None
    append_system_prompt: str | None = None
    warnings: list[str] = field(default_factory=list)
    """Every problem found, skills' and templates' included (conflicts are kept apart)."""
    skill_warnings: list[str] = field(default_factory=list)
    skill_conflicts: list[str] = field(default_factory=list)
    template_warnings: list[str] = field(default_factory=list)
    offered_theme_files: tuple[Path, Path, list[Path]] | None = None
    """`(cwd, agent dir, files)` of the last `offered_themes` answer: listed once per load and `/reload`."""

    def diagnostic_groups(self) -> list[tuple[str, list[str]]]:
        """The problems under the labels a user sees them with, e.g. "[Skill warnings]"; empty groups left out."""
        skill_or_template = set(self.skill_warnings) | set(self.template_warnings)
        groups = [
            ("[Skill warnings]", self.skill_warnings),
            ("[Skill conflicts]", self.skill_conflicts),
            ("[Prompt template warnings]", self.template_warnings),
            ("[Resource warnings]", [w for w in self.warnings if w not in skill_or_template]),
        ]
        return [(label, items) for label, items in groups if items]


def git_root(cwd: Path) -> Path | None:
    for directory in [cwd, *cwd.parents]:
        if (directory / ".git").exists():
            return directory
    return None


def _first_file(*candidates: Path) -> str | None:
    for path in candidates:
        try:
            if path.is_file():
                return path.read_text(encoding="utf-8").removeprefix("\ufeff")
        except OSError:
            continue
    return None


def local_skill_roots(cwd: Path, agent_dir: Path, opts: ResourceOptions) -> list[tuple[Path, str]]:
    """The user's and (when trusted) the project's own skill directories and settings paths."""
    roots = user_skill_roots(agent_dir, Path.home())
    if opts.project_trusted:
        roots.extend(project_skill_roots(cwd, Path.home(), git_root(cwd)))
    roots.extend((agent_dir / Path(p).expanduser(), "path") for p in opts.settings_skill_paths)
    roots.extend((path, "path") for scope in opts.settings_scopes for path in scope.paths("skills"))
    return roots


def local_template_roots(cwd: Path, agent_dir: Path, opts: ResourceOptions) -> list[tuple[Path, str]]:
    """The user's and (when trusted) the project's own prompt template directories and settings paths."""
    roots = [(agent_dir / "prompts", "user")]
    if opts.project_trusted:
        roots.append((project_dir(cwd) / "prompts", "project"))
    roots.extend((agent_dir / Path(p).expanduser(), "path") for p in opts.settings_template_paths)
    roots.extend((path, "path") for scope in opts.settings_scopes for path in scope.paths("prompts"))
    return roots


def _load_skills(cwd: Path, agent_dir: Path, opts: ResourceOptions, resources: Resources) -> None:
    sources: list[tuple[Path, str]] = []
    if not opts.no_skills:
        sources.extend(local_skill_roots(cwd, agent_dir, opts))
        sources.extend((path, "package") for found in _all_packages(resources) for path in found.skills)
    sources.extend((cwd / Path(p).expanduser(), "path") for p in opts.extra_skill_paths)
    loaded = load_skills(
        sources, _switches("skills", opts, [root for root, _ in local_skill_roots(cwd, agent_dir, opts)])
    )
    resources.skills = loaded.skills
    resources.warnings.extend(loaded.warnings)
    resources.skill_warnings.extend(loaded.warnings)
    resources.skill_conflicts.extend(loaded.conflicts)


def _load_templates(cwd: Path, agent_dir: Path, opts: ResourceOptions, resources: Resources) -> None:
    sources: list[tuple[Path, str]] = []
    if not opts.no_prompt_templates:
        sources.extend(local_template_roots(cwd, agent_dir, opts))
        sources.extend((path, "package") for found in _all_packages(resources) for path in found.prompts)
    sources.extend((cwd / Path(p).expanduser(), "path") for p in opts.extra_template_paths)
    local = [root for root, _ in local_template_roots(cwd, agent_dir, opts)]
    resources.templates = load_prompt_templates(sources, resources.template_warnings, _switches("prompts", opts, local))
    resources.warnings.extend(resources.template_warnings)


def _all_packages(resources: Resources) -> list[PackageResourcePaths]:
    """The ``-e`` packages, then the configured ones: the order their resources are looked at."""
    return [*resources.temporary_packages, *([resources.packages] if resources.packages is not None else [])]


def _resolve_packages(
    cwd: Path, agent_dir: Path, opts: ResourceOptions, warnings: list[str]
) -> tuple[PackageResourcePaths | None, list[PackageResourcePaths]]:
    """(configured packages or None when not loaded, the ``-e`` packages that could load)."""
    configured = None
    if opts.load_packages:
        from pi.app.packages.session_resources import package_resources

        configured = package_resources(
            agent_dir,
            cwd,
            project_trusted=opts.project_trusted,
            warnings=warnings,
            offline=opts.offline,
            notice=opts.package_notice,
            lists=opts.package_lists,
        )
    temporary: list[PackageResourcePaths] = []
    if opts.temporary_packages:
        from pi.app.packages.temporary import TemporaryPackageError, checked_temporary_package

        for source in opts.temporary_packages:
            try:
                found = checked_temporary_package(source, agent_dir, cwd, warnings=[], offline=opts.offline)
            except TemporaryPackageError:
                continue  # the extension loader reports it as a load failure
            temporary.append(found)
    return configured, temporary


def _apply_packages(
    resources: Resources, found: tuple[PackageResourcePaths | None, list[PackageResourcePaths]]
) -> None:
    resources.packages, resources.temporary_packages = found
    resources.themes = [path for paths in _all_packages(resources) for path in paths.themes]


async def reload_packages(resources: Resources, cwd: Path, agent_dir: Path) -> None:
    """Resolve the packages again (installing missing ones, re-checking ``-e`` ones) and reload the
    skills and prompt templates, so what another process installed since the start takes effect.

    The slow part (pip, git) runs on a worker thread; `resources` is updated in place afterwards.
    """
    import asyncio

    import msgspec.structs

    from pi.app.packages.session_resources import forget_install_attempts
    from pi.app.packages.temporary import forget_checked_temporary_packages

    opts = resources.options
    resources.offered_theme_files = None  # theme files may have come or gone since
    if opts is None or not (opts.load_packages or opts.temporary_packages):
        return
    forget_install_attempts()
    forget_checked_temporary_packages()
    warnings: list[str] = []
    # A running UI owns the terminal: no stderr notices. The settings may have changed: read them again.
    quiet = msgspec.structs.replace(opts, package_notice=None, package_lists=None)
    found = await asyncio.to_thread(_resolve_packages, cwd, agent_dir, quiet, warnings)
    _apply_packages(resources, found)
    resources.warnings = [*warnings]
    resources.skill_warnings, resources.skill_conflicts, resources.template_warnings = [], [], []
    _load_skills(cwd, agent_dir, opts, resources)
    _load_templates(cwd, agent_dir, opts, resources)


def scope_theme_files(base: Path, scope: SettingsScope) -> list[Path]:
    """A scope's own theme files: ``<base>/themes/*.json``, then the files and directories its settings
    ``themes`` list names."""
    found: list[Path] = []
    for root in [base / "themes", *scope.paths("themes")]:
        if root.is_file():
            found.append(root)
        elif root.is_dir():
            found.extend(sorted(p for p in root.iterdir() if p.suffix == ".json" and p.is_file()))
    return found


def offered_themes(resources: Resources, cwd: Path, agent_dir: Path) -> list[Path]:
    """The theme files the UI offers, in lookup order: the user's, the project's (``.pi/themes``), then
    the packages'. Ones that `pi config` switched off (``-themes/x.json``) are left out.

    The directories are listed once per resource load (and again after `reload_packages`), not at
    every lookup: the theme selector and each name lookup ask for them."""
    known = resources.offered_theme_files
    if known is None or known[:2] != (cwd, agent_dir):
        known = resources.offered_theme_files = (cwd, agent_dir, _list_offered_themes(resources, cwd, agent_dir))
    return list(known[2])


def _list_offered_themes(resources: Resources, cwd: Path, agent_dir: Path) -> list[Path]:
    opts = resources.options
    scopes = opts.settings_scopes if opts is not None else []
    by_base = {scope.base.resolve(): scope for scope in scopes}
    local: list[Path] = []
    for base in (agent_dir, cwd / ".pi"):
        scope = by_base.get(base.resolve(), SettingsScope(base, {}))
        local += [path for path in scope_theme_files(base, scope) if switched_on("themes", path, scopes)]
    seen: set[Path] = set()
    offered: list[Path] = []
    for path in [*local, *resources.themes]:
        if path.resolve() not in seen:
            seen.add(path.resolve())
            offered.append(path)
    return offered


def _append_values(value: str | Sequence[str] | None) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def load_resources(cwd: Path, agent_dir: Path, options: ResourceOptions | None = None) -> Resources:
    opts = options or ResourceOptions()
    resources = Resources(options=opts)
    if not opts.no_context_files:
        resources.context_files = load_context_files(cwd, agent_dir)
    _apply_packages(resources, _resolve_packages(cwd, agent_dir, opts, resources.warnings))
    _load_skills(cwd, agent_dir, opts, resources)
    _load_templates(cwd, agent_dir, opts, resources)

    project = project_dir(cwd)
    if opts.system_prompt is not None:
        resources.custom_system_prompt = read_text_or_file(opts.system_prompt, cwd, "system prompt", resources.warnings)
    else:
        resources.custom_system_prompt = _first_file(
            *([project / "SYSTEM.md"] if opts.project_trusted else []), agent_dir / "SYSTEM.md"
        )
    appended = _append_values(opts.append_system_prompt)
    if appended:
        texts = [read_text_or_file(v, cwd, "append system prompt", resources.warnings) for v in appended]
        resources.append_system_prompt = "\n\n".join(texts)
    else:
        resources.append_system_prompt = _first_file(
            *([project / "APPEND_SYSTEM.md"] if opts.project_trusted else []), agent_dir / "APPEND_SYSTEM.md"
        )
    return resources


__all__ = [
    "ResourceOptions",
    "Resources",
    "SettingsScope",
    "git_root",
    "load_resources",
    "local_skill_roots",
    "local_template_roots",
    "offered_themes",
    "reload_packages",
    "resource_path",
    "scope_theme_files",
    "switch_path",
    "switched_on",
]
