"""Summaries of a branch the user navigates away from, so the branch they return to knows what was tried.

The abandoned part runs from the old leaf back to the point the two branches share. It is summarized
newest first within the model's window: when it does not all fit, the most recent work is what counts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from msgspec import Struct, field

from pi.agent.messages import AgentMessage
from pi.ai.abort import AbortSignal
from pi.ai.types import AssistantMessage, Model, ToolResultMessage, Usage
from pi.session.context import edited_message, entry_to_message, is_system_entry, latest_edits
from pi.session.entries import BranchSummaryEntry, CompactionEntry, ContextEditEntry, MessageEntry, SessionEntry
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
from pi.session.summarize import (
    CompactionCancelledError,
    CompactionError,
    CompleteFn,
    SummaryRequest,
    SummaryRetry,
    request_summary,
)
from pi.session.summary_prompts import BRANCH_SUMMARY_PREAMBLE, BRANCH_SUMMARY_PROMPT
from pi.session.tokens import estimate_tokens

DEFAULT_BRANCH_RESERVE_TOKENS = 16384
"""``branchSummary.reserveTokens``: the collected input is limited to the window minus this."""


class BranchEntries(Struct):
    entries: list[SessionEntry]
    """The abandoned entries, oldest first."""
    common_ancestor_id: str | None
    edits: dict[str, ContextEditEntry] = field(default_factory=dict)
    """The latest context edit of each entry on the abandoned branch (applied when summarizing)."""


class BranchPreparation(Struct):
    messages: list[AgentMessage]
    file_ops: FileOperations
    total_tokens: int


class BranchSummaryResult(Struct):
    summary: str | None = None
    read_files: list[str] = field(default_factory=list)
    modified_files: list[str] = field(default_factory=list)
    aborted: bool = False
    error: str | None = None
    usage: Usage | None = None
    """Of the summary call; store it with the entry (`branch_with_summary(usage=...)`)."""

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
    old_path = session.get_branch(old_leaf_id)
    on_old_path = {e.id for e in old_path}
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
    return BranchEntries(collected, common, latest_edits(old_path))


def _branch_message(entry: SessionEntry, edits: Mapping[str, ContextEditEntry] | None) -> AgentMessage | None:
    """What the branch said, as the model last saw it.

    Tool results are left out (the calls that produced them say enough), as are replies that failed
    (an error or an abort says nothing about the work) and entries a context edit omitted.
    """
    if (isinstance(entry, MessageEntry) and entry.role == "toolResult") or is_system_entry(entry):
        return None
    edit = edits.get(entry.id) if edits else None
    message: AgentMessage | None
    if edit is not None:
        if edit.replacement is None:
            return None
        message = edited_message(entry, edit.replacement) or entry_to_message(entry)
    else:
        message = entry_to_message(entry)
    if isinstance(message, AssistantMessage) and message.stop_reason in ("error", "aborted"):
        return None
    return None if isinstance(message, ToolResultMessage) else message


def prepare_branch_entries(
    entries: Sequence[SessionEntry], token_budget: int = 0, edits: Mapping[str, ContextEditEntry] | None = None
) -> BranchPreparation:
    """The messages to summarize, newest kept first when `token_budget` (if > 0) runs out."""
    file_ops = FileOperations()
    for entry in entries:
        # Earlier summaries on the branch (a compaction ends the walk) know the files of what they replaced.
        if isinstance(entry, BranchSummaryEntry | CompactionEntry) and not entry.from_hook:
            add_details(entry.details, file_ops)
    messages: list[AgentMessage] = []
    total = 0
    for entry in reversed(entries):
        message = _branch_message(entry, edits)
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
    model: Model | None,
    api_key: str | None,
    complete_fn: CompleteFn,
    *,
    signal: AbortSignal | None = None,
    custom_instructions: str | None = None,
    replace_instructions: bool = False,
    reserve_tokens: int = DEFAULT_BRANCH_RESERVE_TOKENS,
    thinking_level: str | None = None,
    retry: SummaryRetry | None = None,
    edits: Mapping[str, ContextEditEntry] | None = None,
) -> BranchSummaryResult:
    """Summarize an abandoned branch; failures come back in the result (``error``/``aborted``), not as exceptions.

    Pass the `edits` of `collect_entries_for_branch_summary` so that omitted and replaced content is
    summarized as the model last saw it; `thinking_level` and `retry` as for compaction.
    """
    budget = ((model.context_window if model is not None else 0) or 128000) - reserve_tokens
    prepared = prepare_branch_entries(entries, budget, edits)
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
    request = SummaryRequest(model, complete_fn, api_key, thinking_level, signal, None, retry)
    try:
        reply = await request_summary(request, prompt, "Summarization failed", "Summarization attempted to call a tool")
    except CompactionCancelledError:
        return BranchSummaryResult(aborted=True)
    except CompactionError as exc:
        return BranchSummaryResult(error=str(exc))
    read_files, modified_files = compute_file_lists(prepared.file_ops)
    text = reply.text or "No summary generated"
    summary = BRANCH_SUMMARY_PREAMBLE + text + format_file_operations(read_files, modified_files)
    return BranchSummaryResult(summary=summary, read_files=read_files, modified_files=modified_files, usage=reply.usage)


__all__ = [
    "DEFAULT_BRANCH_RESERVE_TOKENS",
    "BranchEntries",
    "BranchPreparation",
    "BranchSummaryResult",
    "collect_entries_for_branch_summary",
    "generate_branch_summary",
    "prepare_branch_entries",
]
