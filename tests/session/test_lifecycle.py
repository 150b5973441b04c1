"""The session file's life: ids, names, damaged and foreign files, rolled-back writes, scoped lookups, the SDK API."""

from __future__ import annotations

import errno
import gc
import json
import os
import time
import uuid
from pathlib import Path

import pytest

from pi.session import (
    InvalidSessionIdError,
    SessionFileError,
    SessionManager,
    create_session_id,
    normalize_session_name,
    validate_session_id,
)
from pi.session.entries import ModelChangeEntry, entry_from_dict
from pi.session.storage import default_session_dir
from pi.session.tree import dumps_tree_data
from tests.session.builders import assistant, user

ID_MESSAGE = (
    "Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', "
    "and start and end with an alphanumeric character"
)


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_session_ids_are_uuid_v7_in_creation_order() -> None:
    first = create_session_id(1_700_000_000_000)
    second = create_session_id(1_700_000_000_001)
    parsed = uuid.UUID(first)
    assert parsed.version == 7 and parsed.variant == uuid.RFC_4122
    assert int(first.replace("-", "")[:12], 16) == 1_700_000_000_000
    assert first < second
    manager = SessionManager.in_memory("/p")
    assert uuid.UUID(manager.get_session_id()).version == 7


@pytest.mark.parametrize("good", ["a", "abc-1.2_x", "A1", "x.y"])
def test_custom_ids_that_are_accepted(good: str, tmp_path: Path) -> None:
    assert validate_session_id(good) == good
    manager = SessionManager.create("/p", session_dir=tmp_path, id=good)
    assert manager.get_session_id() == good
    assert (manager.get_session_file() or Path()).name.endswith(f"_{good}.jsonl")


@pytest.mark.parametrize("bad", ["", "-a", "a-", "a b", "a/b", ".a", "a.", "é", "a\n"])
def test_custom_ids_that_are_refused_with_pis_message(bad: str, tmp_path: Path) -> None:
    with pytest.raises(InvalidSessionIdError) as raised:
        SessionManager.create("/p", session_dir=tmp_path, id=bad)
    assert str(raised.value) == ID_MESSAGE
    with pytest.raises(InvalidSessionIdError):
        SessionManager.in_memory("/p", id=bad)
    with pytest.raises(InvalidSessionIdError):
        SessionManager.in_memory("/p").new_session(bad)


def test_names_lose_line_breaks_and_surrounding_space() -> None:
    assert normalize_session_name("  two\r\n\nlines \n") == "two lines"
    manager = SessionManager.in_memory("/p")
    manager.append_session_info("a\nb")
    assert manager.get_session_name() == "a b"
    manager.append_session_info(" \n ")
    assert manager.get_session_name() is None  # an empty name clears the title


def test_a_file_that_is_not_a_session_is_refused_and_left_alone(tmp_path: Path) -> None:
    file = tmp_path / "garbage.jsonl"
    file.write_text("not json at all\n")
    with pytest.raises(SessionFileError) as raised:
        SessionManager.open(file)
    assert str(raised.value) == f"Session file is not a valid pi session: {file}"
    assert file.read_text() == "not json at all\n"


def test_a_missing_file_is_created_at_the_first_message_with_that_name(tmp_path: Path) -> None:
    file = tmp_path / "chosen.jsonl"
    manager = SessionManager.open(file, cwd_override="/p")
    manager.append_model_change("prov", "m1")
    assert not file.exists()
    manager.append_message(user("hi"))
    assert [line["type"] for line in _lines(file)] == ["session", "model_change", "message"]
    assert _lines(file)[0]["cwd"] == "/p"


def test_cwd_comes_from_the_header_unless_overridden(tmp_path: Path) -> None:
    manager = SessionManager.create("/from/header", session_dir=tmp_path)
    manager.append_message(user("hi"))
    file = manager.get_session_file()
    assert file is not None
    assert SessionManager.open(file).get_cwd() == "/from/header"
    assert SessionManager.open(file, cwd_override="/elsewhere").get_cwd() == "/elsewhere"


