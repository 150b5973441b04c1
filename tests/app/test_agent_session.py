"""AgentSession with a scripted model: persistence, automatic retry and compaction, user bash."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi.ai.faux import FauxProvider, faux_assistant_message
from pi.ai.types import AssistantMessage, UserMessage
from pi.app.agent_session import AgentSession
from pi.app.system_prompt import PREAMBLE
from pi.session.messages import CompactionSummaryMessage
from tests.support.content import text_of
from tests.support.faux_session import make_faux_session, scripted_chat, words


def _session(
    faux: FauxProvider, tmp_path: Path, settings: dict[str, Any] | None = None, context_window: int = 128000
) -> tuple[AgentSession, list[dict[str, Any]]]:
    session = make_faux_session(faux, tmp_path, settings, context_window)
    events: list[dict[str, Any]] = []
    session.subscribe(lambda event: events.append(event.to_json_dict()))
    return session, events


def _reached(session: AgentSession, event_type: str) -> Any:
    """An event set when the session emits `event_type` (an awaited listener: set in step with the run)."""
    import asyncio

    reached = asyncio.Event()
    session.subscribe(lambda event: reached.set() if event.type == event_type else None, awaited=True)
    return reached


def _types(events: list[dict[str, Any]], prefix: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"].startswith(prefix)]


async def test_messages_are_persisted_with_model_and_thinking_entries_first(faux: FauxProvider, tmp_path: Path) -> None:
    faux.set_responses([faux_assistant_message("hello")])
    session, _ = _session(faux, tmp_path)
    await session.prompt("hi")
    kinds = [entry.to_dict()["type"] for entry in session.session.get_entries()]
    assert kinds == ["model_change", "thinking_level_change", "message", "message", "message"]
    assert session.last_assistant_text() == "hello"


async def test_transient_error_is_retried_with_backoff(faux: FauxProvider, tmp_path: Path) -> None:
    faux.set_responses(
        [
            faux_assistant_message(stop_reason="error", error_message="529 overloaded_error: Overloaded"),
            faux_assistant_message(stop_reason="error", error_message="503 service unavailable"),
            faux_assistant_message("recovered"),
        ]
    )
    session, events = _session(faux, tmp_path, {"retry": {"baseDelayMs": 5}})
    await session.prompt("go")
    retries = _types(events, "auto_retry")
    assert [(e["type"], e.get("attempt"), e.get("delayMs")) for e in retries] == [
        ("auto_retry_start", 1, 5),
        ("auto_retry_start", 2, 10),
        ("auto_retry_end", 2, None),
    ]
    assert retries[-1]["success"] is True
    # The failed replies left the context (the next request was clean) but stay in the session file.
    assert [m.role for m in session.messages] == ["system", "user", "assistant"]
    assert session.last_assistant_text() == "recovered"
    stored = [e for e in session.session.get_entries() if e.to_dict()["type"] == "message"]
    assert len(stored) == 5  # the system message, the prompt, two failed replies, the answer
    assert [m.role for m in faux.contexts[-1].messages] == ["user"]


async def test_retry_gives_up_after_max_attempts(faux: FauxProvider, tmp_path: Path) -> None:
    faux.set_responses(
        [faux_assistant_message(stop_reason="error", error_message="429 rate limit exceeded") for _ in range(5)]
    )
    session, events = _session(faux, tmp_path, {"retry": {"baseDelayMs": 1, "maxRetries": 2}})
    await session.prompt("go")
    end = _types(events, "auto_retry_end")
    assert end == [{"type": "auto_retry_end", "success": False, "attempt": 2, "finalError": "429 rate limit exceeded"}]
    assert faux.call_count == 3


async def test_non_transient_error_is_not_retried(faux: FauxProvider, tmp_path: Path) -> None:
    faux.set_responses([faux_assistant_message(stop_reason="error", error_message="401 invalid x-api-key")])
    session, events = _session(faux, tmp_path)
    await session.prompt("go")
    assert _types(events, "auto_retry") == []
    assert faux.call_count == 1


def _chat_or_summary(chat_words: int, summary: str) -> Any:
    """Answers the conversation with `chat_words` words, and a summary request with `summary`."""

    def reply(context: Any, options: Any, state: Any, model: Any) -> AssistantMessage:
        if (context.system_prompt or "").startswith(PREAMBLE):
            return faux_assistant_message(words(chat_words))
        return faux_assistant_message(summary)

    return reply


async def test_threshold_compaction_summarizes_and_keeps_recent(faux: FauxProvider, tmp_path: Path) -> None:
    settings = {"compaction": {"reserveTokens": 300, "keepRecentTokens": 150}}
    session, events = _session(faux, tmp_path, settings, context_window=1500)
    faux.set_responses([_chat_or_summary(150, "## Goal\nAnswer questions.")] * 12)
    for i in range(5):
        await session.prompt(f"question {i} " + words(100))
    starts = _types(events, "compaction_start")
    assert starts and all(e["reason"] == "threshold" for e in starts)
    end = _types(events, "compaction_end")[0]
    assert end["willRetry"] is False and end["aborted"] is False
    assert end["result"]["summary"].startswith("## Goal\nAnswer questions.")
    assert end["result"]["tokensBefore"] > 1500 - 300
    assert session.messages[0].role == "system"  # the compaction's prompt checkpoint, as in pi
    assert isinstance(session.messages[1], CompactionSummaryMessage)
    kinds = [e.to_dict()["type"] for e in session.session.get_entries()]
    assert "compaction" in kinds
    # Context after compaction is the summary plus recent turns, well under the threshold again.
    assert len(session.messages) < 2 * 5


async def _three_turns(session: AgentSession, faux: FauxProvider) -> None:
    faux.set_responses([faux_assistant_message(words(60)) for _ in range(3)])
    for i in range(3):
        await session.prompt(f"turn {i} " + words(60))


async def test_overflow_error_compacts_then_retries_once(faux: FauxProvider, tmp_path: Path) -> None:
    settings = {"compaction": {"reserveTokens": 100, "keepRecentTokens": 40}}
    session, events = _session(faux, tmp_path, settings, context_window=100000)
    await _three_turns(session, faux)
    chat = [
        faux_assistant_message(stop_reason="error", error_message="prompt is too long: 210000 tokens > 200000"),
        faux_assistant_message("answer after compaction"),
    ]
    faux.set_responses([scripted_chat(chat, "## Goal\nSummarized earlier turns.")] * 6)
    await session.prompt("one more")
    compaction = _types(events, "compaction_")
    assert [e["type"] for e in compaction] == ["compaction_start", "compaction_end"]
    assert compaction[0]["reason"] == "overflow"
    assert compaction[1]["willRetry"] is True and compaction[1]["result"]["summary"].startswith("## Goal")
    assert session.last_assistant_text() == "answer after compaction"
    assert session.messages[0].role == "system"  # the compaction's prompt checkpoint, as in pi
    assert isinstance(session.messages[1], CompactionSummaryMessage)
    # The retried request starts from the summary, not the overflowing history.
    retried = faux.contexts[-1].messages
    assert isinstance(retried[0], UserMessage) and "compacted into the following summary" in str(retried[0].content)
    kinds = [e.to_dict()["type"] for e in session.session.get_entries()]
    assert "compaction" in kinds


async def test_second_overflow_after_recovery_reports_failure(faux: FauxProvider, tmp_path: Path) -> None:
    settings = {"compaction": {"reserveTokens": 100, "keepRecentTokens": 40}}
    session, events = _session(faux, tmp_path, settings)
    await _three_turns(session, faux)
    overflow = "prompt is too long: 300000 tokens"
    chat = [faux_assistant_message(stop_reason="error", error_message=overflow) for _ in range(2)]
    faux.set_responses([scripted_chat(chat, "## Goal\nx")] * 6)
    await session.prompt("again")
    ends = _types(events, "compaction_end")
    assert ends[-1]["errorMessage"].startswith("Context overflow recovery failed after one compact-and-retry")
    last = session.messages[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "error"


async def test_user_bash_reaches_the_model_with_the_next_prompt(faux: FauxProvider, tmp_path: Path) -> None:
    faux.set_responses([faux_assistant_message("seen")])
    session, _ = _session(faux, tmp_path)
    result = await session.execute_bash("echo from-bash; exit 3")
    assert (result.output.strip(), result.exit_code, result.cancelled) == ("from-bash", 3, False)
    await session.prompt("what happened?")
    first = faux.contexts[0].messages[0]
    assert isinstance(first, UserMessage)
    assert "Ran `echo from-bash; exit 3`" in str(first.content)
    assert "Command exited with code 3" in str(first.content)


async def test_prompt_while_streaming_needs_a_behavior(faux: FauxProvider, tmp_path: Path) -> None:
    import asyncio

    faux.tokens_per_second = 50
    faux.set_responses([faux_assistant_message(words(40)), faux_assistant_message("follow-up answer")])
    session, _ = _session(faux, tmp_path)
    streaming = _reached(session, "message_update")
    run = asyncio.create_task(session.prompt("long answer please"))
    await streaming.wait()
    with pytest.raises(RuntimeError, match="Specify streamingBehavior"):
        await session.prompt("interrupt")
    await session.prompt("and then this", streaming_behavior="followUp")
    await run
    assert session.last_assistant_text() == "follow-up answer"


async def test_a_prompt_during_a_retry_wait_is_queued_not_run_alongside(faux: FauxProvider, tmp_path: Path) -> None:
    import asyncio

    faux.set_responses(
        [
            faux_assistant_message(stop_reason="error", error_message="529 overloaded_error: Overloaded"),
            faux_assistant_message("first answer"),
            faux_assistant_message("follow-up answer"),
        ]
    )
    session, _ = _session(faux, tmp_path, {"retry": {"baseDelayMs": 200}})
    waiting = _reached(session, "auto_retry_start")
    run = asyncio.create_task(session.prompt("go"))
    await waiting.wait()
    assert session.is_streaming  # the retry wait is part of the run
    with pytest.raises(RuntimeError, match="Specify streamingBehavior"):
        await session.prompt("now")
    await session.prompt("later", streaming_behavior="followUp")
    await run
    texts = [text_of(m.content[0]) for m in session.messages if isinstance(m, AssistantMessage) and m.content]
    assert texts == ["first answer", "follow-up answer"]
    assert not session.is_streaming


async def test_a_prompt_during_a_manual_compaction_must_queue(faux: FauxProvider, tmp_path: Path) -> None:
    import asyncio

    session, _ = _session(faux, tmp_path, {"compaction": {"reserveTokens": 100, "keepRecentTokens": 40}})
    await _three_turns(session, faux)
    faux.tokens_per_second = 20
    faux.set_responses([faux_assistant_message("## Goal\nsummary " + words(20))] * 2)
    started = _reached(session, "compaction_start")
    compaction = asyncio.create_task(session.compact())
    await started.wait()
    assert session.is_compacting
    assert session.is_streaming
    with pytest.raises(RuntimeError, match="Cannot submit a prompt while compaction is in progress"):
        await session.prompt("now")
    result = await compaction
    assert result["summary"].startswith("## Goal")
    assert not session.is_streaming


async def test_compact_while_a_reply_streams_aborts_the_reply_first(faux: FauxProvider, tmp_path: Path) -> None:
    """The SDK's `compact` (and so an extension's `ctx.compact`) stops a running reply before it
    summarizes, as pi's does, instead of compacting under a run that still writes to the history."""
    import asyncio

    session, events = _session(faux, tmp_path, {"compaction": {"reserveTokens": 100, "keepRecentTokens": 40}})
    await _three_turns(session, faux)
    faux.tokens_per_second = 5
    summary = faux_assistant_message("## Goal\nsum")
    faux.set_responses([faux_assistant_message("a slow reply " + words(200)), summary, summary])
    streaming = _reached(session, "message_update")
    run = asyncio.create_task(session.prompt("go on"))
    await streaming.wait()
    faux.tokens_per_second = None
    result = await asyncio.wait_for(session.compact(), timeout=30)
    assert result["summary"].startswith("## Goal\nsum")
    await run
    kinds = [e["type"] for e in events]
    assert kinds.index("agent_settled", kinds.index("message_update")) < kinds.index("compaction_start")
    aborted = [m for m in session.session.build_session_context().messages if isinstance(m, AssistantMessage)]
    assert aborted[-1].stop_reason == "aborted"
    assert not session.is_streaming


