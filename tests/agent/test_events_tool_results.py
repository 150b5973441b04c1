"""A tool result in `tool_execution_*` events is written with the keys the tool set, as pi writes it."""

from __future__ import annotations

from pi.agent.events import ToolExecutionEndEvent, tool_result_to_json
from pi.agent.tool import AgentToolResult
from pi.ai.types import TextContent


def test_unset_details_are_left_out_rather_than_null() -> None:
    result = AgentToolResult(content=[TextContent(text="ok")])
    assert tool_result_to_json(result) == {"content": [{"type": "text", "text": "ok"}]}


def test_structured_content_and_the_tools_own_error_flag_come_along() -> None:
    structured = {"output": "", "truncated": False, "exit_code": 3, "wall_time_seconds": 0}
    result = AgentToolResult(content=[], details={}, is_error=True, structured_content=structured)
    event = ToolExecutionEndEvent("call-1", "bash", result, is_error=True, duration_ms=4.4)
    assert event.to_json_dict()["result"] == {
        "content": [],
        "details": {},
        "structuredContent": structured,
        "isError": True,
    }
