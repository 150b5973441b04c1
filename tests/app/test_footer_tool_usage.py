"""The footer's session totals count the usage tools report on their result messages, as pi's do."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from pi.ai.types import AssistantMessage, Cost, TextContent, ToolResultMessage, Usage
from pi.app.modes.interactive.footer import session_totals
from pi.session.manager import SessionManager


def _usage(tokens: int, cost: float) -> Usage:
    return Usage(input=tokens, output=1, cache_read=2, total_tokens=tokens + 3, cost=Cost(total=cost))


def test_tool_result_usage_is_added_to_the_totals_but_not_to_the_context(tmp_path: Any) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    reply = AssistantMessage(api="x", provider="p", model="m", content=[TextContent(text="hi")], usage=_usage(10, 0.5))
    manager.append_message(reply)
    result = ToolResultMessage(tool_call_id="c1", tool_name="codemode", usage=_usage(100, 2.0))
    manager.append_message(result)
    manager.append_message(ToolResultMessage(tool_call_id="c2", tool_name="read"))
    totals = session_totals(SimpleNamespace(session=manager, messages=manager.build_session_context().messages))  # type: ignore[arg-type]
    assert (totals.input, totals.output, totals.cache_read) == (110, 2, 4)
    assert totals.cost == 2.5
    assert totals.context_tokens == 13  # the reply's own tokens: tool usage is not context


def test_a_hand_edited_usage_entry_never_breaks_the_totals(tmp_path: Any) -> None:
    # The footer reads usage entries with the statistics' tolerant reader: malformed fields count as zero.
    manager = SessionManager.in_memory(str(tmp_path))
    manager.append_usage("cache_warm", "p", "m", {"input": "12", "output": -3, "cacheRead": 5, "cost": {"total": "x"}})
    manager.append_usage("cache_warm", "p", "m", {"input": 7, "output": 1, "cost": {"total": 0.25}})
    totals = session_totals(SimpleNamespace(session=manager, messages=manager.build_session_context().messages))  # type: ignore[arg-type]
    assert (totals.input, totals.output, totals.cache_read, totals.cost) == (7, 1, 5, 0.25)
