"""Options line, result layout, output budget, tool values and the tool-flag activation rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi.app.codemode.options import ScriptOptionsError, parse_script
from pi.app.codemode.script_result import CallRecord, ScriptRun, build_result
from pi.app.codemode.tool_values import script_value
from pi.app.session_tool_requests import tool_requester
from pi.app.tool_patterns import ToolSelection


def test_the_options_line_sets_limits_and_becomes_an_empty_line() -> None:
    source = parse_script('// @options: {"timeout_ms": 200, "max_output_tokens": 5}\nreturn 1')
    assert (source.code, source.timeout_ms, source.max_output_tokens) == ("\nreturn 1", 200, 5)


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("  ", "non-empty"),
        ("// @options: {bad}\nreturn 1", "not valid JSON"),
        ('// @options: {"memory": 1}\nreturn 1', "Unknown @options key(s): memory"),
        ('// @options: {"timeout_ms": 5}', "no code"),
        ('return 1\n// @options: {"timeout_ms": 5}', "first line"),
    ],
)
def test_bad_options_fail_before_running(code: str, message: str) -> None:
    with pytest.raises(ScriptOptionsError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_script(code)


def test_a_single_text_item_has_no_counter_and_failures_list_the_calls() -> None:
    run = ScriptRun(
        ok=False,
        wall_s=0.04,
        items=[{"type": "text", "text": "a"}],
        error="Error: x",
        calls=[CallRecord("1", "read", "{}", "ok"), CallRecord("2", "bash", "{}", "error")],
    )
    result = build_result(run, 10000)
    assert result["content"][0]["text"] == (
        "Script failed\nWall time 0.0 seconds\nOutput:\na\n\nScript error:\nError: x\n\n"
        "Tool calls made before the failure (they are not undone): read (ok), bash (error)"
    )
    assert result["isError"] is True
    assert [c["status"] for c in result["details"]["calls"]] == ["ok", "error"]


def test_output_over_the_budget_keeps_head_and_tail_and_saves_the_whole() -> None:
    text = "x" * 100 + "MIDDLE" + "y" * 100
    result = build_result(ScriptRun(ok=True, wall_s=1.25, items=[{"type": "text", "text": text}]), 10)
    body = result["content"][0]["text"]
    assert body.startswith("Script completed\nWall time 1.2 seconds\nOutput:\nWarning: truncated output (original")
    assert "Total output lines: 1\n\n" in body and "tokens truncated…" in body and "MIDDLE" not in body
    path = result["details"]["fullOutputPath"]
    assert body.endswith(f"[Full output: {path} (read with offset/limit)]")
    assert Path(path).read_text() == text


def test_tool_values_prefer_structured_content_and_reject_errors() -> None:
    bash = {"content": [{"type": "text", "text": "hi"}], "structuredContent": {"output": "hi\n", "exit_code": 0}}
    assert script_value("bash", bash) == (True, {"output": "hi\n", "exit_code": 0})
    assert script_value("read", {"content": [{"type": "text", "text": "t"}]}) == (True, "t")
    failed = {"content": [{"type": "text", "text": "blocked: no"}], "isError": True}
    assert script_value("read", failed) == (False, "blocked: no")


def test_inactive_tools_are_turned_on_by_plus_entries_and_default_tools() -> None:
    assert tool_requester(ToolSelection(tools=["+codemode"]), {}, {})("codemode")
    assert not tool_requester(ToolSelection(tools=["read"]), {}, {})("codemode")
    assert tool_requester(None, {"defaultTools": ["+codemode"]}, {})("codemode")
    excluded = ToolSelection(tools=["+codemode"], exclude=["codemode"])
    assert not tool_requester(excluded, {}, {})("codemode")
    assert not tool_requester(None, {}, {})("codemode")
