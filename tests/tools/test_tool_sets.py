"""Tool sets, system-prompt lines and the framework around the tools (tools.md §8.15, §8.16), plus the
tool-level path cases of §8.2 that go through read, write and edit.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from pi.agent import Agent
from pi.agent.tool import AgentTool
from pi.ai.faux import FauxProvider, faux_assistant_message, faux_tool_call
from pi.ai.stream import stream
from pi.ai.types import TextContent, ToolResultMessage
from pi.app.system_prompt import SystemPromptInputs, build_system_prompt
from pi.tools import (
    ALL_TOOL_NAMES,
    DEFAULT_ACTIVE_TOOL_NAMES,
    BashToolOptions,
    ToolsOptions,
    create_coding_tools,
    create_edit_tool,
    create_read_only_tools,
    create_read_tool,
    create_tool,
    create_write_tool,
)
from pi.tools.bash import BashParams
from pi.tools.read import ReadParams
from pi.tools.write import WriteParams

DEFAULT_BLOCK_TOOLS = """<tools>
- read: Read file contents
- bash: Execute bash commands (ls, grep, find, etc.)
- edit: Make precise file edits with exact text replacement, including multiple disjoint edits in one call
- write: Create or overwrite files

Additional tools may be available.
</tools>"""

DEFAULT_BLOCK_RULES = """<rules>
- Use bash for file operations like ls, rg, find
- Use read to examine files instead of cat or sed.
- You can inspect PI_* environment variables for current model and session details.
- Use edit for targeted changes. Batch changes to one file in a single call.
- Each edits[].oldText must exactly and uniquely match the original file. Keep matches short and non-overlapping; merge nearby changes without including large unchanged regions.
- Use write only for new files or complete rewrites.
- Be concise in your responses
- Show file paths clearly when working with files
</rules>"""  # noqa: E501


def await_result(awaitable: Any) -> Any:
    return asyncio.run(awaitable)


def prompt_for(tools: list[AgentTool[Any]], cwd: Path | str = "/work", **kwargs: Any) -> str:
    return build_system_prompt(SystemPromptInputs(cwd=Path(cwd), tools=tools, **kwargs))


# --- 8.15 tool sets and system prompt ---------------------------------------------------------------------


def test_case_188_sets(tmp_path: Path) -> None:
    assert [t.name for t in create_coding_tools(str(tmp_path))] == ["read", "bash", "edit", "write"]
    assert [t.name for t in create_read_only_tools(str(tmp_path))] == ["read", "grep", "find", "ls"]
    assert ALL_TOOL_NAMES == ("read", "bash", "edit", "write", "grep", "find", "ls")


def test_case_189_default_active_set() -> None:
    assert DEFAULT_ACTIVE_TOOL_NAMES == ("read", "bash", "edit", "write")
    assert "grep" not in DEFAULT_ACTIVE_TOOL_NAMES


def test_options_reach_each_tool(tmp_path: Path) -> None:
    tools = create_coding_tools(str(tmp_path), ToolsOptions(bash=BashToolOptions(command_prefix="echo from-prefix")))
    assert tools[1].name == "bash"
    result = await_result(tools[1].execute("c", BashParams(command="true"), None, None))
    assert read_text(result) == "from-prefix\n"


def test_case_190_default_prompt_tool_block(tmp_path: Path) -> None:
    prompt = prompt_for(create_coding_tools(str(tmp_path)))
    assert DEFAULT_BLOCK_TOOLS in prompt
    assert DEFAULT_BLOCK_RULES in prompt


def test_case_191_read_only_prompt(tmp_path: Path) -> None:
    prompt = prompt_for(create_read_only_tools(str(tmp_path)))
    assert "Use bash for file operations" not in prompt
    assert "- grep: Search file contents for patterns (respects .gitignore)" in prompt
    assert "- find: Find files by glob pattern (respects .gitignore)" in prompt
    assert "- ls: List directory contents" in prompt
    rules = prompt.split("<rules>\n", 1)[1].split("\n</rules>", 1)[0]
    assert rules == (
        "- Use read to examine files instead of cat or sed.\n"
        "- Be concise in your responses\n"
        "- Show file paths clearly when working with files"
    )


def test_case_192_bash_with_grep(tmp_path: Path) -> None:
    tools = [create_tool("bash", str(tmp_path)), create_tool("grep", str(tmp_path))]
    assert "Use bash for file operations" not in prompt_for(tools)


def test_case_193_no_tools() -> None:
    assert "<tools>\n(none)\n\nAdditional tools may be available.\n</tools>" in prompt_for([])


def test_case_194_custom_tool_without_snippet(tmp_path: Path) -> None:
    read = create_tool("read", str(tmp_path))
    quiet = AgentTool(name="quiet", label="quiet", description="d", parameters=ReadParams, execute=read.execute)
    loud = AgentTool(
        name="loud",
        label="loud",
        description="d",
        parameters=ReadParams,
        execute=read.execute,
        prompt_snippet="Say it loud",
    )
    prompt = prompt_for([read, quiet, loud])
    assert "quiet" not in prompt
    assert "- read: Read file contents\n- loud: Say it loud" in prompt


def test_case_195_duplicate_guideline_once(tmp_path: Path) -> None:
    prompt = prompt_for(
        create_coding_tools(str(tmp_path)), extra_guidelines=["Use write only for new files or complete rewrites."]
    )
    assert prompt.count("Use write only for new files or complete rewrites.") == 1


def test_case_196_windows_cwd(tmp_path: Path) -> None:
    assert prompt_for(create_coding_tools(str(tmp_path)), cwd="C:\\work\\proj").endswith("<cwd>\nC:/work/proj\n</cwd>")


def test_case_197_skills_need_read_or_bash(tmp_path: Path) -> None:
    from pi.app.skills import Skill

    skill = Skill(name="deploy", description="Ship it", path=tmp_path / "SKILL.md", base_dir=tmp_path, source="user")
    # 1.6.0: read, else bash loads a skill's file; with neither there is no skills block.
    with_read = prompt_for([create_tool("read", str(tmp_path))], skills=[skill])
    assert "deploy" in with_read and "Use the read tool to load a skill's file" in with_read
    with_bash = prompt_for([create_tool("bash", str(tmp_path))], skills=[skill])
    assert "deploy" in with_bash and "Use bash to load a skill's file" in with_bash
    assert "deploy" not in prompt_for([create_tool("ls", str(tmp_path))], skills=[skill])


# --- 8.16 framework: what the agent loop does with these tools --------------------------------------------


async def call_once(faux: FauxProvider, cwd: Path, name: str, arguments: dict[str, Any]) -> ToolResultMessage:
    faux.set_responses(
        [faux_assistant_message(faux_tool_call(name, arguments, id="call-1")), faux_assistant_message("done")]
    )
    agent = Agent(model=faux.model, tools=[create_tool(name, str(cwd)) for name in ALL_TOOL_NAMES], stream_fn=stream)
    await agent.prompt("go")
    results = [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]
    assert len(results) == 1
    return results[0]


def only_text(message: ToolResultMessage) -> str:
    assert len(message.content) == 1
    block = message.content[0]
    assert isinstance(block, TextContent)
    return block.text


async def test_case_199_unknown_tool(faux: FauxProvider, tmp_path: Path) -> None:
    result = await call_once(faux, tmp_path, "foo", {})
    assert result.is_error
    assert only_text(result) == "Tool foo not found"


async def test_case_200_number_coercion(faux: FauxProvider, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("".join(f"Line {i}\n" for i in range(1, 11)))
    result = await call_once(faux, tmp_path, "read", {"path": "f.txt", "offset": "5"})
    assert not result.is_error
    assert only_text(result).startswith("Line 5\n")


async def test_case_201_missing_required_argument(faux: FauxProvider, tmp_path: Path) -> None:
    result = await call_once(faux, tmp_path, "read", {"file_path": "f.txt"})
    assert result.is_error
    text = only_text(result)
    assert text == (
        'Validation failed for tool "read":\n  - path: missing\n\nReceived arguments:\n{\n  "file_path": "f.txt"\n}'
    )


async def test_case_201_type_error_and_scalar_path(faux: FauxProvider, tmp_path: Path) -> None:
    result = await call_once(faux, tmp_path, "read", {"path": "f.txt", "limit": "all"})
    assert result.is_error
    assert only_text(result).split("\n")[1] == "  - limit: expected integer, got string"
    (tmp_path / "5").write_text("five\n")
    result = await call_once(faux, tmp_path, "read", {"path": 5, "offset": None})
    assert not result.is_error
    assert only_text(result) == "five\n"


async def test_case_202_unknown_argument_ignored(faux: FauxProvider, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("hello\n")
    result = await call_once(faux, tmp_path, "read", {"path": "f.txt", "foo": 1})
    assert not result.is_error
    assert only_text(result) == "hello\n"


async def test_case_203_thrown_error_becomes_error_result(faux: FauxProvider, tmp_path: Path) -> None:
    result = await call_once(faux, tmp_path, "bash", {"command": "echo oops; exit 4"})
    assert result.is_error
    assert only_text(result) == "oops\n\n\nCommand exited with code 4"
    result = await call_once(faux, tmp_path, "ls", {"path": "missing"})
    assert only_text(result) == f"Path not found: {tmp_path}/missing\nList its parent directory to see what is there."


# --- 8.2 path handling through the file tools --------------------------------------------------------------


def read_text(result: Any) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


async def test_case_13_at_prefix(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("noted\n")
    result = await create_read_tool(str(tmp_path)).execute("c", ReadParams(path="@notes.txt"), None, None)
    assert read_text(result) == "noted\n"


async def test_case_14_unicode_space_in_write(tmp_path: Path) -> None:
    await create_write_tool(str(tmp_path)).execute("c", WriteParams(path="my\u00a0file.txt", content="x"), None, None)
    assert (tmp_path / "my file.txt").read_text() == "x"


async def test_case_15_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "pi-spec-x.txt").write_text("home file\n")
    read = create_read_tool("/")
    assert read_text(await read.execute("c", ReadParams(path="~/pi-spec-x.txt"), None, None)) == "home file\n"
    with pytest.raises(Exception, match=r"ENOENT|No such file"):
        await read.execute("c", ReadParams(path="~other/x"), None, None)


async def test_case_16_am_pm(tmp_path: Path) -> None:
    png = bytes.fromhex(  # a valid 1x1 PNG (an undecodable one is omitted, not attached)
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360606060000000050001a5f645400000000049454e44ae426082"
    )
    (tmp_path / "Screenshot 2024-01-01 at 10.00.00\u202fAM.png").write_bytes(png)
    result = await create_read_tool(str(tmp_path)).execute(
        "c", ReadParams(path="Screenshot 2024-01-01 at 10.00.00 AM.png"), None, None
    )
    assert any(block.type == "image" for block in result.content)


async def test_case_17_nfd(tmp_path: Path) -> None:
    (tmp_path / "cafe\u0301.txt").write_text("accent\n")
    result = await create_read_tool(str(tmp_path)).execute("c", ReadParams(path="caf\u00e9.txt"), None, None)
    assert read_text(result) == "accent\n"


async def test_case_18_nfd_and_curly(tmp_path: Path) -> None:
    (tmp_path / "Capture d\u2019e\u0301cran.txt").write_text("capture\n")
    result = await create_read_tool(str(tmp_path)).execute("c", ReadParams(path="Capture d'\u00e9cran.txt"), None, None)
    assert read_text(result) == "capture\n"


async def test_case_19_edit_does_not_guess(tmp_path: Path) -> None:
    (tmp_path / "Screenshot 2024-01-01 at 10.00.00\u202fAM.txt").write_text("hello")
    edit = create_edit_tool(str(tmp_path))
    path = "Screenshot 2024-01-01 at 10.00.00 AM.txt"
    params = edit.parameters.model_validate({"path": path, "edits": [{"oldText": "hello", "newText": "bye"}]})
    with pytest.raises(Exception) as caught:
        await edit.execute("c", params, None, None)
    assert str(caught.value).startswith(f"Could not edit file: {path}. Error code: ENOENT.\n")


async def test_case_20_relative_and_absolute(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_text("rel\n")
    read = create_read_tool(str(tmp_path))
    assert read_text(await read.execute("c", ReadParams(path="sub/a.txt"), None, None)) == "rel\n"
    absolute = os.path.join(tmp_path, "sub", "a.txt")
    assert read_text(await create_read_tool("/").execute("c", ReadParams(path=absolute), None, None)) == "rel\n"


async def test_case_21_double_at(tmp_path: Path) -> None:
    (tmp_path / "@x.txt").write_text("at\n")
    result = await create_read_tool(str(tmp_path)).execute("c", ReadParams(path="@@x.txt"), None, None)
    assert read_text(result) == "at\n"


# --- size of what every request carries ------------------------------------------------------------------

PI_1_6_0_DEFAULT_TOOLS_CHARS = 2956
"""pi 1.6.0's read, bash, edit and write definitions, measured the same way in a captured request."""


