"""build_session_context: the branch's messages, its settings, compaction and summaries."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from pi.ai.types import UserMessage
from pi.session import LATEST, ModelRef, SessionManager, build_session_context
from pi.session.messages import BranchSummaryMessage, CompactionSummaryMessage, CustomMessage
from tests.session.builders import assistant, user


def _contents(messages: Sequence[object]) -> list[object]:
    return [getattr(m, "content", getattr(m, "summary", None)) for m in messages]


def test_latest_settings_on_the_path_win() -> None:
    manager = SessionManager.in_memory("/p")
    manager.append_model_change("a", "m-a")
    manager.append_thinking_level_change("low")
    manager.append_message(user("q"))
    fork_point = manager.append_message(assistant("r", provider="b", model="m-b"))
    manager.append_thinking_level_change("high")
    manager.append_model_change("c", "m-c")
    context = manager.build_session_context()
    assert context.thinking_level == "high" and context.model == ModelRef("c", "m-c")
    manager.branch(fork_point)
    context = manager.build_session_context()
    assert context.thinking_level == "low" and context.model == ModelRef("b", "m-b")
    assert [m.role for m in context.messages] == ["user", "assistant"]


def test_compaction_emits_summary_then_kept_then_new_entries() -> None:
    manager = SessionManager.in_memory("/p")
    manager.append_message(user("old 1"))
    manager.append_message(assistant("old 2"))
    kept = manager.append_message(user("kept 1"))
    manager.append_message(assistant("kept 2"))
    manager.append_compaction("SUMMARY", kept, 500)
    manager.append_message(user("new 1"))
    messages = manager.build_session_context().messages
    assert isinstance(messages[0], CompactionSummaryMessage) and messages[0].tokens_before == 500
    assert _contents([messages[1], messages[3]]) == ["kept 1", "new 1"]
    assert messages[2].content[0].text == "kept 2"  # type: ignore[union-attr]
    assert [m.role for m in messages] == ["compactionSummary", "user", "assistant", "user"]


def test_only_the_latest_compaction_counts() -> None:
    manager = SessionManager.in_memory("/p")
    manager.append_message(user("a"))
    b = manager.append_message(user("b"))
    manager.append_compaction("first", b, 1)
    c = manager.append_message(user("c"))
    manager.append_compaction("second", c, 2)
    messages = manager.build_session_context().messages
    assert getattr(messages[0], "summary", None) == "second"
    assert _contents(messages[1:]) == ["c"]


def test_custom_messages_and_branch_summaries_become_messages_but_custom_entries_do_not() -> None:
    manager = SessionManager.in_memory("/p")
    first = manager.append_message(user("q"))
    manager.append_custom_entry("state", {"x": 1})
    manager.append_custom_message_entry("note", "remember this", display=False, details={"d": 1})
    manager.branch_with_summary(first, "explored")
    manager.branch(manager.get_children(first)[0].id)
    messages = manager.build_session_context().messages
    assert [m.role for m in messages] == ["user"]
    manager.branch(manager.get_entries()[2].id)
    messages = manager.build_session_context().messages
    assert isinstance(messages[1], CustomMessage) and messages[1].content == "remember this"
    assert messages[1].display is False and messages[1].details == {"d": 1}
    manager.branch(manager.get_entries()[3].id)
    messages = manager.build_session_context().messages
    assert isinstance(messages[1], BranchSummaryMessage) and messages[1].from_id == manager.get_entries()[2].id


def test_leaf_argument_none_latest_and_unknown() -> None:
    manager = SessionManager.in_memory("/p")
    manager.append_message(user("a"))
    manager.append_message(user("b"))
    entries = manager.get_entries()
    assert build_session_context(entries, None).messages == []
    assert len(build_session_context(entries, LATEST).messages) == 2
    assert len(build_session_context(entries, "missing").messages) == 2
    assert len(build_session_context(entries, entries[0].id).messages) == 1
    assert build_session_context([]).messages == []
    assert isinstance(build_session_context(entries).messages[0], UserMessage)


def test_a_compaction_with_an_unreadable_token_count_still_applies(tmp_path: Path) -> None:
    # JSON has no NaN: another writer's failed count arrives as null, which must not make the session unloadable.
    file = tmp_path / "s.jsonl"
    stamp = "2025-01-01T00:00:00.000Z"
    lines = [
        {"type": "session", "version": 3, "id": "s", "timestamp": stamp, "cwd": "/p"},
        {"type": "message", "id": "a", "parentId": None, "timestamp": stamp, "message": user("old").to_json_dict()},
        {"type": "message", "id": "b", "parentId": "a", "timestamp": stamp, "message": user("kept").to_json_dict()},
        {"type": "compaction", "id": "c", "parentId": "b", "timestamp": stamp, "summary": "S", "firstKeptEntryId": "b"}
        | {"tokensBefore": None},
    ]
    file.write_text("".join(json.dumps(line) + "\n" for line in lines))
    manager = SessionManager.open(file)
    messages = manager.build_session_context().messages
    assert isinstance(messages[0], CompactionSummaryMessage) and messages[0].summary == "S"
    assert messages[0].tokens_before == 0
    assert _contents(messages[1:]) == ["kept"]
    manager.append_message(user("more"))
    assert json.loads(file.read_text().splitlines()[3])["tokensBefore"] is None
