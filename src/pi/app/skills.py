"""Skills (the Agent Skills convention): folders with a SKILL.md the model reads when a task needs it.

Only each skill's name, description and path go into the system prompt; the model loads the file
itself (with `read`, or `bash` when there is no `read`) when the description matches the task, so
unused skills cost almost no context. A skill without a description is not loaded (the model could
never know when to use it); other rule violations only warn.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from msgspec import Struct, field

from pi.app.frontmatter import FrontmatterError, flag_field, split_frontmatter, text_field
from pi.app.ignore_files import IgnoreRules

_NAME = r"^[a-z0-9]+(-[a-z0-9]+)*$"
_SKIP_DIRS = {"node_modules", "__pycache__"}

SkillReader = Literal["read", "bash", "hidden"]
"""How the model can open a skill file: the declared `read` tool, the declared `bash` tool, or a
reader that is active without being described in the prompt."""

_READER_HINTS: dict[str, str] = {
    "read": "Use the read tool to load a skill's file when the task matches its description.",
    "bash": "Use bash to load a skill's file when the task matches its description.",
    "hidden": "Load a skill's file when the task matches its description.",
}


class Skill(Struct, frozen=True):
    """One skill file found on disk; `source` is where it was found (user, project, path or package).

    A skill with `disable_model_invocation` is left out of the prompt and runs only as ``/skill:name``.
    """

    name: str
    description: str
    path: Path
    base_dir: Path
    source: str
    disable_model_invocation: bool = False


class SkillLoadResult(Struct):
    """The skills `load_skills` found, in discovery order, and the problems it met."""

    skills: list[Skill] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    """Problems with single skills (shown under "[Skill warnings]")."""
    conflicts: list[str] = field(default_factory=list)
    """Skills ignored because an earlier one has the same name (shown under "[Skill conflicts]")."""


def _load_skill(path: Path, source: str, result: SkillLoadResult, *, root_level: bool) -> Skill | None:
    try:
        fields, _ = split_frontmatter(path.read_text(encoding="utf-8"))
    except OSError as exc:
        result.warnings.append(f"Skipping skill {path}: {exc.strerror or exc}")
        return None
    except FrontmatterError as exc:
        result.warnings.append(f"Skipping skill {path}: {exc}")
        return None
    description = text_field(fields, "description")
    if not description:
        if not root_level:  # a README.md or AGENTS.md beside the skills is not a skill, and not a mistake
            result.warnings.append(f"Skipping skill {path}: it has no description, so the model could never choose it")
        return None
    name = text_field(fields, "name") or (path.parent.name if path.name == "SKILL.md" else path.stem)
    if not re.match(_NAME, name) or len(name) > 64:
        result.warnings.append(
            f'Skill {path}: name "{name}" should be at most 64 lowercase letters, digits and single hyphens'
        )
    if len(description) > 1024:
        result.warnings.append(f"Skill {path}: description is longer than 1024 characters")
    return Skill(name, description, path, path.parent, source, flag_field(fields, "disable-model-invocation"))


def _walk(directory: Path, rules: IgnoreRules, out: list[Path]) -> None:
    """SKILL.md files below `directory`; a directory holding one is a skill and is not searched further."""
    rules = rules.extended_by(directory)
    skill_file = directory / "SKILL.md"
    if skill_file.is_file():
        out.append(skill_file)
        return
    try:
        children = sorted(directory.iterdir())
    except OSError:
        return
    for child in children:
        if child.name.startswith(".") or child.name in _SKIP_DIRS or not child.is_dir():
            continue
        if not rules.ignores(child, is_dir=True):
            _walk(child, rules, out)


def skill_files(root: Path) -> list[tuple[Path, bool]]:
    """(path, is a root-level .md file) for every candidate skill under `root` (or `root` itself)."""
    if root.is_file():
        return [(root, False)]
    if not root.is_dir():
        return []
    rules = IgnoreRules().extended_by(root)
    out: list[tuple[Path, bool]] = [
        (p, True)
        for p in sorted(root.iterdir())
        if p.is_file() and p.suffix == ".md" and p.name != "SKILL.md" and not rules.ignores(p, is_dir=False)
    ]
    nested: list[Path] = []
    _walk(root, IgnoreRules(), nested)
    out.extend((p, False) for p in nested)
    return out


def load_skills(roots: list[tuple[Path, str]], enabled: Callable[[Path], bool] | None = None) -> SkillLoadResult:
    """Skills from each (root, source); the first skill of a name wins, later ones are reported.

    `enabled(path)` says whether a skill file is switched on in settings; a switched-off one is
    skipped before names are compared, so it neither loads nor hides another skill of its name.
    """
    result = SkillLoadResult()
    by_name: dict[str, Skill] = {}
    seen: set[Path] = set()
    for root, source in roots:
        for path, root_level in skill_files(root):
            real = path.resolve()
            if real in seen or (enabled is not None and not enabled(path)):
                continue
            seen.add(real)
            skill = _load_skill(path, source, result, root_level=root_level)
            if skill is None:
                continue
            if skill.name in by_name:
                result.conflicts.append(
                    f'Skill "{skill.name}" at {path} ignored: already loaded from {by_name[skill.name].path}'
                )
                continue
            by_name[skill.name] = skill
    result.skills = list(by_name.values())
    return result


def user_skill_roots(agent_dir: Path, home: Path) -> list[tuple[Path, str]]:
    """The user's own skill directories (never gated by project trust)."""
    return [(agent_dir / "skills", "user"), (home / ".agents" / "skills", "user")]


