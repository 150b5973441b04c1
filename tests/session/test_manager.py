"""Navigating and copying sessions: branches in one file, forks, listing and lookup by id prefix."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from pi.session import LabelEntry, SessionManager
from pi.session.storage import RawSessionFile, read_session_file
from tests.session.builders import assistant, user


def _conversation(manager: SessionManager) -> tuple[str, str, str, str]:
    u1 = manager.append_message(user("first"))
    a1 = manager.append_message(assistant("one"))
    u2 = manager.append_message(user("second"))
    a2 = manager.append_message(assistant("two"))
    return u1, a1, u2, a2


def _texts(manager: SessionManager) -> list[str]:
    out = []
    for message in manager.build_session_context().messages:
        content = getattr(message, "content", "")
        out.append(content if isinstance(content, str) else content[0].text)
    return out


def test_branching_writes_siblings_into_the_same_file(tmp_path: Path) -> None:
    manager = SessionManager.create("/p", session_dir=tmp_path)
    _u1, a1, u2, _a2 = _conversation(manager)
    manager.branch(a1)
    u3 = manager.append_message(user("other second"))
    manager.append_message(assistant("other two"))
    assert _texts(manager) == ["first", "one", "other second", "other two"]
    assert [e.id for e in manager.get_children(a1)] == [u2, u3]
    assert len(list(tmp_path.iterdir())) == 1
    reopened = SessionManager.open(manager.get_session_file() or "")
    assert _texts(reopened) == ["first", "one", "other second", "other two"]
    (root,) = reopened.get_tree()
    assert [child.entry.id for child in root.children[0].children] == [u2, u3]
    with pytest.raises(ValueError, match="Entry nothere not found"):
        manager.branch("nothere")


def test_reset_leaf_and_a_none_leaf_give_an_empty_context(tmp_path: Path) -> None:
    manager = SessionManager.in_memory("/p")
    _conversation(manager)
    manager.reset_leaf()
    assert manager.build_session_context().messages == []
    new_root = manager.append_message(user("fresh"))
    assert manager.get_entry(new_root).parent_id is None  # type: ignore[union-attr]
    assert len(manager.get_tree()) == 2
    assert manager.get_session_file() is None and not manager.is_persisted()


def test_branch_with_summary_records_the_abandoned_work(tmp_path: Path) -> None:
    manager = SessionManager.in_memory("/p")
    _u1, a1, _u2, _a2 = _conversation(manager)
    summary_id = manager.branch_with_summary(a1, "tried two", {"readFiles": [], "modifiedFiles": []})
    assert manager.get_entry(summary_id).from_id == _a2  # type: ignore[union-attr]
    assert manager.get_leaf_id() == summary_id
    assert [m.role for m in manager.build_session_context().messages] == ["user", "assistant", "branchSummary"]
    manager.reset_leaf()
    root_summary = manager.branch_with_summary(None, "from the top")
    assert manager.get_entry(root_summary).from_id == "root"  # type: ignore[union-attr]


def test_fork_from_writes_parent_session_and_copies_entries(tmp_path: Path) -> None:
    source = SessionManager.create("/a", session_dir=tmp_path / "a")
    _conversation(source)
    forked = SessionManager.fork_from(source.get_session_file() or "", "/b", session_dir=tmp_path / "b")
    file = forked.get_session_file()
    assert file is not None and file.parent == tmp_path / "b"
    header = json.loads(file.read_text().splitlines()[0])
    assert header["parentSession"] == str(source.get_session_file()) and header["cwd"] == "/b"
    assert header["id"] != source.get_session_id()
    assert _texts(forked) == _texts(source)
    assert forked.get_cwd() == "/b"


def test_create_branched_session_keeps_only_the_path_and_its_labels(tmp_path: Path) -> None:
    manager = SessionManager.create("/p", session_dir=tmp_path)
    u1, a1, _u2, a2 = _conversation(manager)
    manager.append_label_change(u1, "start")
    manager.append_label_change(a2, "end")
    old_file = manager.get_session_file()
    new_file = manager.create_branched_session(a1)
    assert new_file is not None and new_file != old_file and new_file.exists()
    lines = [json.loads(line) for line in new_file.read_text().splitlines()]
    assert lines[0]["parentSession"] == str(old_file)
    assert [line["type"] for line in lines[1:]] == ["message", "message", "label"]
    assert lines[3]["targetId"] == u1 and lines[3]["parentId"] == a1
    assert manager.get_label(u1) == "start" and manager.get_label(a2) is None
    assert _texts(manager) == ["first", "one"]
    assert isinstance(manager.get_leaf_entry(), LabelEntry)


def test_create_branched_session_keeps_history_that_follows_a_label(tmp_path: Path) -> None:
    # Labelling moves the leaf, so the next message's parent is the label entry, which the copy leaves out.
    manager = SessionManager.create("/p", session_dir=tmp_path)
    u1 = manager.append_message(user("first"))
    manager.append_message(assistant("one"))
    manager.append_label_change(u1, "start")
    manager.append_message(user("second"))
    a2 = manager.append_message(assistant("two"))
    manager.append_message(user("third"))
    new_file = manager.create_branched_session(a2)
    assert _texts(manager) == ["first", "one", "second", "two"]
    assert manager.get_label(u1) == "start"
    reopened = SessionManager.open(new_file or "")
    assert _texts(reopened) == ["first", "one", "second", "two"]
    assert len(reopened.get_tree()) == 1


def test_create_branched_session_without_a_message_waits_for_one(tmp_path: Path) -> None:
    manager = SessionManager.create("/p", session_dir=tmp_path)
    model = manager.append_model_change("prov", "m1")
    _conversation(manager)
    new_file = manager.create_branched_session(model)
    assert new_file is not None and not new_file.exists()
    manager.append_message(user("now"))
    assert new_file.exists()


def test_new_session_starts_a_new_file(tmp_path: Path) -> None:
    manager = SessionManager.create("/p", session_dir=tmp_path)
    _conversation(manager)
    first = manager.get_session_file()
    second = manager.new_session(parent_session=str(first))
    assert second != first and manager.get_entries() == [] and manager.get_leaf_id() is None
    assert manager.get_header().parent_session == str(first)


def _make(agent: Path, cwd: str, text: str, mtime: float) -> SessionManager:
    manager = SessionManager.create(cwd, agent_dir=agent)
    manager.append_message(user(text))
    manager.append_message(assistant("reply"))
    file = manager.get_session_file()
    assert file is not None
    os.utime(file, (mtime, mtime))
    return manager


def test_continue_recent_list_and_find_by_prefix(tmp_path: Path) -> None:
    now = time.time()
    old = _make(tmp_path, "/proj", "older", now - 100)
    new = _make(tmp_path, "/proj", "newer", now)
    other = _make(tmp_path, "/elsewhere", "far away", now - 50)
    new.append_session_info("Named")
    os.utime(new.get_session_file() or "", (now, now))

    recent = SessionManager.continue_recent("/proj", agent_dir=tmp_path)
    assert recent.get_session_id() == new.get_session_id()

    infos = SessionManager.list("/proj", agent_dir=tmp_path)
    assert {i.id for i in infos} == {old.get_session_id(), new.get_session_id()}
    named = next(i for i in infos if i.id == new.get_session_id())
    assert named.name == "Named" and named.first_message == "newer" and named.message_count == 2
    assert named.cwd == "/proj"
    assert len(SessionManager.list_all(agent_dir=tmp_path)) == 3

    found = SessionManager.find_by_id_prefix(new.get_session_id()[:30], "/proj", agent_dir=tmp_path)
    assert found is not None and found.in_current_project and found.info.id == new.get_session_id()
    far = SessionManager.find_by_id_prefix(other.get_session_id(), "/proj", agent_dir=tmp_path)
    assert far is not None and not far.in_current_project and far.info.cwd == "/elsewhere"
    assert SessionManager.find_by_id_prefix("zzzz", "/proj", agent_dir=tmp_path) is None


def test_find_by_prefix_reads_only_the_sessions_whose_id_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = time.time()
    wanted = _make(tmp_path, "/elsewhere", "wanted", now)
    for i in range(3):
        _make(tmp_path, "/proj", f"other {i}", now - i)
        _make(tmp_path, "/third", f"third {i}", now - i)
    read: list[Path] = []
    original = read_session_file

    def spy(path: str | Path) -> RawSessionFile:
        read.append(Path(path))
        return original(path)

    monkeypatch.setattr("pi.session.listing.read_session_file", spy)
    found = SessionManager.find_by_id_prefix(wanted.get_session_id(), "/proj", agent_dir=tmp_path)
    assert found is not None and found.info.first_message == "wanted" and not found.in_current_project
    assert read == [wanted.get_session_file()]
    assert SessionManager.find_by_id_prefix("zzzz", "/proj", agent_dir=tmp_path) is None
    assert len(read) == 1


def test_continue_recent_without_sessions_starts_a_new_one(tmp_path: Path) -> None:
    manager = SessionManager.continue_recent("/proj", agent_dir=tmp_path)
    assert manager.get_entries() == []
    assert manager.get_session_file() is not None and not (manager.get_session_file() or Path()).exists()


def test_labels_need_an_existing_target() -> None:
    manager = SessionManager.in_memory("/p")
    with pytest.raises(ValueError, match="Entry abc not found"):
        manager.append_label_change("abc", "x")
