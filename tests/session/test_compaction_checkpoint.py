"""`append_compaction` stores the prompt and tools in force as the compaction's `systemMessage`, as pi does,
so that the compacted context still begins with them."""

from __future__ import annotations

from pi.session import SessionManager
from pi.session.entries import CompactionEntry, iso_to_ms
from pi.session.messages import SystemMessage
from tests.session.builders import assistant, user


def _with_prompt_history() -> tuple[SessionManager, str]:
    manager = SessionManager.in_memory("/p")
    manager.append_message(SystemMessage(sections={"preamble": "v1", "cwd": "/p"}, tools_added=[{"name": "read"}]))
    manager.append_message(user("old"))
    manager.append_message(assistant("old reply"))
    manager.append_message(SystemMessage(sections={"preamble": "v2"}, tools_added=[{"name": "bash"}]))
    kept = manager.append_message(user("kept"))
    manager.append_message(assistant("kept reply"))
    return manager, kept


def test_the_checkpoint_is_the_replayed_prompt_and_tools_at_the_boundary() -> None:
    manager, kept = _with_prompt_history()
    entry_id = manager.append_compaction("SUMMARY", kept, 100)
    entry = manager.get_entry(entry_id)
    assert isinstance(entry, CompactionEntry) and entry.system_message is not None
    checkpoint = entry.system_message
    assert checkpoint["role"] == "system"
    assert checkpoint["sections"] == {"preamble": "v2", "cwd": "/p"}
    assert [t["name"] for t in checkpoint["toolsAdded"]] == ["read", "bash"]
    assert checkpoint["timestamp"] == iso_to_ms(entry.timestamp)
    roles = [m.role for m in manager.build_session_context().messages]
    assert roles == ["system", "compactionSummary", "user", "assistant"]


def test_a_second_compaction_checkpoints_from_the_first_one() -> None:
    manager, kept = _with_prompt_history()
    manager.append_compaction("first", kept, 100)
    later = manager.append_message(user("later"))
    manager.append_compaction("second", later, 50)
    first_message = manager.build_session_context().messages[0]
    assert isinstance(first_message, SystemMessage)
    assert first_message.sections == {"preamble": "v2", "cwd": "/p"}


def test_a_session_without_system_messages_stores_no_checkpoint() -> None:
    manager = SessionManager.in_memory("/p")
    kept = manager.append_message(user("q"))
    manager.append_message(assistant("a"))
    entry = manager.get_entry(manager.append_compaction("S", kept, 10))
    assert isinstance(entry, CompactionEntry) and entry.system_message is None
    assert "systemMessage" not in entry.to_dict()


def test_a_checkpoint_given_by_the_caller_is_kept() -> None:
    manager, kept = _with_prompt_history()
    given = SystemMessage(sections={"preamble": "chosen"})
    entry = manager.get_entry(manager.append_compaction("S", kept, 10, system_message=given))
    assert isinstance(entry, CompactionEntry) and entry.system_message is not None
    assert entry.system_message["sections"] == {"preamble": "chosen"}
