"""Everything pi reads from the user's config and project before a session starts.

Context files, skills, prompt templates and the system prompt sources (``--system-prompt``, then
``.pi/SYSTEM.md``, then ``~/.pi/agent/SYSTEM.md``; likewise APPEND_SYSTEM.md). Loaded once at start-up
and again on reload; problems are collected as warnings, never fatal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pi.app.context_files import ContextFile, load_context_files
from pi.app.paths import project_dir
from pi.app.prompt_templates import PromptTemplate, load_prompt_templates
from pi.app.skills import Skill, load_skills, skill_roots
from pi.app.system_prompt import read_text_or_file


@dataclass(slots=True)
class ResourceOptions:
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    extra_skill_paths: list[str] = field(default_factory=list)
    extra_template_paths: list[str] = field(default_factory=list)
    no_skills: bool = False
    no_prompt_templates: bool = False
    no_context_files: bool = False
    settings_skill_paths: list[str] = field(default_factory=list)
    settings_template_paths: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Resources:
    context_files: list[ContextFile] = field(default_factory=list)
    skills: list[Skill] = field(default_factory=list)
    templates: list[PromptTemplate] = field(default_factory=list)
    custom_system_prompt: str | None = None
    append_system_prompt: str | None = None
    warnings: list[str] = field(default_factory=list)


def _git_root(cwd: Path) -> Path | None:
    for directory in [cwd, *cwd.parents]:
        if (directory / ".git").exists():
            return directory
    return None


def _first_file(*candidates: Path) -> str | None:
    for path in candidates:
        try:
            if path.is_file():
                return path.read_text(encoding="utf-8")
        except OSError:
            continue
    return None


def load_resources(cwd: Path, agent_dir: Path, options: ResourceOptions | None = None) -> Resources:
    opts = options or ResourceOptions()
    resources = Resources()
    if not opts.no_context_files:
        resources.context_files = load_context_files(cwd, agent_dir)

    skill_sources: list[tuple[Path, str]] = []
    if not opts.no_skills:
        skill_sources.extend(skill_roots(cwd, agent_dir, Path.home(), _git_root(cwd)))
        skill_sources.extend((agent_dir / Path(p).expanduser(), "path") for p in opts.settings_skill_paths)
    skill_sources.extend((cwd / Path(p).expanduser(), "path") for p in opts.extra_skill_paths)
    loaded = load_skills(skill_sources)
    resources.skills = loaded.skills
    resources.warnings.extend(loaded.warnings)

    template_sources: list[tuple[Path, str]] = []
    if not opts.no_prompt_templates:
        template_sources.append((agent_dir / "prompts", "user"))
        template_sources.append((project_dir(cwd) / "prompts", "project"))
        template_sources.extend((agent_dir / Path(p).expanduser(), "path") for p in opts.settings_template_paths)
    template_sources.extend((cwd / Path(p).expanduser(), "path") for p in opts.extra_template_paths)
    resources.templates = load_prompt_templates(template_sources)

    if opts.system_prompt is not None:
        resources.custom_system_prompt = read_text_or_file(opts.system_prompt, cwd)
    else:
        resources.custom_system_prompt = _first_file(project_dir(cwd) / "SYSTEM.md", agent_dir / "SYSTEM.md")
    if opts.append_system_prompt is not None:
        resources.append_system_prompt = read_text_or_file(opts.append_system_prompt, cwd)
    else:
        resources.append_system_prompt = _first_file(
            project_dir(cwd) / "APPEND_SYSTEM.md", agent_dir / "APPEND_SYSTEM.md"
        )
    return resources


__all__ = ["ResourceOptions", "Resources", "load_resources"]
