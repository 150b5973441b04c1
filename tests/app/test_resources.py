"""Context files, prompt templates, skills and the assembled system prompt."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

from pi.app.context_files import load_context_files
from pi.app.prompt_templates import expand_prompt_template, load_prompt_templates, split_args, substitute_args
from pi.app.skills import expand_skill_command, format_skills_for_prompt, load_skills, skill_roots
from pi.app.system_prompt import SystemPromptInputs, build_system_prompt, read_text_or_file


@dataclass
class FakeTool:
    name: str
    prompt_snippet: str | None = None
    prompt_guidelines: list[str] = field(default_factory=list)


def test_context_files_global_first_then_root_to_cwd(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "AGENTS.md").write_text("global")
    parent = tmp_path / "repo"
    cwd = parent / "pkg"
    cwd.mkdir(parents=True)
    (parent / "CLAUDE.md").write_text("parent")
    (cwd / "AGENTS.md").write_text("cwd agents")
    (cwd / "CLAUDE.md").write_text("ignored: AGENTS.md wins in the same directory")
    files = load_context_files(cwd, agent)
    assert [f.content for f in files] == ["global", "parent", "cwd agents"]


def test_template_arguments() -> None:
    assert split_args("""one "two words" 'three x' four""") == ["one", "two words", "three x", "four"]
    assert substitute_args("$1|$2|$@|$ARGUMENTS|${@:2}|${@:2:1}|$9", ["a", "b", "c"]) == ("a|b|a b c|a b c|b c|b|")
    assert substitute_args("$1 and $2", ["$2", "x"]) == "$2 and x"


def test_templates_load_and_expand(tmp_path: Path) -> None:
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "review.md").write_text("---\ndescription: Review code\n---\nReview $1 focusing on ${@:2}\n")
    (prompts / "plain.md").write_text("\n" + "x" * 80 + "\n")
    templates = load_prompt_templates([(prompts, "user")])
    by_name = {t.name: t for t in templates}
    assert by_name["review"].description == "Review code"
    assert by_name["plain"].description == "x" * 60 + "..."
    assert expand_prompt_template('/review src/a.py "error handling" tests', templates).strip() == (
        "Review src/a.py focusing on error handling tests"
    )
    assert expand_prompt_template("/unknown thing", templates) == "/unknown thing"


def _skill(root: Path, name: str, description: str | None, body: str = "Do the thing.") -> Path:
    directory = root / name
    directory.mkdir(parents=True)
    head = f"name: {name}\n" + (f"description: {description}\n" if description is not None else "")
    path = directory / "SKILL.md"
    path.write_text(f"---\n{head}---\n{body}\n")
    return path


def test_skills_discovery_rules_and_prompt_block(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    good = _skill(root, "pdf-tools", "Work with <PDF> files & forms")
    _skill(root, "no-desc", None)
    result = load_skills([(root, "user")])
    assert [s.name for s in result.skills] == ["pdf-tools"]
    assert any("no description" in w for w in result.warnings)
    block = format_skills_for_prompt(result.skills)
    assert "<name>pdf-tools</name>" in block
    assert "<description>Work with &lt;PDF&gt; files &amp; forms</description>" in block
    assert f"<location>{good}</location>" in block
    expanded = expand_skill_command("/skill:pdf-tools fill the form", result.skills)
    assert expanded.startswith(f'<skill name="pdf-tools" location="{good}">\nReferences are relative to {good.parent}.')
    assert expanded.endswith("</skill>\n\nfill the form")


def test_skill_roots_walk_up_to_git_root(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    cwd = repo / "a" / "b"
    cwd.mkdir(parents=True)
    roots = [p for p, _ in skill_roots(cwd, tmp_path / "agent", tmp_path / "home", repo)]
    assert roots[-1] == repo / ".agents" / "skills"
    assert cwd / ".agents" / "skills" in roots
    assert tmp_path / ".agents" / "skills" not in roots


DEFAULT_TOOLS = [
    FakeTool("read", "Read file contents", ["Use read to examine files instead of cat or sed."]),
    FakeTool("bash", "Execute bash commands (ls, grep, find, etc.)"),
    FakeTool("edit", "Make precise file edits", ["Use edit for precise changes"]),
    FakeTool("write", "Create or overwrite files", ["Use write only for new files or complete rewrites."]),
]


def test_system_prompt_default_tools(tmp_path: Path) -> None:
    prompt = build_system_prompt(SystemPromptInputs(cwd=tmp_path, tools=DEFAULT_TOOLS, today=dt.date(2026, 1, 2)))
    assert "Available tools:\n- read: Read file contents\n- bash: Execute bash commands" in prompt
    guidelines = prompt.split("Guidelines:\n")[1].split("\n\n")[0].splitlines()
    assert guidelines == [
        "- Use bash for file operations like ls, rg, find",
        "- Use read to examine files instead of cat or sed.",
        "- Use edit for precise changes",
        "- Use write only for new files or complete rewrites.",
        "- Be concise in your responses",
        "- Show file paths clearly when working with files",
    ]
    assert prompt.endswith(f"Current date: 2026-01-02\n\nCurrent working directory: {tmp_path}")


def test_system_prompt_read_only_set_has_no_bash_rule(tmp_path: Path) -> None:
    tools = [FakeTool("read", "Read file contents"), FakeTool("grep", "Search"), FakeTool("ls", "List")]
    prompt = build_system_prompt(SystemPromptInputs(cwd=tmp_path, tools=tools))
    assert "Use bash for file operations" not in prompt
    assert "- grep: Search" in prompt


def test_system_prompt_no_tools_and_custom_prompt_with_context_and_skills(tmp_path: Path) -> None:
    assert "Available tools:\n(none)" in build_system_prompt(SystemPromptInputs(cwd=tmp_path))
    skills = load_skills([(_skill(tmp_path / "s", "lint", "Run linters").parent.parent, "user")]).skills
    from pi.app.context_files import ContextFile

    prompt = build_system_prompt(
        SystemPromptInputs(
            cwd=tmp_path,
            tools=[FakeTool("read", "Read")],
            custom_prompt="You are a reviewer.",
            append="Always answer in French.",
            context_files=[ContextFile(tmp_path / "AGENTS.md", "Use tabs.")],
            skills=skills,
        )
    )
    assert prompt.startswith("You are a reviewer.\n\nAlways answer in French.\n\n<project_context>")
    assert f'<project_instructions path="{tmp_path / "AGENTS.md"}">\nUse tabs.\n</project_instructions>' in prompt
    assert "<name>lint</name>" in prompt
    without_read = build_system_prompt(SystemPromptInputs(cwd=tmp_path, tools=[FakeTool("bash")], skills=skills))
    assert "<available_skills>" not in without_read


def test_text_or_file(tmp_path: Path) -> None:
    (tmp_path / "p.md").write_text("from file")
    assert read_text_or_file("p.md", tmp_path) == "from file"
    assert read_text_or_file("just text", tmp_path) == "just text"