async def test_a_silent_overflow_is_compacted_but_not_retried(faux: FauxProvider, tmp_path: Path) -> None:
    settings = {"compaction": {"reserveTokens": 10, "keepRecentTokens": 40}}
    session, events = _session(faux, tmp_path, settings)
    await _three_turns(session, faux)
    last = [m for m in session.messages if isinstance(m, AssistantMessage)][-1]
    used = last.usage.input + last.usage.output
    # The server accepted more than the window holds and answered anyway: a silent overflow.
    model = session.model
    assert model is not None
    # Room for the history but not for the next prompt (about 80 tokens) on top of it.
    session.agent.set_model(model.model_copy(update={"context_window": used + 45}))
    chat = [faux_assistant_message("answer from truncated input"), faux_assistant_message("answer after compaction")]
    faux.set_responses([scripted_chat(chat, "## Goal\nShort summary.")] * 6)
    await session.prompt("one more " + words(60))
    compaction = _types(events, "compaction_")
    assert [e["type"] for e in compaction] == ["compaction_start", "compaction_end"]
    # A completed overflow keeps its answer: it is compacted for what follows, and not asked again.
    assert compaction[0]["reason"] == "overflow" and compaction[1]["willRetry"] is False
    assert session.last_assistant_text() == "answer from truncated input"
