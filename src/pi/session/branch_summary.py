"""Summaries of a branch the user navigates away from, so the branch they return to knows what was tried.

The abandoned part runs from the old leaf back to the point the two branches share. It is summarized
newest first within the model's window: when it does not all fit, the most recent work is what counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pi.agent.messages import AgentMessage
from pi.ai.abort import AbortSignal
from pi.ai.types import Model, ToolResultMessage
from pi.session.compaction import CompleteFn, reply_text, request_summary
from pi.session.context import entry_to_message
from pi.session.entries import BranchSummaryEntry, CompactionEntry, MessageEntry, SessionEntry
from pi.session.file_ops import (
    FileOperations,
    add_details,
    compute_file_lists,
    extract_file_ops,
    file_lists_details,
    format_file_operations,
)
from pi.session.manager import SessionManager
from pi.session.messages import convert_to_llm
from pi.session.serialize import serialize_conversation
from pi.session.summary_prompts import BRANCH_SUMMARY_PREAMBLE, BRANCH_SUMMARY_PROMPT
from pi.session.tokens import estimate_tokens

BRANCH_SUMMARY_MAX_TOKENS = 2048
DEFAULT_BRANCH_RESERVE_TOKENS = 16384


@dataclass(slots=True)
class BranchEntries:
    entries: list[SessionEntry]
    """The abandoned entries, oldest first."""
    common_ancestor_id: str | None


@dataclass(slots=True)
class BranchPreparation:
    messages: list[AgentMessage]
    file_ops: FileOperations
    total_tokens: int


@dataclass(slots=True)
class BranchSummaryResult:
    summary: str | None = None
    read_files: list[str] = field(default_factory=list)
    modified_files: list[str] = field(default_factory=list)
    aborted: bool = False
    error: str | None = None

    @property
    def details(self) -> dict[str, Any]:
        """What to store with the `branch_summary` entry."""
        return file_lists_details(self.read_files, self.modified_files)


def collect_entries_for_branch_summary(
    session: SessionManager, old_leaf_id: str | None, target_id: str | None
) -> BranchEntries:
    """Entries from `old_leaf_id` back to the entry it shares with `target_id`'s branch.

    The walk also stops after a compaction: its summary already stands for everything before it.
    """
    if old_leaf_id is None:
        return BranchEntries([], None)
    on_old_path = {e.id for e in session.get_branch(old_leaf_id)}
    target_path = session.get_branch(target_id) if target_id is not None else []
    common = next((e.id for e in reversed(target_path) if e.id in on_old_path), None)
    collected: list[SessionEntry] = []
    current = session.get_entry(old_leaf_id)
    while current is not None and current.id != common:
        collected.append(current)
        if isinstance(current, CompactionEntry) or current.parent_id is None:
            break
        current = session.get_entry(current.parent_id)
    collected.reverse()
    return BranchEntries(collected, common)


def _branch_message(entry: SessionEntry) -> AgentMessage | None:
    """Tool results are left out: the calls that produced them say enough about the branch."""
    if isinstance(entry, MessageEntry) and entry.role == "toolResult":
        return None
    message = entry_to_message(entry)
    return None if isinstance(message, ToolResultMessage) else message


def prepare_branch_entries(entries: Sequence[SessionEntry], token_budget: int = 0) -> BranchPreparation:
    """The messages to summarize, newest kept first when `token_budget` (if > 0) runs out."""
    file_ops = FileOperations()
    for entry in entries:
        # Earlier summaries on the branch (a compaction ends the walk) know the files of what they replaced.
        if isinstance(entry, BranchSummaryEntry | CompactionEntry) and not entry.from_hook:
            add_details(entry.details, file_ops)
    messages: list[AgentMessage] = []
    total = 0
    for entry in reversed(entries):
        message = _branch_message(entry)
        if message is None:
            continue
        tokens = estimate_tokens(message)
        if token_budget > 0 and total + tokens > token_budget:
            # A summary entry condenses a lot; squeeze it in if the budget is not nearly spent.
            if isinstance(entry, CompactionEntry | BranchSummaryEntry) and total < token_budget * 0.9:
                messages.append(message)
                extract_file_ops([message], file_ops)
                total += tokens
            break
        messages.append(message)
        extract_file_ops([message], file_ops)
        total += tokens
    messages.reverse()
    return BranchPreparation(messages, file_ops, total)


async def generate_branch_summary(
    entries: Sequence[SessionEntry],
    model: Model,
    api_key: str | None,
    complete_fn: CompleteFn,
    *,
    signal: AbortSignal | None = None,
    custom_instructions: str | None = None,
    replace_instructions: bool = False,
    reserve_tokens: int = DEFAULT_BRANCH_RESERVE_TOKENS,
) -> BranchSummaryResult:
    """Summarize an abandoned branch; failures come back in the result, not as exceptions."""
    budget = (model.context_window or 128000) - reserve_tokens
    prepared = prepare_branch_entries(entries, budget)
    if not prepared.messages:
        return BranchSummaryResult(summary="No content to summarize")
    if replace_instructions and custom_instructions:
        instructions = custom_instructions
    elif custom_instructions:
        instructions = f"{BRANCH_SUMMARY_PROMPT}\n\nAdditional focus: {custom_instructions}"
    else:
        instructions = BRANCH_SUMMARY_PROMPT
    conversation = serialize_conversation(convert_to_llm(prepared.messages))
    prompt = f"<conversation>\n{conversation}\n</conversation>\n\n{instructions}"
    try:
        reply = await request_summary(
            prompt, model, BRANCH_SUMMARY_MAX_TOKENS, api_key, complete_fn, signal, reasoning=False
        )
    except Exception as exc:
        return BranchSummaryResult(error=str(exc) or type(exc).__name__)
    if reply.stop_reason == "aborted":
        return BranchSummaryResult(aborted=True)
    if reply.stop_reason == "error":
        return BranchSummaryResult(error=reply.error_message or "Summarization failed")
    read_files, modified_files = compute_file_lists(prepared.file_ops)
    text = reply_text(reply) or "No summary generated"
    summary = BRANCH_SUMMARY_PREAMBLE + text + format_file_operations(read_files, modified_files)
    return BranchSummaryResult(summary=summary, read_files=read_files, modified_files=modified_files)


__all__ = [
    "BRANCH_SUMMARY_MAX_TOKENS",
    "BranchEntries",
    "BranchPreparation",
    "BranchSummaryResult",
    "collect_entries_for_branch_summary",
    "generate_branch_summary",
    "prepare_branch_entries",
]
