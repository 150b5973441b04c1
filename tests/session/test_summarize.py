"""Summary requests of pi 1.6.0: no tools, no fixed cap, the session's reasoning, errors, retries, serialization."""

from __future__ import annotations

import asyncio

import pytest

from pi.ai.options import StreamOptions
from pi.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
    UserMessage,
)
from pi.session import (
    CompactionCancelledError,
    CompactionError,
    CompactionSettings,
    NoSummaryModelError,
    NothingToCompactError,
    RetryAttempt,
    SessionManager,
    SummaryRetry,
    collect_entries_for_branch_summary,
    compact,
    generate_branch_summary,
    prepare_compaction,
    require_compaction,
    serialize_conversation,
)
from pi.session.cut_point import find_cut_point
from pi.session.entries import SessionEntry
from tests.session.builders import assistant, call, result, user
from tests.session.test_compaction import _prompt

MODEL = Model(id="sum-1", name="Summarizer", api="faux", provider="prov", base_url="http://x", reasoning=True)
SETTINGS = CompactionSettings(keep_recent_tokens=1)


class Scripted:
    """Answers each request with the next scripted reply."""

    def __init__(self, *replies: AssistantMessage) -> None:
        self.replies = list(replies)
        self.requests: list[tuple[Context, StreamOptions]] = []
        self.active = 0
        self.max_active = 0

    async def __call__(self, model: Model, context: Context, options: StreamOptions, /) -> AssistantMessage:
        self.requests.append((context, options))
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        await asyncio.sleep(0)
        self.active -= 1
        return self.replies.pop(0)


def reply(
    text: str = "## Goal\nx", stop: StopReason = "stop", error: str | None = None, tool: bool = False
) -> AssistantMessage:
    content: list[TextContent | ToolCall] = [TextContent(text=text)]
    if tool:
        content.append(ToolCall(id="t1", name="read", arguments={"path": "a"}))
    return AssistantMessage(
        content=content,
        api="faux",
        provider="prov",
        model="sum-1",
        stop_reason=stop,
        error_message=error,
        usage=Usage(input=10, output=5, total_tokens=15),
    )


def _branch() -> list[SessionEntry]:
    manager = SessionManager.in_memory("/p")
    for i in range(3):
        manager.append_message(user(f"q{i}"))
        manager.append_message(assistant(f"a{i}"))
    manager.append_message(user("latest"))  # the cut lands here: one request, no split turn
    return manager.get_branch()


def _split_branch() -> list[SessionEntry]:
    manager = SessionManager.in_memory("/p")
    manager.append_message(user("old question"))
    manager.append_message(assistant("old answer"))
    manager.append_message(user("big task"))
    manager.append_message(assistant("", calls=[call("read", path="x.py")]))
    manager.append_message(result("x" * 400))
    manager.append_message(assistant("y" * 400, calls=[call("read", "c2", path="y.py")]))
    manager.append_message(result("y" * 40, "c2"))
    return manager.get_branch()


async def test_a_summary_that_calls_a_tool_fails() -> None:
    preparation = prepare_compaction(_branch(), SETTINGS)
    assert preparation is not None
    with pytest.raises(CompactionError, match=r"^Summarization attempted to call a tool$"):
        await compact(preparation, MODEL, None, Scripted(reply(tool=True, stop="toolUse")))
    split = prepare_compaction(_split_branch(), CompactionSettings(keep_recent_tokens=100))
    assert split is not None and split.is_split_turn
    with pytest.raises(CompactionError, match=r"^Turn prefix summarization attempted to call a tool$"):
        await compact(split, MODEL, None, Scripted(reply(), reply(tool=True)))


async def test_a_truncated_summary_is_not_saved() -> None:
    preparation = prepare_compaction(_branch(), SETTINGS)
    assert preparation is not None
    message = "Summarization failed: generation hit the token cap and the summary is incomplete"
    with pytest.raises(CompactionError, match=rf"^{message}$"):
        await compact(preparation, MODEL, None, Scripted(reply(stop="length")))
    split = prepare_compaction(_split_branch(), CompactionSettings(keep_recent_tokens=100))
    assert split is not None
    with pytest.raises(CompactionError, match=r"^Turn prefix summarization failed: generation hit the token cap"):
        await compact(split, MODEL, None, Scripted(reply(), reply(stop="length")))
    with pytest.raises(CompactionError, match=r"^Turn prefix summarization failed: boom$"):
        await compact(split, MODEL, None, Scripted(reply(), reply(stop="error", error="boom")))