def project_skill_roots(cwd: Path, home: Path, git_root: Path | None) -> list[tuple[Path, str]]:
    """The project's skill directories: .pi/skills, then .agents/skills from cwd up to the repository root."""
    roots: list[tuple[Path, str]] = [(cwd / ".pi" / "skills", "project")]
    user_agents = home / ".agents" / "skills"
    stop = git_root or Path(cwd.anchor)
    directory = cwd
    while True:
        candidate = directory / ".agents" / "skills"
        if candidate != user_agents:
            roots.append((candidate, "project"))
        if directory == stop or directory.parent == directory:
            break
        directory = directory.parent
    return roots


def skill_roots(cwd: Path, agent_dir: Path, home: Path, git_root: Path | None) -> list[tuple[Path, str]]:
    """pi's discovery locations, global first: agent dir, ~/.agents, project .pi and .agents up to the repo root."""
    return user_skill_roots(agent_dir, home) + project_skill_roots(cwd, home, git_root)


def _escape(text: str) -> str:
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&apos;")
    )


def format_skills_for_prompt(skills: list[Skill], reader: SkillReader = "read") -> str:
    """The body of the prompt's skills section; empty when no skill may be offered to the model."""
    visible = [s for s in skills if not s.disable_model_invocation]
    if not visible:
        return ""
    lines = [
        "The following skills provide specialized instructions for specific tasks.",
        _READER_HINTS[reader],
        "Resolve relative paths against the skill's directory (parent of SKILL.md). Use absolute paths in tool calls.",
        "",
        "<available_skills>",
    ]
    for skill in visible:
        lines.append("  <skill>")
        lines.append(f"    <name>{_escape(skill.name)}</name>")
        lines.append(f"    <description>{_escape(skill.description)}</description>")
        lines.append(f"    <location>{_escape(str(skill.path))}</location>")
        lines.append("  </skill>")
    lines.append("</available_skills>")
    return "\n".join(lines)


def expand_skill_command(text: str, skills: list[Skill]) -> str:
    """``/skill:name args`` → the skill's body wrapped in a <skill> element, then the arguments."""
    if not text.startswith("/skill:"):
        return text
    name, _, args = text[len("/skill:") :].partition(" ")
    skill = next((s for s in skills if s.name == name), None)
    if skill is None:
        return text
    try:
        _, body = split_frontmatter(skill.path.read_text(encoding="utf-8"))
    except (OSError, FrontmatterError):
        return text
    expanded = (
        f'<skill name="{skill.name}" location="{skill.path}">\n'
        f"References are relative to {skill.base_dir}.\n\n{body.strip()}\n</skill>"
    )
    return f"{expanded}\n\n{args.strip()}" if args.strip() else expanded


__all__ = [
    "Skill",
    "SkillLoadResult",
    "SkillReader",
    "expand_skill_command",
    "format_skills_for_prompt",
    "load_skills",
    "project_skill_roots",
    "skill_files",
    "skill_roots",
    "user_skill_roots",
]
