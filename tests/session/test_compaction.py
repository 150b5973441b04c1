"""Compaction core: token estimates, thresholds, cut points, preparation, and the summary request."""

from __future__ import annotations

import asyncio
import math

import pytest

from pi.agent.messages import AgentMessage
from pi.ai.abort import AbortController
from pi.ai.options import StreamOptions
from pi.ai.types import AssistantMessage, Context, ImageContent, Model, StopReason, TextContent, Usage, UserMessage
from pi.session import (
    CompactionCancelledError,
    CompactionError,
    CompactionSettings,
    SessionManager,
    calculate_context_tokens,
    compact,
    estimate_context_tokens,
    estimate_tokens,
    find_cut_point,
    prepare_compaction,
    serialize_conversation,
    should_compact,
)
from pi.session.entries import MessageEntry
from pi.session.messages import BashExecutionMessage
from pi.session.summary_prompts import SUMMARIZATION_SYSTEM_PROMPT
from tests.session.builders import assistant, call, result, user

MODEL = Model(id="sum-1", name="Summarizer", api="faux", provider="prov", base_url="http://x", reasoning=True)


class FakeComplete:
    """Records each request and answers with canned text (or an error)."""

    def __init__(
        self, text: str = "## Goal\nDo things.", stop_reason: StopReason = "stop", error: str | None = None
    ) -> None:
        self.requests: list[tuple[Context, StreamOptions]] = []
        self.text = text
        self.stop_reason = stop_reason
        self.error = error

    async def __call__(self, model: Model, context: Context, options: StreamOptions, /) -> AssistantMessage:
        self.requests.append((context, options))
        await asyncio.sleep(0)
        return AssistantMessage(
            content=[TextContent(text=f"{self.text} #{len(self.requests)}")],
            api=model.api,
            provider=model.provider,
            model=model.id,
            stop_reason=self.stop_reason,
            error_message=self.error,
        )


def _prompt(context: Context) -> str:
    message = context.messages[0]
    assert isinstance(message, UserMessage) and not isinstance(message.content, str)
    block = message.content[0]
    assert isinstance(block, TextContent)
    return block.text


