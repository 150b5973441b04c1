"""Assemble the system prompt from the active tools, the user's files and the skills.

The prompt is a list of named sections joined by blank lines: an untagged preamble, then
``<tools>``, ``<rules>``, ``<docs>``, ``<addendum>``, ``<project_context>``, ``<skills>`` and
``<cwd>``, each wrapped in its tag. Naming them lets a session compare two prompts section by
section. Tools and rules follow the *declared* tools (those with a prompt snippet), in active
order, so the model is told only about tools it can call and gets advice that fits them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from msgspec import Struct

from pi.app.context_files import ContextFile
from pi.app.package_docs import DocsPaths
from pi.app.skills import Skill, SkillReader, format_skills_for_prompt

PREAMBLE = (
    "You are a coding assistant running inside pi, a coding agent harness. "
    "Help users inspect files, run commands, and modify code."
)
ADDITIONAL_TOOLS_NOTE = "Additional tools may be available."
CONSTANT_RULES = ("Be concise in your responses", "Show file paths clearly when working with files")
BASH_FILE_OPERATIONS_RULE = "Use bash for file operations like ls, rg, find"
_SEARCH_TOOLS = ("grep", "find", "ls")

_DOCS_TOPICS = (
    "the command line (docs/cli.md), settings.json (docs/settings.md), models.json, providers and API keys"
    " (docs/models.md), environment variables (docs/environment.md), AGENTS.md and the system prompt"
    " (docs/context-files.md), skills (docs/skills.md), prompt templates (docs/prompt-templates.md), sessions"
    " (docs/sessions.md), project trust (docs/trust.md), the Python SDK (docs/sdk.md), extensions, themes, the TUI,"
    " MCP servers and codemode (docs/not-yet-available.md)"
)


class PromptTool(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def prompt_snippet(self) -> str | None: ...
    @property
    def prompt_guidelines(self) -> list[str]: ...


class PromptSection(Struct, frozen=True):
    """One named part of the system prompt; every section but the preamble renders wrapped in its tag."""

    name: str
    content: str

    def render(self) -> str:
        return self.content if self.name == "preamble" else f"<{self.name}>\n{self.content}\n</{self.name}>"


class SystemPromptInputs(Struct):
    """Everything `build_system_prompt` needs; the session fills it from its tools, resources and settings."""

    cwd: Path
    tools: Sequence[PromptTool] = ()
    custom_prompt: str | None = None
    """Replaces the preamble; the tools, rules and docs sections are then left out."""
    append: str | None = None
    context_files: Sequence[ContextFile] = ()
    skills: Sequence[Skill] = ()
    extra_guidelines: Sequence[str] = ()
    tools_explicit: bool = True
    """False when the caller did not choose a tool set; skills are then offered as if `read` were declared."""
    docs_dir: Path | None = None
    """Root of pi's manual (README.md, docs/, examples/); see `pi.app.package_docs.package_docs_dir`."""


def _declared(inputs: SystemPromptInputs) -> list[PromptTool]:
    return [t for t in inputs.tools if t.prompt_snippet]


def _rules(inputs: SystemPromptInputs) -> list[str]:
    declared = _declared(inputs)
    names = [t.name for t in declared]
    raw: list[str] = []
    if "bash" in names and not any(n in names for n in _SEARCH_TOOLS):
        raw.append(BASH_FILE_OPERATIONS_RULE)
    for tool in declared:
        raw.extend(tool.prompt_guidelines)
    raw.extend(inputs.extra_guidelines)
    raw.extend(CONSTANT_RULES)
    seen: set[str] = set()
    out: list[str] = []
    for item in raw:
        text = item.strip()
        if text and text not in seen:
            seen.add(text)
            out.append(text)
    return out


def _tools_section(inputs: SystemPromptInputs) -> str:
    lines = [f"- {t.name}: {t.prompt_snippet}" for t in _declared(inputs)]
    return ("\n".join(lines) if lines else "(none)") + "\n\n" + ADDITIONAL_TOOLS_NOTE


