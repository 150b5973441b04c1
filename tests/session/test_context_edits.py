"""Context building of pi 1.6.0: context edits, system messages and checkpoints, usage entries, deep branches."""

from __future__ import annotations

import time

import pytest

from pi.ai.types import AssistantMessage, TextContent, ToolResultMessage, Usage, UserMessage
from pi.session import SessionManager, SystemMessage, build_session_context
from pi.session.entries import MessageEntry
from pi.session.messages import BashExecutionMessage, CustomMessage
from tests.session.builders import assistant, call, result, user


def _texts(manager: SessionManager) -> list[str]:
    out = []
    for message in manager.build_session_context().messages:
        content = getattr(message, "content", getattr(message, "summary", ""))
        out.append(content if isinstance(content, str) else "".join(getattr(b, "text", "") for b in content))
    return out


def test_omitting_an_assistant_reply_drops_it_from_the_next_request_but_not_from_the_entries() -> None:
    manager = SessionManager.in_memory("/p")
    manager.append_message(user("q"))
    reply = manager.append_message(assistant("wrong"))
    manager.append_context_edit(reply, None)
    manager.append_message(user("again"))
    assert _texts(manager) == ["q", "again"]
    assert reply in [e["id"] for e in manager.get_entries_data()["entries"]]


def test_replacements_normalise_strings_and_the_latest_edit_wins() -> None:
    manager = SessionManager.in_memory("/p")
    question = manager.append_message(user("long question"))
    reply = manager.append_message(assistant("", calls=[call("read", path="a")]))
    output = manager.append_message(result("x" * 100))
    note = manager.append_custom_message_entry("note", "a note", True)
    manager.append_context_edit(question, {"content": "short question"})
    manager.append_context_edit(output, {"content": "first edit"})
    manager.append_context_edit(output, {"content": [TextContent(text="second edit")]})
    manager.append_context_edit(note, {"content": "edited note"})
    messages = manager.build_session_context().messages
    assert isinstance(messages[0], UserMessage) and messages[0].content == "short question"
    assert isinstance(messages[2], ToolResultMessage)
    assert [b.model_dump() for b in messages[2].content] == [
        {"type": "text", "text": "second edit", "text_signature": None}
    ]
    assert isinstance(messages[3], CustomMessage) and messages[3].content == "edited note"
    manager.append_context_edit(reply, {"content": "a plain string"})
    edited = manager.build_session_context().messages[1]
    assert isinstance(edited, AssistantMessage) and edited.content == [TextContent(text="a plain string")]
    assert edited.provider == "prov"  # only the content is replaced


def test_edits_are_branch_relative() -> None:
    manager = SessionManager.in_memory("/p")
    question = manager.append_message(user("q"))
    fork = manager.append_message(assistant("a"))
    manager.append_message(user("on branch one"))
    manager.append_context_edit(question, None)
    assert _texts(manager) == ["a", "on branch one"]
    manager.branch(fork)
    manager.append_message(user("on branch two"))
    assert _texts(manager) == ["q", "a", "on branch two"]


def test_context_edit_errors_have_pis_wording() -> None:
    manager = SessionManager.in_memory("/p")
    first = manager.append_message(user("q"))
    fork = manager.append_message(assistant("a"))
    other = manager.append_message(user("branch one"))
    manager.branch(fork)
    bash = manager.append_message(BashExecutionMessage(command="ls", output="x", exit_code=0))
    model = manager.append_model_change("p", "m")
    with pytest.raises(ValueError, match=r"^Entry nope not found$"):
        manager.append_context_edit("nope", None)
    with pytest.raises(ValueError, match=rf"^Entry {other} is not on the active branch$"):
        manager.append_context_edit(other, None)
    for target in (bash, model):
        with pytest.raises(ValueError, match=rf"^Entry {target} does not contribute editable model content$"):
            manager.append_context_edit(target, None)
    manager.append_context_edit(first, None)


