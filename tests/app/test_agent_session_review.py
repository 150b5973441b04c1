"""AgentSession edge cases: failing listeners, compaction before a prompt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi.ai.faux import FauxProvider, faux_assistant_message
from pi.ai.types import AssistantMessage, UserMessage
from pi.app.session_events import SessionEvent
from tests.support.faux_session import make_faux_session, scripted_chat, words


async def test_a_failing_listener_neither_stops_retries_nor_hides_events_from_others(
    faux: FauxProvider, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    faux.set_responses(
        [
            faux_assistant_message(stop_reason="error", error_message="503 unavailable"),
            faux_assistant_message("recovered"),
        ]
    )
    session = make_faux_session(faux, tmp_path)

    def broken(event: SessionEvent) -> None:
        raise ValueError("renderer bug")

    seen: list[str] = []
    session.subscribe(broken)
    session.subscribe(lambda event: seen.append(event.type))
    await session.prompt("go")
    assert session.last_assistant_text() == "recovered"
    assert "auto_retry_start" in seen and "auto_retry_end" in seen
    assert seen.count("agent_end") == 2 and seen.count("message_end") == 4
    failures = [r for r in caplog.records if r.name.startswith("pi.") and "renderer bug" in r.getMessage()]
    assert failures and all(r.levelname == "ERROR" and r.exc_info is not None for r in failures)


async def test_threshold_is_checked_before_a_prompt_after_an_aborted_reply(faux: FauxProvider, tmp_path: Path) -> None:
    settings = {"compaction": {"reserveTokens": 300, "keepRecentTokens": 150}}
    session = make_faux_session(faux, tmp_path, settings, context_window=1500)
    faux.set_responses([faux_assistant_message(words(100)) for _ in range(2)])
    for i in range(2):
        await session.prompt(f"question {i} " + words(100))
    events: list[str] = []
    session.subscribe(lambda event: events.append(event.type))
    # A reply aborted after the request went over the threshold: after the run it is skipped ...
    aborted = faux_assistant_message(words(20), stop_reason="aborted", error_message="Operation aborted")
    faux.set_responses([aborted])
    await session.prompt("third " + words(500))
    assert isinstance(session.messages[-1], AssistantMessage) and session.messages[-1].usage.input > 1200
    assert "compaction_start" not in events
    # ... but the next prompt compacts first, so the request is not sent over the threshold.
    faux.set_responses([scripted_chat([faux_assistant_message("ok")], "## Goal\nSummary.")] * 3)
    await session.prompt("fourth")
    assert events.index("compaction_start") < events.index("agent_start", events.index("compaction_start"))
    first = faux.contexts[-1].messages[0]
    assert isinstance(first, UserMessage) and "compacted into the following summary" in str(first.content)


async def test_an_overflow_that_cannot_be_compacted_is_not_compacted_again_as_threshold(
    faux: FauxProvider, tmp_path: Path
) -> None:
    # keepRecentTokens above the window: there is never anything to compact, every attempt fails.
    # The first reply leaves the context over the threshold (window - reserve) but within the window.
    settings = {"compaction": {"reserveTokens": 300, "keepRecentTokens": 20000}}
    session = make_faux_session(faux, tmp_path, settings, context_window=1700)
    faux.set_responses([faux_assistant_message(words(20))])
    await session.prompt("first " + words(1000))
    first = session.messages[-1]
    assert isinstance(first, AssistantMessage) and 1400 < first.usage.input + first.usage.output < 1700
    events: list[Any] = []
    session.subscribe(lambda event: events.append(event.to_json_dict()))
    overflow = "prompt is too long: 300000 tokens"
    faux.set_responses([faux_assistant_message(stop_reason="error", error_message=overflow)])
    await session.prompt("again")
    reasons = [e["reason"] for e in events if e["type"] == "compaction_start"]
    # Before the prompt (the last reply was over the threshold), then for the overflow; not a third time.
    assert reasons == ["threshold", "overflow"]
    last = session.messages[-1]
    assert isinstance(last, AssistantMessage) and last.error_message == overflow