def _docs_section(docs: DocsPaths) -> str:
    return "\n".join(
        (
            "Pi documentation (read only when the user asks about the harness itself, its SDK, extensions, themes, "
            "skills, or TUI):",
            f"- Main documentation: {docs.readme}",
            f"- Additional docs: {docs.docs}",
            f"- Examples: {docs.examples} (extensions, custom tools, SDK)",
            f"- Paths written as docs/... or examples/... in these files are relative to {docs.readme.parent}",
            f"- When asked about: {_DOCS_TOPICS}",
            "- Before implementing harness changes, read the relevant docs and examples in full, following related "
            "cross-references.",
        )
    )


def _project_context(files: Sequence[ContextFile]) -> str:
    blocks = [f'<project_instructions path="{f.path}">\n{f.content.strip()}\n</project_instructions>' for f in files]
    return "Project-specific instructions and guidelines:\n\n" + "\n\n".join(blocks)


def skill_reader(inputs: SystemPromptInputs) -> SkillReader | None:
    """How the model can open a skill file with the tools at hand, or None when it cannot."""
    if not inputs.tools_explicit:
        return "read"
    declared = {t.name for t in _declared(inputs)}
    active = {t.name for t in inputs.tools}
    if "read" in declared:
        return "read"
    if "bash" in declared:
        return "bash"
    return "hidden" if active & {"read", "bash"} else None


def build_prompt_sections(inputs: SystemPromptInputs) -> list[PromptSection]:
    """The prompt's sections in order; sections with nothing to say are left out."""
    sections: list[PromptSection] = []
    if inputs.custom_prompt is not None:
        sections.append(PromptSection("preamble", inputs.custom_prompt.strip()))
    else:
        sections.append(PromptSection("preamble", PREAMBLE))
        sections.append(PromptSection("tools", _tools_section(inputs)))
        sections.append(PromptSection("rules", "\n".join(f"- {rule}" for rule in _rules(inputs))))
        if inputs.docs_dir is not None and DocsPaths.under(inputs.docs_dir).exist():
            sections.append(PromptSection("docs", _docs_section(DocsPaths.under(inputs.docs_dir))))
    if inputs.append and inputs.append.strip():
        sections.append(PromptSection("addendum", inputs.append.strip()))
    if inputs.context_files:
        sections.append(PromptSection("project_context", _project_context(inputs.context_files)))
    reader = skill_reader(inputs)
    if reader is not None:
        skills_block = format_skills_for_prompt(list(inputs.skills), reader)
        if skills_block:
            sections.append(PromptSection("skills", skills_block))
    sections.append(PromptSection("cwd", str(inputs.cwd).replace("\\", "/")))
    return sections


def render_prompt_sections(sections: Sequence[PromptSection]) -> str:
    return "\n\n".join(section.render() for section in sections)


def build_system_prompt(inputs: SystemPromptInputs) -> str:
    return render_prompt_sections(build_prompt_sections(inputs))


def read_text_or_file(
    value: str, cwd: Path, description: str = "system prompt", warnings: list[str] | None = None
) -> str:
    """``--system-prompt`` and friends take text or a path to a file holding it (BOM removed).

    A path that exists but cannot be read is reported (``Could not read ...``, shown as a warning) and the
    value is then used as text, as it would be for a path that does not exist.
    """
    candidate = Path(value).expanduser()
    if not candidate.is_absolute():
        candidate = cwd / candidate
    try:
        if len(value) >= 4096 or "\n" in value or not candidate.is_file():
            return value
    except (OSError, ValueError):  # a value too long or odd for a path is text
        return value
    try:
        return candidate.read_text(encoding="utf-8").removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError) as exc:
        if warnings is not None:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            warnings.append(f"Could not read {description} file {candidate}: {reason}")
        return value


__all__ = [
    "ADDITIONAL_TOOLS_NOTE",
    "PREAMBLE",
    "PromptSection",
    "PromptTool",
    "SystemPromptInputs",
    "build_prompt_sections",
    "build_system_prompt",
    "read_text_or_file",
    "render_prompt_sections",
    "skill_reader",
]