async def test_no_model_and_nothing_to_compact() -> None:
    preparation = prepare_compaction(_branch(), SETTINGS)
    assert preparation is not None
    with pytest.raises(NoSummaryModelError, match=r"^No model available for summarization$"):
        await compact(preparation, None, None, Scripted())
    manager = SessionManager.in_memory("/p")
    manager.append_message(user("only"))
    with pytest.raises(NothingToCompactError, match=r"^Nothing to compact \(session too small\)$"):
        require_compaction(manager.get_branch(), SETTINGS)
    manager.append_message(assistant("reply"))
    manager.append_message(user("second"))
    done = require_compaction(manager.get_branch(), SETTINGS)
    manager.append_compaction("S", done.first_kept_entry_id, done.tokens_before)
    with pytest.raises(NothingToCompactError, match=r"^Already compacted$"):
        require_compaction(manager.get_branch(), SETTINGS)
    manager.append_model_change("prov", "m2")  # settings after it add nothing to summarize
    with pytest.raises(NothingToCompactError, match=r"^Already compacted$"):
        require_compaction(manager.get_branch(), SETTINGS)


@pytest.mark.parametrize(
    ("level", "reasoning", "expected"),
    [("high", True, "high"), ("off", True, None), ("medium", False, None), (None, True, None)],
)
async def test_reasoning_follows_the_session_thinking_level(
    level: str | None, reasoning: bool, expected: str | None
) -> None:
    preparation = prepare_compaction(_branch(), SETTINGS)
    assert preparation is not None
    fake = Scripted(reply())
    await compact(preparation, MODEL.model_copy(update={"reasoning": reasoning}), None, fake, thinking_level=level)
    assert fake.requests[0][1].reasoning == expected


async def test_split_turn_requests_are_sent_one_after_the_other_and_usage_adds_up() -> None:
    split = prepare_compaction(_split_branch(), CompactionSettings(keep_recent_tokens=100))
    assert split is not None
    fake = Scripted(reply("history"), reply("prefix"))
    outcome = await compact(split, MODEL, None, fake)
    assert fake.max_active == 1 and len(fake.requests) == 2
    assert outcome.usage is not None and outcome.usage.total_tokens == 30
    assert outcome.estimated_tokens_after > 0


async def test_transient_failures_are_retried_with_the_retry_settings() -> None:
    preparation = prepare_compaction(_branch(), SETTINGS)
    assert preparation is not None
    starts: list[RetryAttempt] = []
    ends: list[tuple[bool, int, str | None]] = []
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    retry = SummaryRetry(
        max_retries=3,
        base_delay_ms=2000,
        max_delay_ms=3000,
        on_retry_start=starts.append,
        on_retry_end=lambda ok, attempts, error: ends.append((ok, attempts, error)),
        sleep=sleep,
    )
    fake = Scripted(reply(stop="error", error="503 overloaded"), reply(stop="error", error="read ECONNRESET"), reply())
    outcome = await compact(preparation, MODEL, None, fake, retry=retry)
    assert outcome.summary.startswith("## Goal")
    assert [(s.attempt, s.max_attempts, s.delay_ms) for s in starts] == [(1, 3, 2000), (2, 3, 3000)]
    assert slept == [2.0, 3.0] and ends == [(True, 2, None)]
    quota = Scripted(reply(stop="error", error="insufficient_quota (429)"))
    with pytest.raises(CompactionError, match=r"^Summarization failed: insufficient_quota \(429\)$"):
        await compact(preparation, MODEL, None, quota, retry=retry)
    assert len(quota.requests) == 1
    exhausted = Scripted(*[reply(stop="error", error="overloaded") for _ in range(4)])
    ends.clear()
    with pytest.raises(CompactionError, match=r"^Summarization failed: overloaded$"):
        await compact(preparation, MODEL, None, exhausted, retry=retry)
    assert len(exhausted.requests) == 4 and ends == [(False, 3, "overloaded")]


