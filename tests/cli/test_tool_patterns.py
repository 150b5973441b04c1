"""Choosing the starting tools: selections, +/- edits, * patterns, exclusions, defaultTools."""

from __future__ import annotations

from pi.app.tool_patterns import ToolSelection, select_tool_names, tools_flag_errors

BUILTINS = ("read", "bash", "edit", "write", "grep", "find", "ls")
DEFAULTS = ("read", "bash", "edit", "write")
MCP = ["mcp__radius__search", "mcp__radius__fetch", "mcp__git__log"]
AVAILABLE = (*BUILTINS, "deploy", *MCP)


def select(**kwargs: object) -> list[str]:
    return select_tool_names(AVAILABLE, BUILTINS, DEFAULTS, ToolSelection(**kwargs))  # type: ignore[arg-type]


def test_default_selection_is_the_default_built_ins_plus_other_tools() -> None:
    assert select() == ["read", "bash", "edit", "write", "deploy", *MCP]


def test_modifiers_edit_the_defaults() -> None:
    assert select(tools=["+grep", "-write"])[:4] == ["read", "bash", "edit", "grep"]


def test_a_plain_list_selects_exactly_and_keeps_mcp_tools() -> None:
    assert select(tools=["read", "nope"]) == ["read", *MCP]


def test_patterns_and_mcp_entries() -> None:
    assert select(tools=["read", "mcp__radius__*"]) == ["read", "mcp__radius__search", "mcp__radius__fetch"]
    assert select(tools=["*"]) == list(AVAILABLE)


def test_an_empty_list_exposes_no_tools() -> None:
    assert select(tools=[]) == []


def test_exclusions_apply_last_with_patterns() -> None:
    assert select(exclude=["bash", "mcp__*"]) == ["read", "edit", "write", "deploy"]
    assert select(tools=["read", "grep"], exclude=["grep"]) == ["read", *MCP]


def test_no_tools_and_no_builtin_tools() -> None:
    assert select(no_tools=True) == []
    assert select(no_tools=True, tools=["grep"]) == ["grep"]
    assert select(no_builtin_tools=True) == ["deploy", *MCP]


def test_default_tools_setting_user_then_project() -> None:
    assert select(user_default=["read", "grep"])[:2] == ["read", "grep"]
    assert select(user_default=["read", "grep"], project_default=["+ls", "-grep"])[:2] == ["read", "ls"]
    assert select(user_default=["read"], project_default=["bash"])[:1] == ["bash"]
    assert select(user_default=[])[:1] == ["deploy"]  # [] turns off the built-ins only
    assert select(user_default=["read"], tools=["edit"])[:1] == ["edit"]  # a plain --tools overrides it


def test_flag_errors() -> None:
    assert tools_flag_errors(["read", "+grep"]) == ["--tools: tool names cannot be mixed with +name or -name entries"]
    assert tools_flag_errors(["-mcp__*"]) == [
        "--tools: +name and -name entries take exact tool names, not patterns: -mcp__*"
    ]
    assert tools_flag_errors(["read", "mcp__*"]) == []
