"""Files in the TypeScript pi's format: hand-written ones (fixtures/) and real ones (fixtures/ts/) load and continue."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pi.ai.types import AssistantMessage, ThinkingContent, ToolCall, ToolResultMessage, UserMessage
from pi.session import CompactionEntry, ModelRef, SessionManager
from pi.session.messages import BashExecutionMessage, BranchSummaryMessage, CompactionSummaryMessage, CustomMessage
from tests.session.builders import assistant, user

FIXTURES = Path(__file__).parent / "fixtures"
TS = FIXTURES / "ts"


def _load(name: str, tmp_path: Path) -> SessionManager:
    target = tmp_path / Path(name).name
    shutil.copy(FIXTURES / name, target)
    return SessionManager.open(target)


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_v3_tool_call_session_loads_and_continues(tmp_path: Path) -> None:
    manager = _load("v3_tool_call.jsonl", tmp_path)
    context = manager.build_session_context()
    assert [m.role for m in context.messages] == ["user", "assistant", "toolResult", "assistant"]
    call = context.messages[1]
    assert isinstance(call, AssistantMessage)
    assert isinstance(call.content[0], ThinkingContent) and call.content[0].thinking_signature == "sig-1"
    assert isinstance(call.content[1], ToolCall) and call.content[1].arguments == {"path": "src/main.ts"}
    assert context.thinking_level == "medium"
    assert context.model == ModelRef("anthropic", "claude-sonnet-4-5")
    file = manager.get_session_file()
    assert file is not None
    before = file.read_text()
    manager.append_message(user("thanks"))
    assert file.read_text().startswith(before)
    last = _lines(file)[-1]
    assert last["parentId"] == "f6a7b8c9"
    assert len(SessionManager.open(file).build_session_context().messages) == 5


def test_branched_session_follows_the_last_branch(tmp_path: Path) -> None:
    manager = _load("v3_branched.jsonl", tmp_path)
    assert manager.get_session_name() == "Sorting"
    assert manager.get_label("10000004") == "quicksort"
    context = manager.build_session_context()
    assert [m.role for m in context.messages] == ["user", "assistant", "branchSummary", "user", "assistant"]
    assert isinstance(context.messages[2], BranchSummaryMessage)
    manager.branch("10000004")
    assert [getattr(m, "content", None) for m in manager.build_session_context().messages][-2] == "Quicksort"
    assert [e.id for e in manager.get_children("10000002")] == ["10000003", "10000005"]


def test_compacted_session_builds_summary_then_kept_entries(tmp_path: Path) -> None:
    context = _load("v3_compaction.jsonl", tmp_path).build_session_context()
    assert isinstance(context.messages[0], CompactionSummaryMessage)
    assert [getattr(m, "content", None) for m in context.messages[1:] if isinstance(m, UserMessage)] == [
        "Now add a test",
        "Run the tests",
    ]
    assert len(context.messages) == 5


def test_v1_file_is_migrated_to_v3_on_load(tmp_path: Path) -> None:
    manager = _load("v1_linear.jsonl", tmp_path)
    file = manager.get_session_file()
    assert file is not None
    lines = _lines(file)
    assert lines[0]["version"] == 3 and lines[0]["provider"] == "anthropic"
    ids = [line["id"] for line in lines[1:]]
    assert all(isinstance(i, str) and len(i) == 8 for i in ids)
    assert [line["parentId"] for line in lines[1:]] == [None, *ids[:-1]]
    compaction = manager.get_entries()[5]
    assert isinstance(compaction, CompactionEntry)
    assert compaction.first_kept_entry_id == ids[3] and "firstKeptEntryIndex" not in lines[6]
    context = manager.build_session_context()
    assert context.thinking_level == "high"
    assert [getattr(m, "content", None) for m in context.messages if isinstance(m, UserMessage)] == [
        "Tell me a joke",
        "Another",
    ]
    manager.append_message(assistant("a reply"))
    assert _lines(file)[-1]["parentId"] == ids[-1]


def test_v2_hook_messages_become_custom(tmp_path: Path) -> None:
    manager = _load("v2_hook_message.jsonl", tmp_path)
    messages = manager.build_session_context().messages
    assert isinstance(messages[1], CustomMessage) and messages[1].custom_type == "reminder"
    file = manager.get_session_file()
    assert file is not None
    assert _lines(file)[2]["message"]["role"] == "custom"  # type: ignore[index]


@pytest.mark.parametrize("name", sorted(p.name for p in TS.glob("ts_*.jsonl")))
def test_real_pi_files_load_without_warnings_and_rewrite_identically(name: str, tmp_path: Path) -> None:
    manager = _load(f"ts/{name}", tmp_path)
    assert manager.warnings == []
    original = _lines(TS / name)
    assert [e.to_dict() for e in manager.get_entries()] == original[1:]
    assert manager.get_header().to_dict() == original[0]
    context = manager.build_session_context()
    assert context.messages and context.model is not None
    count = len(context.messages)
    manager.append_message(user("one more"))
    assert len(SessionManager.open(tmp_path / name).build_session_context().messages) == count + 1


def test_real_pi_rpc_session_has_compaction_bash_and_name(tmp_path: Path) -> None:
    manager = _load("ts/ts_rpc_entries.jsonl", tmp_path)
    context = manager.build_session_context()
    assert isinstance(context.messages[0], CompactionSummaryMessage)
    assert any(isinstance(m, BashExecutionMessage) for m in context.messages)
    assert context.model == ModelRef("fake", "fake-model")
    assert context.thinking_level == "off"
    assert manager.get_session_name() == "fixture session"


def test_real_pi_extension_session_has_two_branches(tmp_path: Path) -> None:
    manager = _load("ts/ts_extension_entries.jsonl", tmp_path)
    context = manager.build_session_context()
    assert [m.role for m in context.messages] == ["user", "assistant", "branchSummary", "user", "assistant"]
    roots = manager.get_tree()
    assert len(roots) == 1
    assert manager.get_label("e2c23421") == "checkpoint"
    manager.branch("db0b1860")
    roles = [m.role for m in manager.build_session_context().messages]
    assert roles == ["user", "assistant", "user", "assistant", "custom"]
    assert not any(isinstance(m, ToolResultMessage) for m in context.messages)
