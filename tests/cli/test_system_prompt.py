"""The system prompt: tagged sections, the golden text of the default tool set, custom prompts, skills."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pi.app.context_files import ContextFile
from pi.app.package_docs import DocsPaths, package_docs, package_docs_dir
from pi.app.skills import Skill
from pi.app.system_prompt import SystemPromptInputs, build_prompt_sections, build_system_prompt, read_text_or_file

GOLDEN = Path(__file__).parent / "golden" / "default_system_prompt.txt"


@dataclass
class FakeTool:
    name: str
    prompt_snippet: str | None = None
    prompt_guidelines: list[str] = field(default_factory=list)


# The default tool set as pi 1.6.0 declares it: snippets and guidelines of read, bash, edit, write.
DEFAULT_TOOLS = [
    FakeTool("read", "Read file contents", ["Use read to examine files instead of cat or sed."]),
    FakeTool(
        "bash",
        "Execute bash commands (ls, grep, find, etc.)",
        ["You can inspect PI_* environment variables for current model and session details."],
    ),
    FakeTool(
        "edit",
        "Make precise file edits with exact text replacement, including multiple disjoint edits in one call",
        [
            "Use edit for targeted changes. Batch changes to one file in a single call.",
            "Each edits[].oldText must exactly and uniquely match the original file. Keep matches short and "
            "non-overlapping; merge nearby changes without including large unchanged regions.",
        ],
    ),
    FakeTool("write", "Create or overwrite files", ["Use write only for new files or complete rewrites."]),
]
READ_ONLY_TOOLS = [
    FakeTool("read", "Read file contents", ["Use read to examine files instead of cat or sed."]),
    FakeTool("grep", "Search file contents for patterns (respects .gitignore)"),
    FakeTool("find", "Find files by glob pattern (respects .gitignore)"),
    FakeTool("ls", "List directory contents"),
]


def _manual(root: Path) -> Path:
    (root / "docs").mkdir(parents=True)
    (root / "examples").mkdir()
    (root / "README.md").write_text("# manual\n")
    return root


def _section(prompt: str, name: str) -> str:
    match = re.search(rf"<{name}>\n(.*?)\n</{name}>", prompt, re.S)
    assert match is not None, f"no <{name}> section in:\n{prompt}"
    return match.group(1)


def test_default_tool_set_matches_the_golden_text_byte_for_byte(tmp_path: Path) -> None:
    docs = _manual(tmp_path / "manual")
    prompt = build_system_prompt(SystemPromptInputs(cwd=Path("/work/proj"), tools=DEFAULT_TOOLS, docs_dir=docs))
    assert prompt == GOLDEN.read_text(encoding="utf-8").replace("{DOCS}", str(docs))


def test_sections_are_in_order_and_tagged(tmp_path: Path) -> None:
    skill = Skill("lint", "Run linters", tmp_path / "lint" / "SKILL.md", tmp_path / "lint", "user")
    inputs = SystemPromptInputs(
        cwd=tmp_path,
        tools=DEFAULT_TOOLS,
        append="Answer in French.",
        context_files=[ContextFile(tmp_path / "AGENTS.md", "Use tabs.\n")],
        skills=[skill],
        docs_dir=_manual(tmp_path / "manual"),
    )
    names = [s.name for s in build_prompt_sections(inputs)]
    assert names == ["preamble", "tools", "rules", "docs", "addendum", "project_context", "skills", "cwd"]
    prompt = build_system_prompt(inputs)
    assert _section(prompt, "addendum") == "Answer in French."
    assert _section(prompt, "project_context") == (
        f'Project-specific instructions and guidelines:\n\n<project_instructions path="{tmp_path / "AGENTS.md"}">\n'
        "Use tabs.\n</project_instructions>"
    )
    assert "Current date" not in prompt
    assert prompt.endswith(f"<cwd>\n{tmp_path}\n</cwd>")


def test_read_only_set_has_its_snippets_and_only_the_read_rule(tmp_path: Path) -> None:
    prompt = build_system_prompt(SystemPromptInputs(cwd=tmp_path, tools=READ_ONLY_TOOLS))
    assert _section(prompt, "tools") == (
        "- read: Read file contents\n- grep: Search file contents for patterns (respects .gitignore)\n"
        "- find: Find files by glob pattern (respects .gitignore)\n- ls: List directory contents\n\n"
        "Additional tools may be available."
    )
    assert _section(prompt, "rules") == (
        "- Use read to examine files instead of cat or sed.\n- Be concise in your responses\n"
        "- Show file paths clearly when working with files"
    )


def test_no_tools_and_undeclared_tools(tmp_path: Path) -> None:
    assert _section(build_system_prompt(SystemPromptInputs(cwd=tmp_path)), "tools") == (
        "(none)\n\nAdditional tools may be available."
    )
    hidden = FakeTool("secret", None, ["Never shown"])
    prompt = build_system_prompt(SystemPromptInputs(cwd=tmp_path, tools=[hidden, FakeTool("bash", "Run")]))
    assert "secret" not in prompt and "Never shown" not in prompt
    assert "- Use bash for file operations like ls, rg, find" in prompt


def test_bash_rule_needs_no_search_tool_and_guidelines_are_deduplicated(tmp_path: Path) -> None:
    tools = [FakeTool("bash", "Run", ["Same advice"]), FakeTool("grep", "Search")]
    prompt = build_system_prompt(SystemPromptInputs(cwd=tmp_path, tools=tools, extra_guidelines=[" Same advice "]))
    rules = _section(prompt, "rules")
    assert "Use bash for file operations" not in rules
    assert rules.count("Same advice") == 1


def test_custom_prompt_replaces_preamble_tools_rules_and_docs(tmp_path: Path) -> None:
    skill = Skill("lint", "Run linters", tmp_path / "SKILL.md", tmp_path, "user")
    prompt = build_system_prompt(
        SystemPromptInputs(
            cwd=Path("C:\\work\\proj"),
            tools=DEFAULT_TOOLS,
            custom_prompt="You are a reviewer.\n",
            append="Be brief.",
            skills=[skill],
            docs_dir=_manual(tmp_path / "manual"),
        )
    )
    assert prompt.startswith("You are a reviewer.\n\n<addendum>\nBe brief.\n</addendum>\n\n<skills>\n")
    for gone in ("<tools>", "<rules>", "<docs>"):
        assert gone not in prompt
    assert prompt.endswith("<cwd>\nC:/work/proj\n</cwd>")


@pytest.mark.parametrize(
    ("tools", "hint"),
    [
        ([FakeTool("read", "Read")], "Use the read tool to load a skill's file when the task matches its description."),
        ([FakeTool("bash", "Run")], "Use bash to load a skill's file when the task matches its description."),
        ([FakeTool("read")], "Load a skill's file when the task matches its description."),
        ([FakeTool("edit", "Edit")], None),
    ],
)
def test_skills_block_follows_the_reader(tmp_path: Path, tools: list[FakeTool], hint: str | None) -> None:
    skills = [
        Skill("a&b", "Use <this> \"now\" 'ok'", tmp_path / "SKILL.md", tmp_path, "user"),
        Skill("quiet", "hidden", tmp_path / "q.md", tmp_path, "user", disable_model_invocation=True),
    ]
    prompt = build_system_prompt(SystemPromptInputs(cwd=tmp_path, tools=tools, skills=skills))
    if hint is None:
        assert "<skills>" not in prompt
        return
    assert _section(prompt, "skills") == (
        "The following skills provide specialized instructions for specific tasks.\n"
        f"{hint}\n"
        "Resolve relative paths against the skill's directory (parent of SKILL.md). Use absolute paths in tool calls.\n"
        "\n<available_skills>\n  <skill>\n    <name>a&amp;b</name>\n"
        "    <description>Use &lt;this&gt; &quot;now&quot; &apos;ok&apos;</description>\n"
        f"    <location>{tmp_path / 'SKILL.md'}</location>\n  </skill>\n</available_skills>"
    )


def test_installed_manual_exists_and_fills_the_docs_section(tmp_path: Path) -> None:
    docs = package_docs()
    assert docs is not None and docs.exist()
    assert (docs.readme.parent / "docs" / "trust.md").is_file()
    prompt = build_system_prompt(SystemPromptInputs(cwd=tmp_path, tools=DEFAULT_TOOLS, docs_dir=package_docs_dir()))
    section = _section(prompt, "docs")
    assert f"- Main documentation: {docs.readme}\n" in section
    for name in re.findall(r"\((docs/[a-z-]+\.md)\)", section):
        assert (docs.readme.parent / name).is_file(), name


def test_docs_section_is_left_out_when_the_manual_is_missing(tmp_path: Path) -> None:
    assert not DocsPaths.under(tmp_path).exist()
    prompt = build_system_prompt(SystemPromptInputs(cwd=tmp_path, tools=DEFAULT_TOOLS, docs_dir=tmp_path))
    assert "<docs>" not in prompt


def test_text_or_file_strips_bom_and_warns_about_unreadable_files(tmp_path: Path) -> None:
    (tmp_path / "p.md").write_text("\ufefffrom file", encoding="utf-8")
    assert read_text_or_file("p.md", tmp_path) == "from file"
    assert read_text_or_file("just text", tmp_path) == "just text"
    (tmp_path / "bad.md").write_bytes(b"\xff\xfe\x00bad")
    warnings: list[str] = []
    assert read_text_or_file("bad.md", tmp_path, "system prompt", warnings) == "bad.md"
    assert len(warnings) == 1 and warnings[0].startswith(f"Could not read system prompt file {tmp_path / 'bad.md'}: ")


def test_the_real_default_tools_give_the_golden_text(tmp_path: Path) -> None:
    from pi.tools import create_coding_tools

    docs = _manual(tmp_path / "manual")
    tools = create_coding_tools(str(tmp_path))
    prompt = build_system_prompt(SystemPromptInputs(cwd=Path("/work/proj"), tools=tools, docs_dir=docs))
    assert prompt == GOLDEN.read_text(encoding="utf-8").replace("{DOCS}", str(docs))