def test_system_messages_in_the_kept_range_give_way_to_the_checkpoint() -> None:
    manager = SessionManager.in_memory("/p")
    manager.append_message(SystemMessage(sections={"preamble": "v1"}))
    manager.append_message(user("old"))
    manager.append_message(assistant("old answer"))
    kept = manager.append_message(user("kept"))
    manager.append_message(SystemMessage(sections={"preamble": "v2"}))
    manager.append_message(assistant("kept answer"))
    checkpoint = SystemMessage(sections={"preamble": "v2"}, tools_added=[{"name": "read"}])
    compaction = manager.append_compaction("S", kept, 100, usage=Usage(input=5, output=2), system_message=checkpoint)
    manager.append_message(SystemMessage(sections={"preamble": "v3"}))
    manager.append_message(user("new"))
    messages = manager.build_session_context().messages
    assert [m.role for m in messages] == ["system", "compactionSummary", "user", "assistant", "system", "user"]
    assert isinstance(messages[0], SystemMessage) and messages[0].tools_added == [{"name": "read"}]
    assert isinstance(messages[4], SystemMessage) and messages[4].sections == {"preamble": "v3"}
    stored = manager.get_entry(compaction)
    assert stored is not None and stored.to_dict()["usage"]["input"] == 5
    assert [e.id for e in manager.build_context_entries()][:2] == [compaction, kept]


def test_a_retain_none_compaction_keeps_nothing_before_it() -> None:
    manager = SessionManager.in_memory("/p")
    manager.append_message(user("a"))
    manager.append_message(assistant("b"))
    compaction = manager.append_compaction("everything", None, 10)
    stored = manager.get_entry(compaction)
    assert stored is not None and stored.to_dict()["firstKeptEntryId"] == compaction
    manager.append_message(user("c"))
    assert _texts(manager) == ["everything", "c"]


def test_usage_and_custom_entries_add_no_message_but_settings_come_from_the_whole_path() -> None:
    manager = SessionManager.in_memory("/p")
    manager.append_thinking_level_change("high")
    manager.append_model_change("a", "m-a")
    manager.append_message(user("q"))
    kept = manager.append_message(assistant("r"))
    manager.append_compaction("S", kept, 10)
    manager.append_usage("cache_warm", "a", "m-a", Usage(input=100, total_tokens=100), note="warm")
    manager.append_custom_entry("pi.virtual-model-state", {"x": 1})
    context = manager.build_session_context()
    assert [m.role for m in context.messages] == ["compactionSummary", "assistant"]
    assert context.thinking_level == "high"
    usage = manager.get_entries()[-2].to_dict()
    assert usage["type"] == "usage" and usage["kind"] == "cache_warm" and usage["usage"]["input"] == 100
    assert list(usage)[:8] == ["type", "id", "parentId", "timestamp", "kind", "provider", "model", "usage"]


def test_a_deep_branch_builds_in_linear_time() -> None:
    entries: list[MessageEntry] = []
    parent = None
    for i in range(20_000):
        role = "user" if i % 2 == 0 else "assistant"
        message = (
            {"role": "user", "content": f"q{i}", "timestamp": i}
            if role == "user"
            else {
                "role": "assistant",
                "content": [{"type": "text", "text": f"a{i}"}],
                "api": "x",
                "provider": "p",
                "model": "m",
                "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2},
                "stopReason": "stop",
                "timestamp": i,
            }
        )
        entry = MessageEntry(id=f"{i:08x}", parent_id=parent, timestamp="t", stored=message)
        entries.append(entry)
        parent = entry.id
    small = build_session_context(entries[:2000], entries[1999].id)
    started = time.perf_counter()
    context = build_session_context(entries, entries[-1].id)
    elapsed = time.perf_counter() - started
    assert len(context.messages) == 20_000 and len(small.messages) == 2000
    assert elapsed < 10.0  # a quadratic rebuild of 20,000 entries takes minutes


def test_a_replacement_must_carry_content() -> None:
    manager = SessionManager.in_memory("/p")
    target = manager.append_message(user("q"))
    with pytest.raises(ValueError, match="replacement must be null or"):
        manager.append_context_edit(target, {"text": "no content key"})
    assert manager.get_entry_count() == 1
