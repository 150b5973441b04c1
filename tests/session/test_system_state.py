"""System messages: stored as pi stores them, replayed into the prompt and tools in force, patched minimally."""

from __future__ import annotations

from pi.session import SessionManager, SystemMessage, checkpoint_of, replay_system_messages, system_message_patch
from pi.session.entries import MessageEntry
from tests.session.builders import user

READ = {"name": "read", "description": "Read a file.", "parameters": {"type": "object"}}
BASH = {"name": "bash", "description": "Run a command.", "parameters": {"type": "object"}}


def test_a_system_message_is_stored_in_pis_json() -> None:
    manager = SessionManager.in_memory("/p")
    entry_id = manager.append_message(
        SystemMessage(sections={"preamble": "Hi.", "cwd": "<cwd>\n/p\n</cwd>"}, tools_added=[READ])
    )
    entry = manager.get_entry(entry_id)
    assert isinstance(entry, MessageEntry)
    stored = entry.message_json
    assert stored["role"] == "system" and stored["content"] == ""
    assert stored["sections"] == {"preamble": "Hi.", "cwd": "<cwd>\n/p\n</cwd>"}
    assert stored["toolsAdded"] == [READ] and "toolsRemoved" not in stored
    assert isinstance(stored["timestamp"], int)


def test_replaying_patches_gives_the_current_prompt_and_tools() -> None:
    first = system_message_patch(None, {"preamble": "P", "tools": "<tools>\nT\n</tools>"}, [READ, BASH])
    assert first is not None and first.tools_added == [READ, BASH]
    state = replay_system_messages([first])
    assert state is not None and state.prompt == "P\n\n<tools>\nT\n</tools>" and list(state.tools) == ["read", "bash"]
    assert system_message_patch(state, {"preamble": "P", "tools": "<tools>\nT\n</tools>"}, [BASH, READ]) is None
    patch = system_message_patch(state, {"preamble": "P2", "skills": "<skills>\nS\n</skills>"}, [READ])
    assert patch is not None
    assert patch.sections == {"tools": None, "preamble": "P2", "skills": "<skills>\nS\n</skills>"}
    assert patch.tools_removed == [{"name": "bash"}] and patch.tools_added is None
    after = replay_system_messages([first, user("q"), patch])
    assert after is not None and after.prompt == "P2\n\n<skills>\nS\n</skills>" and list(after.tools) == ["read"]
    checkpoint = checkpoint_of(after)
    assert checkpoint.sections == after.sections and checkpoint.tools_added == [READ]
    assert replay_system_messages([user("no system message")]) is None


def test_convert_to_llm_never_sends_system_messages_as_conversation() -> None:
    from pi.session.messages import convert_to_llm

    question = user("q")
    assert convert_to_llm([SystemMessage(content="x"), question]) == [question]


def test_the_manager_replays_the_branch_and_a_compaction_checkpoint_restarts_it() -> None:
    manager = SessionManager.in_memory("/p")
    assert manager.get_system_state() is None
    first = system_message_patch(None, {"preamble": "P"}, [READ, BASH])
    assert first is not None
    manager.append_message(first)
    manager.append_message(user("q"))
    state = manager.get_system_state()
    assert state is not None and list(state.tools) == ["read", "bash"]
    kept = manager.append_message(user("kept"))
    manager.append_compaction("S", kept, 1, system_message=checkpoint_of(state))
    after = manager.get_system_state()
    assert after is not None and after.sections == {"preamble": "P"} and list(after.tools) == ["read", "bash"]
