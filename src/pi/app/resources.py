"""Everything pi reads from the user's config and project before a session starts.

Context files, skills, prompt templates and the system prompt sources (``--system-prompt``, then
``.pi/SYSTEM.md``, then ``~/.pi/agent/SYSTEM.md``; likewise APPEND_SYSTEM.md). Loaded once at start-up
and again on reload; problems are collected as warnings, never fatal.

Installed pi packages (settings ``packages``) add their skills, prompt templates and themes after
the user's and project's own (`pi.app.packages.session_resources`); the same resolution is kept on
`Resources.packages` so extension loading does not repeat it.

Project resources (``.pi/skills``, ``.agents/skills`` of the project, ``.pi/prompts``,
``.pi/SYSTEM.md``, ``.pi/APPEND_SYSTEM.md``) can steer the model, so they load only when the
project is trusted (`pi.app.trust`). Context files (AGENTS.md, CLAUDE.md) are plain instructions
the user can read and always load unless turned off.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pi.app.context_files import ContextFile, load_context_files
from pi.app.paths import project_dir
from pi.app.prompt_templates import PromptTemplate, load_prompt_templates
from pi.app.skills import Skill, load_skills, project_skill_roots, user_skill_roots
from pi.app.system_prompt import read_text_or_file

if TYPE_CHECKING:
    from pi.app.packages.session_resources import PackageResourcePaths


@dataclass(slots=True)
class ResourceOptions:
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
    project_trusted: bool = True
    """Whether the project's own resources may load (see `pi.app.trust.resolve_project_trust`)."""
    load_packages: bool = True
    """Whether the packages of the settings contribute resources (project ones only when trusted)."""
    offline: bool | None = None
    """Skip installing missing packages (None: the `PI_OFFLINE` environment variable decides)."""


@dataclass(slots=True)
class Resources:
    context_files: list[ContextFile] = field(default_factory=list)
    skills: list[Skill] = field(default_factory=list)
    templates: list[PromptTemplate] = field(default_factory=list)
    themes: list[Path] = field(default_factory=list)
    """Theme files provided by packages (the interactive UI also looks in the themes directories)."""
    packages: PackageResourcePaths | None = None
    """What the configured packages provide (None when packages were not loaded)."""
    custom_system_prompt: str | None = None
    append_system_prompt: str | None = None
    warnings: list[str] = field(default_factory=list)
    """Every problem found, skills' and templates' included (conflicts are kept apart)."""
    skill_warnings: list[str] = field(default_factory=list)
    skill_conflicts: list[str] = field(default_factory=list)
    template_warnings: list[str] = field(default_factory=list)

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


def _load_skills(cwd: Path, agent_dir: Path, opts: ResourceOptions, resources: Resources) -> None:
    sources: list[tuple[Path, str]] = []
    if not opts.no_skills:
        sources.extend(user_skill_roots(agent_dir, Path.home()))
        if opts.project_trusted:
            sources.extend(project_skill_roots(cwd, Path.home(), git_root(cwd)))
        sources.extend((agent_dir / Path(p).expanduser(), "path") for p in opts.settings_skill_paths)
        if resources.packages is not None:
            sources.extend((path, "package") for path in resources.packages.skills)
    sources.extend((cwd / Path(p).expanduser(), "path") for p in opts.extra_skill_paths)
    loaded = load_skills(sources)
    resources.skills = loaded.skills
    resources.warnings.extend(loaded.warnings)
    resources.skill_warnings.extend(loaded.warnings)
    resources.skill_conflicts.extend(loaded.conflicts)


def _load_templates(cwd: Path, agent_dir: Path, opts: ResourceOptions, resources: Resources) -> None:
    sources: list[tuple[Path, str]] = []
    if not opts.no_prompt_templates:
        sources.append((agent_dir / "prompts", "user"))
        if opts.project_trusted:
            sources.append((project_dir(cwd) / "prompts", "project"))
        sources.extend((agent_dir / Path(p).expanduser(), "path") for p in opts.settings_template_paths)
        if resources.packages is not None:
            sources.extend((path, "package") for path in resources.packages.prompts)
    sources.extend((cwd / Path(p).expanduser(), "path") for p in opts.extra_template_paths)
    resources.templates = load_prompt_templates(sources, resources.template_warnings)
    resources.warnings.extend(resources.template_warnings)


def _load_packages(cwd: Path, agent_dir: Path, opts: ResourceOptions, resources: Resources) -> None:
    from pi.app.packages.session_resources import package_resources

    warnings: list[str] = []
    resources.packages = package_resources(
        agent_dir, cwd, project_trusted=opts.project_trusted, warnings=warnings, offline=opts.offline
    )
    resources.themes = list(resources.packages.themes)
    resources.warnings.extend(warnings)


def _append_values(value: str | Sequence[str] | None) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def load_resources(cwd: Path, agent_dir: Path, options: ResourceOptions | None = None) -> Resources:
    opts = options or ResourceOptions()
    resources = Resources()
    if not opts.no_context_files:
        resources.context_files = load_context_files(cwd, agent_dir)
    if opts.load_packages:
        _load_packages(cwd, agent_dir, opts, resources)
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


__all__ = ["ResourceOptions", "Resources", "git_root", "load_resources"]
