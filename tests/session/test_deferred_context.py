"""Resuming builds the context's message objects only when they are read, and builds the same ones.

`build_deferred_context` is what a resumed session hands its agent: the count and the branch's model
and thinking level at once, the messages (parsed from the stored JSON) on first read.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pi.agent.messages import to_jsonable
from pi.session import SessionManager
from pi.session.entries import MessageEntry

FIXTURES = Path(__file__).parent / "fixtures"
ALL = sorted(
    str(p.relative_to(FIXTURES))
    for p in [*FIXTURES.glob("*.jsonl"), *FIXTURES.glob("ts/*.jsonl"), *FIXTURES.glob("ts16/*.jsonl")]
)


def _open(name: str, tmp_path: Path) -> SessionManager:
    tmp_path.mkdir(parents=True, exist_ok=True)
    target = tmp_path / Path(name).name
    shutil.copy(FIXTURES / name, target)
    return SessionManager.open(target)


def _unparsed(manager: SessionManager) -> bool:
    return all(entry.parsed is None for entry in manager.get_entries() if isinstance(entry, MessageEntry))


def test_the_fixtures_are_found() -> None:
    assert len(ALL) >= 10


@pytest.mark.parametrize("name", ALL)
def test_the_deferred_context_is_the_context(name: str, tmp_path: Path) -> None:
    eager = _open(name, tmp_path / "a").build_session_context()
    manager = _open(name, tmp_path / "b")
    deferred = manager.build_deferred_context()
    assert len(deferred.messages) == len(eager.messages)
    assert (deferred.thinking_level, deferred.model) == (eager.thinking_level, eager.model)
    built = deferred.messages.build()
    assert [type(m) for m in built] == [type(m) for m in eager.messages]
    assert [to_jsonable(m) for m in built] == [to_jsonable(m) for m in eager.messages]


@pytest.mark.parametrize("name", ["v3_branched.jsonl", "v3_tool_call.jsonl", "v3_compaction.jsonl"])
def test_nothing_is_parsed_until_the_messages_are_built(name: str, tmp_path: Path) -> None:
    manager = _open(name, tmp_path)
    deferred = manager.build_deferred_context()
    assert len(deferred.messages) > 0
    assert _unparsed(manager)
    built = deferred.messages.build()
    on_branch = [e for e in manager.build_context_entries() if isinstance(e, MessageEntry)]
    assert on_branch and all(entry.parsed is not None for entry in on_branch)
    assert all(any(entry.parsed is m for m in built) for entry in on_branch)


def test_an_edited_and_an_omitted_message_count_as_they_are_sent(tmp_path: Path) -> None:
    from pi.ai.types import AssistantMessage, TextContent, UserMessage

    manager = SessionManager.create(str(tmp_path), session_dir=tmp_path)
    first = manager.append_message(UserMessage(content="first"))
    manager.append_message(AssistantMessage(content=[TextContent(text="reply")], provider="p", model="m", api="x"))
    second = manager.append_message(UserMessage(content="second"))
    manager.append_context_edit(first, None)
    manager.append_context_edit(second, {"content": "second, edited"})
    file = manager.get_session_file()
    assert file is not None
    reopened = SessionManager.open(file)
    deferred = reopened.build_deferred_context()
    assert len(deferred.messages) == 2
    assert deferred.model is not None and tuple(deferred.model) == ("p", "m")
    built = deferred.messages.build()
    assert [m.role for m in built] == ["assistant", "user"]
    assert isinstance(built[1], UserMessage) and built[1].content == "second, edited"


def test_a_parent_cycle_in_a_hand_edited_file_ends_the_branch(tmp_path: Path) -> None:
    lines = [
        '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}',
        '{"type":"message","id":"a","parentId":"c","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"a","timestamp":1}}',
        '{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"b","timestamp":2}}',
        '{"type":"message","id":"c","parentId":"b","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"c","timestamp":3}}',
    ]
    file = tmp_path / "cycle.jsonl"
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    manager = SessionManager.open(file)
    assert [e.id for e in manager.get_branch()] == ["a", "b", "c"]
    assert [getattr(m, "content", None) for m in manager.build_deferred_context().messages.build()] == ["a", "b", "c"]
