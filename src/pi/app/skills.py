"""Skills (the Agent Skills convention): folders with a SKILL.md the model reads when a task needs it.

Only each skill's name, description and path go into the system prompt; the model loads the file
itself with `read` when the description matches the task, so unused skills cost almost no context.
A skill without a description is not loaded (the model could never know when to use it); other
rule violations only warn.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pi.app.frontmatter import split_frontmatter

_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv"}


@dataclass(slots=True, frozen=True)
class Skill:
    name: str
    description: str
    path: Path
    base_dir: Path
    source: str
    disable_model_invocation: bool = False


@dataclass(slots=True)
class SkillLoadResult:
    skills: list[Skill] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _load_skill(path: Path, source: str, result: SkillLoadResult) -> Skill | None:
    try:
        fields, _ = split_frontmatter(path.read_text(encoding="utf-8"))
    except OSError as exc:
        result.warnings.append(f"Skipping skill {path}: {exc}")
        return None
    description = fields.get("description", "").strip()
    if not description:
        result.warnings.append(f"Skipping skill {path}: it has no description, so the model could never choose it")
        return None
    name = fields.get("name", "").strip() or (path.parent.name if path.name == "SKILL.md" else path.stem)
    if not _NAME.match(name) or len(name) > 64:
        result.warnings.append(f'Skill {path}: name "{name}" should be lowercase letters, digits and single hyphens')
    if path.name == "SKILL.md" and name != path.parent.name:
        result.warnings.append(f'Skill {path}: name "{name}" should match its directory "{path.parent.name}"')
    if len(description) > 1024:
        result.warnings.append(f"Skill {path}: description is longer than 1024 characters")
    disabled = fields.get("disable-model-invocation", "").lower() == "true"
    return Skill(name, description, path, path.parent, source, disabled)


def _skill_files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    if not root.is_dir():
        return []
    out = sorted(p for p in root.iterdir() if p.is_file() and p.suffix == ".md" and p.name != "SKILL.md")
    for path in sorted(root.rglob("SKILL.md")):
        if not any(part in _SKIP_DIRS for part in path.relative_to(root).parts):
            out.append(path)
    return out


def load_skills(roots: list[tuple[Path, str]]) -> SkillLoadResult:
    """Skills from each (root, source); the first skill of a name wins, later ones are reported."""
    result = SkillLoadResult()
    by_name: dict[str, Skill] = {}
    for root, source in roots:
        for path in _skill_files(root):
            skill = _load_skill(path, source, result)
            if skill is None:
                continue
            if skill.name in by_name:
                result.warnings.append(
                    f'Skill "{skill.name}" at {path} ignored: already loaded from {by_name[skill.name].path}'
                )
                continue
            by_name[skill.name] = skill
    result.skills = list(by_name.values())
    return result


def skill_roots(cwd: Path, agent_dir: Path, home: Path, git_root: Path | None) -> list[tuple[Path, str]]:
    """pi's discovery locations, global first: agent dir, ~/.agents, project .pi and .agents up to the repo root."""
    roots: list[tuple[Path, str]] = [(agent_dir / "skills", "user"), (home / ".agents" / "skills", "user")]
    roots.append((cwd / ".pi" / "skills", "project"))
    stop = git_root or Path(cwd.anchor)
    directory = cwd
    while True:
        roots.append((directory / ".agents" / "skills", "project"))
        if directory == stop or directory.parent == directory:
            break
        directory = directory.parent
    return roots


def format_skills_for_prompt(skills: list[Skill]) -> str:
    visible = [s for s in skills if not s.disable_model_invocation]
    if not visible:
        return ""
    from xml.sax.saxutils import escape  # the xml package costs a few ms; most sessions have no skills

    lines = [
        "The following skills provide specialized instructions for specific tasks.",
        "Use the read tool to load a skill's file when the task matches its description.",
        "When a skill file references a relative path, resolve it against the skill directory (parent of SKILL.md"
        " / dirname of the path) and use that absolute path in tool commands.",
        "",
        "<available_skills>",
    ]
    for skill in visible:
        lines.append("  <skill>")
        lines.append(f"    <name>{escape(skill.name)}</name>")
        lines.append(f"    <description>{escape(skill.description)}</description>")
        lines.append(f"    <location>{escape(str(skill.path))}</location>")
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
    _, body = split_frontmatter(skill.path.read_text(encoding="utf-8"))
    expanded = (
        f'<skill name="{skill.name}" location="{skill.path}">\n'
        f"References are relative to {skill.base_dir}.\n\n{body.strip()}\n</skill>"
    )
    return f"{expanded}\n\n{args.strip()}" if args.strip() else expanded


__all__ = [
    "Skill",
    "SkillLoadResult",
    "expand_skill_command",
    "format_skills_for_prompt",
    "load_skills",
    "skill_roots",
]
