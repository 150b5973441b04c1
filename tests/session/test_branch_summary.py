"""Branch summaries: which entries were abandoned, and the summary stored for them."""

from __future__ import annotations

from pi.ai.types import Model
from pi.session import SessionManager, collect_entries_for_branch_summary, generate_branch_summary
from pi.session.branch_summary import prepare_branch_entries
from pi.session.summarize import output_budget
from pi.session.summary_prompts import SUMMARIZATION_SYSTEM_PROMPT
from tests.session.builders import assistant, call, result, user
from tests.session.test_compaction import FakeComplete, _prompt

MODEL = Model(id="sum-1", name="Summarizer", api="faux", provider="prov", base_url="http://x", context_window=20000)


def _session() -> tuple[SessionManager, str, str]:
    manager = SessionManager.in_memory("/p")
    manager.append_message(user("start"))
    fork = manager.append_message(assistant("choose"))
    manager.append_message(user("try A"))
    manager.append_message(assistant("", calls=[call("edit", path="a.py")]))
    manager.append_message(result("edited", tool_name="edit"))
    manager.append_custom_message_entry("note", "an extension note", True)
    old_leaf = manager.append_message(assistant("A done"))
    return manager, fork, old_leaf


def test_collects_entries_from_the_old_leaf_back_to_the_common_ancestor() -> None:
    manager, fork, old_leaf = _session()
    collected = collect_entries_for_branch_summary(manager, old_leaf, fork)
    assert collected.common_ancestor_id == fork
    assert len(collected.entries) == 5 and collected.entries[-1].id == old_leaf
    assert collect_entries_for_branch_summary(manager, None, fork).entries == []


def test_prepare_skips_tool_results_and_honours_the_budget() -> None:
    manager, fork, old_leaf = _session()
    entries = collect_entries_for_branch_summary(manager, old_leaf, fork).entries
    prepared = prepare_branch_entries(entries)
    assert [m.role for m in prepared.messages] == ["user", "assistant", "custom", "assistant"]
    assert prepared.file_ops.edited == {"a.py"}
    newest_only = prepare_branch_entries(entries, token_budget=7)
    assert [m.role for m in newest_only.messages] == ["custom", "assistant"]


async def test_summary_has_the_fixed_preamble_and_file_lists() -> None:
    manager, fork, old_leaf = _session()
    entries = collect_entries_for_branch_summary(manager, old_leaf, fork).entries
    fake = FakeComplete(text="## Goal\nTry A")
    outcome = await generate_branch_summary(entries, MODEL, "k", fake, custom_instructions="be short")
    assert outcome.summary is not None
    assert outcome.summary.startswith(
        "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n"
        "## Goal\nTry A #1"
    )
    assert outcome.summary.endswith("<modified-files>\na.py\n</modified-files>")
    assert outcome.details == {"readFiles": [], "modifiedFiles": ["a.py"]}
    context, options = fake.requests[0]
    prompt = _prompt(context)
    assert options.max_tokens == output_budget(MODEL, SUMMARIZATION_SYSTEM_PROMPT, prompt) > 2048
    assert context.tools is None and outcome.usage is not None
    assert "[User]: an extension note" in prompt and "Create a structured summary of this conversation branch" in prompt
    assert prompt.endswith("Additional focus: be short")
    manager.branch_with_summary(fork, outcome.summary, outcome.details)
    assert [m.role for m in manager.build_session_context().messages] == ["user", "assistant", "branchSummary"]


async def test_failures_are_reported_in_the_result() -> None:
    manager, fork, old_leaf = _session()
    entries = collect_entries_for_branch_summary(manager, old_leaf, fork).entries
    failed = await generate_branch_summary(entries, MODEL, None, FakeComplete(stop_reason="error", error="boom"))
    assert failed.error == "Summarization failed: boom" and failed.summary is None
    aborted = await generate_branch_summary(entries, MODEL, None, FakeComplete(stop_reason="aborted"))
    assert aborted.aborted
    replaced = FakeComplete()
    await generate_branch_summary(
        entries, MODEL, None, replaced, custom_instructions="ONLY THIS", replace_instructions=True
    )
    assert _prompt(replaced.requests[0][0]).endswith("</conversation>\n\nONLY THIS")
    empty = await generate_branch_summary([], MODEL, None, FakeComplete())
    assert empty.summary == "No content to summarize"


def test_file_lists_of_a_compaction_on_the_abandoned_branch_are_carried_over() -> None:
    # The walk stops at a compaction: the files read and changed before it are known only from its details.
    manager = SessionManager.in_memory("/p")
    fork = manager.append_message(user("start"))
    manager.append_message(user("try B"))
    manager.append_message(assistant("", calls=[call("read", path="early.py")]))
    kept = manager.append_message(user("continue"))
    manager.append_compaction("S", kept, 10, {"readFiles": ["early.py"], "modifiedFiles": ["changed.py"]})
    manager.append_message(assistant("", calls=[call("read", "c2", path="late.py")]))
    old_leaf = manager.append_message(assistant("B done"))
    entries = collect_entries_for_branch_summary(manager, old_leaf, fork).entries
    prepared = prepare_branch_entries(entries)
    assert prepared.file_ops.read == {"early.py", "late.py"} and prepared.file_ops.edited == {"changed.py"}
