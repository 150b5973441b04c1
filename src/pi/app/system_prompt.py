"""Assemble the system prompt from the active tools, the user's files and the skills.

The tool list and guidelines follow the active tools in order, so the model is only told about
tools it can call and gets advice that fits them (no "prefer grep" when there is no grep tool).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pi.app.context_files import ContextFile
from pi.app.skills import Skill, format_skills_for_prompt

PREAMBLE = (
    "You are an expert coding assistant working inside pi, a coding agent harness. You help users by reading "
    "files, running commands, editing code and writing new files."
)
OTHER_TOOLS_NOTE = "In addition to the tools above, you may have access to other custom tools depending on the project."
CONSTANT_GUIDELINES = ("Be concise in your responses", "Show file paths clearly when working with files")


class PromptTool(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def prompt_snippet(self) -> str | None: ...
    @property
    def prompt_guidelines(self) -> list[str]: ...


@dataclass(slots=True)
class SystemPromptInputs:
    cwd: Path
    tools: Sequence[PromptTool] = ()
    custom_prompt: str | None = None
    append: str | None = None
    context_files: Sequence[ContextFile] = ()
    skills: Sequence[Skill] = ()
    extra_guidelines: Sequence[str] = ()
    tools_explicit: bool = True
    """False when the caller did not choose a tool set; skills are then listed regardless of `read`."""
    docs_dir: Path | None = None
    today: dt.date | None = None


def _guidelines(inputs: SystemPromptInputs) -> list[str]:
    names = [t.name for t in inputs.tools]
    raw: list[str] = []
    if "bash" in names and not any(n in names for n in ("grep", "find", "ls")):
        raw.append("Use bash for file operations like ls, rg, find")
    for tool in inputs.tools:
        raw.extend(tool.prompt_guidelines)
    raw.extend(inputs.extra_guidelines)
    raw.extend(CONSTANT_GUIDELINES)
    seen: set[str] = set()
    out: list[str] = []
    for item in raw:
        text = item.strip()
        if text and text not in seen:
            seen.add(text)
            out.append(text)
    return out


def _docs_block(docs_dir: Path) -> str:
    readme = docs_dir / "README.md"
    return (
        "Pi documentation (read it only when the user asks about pi itself: its CLI, settings, models.json, "
        "extensions, skills, prompt templates or SDK):\n"
        f"- Main documentation: {readme}"
    )


def build_system_prompt(inputs: SystemPromptInputs) -> str:
    parts: list[str] = []
    if inputs.custom_prompt is not None:
        parts.append(inputs.custom_prompt.strip())
    else:
        tool_lines = [f"- {t.name}: {t.prompt_snippet}" for t in inputs.tools if t.prompt_snippet]
        parts.append(PREAMBLE)
        parts.append("Available tools:\n" + ("\n".join(tool_lines) if tool_lines else "(none)"))
        parts.append(OTHER_TOOLS_NOTE)
        parts.append("Guidelines:\n" + "\n".join(f"- {g}" for g in _guidelines(inputs)))
        if inputs.docs_dir is not None and (inputs.docs_dir / "README.md").is_file():
            parts.append(_docs_block(inputs.docs_dir))
    if inputs.append:
        parts.append(inputs.append.strip())
    if inputs.context_files:
        blocks = [
            f'<project_instructions path="{f.path}">\n{f.content.strip()}\n</project_instructions>'
            for f in inputs.context_files
        ]
        parts.append(
            "<project_context>\nProject-specific instructions and guidelines:\n\n"
            + "\n\n".join(blocks)
            + "\n</project_context>"
        )
    names = {t.name for t in inputs.tools}
    if "read" in names or not inputs.tools_explicit:
        skills_block = format_skills_for_prompt(list(inputs.skills))
        if skills_block:
            parts.append(skills_block)
    today = inputs.today or dt.date.today()
    parts.append(f"Current date: {today.isoformat()}")
    parts.append(f"Current working directory: {str(inputs.cwd).replace(chr(92), '/')}")
    return "\n\n".join(parts)


def read_text_or_file(value: str, cwd: Path) -> str:
    """``--system-prompt`` and friends take text or a path to a file holding it."""
    candidate = Path(value).expanduser()
    if not candidate.is_absolute():
        candidate = cwd / candidate
    try:
        if len(value) < 4096 and candidate.is_file():
            return candidate.read_text(encoding="utf-8")
    except OSError:
        pass
    return value


__all__ = ["PREAMBLE", "PromptTool", "SystemPromptInputs", "build_system_prompt", "read_text_or_file"]
