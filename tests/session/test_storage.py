"""The file format: pi's exact JSON shapes, lazy writing, migration, and reading damaged files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi.ai.types import ImageContent, TextContent, UserMessage
from pi.session import SessionFileError, SessionManager
from pi.session.entries import MessageEntry, UnknownEntry, entry_from_dict
from pi.session.messages import BashExecutionMessage, SystemMessage
from pi.session.storage import append_lines, encode_cwd, session_file_name
from tests.session.builders import assistant, user


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_paths_follow_pis_layout(tmp_path: Path) -> None:
    assert encode_cwd("/home/u/proj") == "--home-u-proj--"
    assert encode_cwd("C:\\Users\\me\\x") == "--C--Users-me-x--"
    assert session_file_name("2024-12-03T14:00:00.000Z", "abc") == "2024-12-03T14-00-00-000Z_abc.jsonl"
    manager = SessionManager.create("/home/u/proj", agent_dir=tmp_path)
    file = manager.get_session_file()
    assert file is not None
    assert file.parent == tmp_path / "sessions" / "--home-u-proj--"
    assert file.name.endswith(f"_{manager.get_session_id()}.jsonl")


def test_setup_entries_wait_in_memory_until_the_first_user_message(tmp_path: Path) -> None:
    manager = SessionManager.create("/p", session_dir=tmp_path)
    manager.append_session_info("named")
    manager.append_model_change("prov", "m1")
    manager.append_thinking_level_change("high")
    manager.append_message(SystemMessage(content="", sections={"preamble": "Be brief."}))
    file = manager.get_session_file()
    assert file is not None and not file.exists()
    manager.append_message(user("hi"))
    assert [(line["type"], line.get("message", {}).get("role")) for line in _lines(file)] == [
        ("session", None),
        ("session_info", None),
        ("model_change", None),
        ("thinking_level_change", None),
        ("message", "system"),
        ("message", "user"),
    ]
    manager.append_message(assistant("hello"))
    lines = _lines(file)
    last = lines[-1]["message"]
    assert len(lines) == 7 and isinstance(last, dict) and last["role"] == "assistant"


def test_the_first_flush_never_overwrites_a_file_that_appeared_meanwhile(tmp_path: Path) -> None:
    manager = SessionManager.create("/p", session_dir=tmp_path)
    manager.append_model_change("prov", "m1")
    file = manager.get_session_file()
    assert file is not None
    file.write_text("someone else's\n")
    with pytest.raises(FileExistsError):
        manager.append_message(user("hi"))
    assert file.read_text() == "someone else's\n"
    assert [e.type for e in manager.get_entries()] == ["model_change"]


def test_every_entry_type_round_trips_in_pis_json(tmp_path: Path) -> None:
    manager = SessionManager.create("/p", session_dir=tmp_path)
    first = manager.append_message(user("hi"))
    manager.append_message(assistant("hello"))
    manager.append_message(BashExecutionMessage(command="ls", output="a", exit_code=0))
    manager.append_model_change("prov", "m2")
    manager.append_thinking_level_change("low")
    manager.append_compaction("sum", first, 1234, {"readFiles": ["a"], "modifiedFiles": []}, from_hook=False)
    manager.append_custom_entry("state", {"n": 1})
    manager.append_custom_message_entry(
        "note", [TextContent(text="t"), ImageContent(data="AAAA", mime_type="image/png")], True, {"k": 1}
    )
    manager.append_label_change(first, "start")
    manager.append_label_change(first, None)
    manager.append_session_info("  My session  ")
    summary_id = manager.branch_with_summary(first, "went elsewhere", {"readFiles": [], "modifiedFiles": []})
    file = manager.get_session_file()
    assert file is not None
    written = _lines(file)
    header, entries = written[0], written[1:]
    assert header == {
        "type": "session",
        "version": 3,
        "id": manager.get_session_id(),
        "timestamp": header["timestamp"],
        "cwd": "/p",
    }
    assert [e["type"] for e in entries] == [
        "message",
        "message",
        "message",
        "model_change",
        "thinking_level_change",
        "compaction",
        "custom",
        "custom_message",
        "label",
        "label",
        "session_info",
        "branch_summary",
    ]
    for entry in entries:
        assert isinstance(entry["id"], str) and len(entry["id"]) == 8
        int(entry["id"], 16)
        assert str(entry["timestamp"]).endswith("Z")
    assert entries[0]["parentId"] is None
    assert entries[3] | {"id": "x", "parentId": "x", "timestamp": "x"} == {
        "type": "model_change",
        "id": "x",
        "parentId": "x",
        "timestamp": "x",
        "provider": "prov",
        "modelId": "m2",
    }
    assert entries[5]["firstKeptEntryId"] == first and entries[5]["tokensBefore"] == 1234
    assert entries[5]["fromHook"] is False
    assert entries[7]["content"] == [
        {"type": "text", "text": "t"},
        {"type": "image", "data": "AAAA", "mimeType": "image/png"},
    ]
    assert "label" not in entries[9]
    assert entries[10]["name"] == "My session"
    assert entries[11]["parentId"] == first and entries[11]["fromId"] == entries[10]["id"]
    assert entries[11]["id"] == summary_id
    assert entries[2]["message"]["role"] == "bashExecution"

    reopened = SessionManager.open(file)
    assert [e.to_dict() for e in reopened.get_entries()] == entries
    assert reopened.get_header().to_dict() == header
    assert reopened.get_session_name() == "My session"
    assert reopened.get_label(first) is None
    assert reopened.warnings == []


def test_unknown_entry_types_and_fields_survive_a_rewrite(tmp_path: Path) -> None:
    file = tmp_path / "s.jsonl"
    lines = [
        {
            "type": "session",
            "version": 3,
            "id": "sid",
            "timestamp": "2025-01-01T00:00:00.000Z",
            "cwd": "/p",
            "future": 1,
        },
        {
            "type": "message",
            "id": "aaaaaaaa",
            "parentId": None,
            "timestamp": "t",
            "message": {"role": "user", "content": "x", "timestamp": 1, "lang": "en"},
            "extraTop": [1],
        },
        {"type": "hologram", "id": "bbbbbbbb", "parentId": "aaaaaaaa", "timestamp": "t", "payload": {"a": 1}},
        {
            "type": "message",
            "id": "cccccccc",
            "parentId": "bbbbbbbb",
            "timestamp": "t",
            "message": {"role": "newRole", "x": 1},
        },
    ]
    file.write_text("".join(json.dumps(line) + "\n" for line in lines))
    manager = SessionManager.open(file)
    entries = manager.get_entries()
    assert isinstance(entries[1], UnknownEntry) and entries[1].type == "hologram"
    assert manager.get_leaf_id() == "cccccccc"
    assert [m.role for m in manager.build_session_context().messages] == ["user", "newRole"]
    forked = SessionManager.fork_from(file, "/q", session_dir=tmp_path / "fork")
    fork_file = forked.get_session_file()
    assert fork_file is not None
    assert _lines(fork_file)[1:] == lines[1:]
    assert _lines(fork_file)[0]["parentSession"] == str(file)


def test_a_torn_last_line_is_skipped_and_the_next_append_starts_a_clean_line(tmp_path: Path) -> None:
    manager = SessionManager.create("/p", session_dir=tmp_path)
    manager.append_message(user("hi"))
    manager.append_message(assistant("hello"))
    file = manager.get_session_file()
    assert file is not None
    with file.open("a") as handle:
        handle.write('{"type":"message","id":"dead","parentId":')
    reopened = SessionManager.open(file)
    assert len(reopened.get_entries()) == 2
    assert len(reopened.warnings) == 1 and "incomplete last line" in reopened.warnings[0]
    reopened.append_message(user("after the crash"))
    text = file.read_text()
    assert text.endswith("\n")
    assert '"parentId":\n{"type":"message"' in text
    again = SessionManager.open(file)
    assert [getattr(m, "content", None) for m in again.build_session_context().messages][-1] == "after the crash"
    assert len(again.warnings) == 1 and "not a JSON object" in again.warnings[0]


def test_malformed_lines_in_the_middle_are_skipped(tmp_path: Path) -> None:
    manager = SessionManager.create("/p", session_dir=tmp_path)
    manager.append_message(user("hi"))
    manager.append_message(assistant("hello"))
    file = manager.get_session_file()
    assert file is not None
    head, *rest = file.read_text().splitlines(keepends=True)
    file.write_text(head + "garbage\n[1,2]\n" + "".join(rest))
    reopened = SessionManager.open(file)
    assert len(reopened.get_entries()) == 2
    assert len(reopened.warnings) == 2


def test_a_file_without_a_header_is_reported(tmp_path: Path) -> None:
    file = tmp_path / "notes.jsonl"
    file.write_text('{"hello": "world"}\n')
    with pytest.raises(SessionFileError) as raised:
        SessionManager.open(file)
    assert str(raised.value) == f"Session file is not a valid pi session: {file}"
    assert file.read_text() == '{"hello": "world"}\n'
    recent = SessionManager.continue_recent("/p", session_dir=tmp_path)
    assert recent.get_entries() == [] and recent.get_session_file() != file


def test_an_empty_file_starts_a_session_at_that_path(tmp_path: Path) -> None:
    file = tmp_path / "new.jsonl"
    file.write_text("")
    manager = SessionManager.open(file, cwd="/p")
    manager.append_model_change("prov", "m1")
    assert file.read_text() == ""
    manager.append_message(user("hi"))
    assert [line["type"] for line in _lines(file)] == ["session", "model_change", "message"]
    assert _lines(file)[0]["id"] == manager.get_session_id()


def test_a_lone_surrogate_is_written_as_valid_json(tmp_path: Path) -> None:
    manager = SessionManager.create("/p", session_dir=tmp_path)
    manager.append_message(user("broken \ud83d emoji"))
    manager.append_message(assistant("ok"))
    file = manager.get_session_file()
    assert file is not None
    file.read_bytes().decode("utf-8")
    message = SessionManager.open(file).build_session_context().messages[0]
    assert isinstance(message, UserMessage) and message.content == "broken \ud83d emoji"


def test_a_message_entry_with_an_unknown_field_instead_of_a_parent_keeps_it() -> None:
    # Five keys, but not pi's five: the unknown one must survive and no parentId is invented.
    data = {"type": "message", "id": "aaaaaaaa", "timestamp": "t", "message": {"role": "user", "content": "x"}}
    data["origin"] = "import"
    entry = entry_from_dict(data)
    assert isinstance(entry, MessageEntry) and entry.parent_id is None
    assert entry.to_dict() == {**data, "parentId": None}


def test_appending_recreates_a_session_directory_removed_mid_session(tmp_path: Path) -> None:
    path = tmp_path / "gone" / "s.jsonl"
    append_lines(path, ['{"a":1}'])
    path.unlink()
    path.parent.rmdir()
    append_lines(path, ['{"b":2}'])
    assert path.read_text() == '{"b":2}\n'
