"""Overflow recovery when the recent part does not fit: cut deeper, shrink tool output, or report the prompt."""

from __future__ import annotations

import pytest

from pi.agent.messages import AgentMessage
from pi.ai.types import TextContent, ToolResultMessage
from pi.session import (
    CompactionSettings,
    PromptTooLargeError,
    SessionManager,
    estimate_context_tokens,
    prepare_compaction,
    prepare_overflow_compaction,
)
from tests.session.builders import assistant, call, result, user

SETTINGS = CompactionSettings(reserve_tokens=2000, keep_recent_tokens=20_000)


def _turn(
    manager: SessionManager, n: int, output_chars: int, tool: str = "read", *, calls: int = 1, answer: bool = True
) -> str:
    """A prompt, `calls` tool calls each with `output_chars` of output, and (with `answer`) a final reply.

    Without the answer the turn ends at its last tool result, as a branch does when the next request overflows.
    """
    question = manager.append_message(user(f"question {n}"))
    for k in range(calls):
        call_id = f"c{n}_{k}"
        arguments = {"path": f"file{n}.txt"} if tool == "read" else {"command": f"cat big{n}"}
        manager.append_message(assistant("", calls=[call(tool, call_id, **arguments)]))
        manager.append_message(result("line\n" * (output_chars // 5), call_id, tool))
    if answer:
        manager.append_message(assistant(f"answer {n}"))
    return question


def _context_after(manager: SessionManager, summary_chars: int = 2000) -> list[AgentMessage]:
    return manager.build_session_context().messages


def test_when_the_usual_cut_fits_nothing_changes() -> None:
    manager = SessionManager.in_memory("/p")
    for n in range(4):
        _turn(manager, n, 20_000)
    plan = prepare_overflow_compaction(manager.get_branch(), CompactionSettings(keep_recent_tokens=6000), 200_000)
    usual = prepare_compaction(manager.get_branch(), CompactionSettings(keep_recent_tokens=6000))
    assert plan.preparation is not None and usual is not None
    assert plan.preparation.first_kept_entry_id == usual.first_kept_entry_id
    assert plan.shrinks == [] and not plan.deeper_than_settings


def test_the_cut_goes_deeper_than_keep_recent_tokens_down_to_the_last_user_message() -> None:
    manager = SessionManager.in_memory("/p")
    for n in range(3):
        _turn(manager, n, 4_000, calls=10)  # about 10,000 tokens a turn
    branch = manager.get_branch()
    ids = [e.id for e in branch]
    usual = prepare_compaction(branch, SETTINGS)
    assert usual is not None and len(usual.kept_messages) > 22  # about 20,000 tokens: more than the last turn
    plan = prepare_overflow_compaction(branch, SETTINGS, context_window=16_000)
    assert plan.preparation is not None and plan.deeper_than_settings and plan.shrinks == []
    first_kept = ids.index(plan.preparation.first_kept_entry_id)
    assert ids.index(usual.first_kept_entry_id) < first_kept <= len(ids) - 22  # not past the last prompt
    assert plan.kept_tokens <= 16_000 - SETTINGS.reserve_tokens
    manager.append_compaction("summary", plan.preparation.first_kept_entry_id, plan.preparation.tokens_before)
    assert estimate_context_tokens(_context_after(manager)).tokens <= 16_000


def test_an_oversized_tool_result_in_the_kept_part_is_shrunk_with_a_notice() -> None:
    manager = SessionManager.in_memory("/p")
    _turn(manager, 0, 4_000)
    last = _turn(manager, 1, 200_000, answer=False)  # about 50,000 tokens of output in the turn that must stay
    plan = prepare_overflow_compaction(manager.get_branch(), SETTINGS, context_window=16_000, overhead_tokens=1000)
    assert plan.preparation is not None and plan.preparation.first_kept_entry_id == last
    (shrink,) = plan.shrinks
    assert shrink.tool_name == "read" and shrink.original_chars == 200_000 and shrink.kept_chars < 200_000
    text = shrink.replacement["content"][0]["text"]
    assert text.startswith("line\nline\n")
    assert f"showing the first {shrink.kept_chars} of 200000 characters" in text
    assert f"read file1.txt again with offset={shrink.kept_chars // 5 + 1}" in text
    for item in plan.shrinks:
        manager.append_context_edit(item.target_id, item.replacement)
    manager.append_compaction("summary", plan.preparation.first_kept_entry_id, plan.preparation.tokens_before)
    messages = _context_after(manager)
    assert estimate_context_tokens(messages).tokens <= 16_000 - 1000
    shortened = next(m for m in messages if isinstance(m, ToolResultMessage))
    assert isinstance(shortened.content[0], TextContent) and "Output shortened" in shortened.content[0].text
    full = manager.get_entry(shrink.target_id)
    assert full is not None and len(full.to_dict()["message"]["content"][0]["text"]) == 200_000


def test_a_single_turn_session_is_shrunk_without_a_summary() -> None:
    manager = SessionManager.in_memory("/p")
    _turn(manager, 0, 200_000, tool="bash", answer=False)
    plan = prepare_overflow_compaction(manager.get_branch(), SETTINGS, context_window=16_000)
    assert plan.preparation is None
    (shrink,) = plan.shrinks
    assert "run the command again with its output narrowed" in shrink.replacement["content"][0]["text"]


def test_a_prompt_that_alone_exceeds_the_window_is_reported_as_such() -> None:
    manager = SessionManager.in_memory("/p")
    _turn(manager, 0, 1000)
    manager.append_message(user("x" * 80_000))  # about 20,000 tokens
    with pytest.raises(PromptTooLargeError) as raised:
        prepare_overflow_compaction(manager.get_branch(), SETTINGS, context_window=16_000, overhead_tokens=500)
    assert raised.value.prompt_tokens == 20_000 and raised.value.available_tokens == 15_500
    assert str(raised.value).startswith("The prompt alone is too large for the model's context window")
