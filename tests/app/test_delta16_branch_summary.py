"""Navigating the session tree with a summary (delta-1.6 §5.3, §5.2.11): retried like compaction summaries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi.ai.faux import FauxProvider, FauxState, faux_assistant_message
from pi.ai.options import StreamOptions
from pi.ai.types import AssistantMessage, Context, Model, TextContent, UserMessage
from pi.app.agent_session import AgentSession
from pi.session.entries import BranchSummaryEntry, MessageEntry
from tests.support.faux_session import make_faux_session


def _session(faux: FauxProvider, tmp_path: Path) -> tuple[AgentSession, list[dict[str, Any]]]:
    session = make_faux_session(faux, tmp_path, {"retry": {"baseDelayMs": 3}})
    events: list[dict[str, Any]] = []
    session.subscribe(lambda event: events.append(event.to_json_dict()))
    return session, events


async def _two_questions(session: AgentSession, faux: FauxProvider) -> tuple[str, str]:
    """Two exchanges; returns the id of the first answer and the leaf after the second."""
    faux.set_responses([faux_assistant_message("first answer"), faux_assistant_message("second answer")])
    await session.prompt("first question")
    first_answer = session.session.get_leaf_id()
    await session.prompt("second question")
    leaf = session.session.get_leaf_id()
    assert first_answer is not None and leaf is not None
    return first_answer, leaf


async def test_branch_summary_requests_retry_with_the_branch_summary_source(faux: FauxProvider, tmp_path: Path) -> None:
    session, events = _session(faux, tmp_path)
    first_answer, old_leaf = await _two_questions(session, faux)
    contexts: list[Context] = []

    def summary(context: Context, options: StreamOptions, state: FauxState, model: Model) -> AssistantMessage:
        contexts.append(context)
        return faux_assistant_message("The user asked a second question.")

    faux.set_responses([faux_assistant_message(stop_reason="error", error_message="503 service unavailable"), summary])
    assert await session.navigate_tree(first_answer, summarize=True) is None
    await session.drain_events()
    assert [e for e in events if e["type"].startswith("summarization_retry")] == [
        {
            "type": "summarization_retry_scheduled",
            "attempt": 1,
            "maxAttempts": 3,
            "delayMs": 3,
            "errorMessage": "503 service unavailable",
        },
        {"type": "summarization_retry_attempt_start", "source": "branchSummary"},
        {"type": "summarization_retry_finished"},
    ]
    leaf = session.session.get_leaf_entry()
    assert isinstance(leaf, BranchSummaryEntry)
    assert leaf.parent_id == first_answer
    assert leaf.from_id == old_leaf
    assert "The user asked a second question." in leaf.summary
    assert leaf.usage is not None
    # the abandoned question went to the summarizer, without tools
    (request,) = contexts
    assert not request.tools
    sent = request.messages[-1]
    assert isinstance(sent, UserMessage)
    text = (
        sent.content
        if isinstance(sent.content, str)
        else "".join(b.text for b in sent.content if isinstance(b, TextContent))
    )
    assert "second question" in text and "first question" not in text


async def test_a_failed_branch_summary_leaves_the_leaf_where_it_was(faux: FauxProvider, tmp_path: Path) -> None:
    session, _ = _session(faux, tmp_path)
    first_answer, old_leaf = await _two_questions(session, faux)
    faux.set_responses([faux_assistant_message(stop_reason="error", error_message="invalid request: bad input")])
    with pytest.raises(ValueError, match="Summarization failed: invalid request: bad input"):
        await session.navigate_tree(first_answer, summarize=True)
    assert session.session.get_leaf_id() == old_leaf


async def test_navigating_to_a_user_message_summarizes_and_hands_back_its_text(
    faux: FauxProvider, tmp_path: Path
) -> None:
    session, _ = _session(faux, tmp_path)
    await _two_questions(session, faux)
    first_question = next(e for e in session.session.get_branch() if isinstance(e, MessageEntry) and e.role == "user")
    faux.set_responses([faux_assistant_message("Both questions were asked.")])
    assert await session.navigate_tree(first_question.id, summarize=True) == "first question"
    leaf = session.session.get_leaf_entry()
    assert isinstance(leaf, BranchSummaryEntry)
    assert leaf.parent_id == first_question.parent_id
    assert [m.role for m in session.agent.state.messages if m.role in ("user", "assistant")] == []