def test_serialization_leaves_out_thinking_and_cuts_tool_results_on_character_boundaries() -> None:
    thinking = AssistantMessage(
        content=[ThinkingContent(thinking="secret plan"), TextContent(text="visible")],
        api="x",
        provider="p",
        model="m",
    )
    text = serialize_conversation([thinking])
    assert text == "[Assistant]: visible" and "secret plan" not in text
    # 1999 ASCII characters then an emoji (two UTF-16 units): the emoji would straddle the cut.
    output = "a" * 1999 + "\U0001f600" + "b" * 10
    serialized = serialize_conversation([result(output)])
    assert serialized == "[Tool result]: " + "a" * 1999 + "\n\n[... 12 more characters truncated]"


def test_tokens_before_and_kept_budget_follow_the_context_as_sent() -> None:
    manager = SessionManager.in_memory("/p")
    manager.append_message(user("x" * 4000))
    huge = manager.append_message(result("y" * 40_000))
    manager.append_message(assistant("ok"))
    manager.append_message(user("z" * 400))
    before = prepare_compaction(manager.get_branch(), SETTINGS)
    manager.append_context_edit(huge, None)
    after = prepare_compaction(manager.get_branch(), SETTINGS)
    assert before is not None and after is not None
    assert before.tokens_before - after.tokens_before == 10_000
    image = SessionManager.in_memory("/p")
    image.append_message(user("q"))
    image.append_message(assistant("a"))
    image.append_message(UserMessage(content=[ImageContent(data="AA", mime_type="image/png")]))
    image.append_custom_message_entry("note", "n" * 4000, True)
    branch = image.get_branch()
    # The image (about 1200 tokens) and the custom message (1000) are counted: 2100 are reached only by both.
    cut = find_cut_point(branch, 0, len(branch), 2100)
    assert cut.first_kept_entry_index == 2


async def test_branch_summaries_leave_out_failed_replies_and_omitted_entries() -> None:
    manager = SessionManager.in_memory("/p")
    fork = manager.append_message(user("start"))
    manager.append_message(user("try A"))
    manager.append_message(assistant("", stop_reason="error"))
    secret = manager.append_message(assistant("omitted text"))
    manager.append_context_edit(secret, None)
    replaced = manager.append_message(assistant("original wording"))
    manager.append_context_edit(replaced, {"content": "edited wording"})
    old_leaf = manager.get_leaf_id()
    collected = collect_entries_for_branch_summary(manager, old_leaf, fork)
    fake = Scripted(reply("summary"))
    outcome = await generate_branch_summary(
        collected.entries, MODEL, None, fake, edits=collected.edits, thinking_level="low"
    )
    prompt = _prompt(fake.requests[0][0])
    assert "omitted text" not in prompt and "original wording" not in prompt
    assert "[Assistant]: edited wording" in prompt and prompt.count("[Assistant]") == 1
    assert fake.requests[0][1].reasoning == "low" and fake.requests[0][0].tools is None
    assert outcome.usage is not None and outcome.usage.total_tokens == 15
    summary_id = manager.branch_with_summary(fork, outcome.summary or "", outcome.details, usage=outcome.usage)
    stored = manager.get_entry(summary_id)
    assert stored is not None and stored.to_dict()["usage"]["totalTokens"] == 15
    assert stored.to_dict()["fromId"] == old_leaf


async def test_an_abort_during_the_backoff_cancels_at_once() -> None:
    from pi.ai.abort import AbortController

    preparation = prepare_compaction(_branch(), SETTINGS)
    assert preparation is not None
    controller = AbortController()
    ends: list[tuple[bool, int, str | None]] = []

    async def forever(seconds: float) -> None:
        await asyncio.Event().wait()

    retry = SummaryRetry(
        on_retry_start=lambda attempt: controller.abort(),
        on_retry_end=lambda ok, attempts, error: ends.append((ok, attempts, error)),
        sleep=forever,
    )
    fake = Scripted(reply(stop="error", error="503 overloaded"))
    with pytest.raises(CompactionCancelledError, match=r"^Compaction cancelled$"):
        await compact(preparation, MODEL, None, fake, signal=controller.signal, retry=retry)
    assert ends == [(False, 1, "Retry cancelled")] and len(fake.requests) == 1
