"""Files in pi 1.6.0's format (fixtures/ts16/): real ones written by pi 1.6.0, and hand-written ones from the spec.

Each loads, builds the context pi would send, writes every entry back byte for byte (unknown fields
and key order kept) and continues by appending only.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pi.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from pi.session import (
    CompactionEntry,
    ContextEditEntry,
    ModelRef,
    SessionManager,
    SystemMessage,
    UsageEntry,
    replay_system_messages,
)
from pi.session.entries import BranchSummaryEntry, CustomEntry, UnknownEntry
from pi.session.messages import BashExecutionMessage, BranchSummaryMessage, CompactionSummaryMessage, CustomMessage
from pi.session.storage import dumps_line
from tests.session.builders import user

TS16 = Path(__file__).parent / "fixtures" / "ts16"
ALL = sorted(p.name for p in TS16.glob("*.jsonl"))


def _open(name: str, tmp_path: Path) -> SessionManager:
    target = tmp_path / name
    shutil.copy(TS16 / name, target)
    return SessionManager.open(target)


def _text(message: object) -> str:
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return content
    return "".join(b.text for b in content if isinstance(b, TextContent))


def test_the_fixture_set_is_complete() -> None:
    assert len(ALL) >= 7
    for name in ALL:
        lines = (TS16 / name).read_text(encoding="utf-8").splitlines()
        assert json.loads(lines[0])["type"] == "session"


@pytest.mark.parametrize("name", ALL)
def test_every_line_round_trips_byte_for_byte(name: str, tmp_path: Path) -> None:
    manager = _open(name, tmp_path)
    assert manager.warnings == []
    original = (TS16 / name).read_text(encoding="utf-8").splitlines()
    assert dumps_line(manager.get_header().to_dict()) == original[0]
    assert [dumps_line(e.to_dict()) for e in manager.get_entries()] == original[1:]
    assert all(not isinstance(e, UnknownEntry) or e.type == "future_entry" for e in manager.get_entries())


@pytest.mark.parametrize("name", ALL)
def test_a_loaded_file_is_continued_by_appending_only(name: str, tmp_path: Path) -> None:
    manager = _open(name, tmp_path)
    file = manager.get_session_file()
    assert file is not None
    before = file.read_bytes()
    leaf = manager.get_leaf_id()
    manager.append_message(user("one more"))
    after = file.read_bytes()
    assert after.startswith(before)
    assert json.loads(after[len(before) :])["parentId"] == leaf
    reopened = SessionManager.open(file)
    assert _text(reopened.build_session_context().messages[-1]) == "one more"


def test_a_new_pi_session_starts_with_its_system_message(tmp_path: Path) -> None:
    manager = _open("ts16_simple.jsonl", tmp_path)
    types = [(e.type, getattr(e, "role", None)) for e in manager.get_entries()]
    assert types == [
        ("model_change", None),
        ("thinking_level_change", None),
        ("message", "system"),
        ("message", "user"),
        ("message", "assistant"),
    ]
    context = manager.build_session_context()
    assert [m.role for m in context.messages] == ["system", "user", "assistant"]
    system = context.messages[0]
    assert isinstance(system, SystemMessage) and system.sections is not None
    assert list(system.sections) == ["preamble", "tools", "rules", "docs", "cwd"]
    assert [t["name"] for t in system.tools_added or []] == ["read", "bash", "edit", "write"]
    state = replay_system_messages(context.messages)
    assert state is not None and state.prompt.endswith("<cwd>\n/tmp/pi-ts16-fixtures/simple/project\n</cwd>")
    reply = context.messages[2]
    assert isinstance(reply, AssistantMessage) and reply.usage.total_tokens == 139


def test_a_retried_failure_is_omitted_by_its_context_edit(tmp_path: Path) -> None:
    manager = _open("ts16_retry.jsonl", tmp_path)
    edits = [e for e in manager.get_entries() if isinstance(e, ContextEditEntry)]
    assert len(edits) == 1 and edits[0].replacement is None
    failed = manager.get_entry(edits[0].target_id)
    assert failed is not None and getattr(failed, "role", None) == "assistant"
    messages = manager.build_session_context().messages
    assert [m.role for m in messages] == ["system", "user", "assistant"]
    assert _text(messages[-1]) == "Answer after a retry."
    assert failed in manager.get_entries()  # still in the file, only left out of the context


def test_a_tool_turn_keeps_the_new_result_fields(tmp_path: Path) -> None:
    manager = _open("ts16_bash_tool.jsonl", tmp_path)
    messages = manager.build_session_context().messages
    assert [m.role for m in messages] == ["system", "user", "assistant", "toolResult", "assistant"]
    call, result = messages[2], messages[3]
    assert isinstance(call, AssistantMessage) and isinstance(call.content[0], ToolCall)
    assert isinstance(result, ToolResultMessage) and result.tool_call_id == call.content[0].id
    assert result.to_json_dict()["durationMs"] == 16


def test_a_compaction_brings_its_system_checkpoint(tmp_path: Path) -> None:
    manager = _open("ts16_rpc_compaction.jsonl", tmp_path)
    compaction = next(e for e in manager.get_entries() if isinstance(e, CompactionEntry))
    assert compaction.usage["totalTokens"] == 146 and compaction.from_hook is False
    assert compaction.system_message is not None and compaction.system_message["role"] == "system"
    context = manager.build_session_context()
    roles = [m.role for m in context.messages]
    assert roles == ["system", "compactionSummary", "bashExecution", "user", "assistant"]
    summary = context.messages[1]
    assert isinstance(summary, CompactionSummaryMessage) and summary.summary.startswith("## Goal")
    assert isinstance(context.messages[2], BashExecutionMessage)
    assert context.thinking_level == "off" and context.model == ModelRef("fake", "fake-model")
    assert manager.get_session_name() == "fixture session"
    entries = manager.build_context_entries()
    assert entries[0] is compaction and entries[1].id == compaction.first_kept_entry_id


def test_a_branch_summary_names_the_leaf_it_left(tmp_path: Path) -> None:
    manager = _open("ts16_branch_summary.jsonl", tmp_path)
    summary = next(e for e in manager.get_entries() if isinstance(e, BranchSummaryEntry))
    left = manager.get_entry(summary.from_id)
    assert left is not None and left.type == "custom_message"  # the leaf before navigating
    assert summary.usage["totalTokens"] == 149
    messages = manager.build_session_context().messages
    assert [m.role for m in messages] == ["system", "user", "assistant", "branchSummary", "user", "assistant"]
    assert isinstance(messages[3], BranchSummaryMessage)
    manager.branch(summary.from_id)
    old_branch = manager.build_session_context().messages
    assert isinstance(old_branch[-1], CustomMessage) and old_branch[-1].content == "A note from an extension."
    assert any(isinstance(e, CustomEntry) for e in manager.get_entries())


def test_hand_written_edits_usage_and_system_patches(tmp_path: Path) -> None:
    manager = _open("handmade_edits_usage.jsonl", tmp_path)
    assert manager.get_header().extra == {"origin": {"tool": "hand-written", "spec": "delta-1.6 §4"}}
    usage = next(e for e in manager.get_entries() if isinstance(e, UsageEntry))
    assert usage.kind == "cache_warm" and usage.note == "keep the cache warm"
    context = manager.build_session_context()
    roles = [m.role for m in context.messages]
    assert roles == [
        *("system", "user", "assistant", "toolResult", "assistant"),
        *("user", "assistant", "system", "user", "assistant"),
    ]
    assert _text(context.messages[1]) == "Read a.txt."  # replaced content
    shortened = context.messages[3]
    assert isinstance(shortened, ToolResultMessage)
    assert [b.text for b in shortened.content if isinstance(b, TextContent)] == ["(300 letters A, shortened)"]
    assert "Done after a retry." in [_text(m) for m in context.messages]
    assert "503: overloaded" not in [getattr(m, "error_message", None) for m in context.messages]
    assert context.thinking_level == "medium"
    state = replay_system_messages(context.messages)
    assert state is not None
    assert list(state.sections) == ["preamble", "tools", "cwd", "extra"] and list(state.tools) == ["read"]
    assert "A section added later." in state.prompt
    call = context.messages[2]
    assert isinstance(call, AssistantMessage) and call.to_json_dict()["responseModel"] == "fake-model-2026"
    projection = manager.build_session_projection()
    assert [p.edited for p in projection if p.entry.id in ("e0000004", "e0000006")] == [True, True]


def test_hand_written_compactions_checkpoint_and_retain_none(tmp_path: Path) -> None:
    manager = _open("handmade_compaction.jsonl", tmp_path)
    # The leaf is the branch summary, back at the first answer.
    assert [m.role for m in manager.build_session_context().messages] == [
        "system",
        "user",
        "assistant",
        "branchSummary",
    ]
    manager.branch("c000000b")
    messages = manager.build_session_context().messages
    assert [m.role for m in messages] == ["system", "compactionSummary", "user", "assistant", "user", "assistant"]
    checkpoint = messages[0]
    assert isinstance(checkpoint, SystemMessage) and [t["name"] for t in checkpoint.tools_added or []] == [
        "read",
        "write",
    ]
    state = manager.get_system_state()  # every system message on the branch, the patch in the kept range too
    assert state is not None and list(state.tools) == ["read", "write"] and "extra" in state.sections
    assert [_text(m) for m in messages[2:]] == ["second question", "second answer", "third question", "third answer"]
    manager.branch("c000000d")
    retained_none = manager.build_session_context().messages
    assert [m.role for m in retained_none] == ["compactionSummary", "user"]
    compaction = manager.get_entry("c000000c")
    assert isinstance(compaction, CompactionEntry) and compaction.retains_none
    assert isinstance(retained_none[1], UserMessage)


# The roles of the request pi 1.6.0 sent when continuing each file with `-p --session <copy> "next please"`
# (`make_fixtures.py --check`; Chat Completions roles, the new prompt last).
PI16_CONTINUES = {
    "handmade_compaction.jsonl": ["system", "user", "assistant", "user", "user"],
    "handmade_edits_usage.jsonl": [
        *("system", "user", "assistant", "tool", "assistant"),
        *("user", "assistant", "user", "assistant", "user"),
    ],
    "ts16_bash_tool.jsonl": ["system", "user", "assistant", "tool", "assistant", "user"],
    "ts16_branch_summary.jsonl": ["system", "user", "assistant", "user", "user", "assistant", "user"],
    "ts16_retry.jsonl": ["system", "user", "assistant", "user"],
    "ts16_rpc_compaction.jsonl": ["system", "user", "user", "user", "assistant", "user"],
    "ts16_simple.jsonl": ["system", "user", "assistant", "user"],
}


@pytest.mark.parametrize("name", sorted(PI16_CONTINUES))
def test_the_next_request_has_the_messages_pi_1_6_sends(name: str, tmp_path: Path) -> None:
    from pi.session.messages import convert_to_llm

    manager = _open(name, tmp_path)
    manager.append_message(user("next please"))
    wire = {"user": "user", "assistant": "assistant", "toolResult": "tool"}
    roles = ["system"] + [wire[m.role] for m in convert_to_llm(manager.build_session_context().messages)]
    assert roles == PI16_CONTINUES[name]