def test_token_estimates() -> None:
    assert estimate_tokens(user("abcdefgh")) == 2
    assert estimate_tokens(user("abcdefghi")) == 3
    image = UserMessage(content=[ImageContent(data="x", mime_type="image/png")])
    assert estimate_tokens(image) == 1200
    tool_call = assistant("", calls=[call("read", path="a")])
    assert estimate_tokens(tool_call) == -(-(len("read") + len('{"path": "a"}')) // 4)
    assert estimate_tokens(BashExecutionMessage(command="ls", output="abcdef")) == 2
    assert calculate_context_tokens(Usage(total_tokens=900)) == 900
    assert calculate_context_tokens(Usage(input=1, output=2, cache_read=3, cache_write=4)) == 10


def test_context_estimate_uses_the_last_valid_usage_plus_trailing_messages() -> None:
    messages: list[AgentMessage] = [
        user("x" * 400),
        assistant("a", total_tokens=900),
        user("y" * 40),
        assistant("", total_tokens=5000, stop_reason="error"),
    ]
    estimate = estimate_context_tokens(messages)
    assert (estimate.usage_tokens, estimate.trailing_tokens, estimate.last_usage_index) == (900, 10, 1)
    assert estimate.tokens == 910
    assert estimate_context_tokens([user("x" * 40)]).tokens == 10


def test_threshold() -> None:
    settings = CompactionSettings(reserve_tokens=200)
    assert should_compact(900, 1000, settings)
    assert not should_compact(800, 1000, settings)
    assert not should_compact(900, 1000, CompactionSettings(enabled=False, reserve_tokens=200))


def _entries_of(manager: SessionManager) -> list[MessageEntry]:
    return [e for e in manager.get_entries() if isinstance(e, MessageEntry)]


def test_cut_point_never_lands_on_a_tool_result() -> None:
    manager = SessionManager.in_memory("/p")
    manager.append_message(user("u" * 400))
    manager.append_message(assistant("", calls=[call("read", path="a.py")]))
    manager.append_message(result("r" * 4000))
    manager.append_message(assistant("done"))
    entries = manager.get_entries()
    for keep in range(1, 1200, 37):
        cut = find_cut_point(entries, 0, len(entries), keep)
        kept = entries[cut.first_kept_entry_index]
        assert isinstance(kept, MessageEntry) and kept.role != "toolResult"
    # The result alone exceeds the budget: the call and its result are summarized together.
    cut = find_cut_point(entries, 0, len(entries), 1000)
    assert cut.first_kept_entry_index == 3 and cut.is_split_turn and cut.turn_start_index == 0


def test_cut_at_a_user_message_is_not_a_split_turn_and_keeps_settings_before_it() -> None:
    manager = SessionManager.in_memory("/p")
    manager.append_message(user("a" * 400))
    manager.append_message(assistant("b" * 400))
    manager.append_model_change("p", "m")
    manager.append_message(user("c" * 400))
    manager.append_message(assistant("d" * 400))
    entries = manager.get_entries()
    cut = find_cut_point(entries, 0, len(entries), 150)
    assert cut.first_kept_entry_index == 2 and not cut.is_split_turn


def test_prepare_collects_messages_file_ops_and_previous_summary() -> None:
    manager = SessionManager.in_memory("/p")
    manager.append_message(user("please edit"))
    manager.append_message(assistant("", calls=[call("read", "c1", path="a.py"), call("edit", "c2", path="b.py")]))
    manager.append_message(result("content", "c1"))
    manager.append_message(result("edited", "c2", "edit"))
    manager.append_message(user("thanks"))
    manager.append_message(assistant("done"))
    settings = CompactionSettings(keep_recent_tokens=3)
    first = prepare_compaction(manager.get_branch(), settings)
    assert first is not None and not first.is_split_turn
    assert [m.role for m in first.messages_to_summarize] == ["user", "assistant", "toolResult", "toolResult"]
    assert first.file_ops.read == {"a.py"} and first.file_ops.edited == {"b.py"}
    assert first.previous_summary is None
    manager.append_compaction(
        "S1", first.first_kept_entry_id, first.tokens_before, {"readFiles": ["z.md"], "modifiedFiles": ["b.py"]}
    )
    assert prepare_compaction(manager.get_branch(), settings) is None
    manager.append_message(user("next"))
    manager.append_message(assistant("", calls=[call("write", "c3", path="c.py")]))
    manager.append_message(result("written", "c3", "write"))
    manager.append_message(user("last"))
    manager.append_message(assistant("ok"))
    second = prepare_compaction(manager.get_branch(), settings)
    assert second is not None and second.previous_summary == "S1"
    assert (
        second.file_ops.read == {"z.md"} and second.file_ops.edited == {"b.py"} and second.file_ops.written == {"c.py"}
    )


def test_nothing_to_summarize_gives_none() -> None:
    manager = SessionManager.in_memory("/p")
    manager.append_message(user("hi"))
    manager.append_message(assistant("hello"))
    assert prepare_compaction(manager.get_branch(), CompactionSettings()) is None


def test_serialization_format() -> None:
    text = serialize_conversation(
        [
            user("hello"),
            AssistantMessage(
                content=[
                    TextContent(text="let me look"),
                    call("read", path="foo.ts", limit=5),
                    call("bash", "c2", command="ls"),
                ],
                api="x",
                provider="p",
                model="m",
            ),
            result("z" * 2500),
        ]
    )
    parts = text.split("\n\n", 3)
    assert parts[0] == "[User]: hello"
    assert parts[1] == "[Assistant]: let me look"
    assert parts[2] == '[Assistant tool calls]: read(path="foo.ts", limit=5); bash(command="ls")'
    assert parts[3] == "[Tool result]: " + "z" * 2000 + "\n\n[... 500 more characters truncated]"


async def test_compact_sends_the_conversation_and_appends_file_lists() -> None:
    manager = SessionManager.in_memory("/p")
    manager.append_message(user("please edit"))
    manager.append_message(assistant("", calls=[call("read", "c1", path="a.py"), call("edit", "c2", path="b.py")]))
    manager.append_message(result("content", "c1"))
    manager.append_message(result("edited", "c2", "edit"))
    manager.append_message(user("thanks"))
    manager.append_message(assistant("done"))
    preparation = prepare_compaction(
        manager.get_branch(), CompactionSettings(reserve_tokens=1000, keep_recent_tokens=3)
    )
    assert preparation is not None
    fake = FakeComplete()
    outcome = await compact(
        preparation, MODEL, "key", fake, custom_instructions="focus on tests", thinking_level="medium"
    )
    ((context, options),) = fake.requests
    assert options.max_tokens == MODEL.max_tokens and options.reasoning == "medium" and options.api_key == "key"
    assert context.tools is None and options.cache_retention == "none"
    assert options.session_id is not None and options.session_id[14] == "7"  # a fresh UUIDv7
    assert context.system_prompt == SUMMARIZATION_SYSTEM_PROMPT
    prompt = _prompt(context)
    assert prompt.startswith('<conversation>\n[User]: please edit\n\n[Assistant tool calls]: read(path="a.py")')
    for heading in (
        "## Goal",
        "## Constraints & Preferences",
        "## Progress",
        "### Done",
        "### In Progress",
        "### Blocked",
        "## Key Decisions",
        "## Next Steps",
        "## Critical Context",
    ):
        assert heading in prompt
    assert prompt.endswith("\n\nAdditional focus: focus on tests")
    assert (
        outcome.summary
        == "## Goal\nDo things. #1\n\n<read-files>\na.py\n</read-files>\n\n<modified-files>\nb.py\n</modified-files>"
    )
    assert outcome.details == {"readFiles": ["a.py"], "modifiedFiles": ["b.py"]}
    assert outcome.first_kept_entry_id == preparation.first_kept_entry_id
    manager.append_compaction(outcome.summary, outcome.first_kept_entry_id, outcome.tokens_before, outcome.details)
    again = prepare_compaction(manager.get_branch(), CompactionSettings(keep_recent_tokens=1))
    assert again is None


async def test_previous_summary_switches_to_the_update_prompt() -> None:
    manager = SessionManager.in_memory("/p")
    manager.append_message(user("a"))
    kept = manager.append_message(assistant("b"))
    manager.append_compaction("OLD SUMMARY", kept, 10)
    manager.append_message(user("c"))
    manager.append_message(assistant("d"))
    manager.append_message(user("e"))
    manager.append_message(assistant("f"))
    preparation = prepare_compaction(manager.get_branch(), CompactionSettings(keep_recent_tokens=2))
    assert preparation is not None
    fake = FakeComplete()
    await compact(preparation, MODEL.model_copy(update={"reasoning": False}), None, fake)
    context, options = fake.requests[0]
    assert options.reasoning is None
    assert "<previous-summary>\nOLD SUMMARY\n</previous-summary>" in _prompt(context)


async def test_split_turn_summarizes_the_prefix_separately() -> None:
    manager = SessionManager.in_memory("/p")
    manager.append_message(user("old question"))
    manager.append_message(assistant("old answer"))
    manager.append_message(user("big task"))
    manager.append_message(assistant("", calls=[call("read", path="x.py")]))
    manager.append_message(result("x" * 400))
    manager.append_message(assistant("y" * 400, calls=[call("read", "c2", path="y.py")]))
    manager.append_message(result("y" * 40, "c2"))
    preparation = prepare_compaction(
        manager.get_branch(), CompactionSettings(reserve_tokens=1000, keep_recent_tokens=100)
    )
    assert preparation is not None and preparation.is_split_turn
    assert [m.role for m in preparation.messages_to_summarize] == ["user", "assistant"]
    assert [m.role for m in preparation.turn_prefix_messages] == ["user", "assistant", "toolResult"]
    fake = FakeComplete()
    outcome = await compact(preparation, MODEL, None, fake, custom_instructions="mind the tests")
    assert len(fake.requests) == 2
    history_request, prefix_request = fake.requests  # one after the other, history first
    assert _prompt(history_request[0]).startswith("<conversation>\n[User]: old question")
    prefix = _prompt(prefix_request[0])
    assert prefix.startswith('# Conversation\n[User]: big task\n\n[Assistant tool calls]: read(path="x.py")')
    assert "\n\n# Instructions\n" in prefix
    for heading in ("## Original Request", "## Progress So Far", "## Context Needed to Continue"):
        assert heading in prefix
    assert prefix.endswith("\n\nAdditional focus: mind the tests")
    assert outcome.summary.startswith("## Goal\nDo things. #1\n\n---\n\n**Turn Context (split turn):**\n\n")
    assert "<read-files>\nx.py\n</read-files>" in outcome.summary


async def test_errors_and_cancellation() -> None:
    manager = SessionManager.in_memory("/p")
    for i in range(3):
        manager.append_message(user(f"q{i}"))
        manager.append_message(assistant(f"a{i}"))
    preparation = prepare_compaction(manager.get_branch(), CompactionSettings(keep_recent_tokens=1))
    assert preparation is not None
    with pytest.raises(CompactionError, match=r"^Summarization failed: 529 overloaded$"):
        await compact(preparation, MODEL, None, FakeComplete(stop_reason="error", error="529 overloaded"))
    with pytest.raises(CompactionCancelledError):
        await compact(preparation, MODEL, None, FakeComplete(stop_reason="aborted"))

    async def broken(model: Model, context: Context, options: StreamOptions, /) -> AssistantMessage:
        raise ValueError("No API key for provider: prov")

    with pytest.raises(CompactionError, match="Summarization failed: No API key for provider: prov"):
        await compact(preparation, MODEL, None, broken)
    controller = AbortController()
    controller.abort()
    with pytest.raises(CompactionCancelledError):
        await compact(preparation, MODEL, None, FakeComplete(), signal=controller.signal)


def _text_of(message: AgentMessage) -> str:
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return content
    return "".join(b.text for b in content if isinstance(b, TextContent))


def test_next_compaction_summarizes_what_the_previous_one_kept() -> None:
    # The kept messages are in the context verbatim, not in the old summary: dropping them from the
    # next summary would lose them from the context altogether.
    manager = SessionManager.in_memory("/p")
    manager.append_message(user("old question"))
    manager.append_message(assistant("old answer"))
    kept = manager.append_message(user("kept question"))
    manager.append_message(assistant("", calls=[call("read", "c1", path="kept.py")]))
    manager.append_message(result("kept content", "c1"))
    manager.append_message(assistant("kept answer"))
    manager.append_compaction("S1", kept, 100)
    manager.append_message(user("new question " + "x" * 40))
    manager.append_message(assistant("new answer " + "x" * 40))
    manager.append_message(user("latest question " + "x" * 40))
    manager.append_message(assistant("latest answer " + "x" * 40))
    preparation = prepare_compaction(manager.get_branch(), CompactionSettings(keep_recent_tokens=20))
    assert preparation is not None and preparation.previous_summary == "S1"
    assert [_text_of(m)[:8] for m in preparation.messages_to_summarize] == [
        "kept que",
        "",
        "kept con",
        "kept ans",
        "new ques",
        "new answ",
    ]
    assert preparation.file_ops.read == {"kept.py"}


def test_tokens_before_counts_the_kept_messages_of_the_previous_compaction() -> None:
    manager = SessionManager.in_memory("/p")
    manager.append_message(user("old"))
    kept = manager.append_message(user("k" * 4000))
    manager.append_compaction("S1", kept, 100)
    manager.append_message(user("n" * 400))
    manager.append_message(user("m" * 400))
    preparation = prepare_compaction(manager.get_branch(), CompactionSettings(keep_recent_tokens=50))
    assert preparation is not None
    assert preparation.tokens_before == estimate_context_tokens(manager.build_session_context().messages).tokens
    assert preparation.tokens_before > 1000


async def test_split_turn_right_after_a_compaction_keeps_the_previous_summary() -> None:
    # One long turn that began at the previous cut: nothing before it to summarize, but the old
    # summary must not be replaced by "No prior history.".
    manager = SessionManager.in_memory("/p")
    manager.append_message(user("old question"))
    manager.append_message(assistant("old answer"))
    turn = manager.append_message(user("big task"))
    manager.append_message(assistant("", calls=[call("read", path="x.py")]))
    manager.append_message(result("x" * 400))
    manager.append_compaction("OLD SUMMARY", turn, 100)
    manager.append_message(assistant("y" * 400, calls=[call("read", "c2", path="y.py")]))
    manager.append_message(result("y" * 40, "c2"))
    preparation = prepare_compaction(
        manager.get_branch(), CompactionSettings(reserve_tokens=1000, keep_recent_tokens=100)
    )
    assert preparation is not None and preparation.is_split_turn
    assert preparation.messages_to_summarize == []
    fake = FakeComplete()
    outcome = await compact(preparation, MODEL, None, fake)
    assert outcome.summary.startswith("OLD SUMMARY\n\n---\n\n**Turn Context (split turn):**\n\n")
    assert "No prior history." not in outcome.summary


async def test_summary_max_tokens_stay_within_the_models_output_limit() -> None:
    manager = SessionManager.in_memory("/p")
    manager.append_message(user("old question"))
    manager.append_message(assistant("old answer"))
    manager.append_message(user("big task"))
    manager.append_message(assistant("", calls=[call("read", path="x.py")]))
    manager.append_message(result("x" * 400))
    manager.append_message(assistant("y" * 400, calls=[call("read", "c2", path="y.py")]))
    manager.append_message(result("y" * 40, "c2"))
    preparation = prepare_compaction(
        manager.get_branch(), CompactionSettings(reserve_tokens=16384, keep_recent_tokens=100)
    )
    assert preparation is not None and preparation.is_split_turn
    fake = FakeComplete()
    await compact(preparation, MODEL.model_copy(update={"max_tokens": 4096}), None, fake)
    assert sorted(options.max_tokens or 0 for _, options in fake.requests) == [4096, 4096]
    # No fixed cap: a model whose output limit exceeds what is left of its window gets what is left,
    # the prompt estimated at 3.5 characters a token.
    small = MODEL.model_copy(update={"max_tokens": 4096, "context_window": 1200})
    fake = FakeComplete()
    await compact(preparation, small, None, fake)
    for context, options in fake.requests:
        prompt_tokens = math.ceil((len(SUMMARIZATION_SYSTEM_PROMPT) + len(_prompt(context))) / 3.5)
        assert options.max_tokens == 1200 - prompt_tokens


def test_a_reply_without_usage_does_not_hide_the_context_size() -> None:
    # Some servers report no usage at all; a zero total must not stand for the whole context.
    messages: list[AgentMessage] = [user("x" * 4000), assistant("ok", total_tokens=0), user("y" * 400)]
    estimate = estimate_context_tokens(messages)
    assert estimate.last_usage_index is None
    assert estimate.tokens == 1000 + 1 + 100
    with_usage: list[AgentMessage] = [*messages[:2], assistant("ok", total_tokens=5000), user("z" * 40)]
    assert estimate_context_tokens(with_usage).tokens == 5010