def test_default_tool_definitions_are_no_larger_than_pi_1_6_0s(tmp_path: Path) -> None:
    # As an OpenAI-style request carries them (JSON with the default separators), every turn.
    definitions = [tool.to_tool() for tool in create_coding_tools(str(tmp_path))]
    payload = [
        {
            "type": "function",
            "function": {"name": d.name, "description": d.description, "parameters": d.parameters, "strict": False},
        }
        for d in definitions
    ]
    assert len(json.dumps(payload)) <= PI_1_6_0_DEFAULT_TOOLS_CHARS


def test_schemas_are_compact_but_complete(tmp_path: Path) -> None:
    for name in ALL_TOOL_NAMES:
        schema = create_tool(name, str(tmp_path)).to_tool().parameters
        text = json.dumps(schema)
        assert "anyOf" not in text and "null" not in text and "$ref" not in text and "title" not in text, name
        assert schema["type"] == "object", name
        assert set(schema.get("required", [])) <= set(schema["properties"]), name
        for prop in schema["properties"].values():
            assert prop.get("description") and prop.get("type"), (name, prop)


def test_file_and_shell_tools_declare_constrained_sampling(tmp_path: Path) -> None:
    declared = {name: create_tool(name, str(tmp_path)).to_tool().to_json_dict() for name in ALL_TOOL_NAMES}
    preferred = {"type": "json_schema", "strict": "prefer"}
    assert {name for name, d in declared.items() if d.get("constrainedSampling") == preferred} == {
        "read",
        "bash",
        "edit",
        "write",
    }
    assert list(declared["read"]) == ["name", "description", "parameters", "constrainedSampling"]
    assert "constrainedSampling" not in declared["grep"]
