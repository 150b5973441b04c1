"""Recovery policy of pi 1.6: failed attempts omitted, capped backoff, summary retries, length recovery."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from pi.agent.tool import AgentTool, AgentToolResult
from pi.ai.faux import FauxProvider, faux_assistant_message, faux_tool_call
from pi.ai.types import AssistantMessage, TextContent
from pi.app.agent_session import AgentSession
from pi.app.session_recovery import LENGTH_RECOVERY_FAILED
from pi.session.entries import ContextEditEntry, MessageEntry
from tests.support.faux_session import make_faux_session, scripted_chat, words


def _session(
    faux: FauxProvider, tmp_path: Path, settings: dict[str, Any] | None = None, context_window: int = 128000
) -> tuple[AgentSession, list[dict[str, Any]]]:
    session = make_faux_session(faux, tmp_path, settings, context_window)
    events: list[dict[str, Any]] = []
    session.subscribe(lambda event: events.append(event.to_json_dict()))
    return session, events


def _of(events: list[dict[str, Any]], prefix: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"].startswith(prefix)]


def _shape(session: AgentSession) -> list[str]:
    """The branch as roles and context edits, from the first message on."""
    out: list[str] = []
    for entry in session.session.get_branch():
        if isinstance(entry, MessageEntry):
            out.append(entry.role or "?")
        elif isinstance(entry, ContextEditEntry):
            out.append("omit" if entry.replacement is None else "edit")
    return out


async def _three_turns(session: AgentSession, faux: FauxProvider) -> None:
    faux.set_responses([faux_assistant_message(words(60)) for _ in range(3)])
    for i in range(3):
        await session.prompt(f"turn {i} " + words(60))


async def test_each_retried_attempt_is_persisted_as_omitted(faux: FauxProvider, tmp_path: Path) -> None:
    failure = "connect ECONNREFUSED 127.0.0.1:9"
    faux.set_responses([faux_assistant_message(stop_reason="error", error_message=failure) for _ in range(4)])
    session, events = _session(faux, tmp_path)
    await session.prompt("hi")
    shape = [kind for kind in _shape(session) if kind != "system"]
    assert shape == ["user", "assistant", "omit", "assistant", "omit", "assistant", "omit", "assistant"]
    branch = session.session.get_branch()
    edits = [e for e in branch if isinstance(e, ContextEditEntry)]
    # Each omission points at the failed reply right before it.
    for edit in edits:
        target = session.session.get_entry(edit.target_id)
        assert isinstance(target, MessageEntry) and target.message_json["stopReason"] == "error"
    appended = [e["entry"] for e in _of(events, "entry_appended")]
    assert [a["id"] for a in appended] == [e.id for e in edits]
    assert all(a["type"] == "context_edit" and a["replacement"] is None for a in appended)
    # The context built from the file has none of the three omitted attempts.
    rebuilt = session.session.build_session_context().messages
    assert sum(isinstance(m, AssistantMessage) for m in rebuilt) == 1


async def test_max_agent_delay_caps_each_backoff(faux: FauxProvider, tmp_path: Path) -> None:
    faux.set_responses(
        [faux_assistant_message(stop_reason="error", error_message="503 service unavailable") for _ in range(3)]
        + [faux_assistant_message("ok")]
    )
    session, events = _session(faux, tmp_path, {"retry": {"baseDelayMs": 5, "maxAgentDelayMs": 7}})
    await session.prompt("go")
    assert [e["delayMs"] for e in _of(events, "auto_retry_start")] == [5, 7, 7]
    assert session.last_assistant_text() == "ok"


async def test_quota_and_billing_errors_are_never_retried(faux: FauxProvider, tmp_path: Path) -> None:
    for text in ("insufficient_quota (429)", "429 billing: check your plan", "Monthly usage limit reached (503)"):
        faux.set_responses([faux_assistant_message(stop_reason="error", error_message=text)])
        session, events = _session(faux, tmp_path)
        await session.prompt("go")
        assert _of(events, "auto_retry") == [], text
        assert not any(isinstance(e, ContextEditEntry) for e in session.session.get_branch())


async def test_summary_requests_retry_with_summarization_retry_events(faux: FauxProvider, tmp_path: Path) -> None:
    settings = {"compaction": {"reserveTokens": 100, "keepRecentTokens": 40}, "retry": {"baseDelayMs": 3}}
    session, events = _session(faux, tmp_path, settings)
    await _three_turns(session, faux)
    faux.set_responses(
        [
            faux_assistant_message(stop_reason="error", error_message="503 service unavailable"),
            faux_assistant_message("## Goal\nSummary after a retry."),
            faux_assistant_message("## Original Request\nTurn prefix."),
        ]
    )
    result = await session.compact()
    await session.drain_events()
    assert result["summary"].startswith("## Goal\nSummary after a retry.")
    retry_events = _of(events, "summarization_retry")
    assert retry_events == [
        {
            "type": "summarization_retry_scheduled",
            "attempt": 1,
            "maxAttempts": 3,
            "delayMs": 3,
            "errorMessage": "503 service unavailable",
        },
        {"type": "summarization_retry_attempt_start", "source": "compaction", "reason": "manual"},
        {"type": "summarization_retry_finished"},
    ]
    kinds = [e["type"] for e in events]
    assert kinds.index("compaction_start") < kinds.index("summarization_retry_scheduled")
    assert kinds.index("summarization_retry_finished") < kinds.index("compaction_end")


async def test_disabled_compaction_stops_overflow_recovery_but_not_manual(faux: FauxProvider, tmp_path: Path) -> None:
    settings = {"compaction": {"enabled": False, "reserveTokens": 100, "keepRecentTokens": 40}}
    session, events = _session(faux, tmp_path, settings)
    await _three_turns(session, faux)
    overflow = "prompt is too long: 210000 tokens > 200000"
    faux.set_responses([faux_assistant_message(stop_reason="error", error_message=overflow)])
    await session.prompt("one more")
    assert _of(events, "compaction_") == []
    assert [e["willRetry"] for e in _of(events, "agent_end")][-1] is False
    last = session.messages[-1]
    assert isinstance(last, AssistantMessage) and last.error_message == overflow
    faux.set_responses([faux_assistant_message("## Goal\nManual summary.") for _ in range(2)])
    result = await session.compact()
    assert result["summary"].startswith("## Goal\nManual summary.")


async def test_a_reply_cut_below_max_tokens_is_compacted_and_retried_once(faux: FauxProvider, tmp_path: Path) -> None:
    settings = {"compaction": {"reserveTokens": 100, "keepRecentTokens": 40}}
    session, events = _session(faux, tmp_path, settings)
    await _three_turns(session, faux)
    chat = [faux_assistant_message("cut sh", stop_reason="length"), faux_assistant_message("full answer")]
    faux.set_responses([scripted_chat(chat, "## Goal\nEarlier turns.")] * 4)
    await session.prompt("one more")
    assert [e["willRetry"] for e in _of(events, "agent_end")][-2:] == [True, False]
    ends = _of(events, "compaction_end")
    assert ends[-1]["willRetry"] is True and ends[-1]["result"]["summary"].startswith("## Goal")
    assert session.last_assistant_text() == "full answer"
    # The cut reply stays in the file, omitted from the context.
    assert "omit" in _shape(session)
    assert all(
        not (isinstance(m, AssistantMessage) and m.stop_reason == "length")
        for m in session.session.build_session_context().messages
    )


async def test_a_second_cut_reply_reports_that_recovery_failed(faux: FauxProvider, tmp_path: Path) -> None:
    settings = {"compaction": {"reserveTokens": 100, "keepRecentTokens": 40}}
    session, events = _session(faux, tmp_path, settings)
    await _three_turns(session, faux)
    chat = [faux_assistant_message("cut", stop_reason="length") for _ in range(2)]
    faux.set_responses([scripted_chat(chat, "## Goal\nEarlier turns.")] * 4)
    await session.prompt("one more")
    assert _of(events, "compaction_end")[-1]["errorMessage"] == LENGTH_RECOVERY_FAILED
    last = session.messages[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "length"


async def test_a_reply_at_max_tokens_is_not_retried(faux: FauxProvider, tmp_path: Path) -> None:
    session, events = _session(faux, tmp_path)
    model = session.model
    assert model is not None
    # The scripted model reports about one output token for "cut": that is the whole limit here.
    session.agent.set_model(model.model_copy(update={"max_tokens": 1}))
    faux.set_responses([faux_assistant_message("cut", stop_reason="length")])
    await session.prompt("go")
    assert _of(events, "compaction_") == []
    assert [e["willRetry"] for e in _of(events, "agent_end")] == [False]


class _Echo(BaseModel):
    size: int


def _filler_tool() -> AgentTool[_Echo]:
    async def execute(tool_call_id: str, params: _Echo, signal: Any, on_update: Any) -> AgentToolResult:
        return AgentToolResult(content=[TextContent(text=words(params.size))])

    return AgentTool(
        name="filler", label="filler", description="Returns filler text.", parameters=_Echo, execute=execute
    )


async def test_threshold_is_checked_between_a_tool_batch_and_the_next_request(
    faux: FauxProvider, tmp_path: Path
) -> None:
    settings = {"compaction": {"reserveTokens": 300, "keepRecentTokens": 150}}
    session, events = _session(faux, tmp_path, settings, context_window=1500)
    session.agent.set_tools([_filler_tool()])
    faux.set_responses([faux_assistant_message(words(100)) for _ in range(2)])
    for i in range(2):
        await session.prompt(f"question {i} " + words(100))
    kinds_before = [e["type"] for e in events]
    assert "compaction_start" not in kinds_before
    chat = [
        faux_assistant_message(faux_tool_call("filler", {"size": 600})),
        faux_assistant_message("answer after the big result"),
    ]
    faux.set_responses([scripted_chat(chat, "## Goal\nEarlier questions.")] * 6)
    await session.prompt("use the tool")
    assert session.last_assistant_text() == "answer after the big result"
    kinds = [e["type"] for e in events]
    first = kinds.index("compaction_start")
    # Within the run: after the tool's result, before the reply to it; one run, no retry.
    assert kinds.index("tool_execution_end", len(kinds_before)) < first < len(kinds) - 1
    assert _of(events, "compaction_start")[0]["reason"] == "threshold"
    assert kinds[first:].index("message_start") > 0 and kinds.count("agent_start") == 3
    # The request after the tool batch was built from the summary, with the tool result kept.
    sent = faux.contexts[-1].messages
    assert "compacted into the following summary" in str(sent[0].content)
    assert any(getattr(m, "role", None) == "toolResult" for m in sent)
    assert sum(getattr(m, "role", None) == "user" for m in sent) < 4