def test_a_missing_final_newline_is_repaired_before_appending(tmp_path: Path) -> None:
    manager = SessionManager.create("/p", session_dir=tmp_path)
    manager.append_message(user("hi"))
    file = manager.get_session_file()
    assert file is not None
    file.write_text(file.read_text().rstrip("\n"))
    reopened = SessionManager.open(file)
    reopened.append_message(assistant("hello"))
    text = file.read_text()
    assert text.endswith("\n") and len(text.splitlines()) == 3
    assert SessionManager.open(file).warnings == []


def test_a_failed_first_write_keeps_the_setup_and_drops_the_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manager = SessionManager.create("/p", session_dir=tmp_path)
    model = manager.append_model_change("prov", "m1")

    def full_disk(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(os, "write", full_disk)
        with pytest.raises(OSError):
            manager.append_message(user("lost"))
    assert manager.get_leaf_id() == model and manager.get_entry_count() == 1
    assert manager.get_session_file() is not None and not (manager.get_session_file() or Path()).exists()


def test_a_failed_label_write_restores_the_previous_label(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    manager = SessionManager.create("/p", session_dir=tmp_path)
    first = manager.append_message(user("hi"))
    manager.append_label_change(first, "start")

    def full_disk(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(os, "write", full_disk)
        with pytest.raises(OSError):
            manager.append_label_change(first, "renamed")
    assert manager.get_label(first) == "start"


def test_in_memory_sessions_restore_external_entries() -> None:
    source = SessionManager.in_memory("/p")
    source.append_model_change("prov", "m1")
    source.append_message(user("hi"))
    reply = source.append_message(assistant("hello"))
    as_json = [e.to_dict() for e in source.get_entries()]
    restored = SessionManager.in_memory("/q", id="restored-1", entries=as_json)
    assert restored.get_session_id() == "restored-1" and restored.get_cwd() == "/q"
    assert restored.get_leaf_id() == reply and restored.get_entry_count() == 3
    assert [m.role for m in restored.build_session_context().messages] == ["user", "assistant"]
    objects = SessionManager.in_memory(entries=source.get_entries())
    assert [e.id for e in objects.get_entries()] == [e["id"] for e in as_json]


def test_fork_from_refuses_empty_and_headerless_sources(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(SessionFileError) as raised:
        SessionManager.fork_from(empty, "/p", session_dir=tmp_path / "out")
    assert str(raised.value) == f"Cannot fork: source session file is empty or invalid: {empty}"
    headerless = tmp_path / "headerless.jsonl"
    headerless.write_text('{"type":"message","id":"a","parentId":null}\n')
    with pytest.raises(SessionFileError) as raised:
        SessionManager.fork_from(headerless, "/p", session_dir=tmp_path / "out")
    assert str(raised.value) == f"Cannot fork: source session has no header: {headerless}"
    assert not (tmp_path / "out").exists()


def test_fork_from_takes_a_custom_id(tmp_path: Path) -> None:
    source = SessionManager.create("/a", session_dir=tmp_path / "a")
    source.append_message(user("hi"))
    forked = SessionManager.fork_from(source.get_session_file() or "", "/b", session_dir=tmp_path / "b", id="copy-1")
    assert forked.get_session_id() == "copy-1"
    assert _lines(forked.get_session_file() or Path())[0]["id"] == "copy-1"


def _session(directory: Path, cwd: str, text: str, mtime: float) -> SessionManager:
    manager = SessionManager.create(cwd, session_dir=directory)
    manager.append_message(user(text))
    os.utime(manager.get_session_file() or "", (mtime, mtime))
    return manager


def test_a_custom_session_dir_is_scoped_to_the_cwd(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    now = time.time()
    mine = _session(shared, "/mine", "mine", now - 10)
    theirs = _session(shared, "/theirs", "theirs", now)
    recent = SessionManager.continue_recent("/mine", session_dir=shared, agent_dir=tmp_path)
    assert recent.get_session_id() == mine.get_session_id()
    assert [i.id for i in SessionManager.list("/mine", session_dir=shared, agent_dir=tmp_path)] == [
        mine.get_session_id()
    ]
    found = SessionManager.find_by_id("/mine", theirs.get_session_id(), session_dir=shared, agent_dir=tmp_path)
    assert found is None
    assert SessionManager.find_by_id("/theirs", theirs.get_session_id(), session_dir=shared, agent_dir=tmp_path) == (
        theirs.get_session_file()
    )
    prefix = SessionManager.find_by_id_prefix(theirs.get_session_id(), "/mine", session_dir=shared, agent_dir=tmp_path)
    assert prefix is None or not prefix.in_current_project


def test_find_by_id_in_the_default_dir_reads_headers_only(tmp_path: Path) -> None:
    manager = SessionManager.create("/p", agent_dir=tmp_path)
    manager.append_message(user("hi"))
    assert manager.get_session_file() is not None
    assert manager.get_session_file() == SessionManager.find_by_id("/p", manager.get_session_id(), agent_dir=tmp_path)
    assert manager.get_session_dir() == default_session_dir("/p", tmp_path)
    assert SessionManager.find_by_id("/p", "missing", agent_dir=tmp_path) is None


def test_get_entries_since_and_the_rpc_shapes() -> None:
    manager = SessionManager.in_memory("/p")
    first = manager.append_message(user("hi"))
    second = manager.append_message(assistant("hello"))
    manager.append_label_change(first, "start")
    assert [e.id for e in manager.get_entries(since=first)] == [second, manager.get_entries()[-1].id]
    last = manager.get_entries()[-1].id
    assert manager.get_entries_data(since=last) == {"entries": [], "leafId": last}
    with pytest.raises(ValueError, match=r"^Entry not found: nope$"):
        manager.get_entries(since="nope")
    data = manager.get_entries_data()
    assert [e["id"] for e in data["entries"]] == [first, second, last]
    assert "type" in data["entries"][0] and data["leafId"] == last
    tree = manager.get_tree_data()
    assert tree["leafId"] == last
    (root,) = tree["tree"]
    assert root["entry"]["id"] == first and root["label"] == "start"
    assert root["labelTimestamp"] == manager.get_entries()[-1].timestamp
    assert [child["entry"]["id"] for child in root["children"]] == [second]
    assert manager.get_entry_count() == 3


def test_get_tree_data_of_a_deep_branch_needs_no_recursion() -> None:
    entries = [
        ModelChangeEntry(id=f"{i:08x}", parent_id=f"{i - 1:08x}" if i else None, provider="p", model_id="m")
        for i in range(5000)
    ]
    manager = SessionManager.in_memory("/p", entries=entries)
    tree = manager.get_tree_data()["tree"]
    depth = 0
    node = tree[0]
    while node["children"]:
        node = node["children"][0]
        depth += 1
    assert depth == 4999
    with pytest.raises(RecursionError):
        json.dumps(manager.get_tree_data())
    text = dumps_tree_data(manager.get_tree_data())
    assert text.count('"children":[') == 5000 and text.endswith("]}" * 5000 + f'],"leafId":"{4999:08x}"}}')
    small = SessionManager.in_memory("/p")
    first = small.append_message(user("q"))
    small.append_message(assistant("a"))
    small.append_label_change(first, "start")
    data = small.get_tree_data()
    assert dumps_tree_data(data) == json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def test_loading_and_building_leave_the_garbage_collector_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manager = SessionManager.create("/p", session_dir=tmp_path)
    for i in range(50):
        manager.append_message(user(f"q{i}"))
        manager.append_message(assistant(f"a{i}"))
    touched: list[str] = []
    for name in ("disable", "enable", "freeze", "set_threshold"):
        monkeypatch.setattr(gc, name, lambda *args, _name=name: touched.append(_name))
    reopened = SessionManager.open(manager.get_session_file() or "")
    assert len(reopened.build_session_context().messages) == 100
    assert touched == []


def test_unknown_key_order_of_an_extension_entry_is_kept() -> None:
    line = {"type": "custom", "customType": "x", "data": 1, "id": "a1", "parentId": None, "timestamp": "t"}
    assert list(entry_from_dict(line).to_dict()) == list(line)


def test_a_directory_is_not_opened_as_a_session(tmp_path: Path) -> None:
    with pytest.raises(SessionFileError, match="is a directory"):
        SessionManager.open(tmp_path)


def test_a_file_of_blank_lines_is_filled_in_place(tmp_path: Path) -> None:
    file = tmp_path / "blank.jsonl"
    file.write_text("\n\n")
    manager = SessionManager.open(file, cwd="/p")
    manager.append_message(user("hi"))
    reopened = SessionManager.open(file)
    assert reopened.get_session_id() == manager.get_session_id() and reopened.get_entry_count() == 1
