"""Compaction: replacing the older part of a branch with a summary when the context fills up.

`prepare_compaction` decides, from the branch alone, what is summarized and what is kept; `compact`
asks a model for the summary through a `complete` function the caller passes in (the application
chooses the model, the key and how the request is made). Both look at the branch as the model sees
it: context edits applied, omitted entries left out. Nothing here writes to the session: the caller
appends the result with `SessionManager.append_compaction`, after any extension has had its say.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from msgspec import Struct, field

from pi.agent.messages import AgentMessage
from pi.ai.abort import AbortSignal
from pi.ai.types import Model, Usage
from pi.session.context import context_entries_of_path, latest_compaction_index, latest_edits, project_entries
from pi.session.cut_point import ContextItem, CutPoint, context_items, find_cut_point
from pi.session.entries import CompactionEntry, SessionEntry
from pi.session.file_ops import (
    FileOperations,
    add_details,
    compute_file_lists,
    extract_file_ops,
    file_lists_details,
    format_file_operations,
)
from pi.session.messages import CompactionSummaryMessage, convert_to_llm
from pi.session.serialize import serialize_conversation
from pi.session.summarize import (
    CompactionCancelledError,
    CompactionError,
    CompleteFn,
    NoSummaryModelError,
    SummaryRequest,
    SummaryRetry,
    add_usage,
    reply_text,
    request_summary,
)
from pi.session.summary_prompts import (
    SUMMARIZATION_PROMPT,
    TURN_PREFIX_HEADER,
    TURN_PREFIX_INSTRUCTIONS_HEADER,
    TURN_PREFIX_SUMMARIZATION_PROMPT,
    UPDATE_SUMMARIZATION_PROMPT,
)
from pi.session.tokens import CompactionSettingsLike, estimate_context_tokens, estimate_tokens

NOTHING_TO_COMPACT = "Nothing to compact (session too small)"
ALREADY_COMPACTED = "Already compacted"


class NothingToCompactError(CompactionError):
    """There is nothing to summarize: the message says why (``Nothing to compact …`` / ``Already compacted``)."""


class CompactionPreparation(Struct):
    first_kept_entry_id: str
    messages_to_summarize: list[AgentMessage]
    turn_prefix_messages: list[AgentMessage]
    """The start of a turn the cut falls inside, summarized on its own."""
    is_split_turn: bool
    tokens_before: int
    previous_summary: str | None
    file_ops: FileOperations
    settings: CompactionSettingsLike
    kept_messages: list[AgentMessage] = field(default_factory=list)
    """What stays word for word after the summary (for the estimate of the context afterwards)."""


class CompactionResult(Struct):
    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: dict[str, Any] = field(default_factory=dict)
    """``{"readFiles": [...], "modifiedFiles": [...]}``, stored with the entry for the next compaction."""
    usage: Usage | None = None
    """Of the summary call(s); store it with the entry (`append_compaction(usage=...)`)."""
    estimated_tokens_after: int = 0
    """Estimate of the context after compaction: the summary plus the kept messages."""


class BranchView(Struct):
    """The part of a branch a compaction works on, as the model sees it."""

    path: list[SessionEntry]
    items: list[ContextItem]
    start: int
    previous: CompactionEntry | None
    tokens_before: int


def branch_view(path_entries: Sequence[SessionEntry]) -> BranchView | None:
    path = list(path_entries)
    if not path or isinstance(path[-1], CompactionEntry):
        return None
    previous_index = latest_compaction_index(path)
    previous = path[previous_index] if previous_index >= 0 else None
    assert previous is None or isinstance(previous, CompactionEntry)
    # What the previous compaction kept is in the context word for word, not in its summary: it is
    # summarized (or kept) again now, or it would drop out of the context altogether.
    start = 0
    if previous is not None:
        start = next(
            (i for i in range(previous_index) if path[i].id == previous.first_kept_entry_id),
            previous_index + 1,
        )
    edits = latest_edits(path)
    projection = project_entries(context_entries_of_path(path), edits)
    tokens_before = estimate_context_tokens([p.message for p in projection]).tokens
    return BranchView(path, context_items(path, edits), start, previous, tokens_before)


def _messages(items: Sequence[ContextItem]) -> list[AgentMessage]:
    return [item.message for item in items if item.message is not None]


def preparation_at(branch: BranchView, cut: CutPoint, settings: CompactionSettingsLike) -> CompactionPreparation | None:
    """The preparation for cutting `branch` at `cut`, or None when nothing would be summarized."""
    items, start = branch.items, branch.start
    first_kept = items[cut.first_kept_entry_index].entry
    if not first_kept.id:
        return None
    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_entry_index
    to_summarize = _messages(items[start:history_end])
    turn_prefix = _messages(items[cut.turn_start_index : cut.first_kept_entry_index]) if cut.is_split_turn else []
    if not to_summarize and not turn_prefix:
        return None
    previous_summary: str | None = None
    file_ops = FileOperations()
    if branch.previous is not None:
        previous_summary = branch.previous.summary
        if not branch.previous.from_hook:
            add_details(branch.previous.details, file_ops)
    extract_file_ops(to_summarize, file_ops)
    extract_file_ops(turn_prefix, file_ops)
    return CompactionPreparation(
        first_kept_entry_id=first_kept.id,
        messages_to_summarize=to_summarize,
        turn_prefix_messages=turn_prefix,
        is_split_turn=cut.is_split_turn,
        tokens_before=branch.tokens_before,
        previous_summary=previous_summary,
        file_ops=file_ops,
        settings=settings,
        kept_messages=_messages(items[cut.first_kept_entry_index :]),
    )


def prepare_compaction(
    path_entries: Sequence[SessionEntry], settings: CompactionSettingsLike
) -> CompactionPreparation | None:
    """What to summarize on this branch (root first), or None when there is nothing to summarize."""
    branch = branch_view(path_entries)
    if branch is None:
        return None
    cut = find_cut_point(branch.items, branch.start, len(branch.items), settings.keep_recent_tokens)
    return preparation_at(branch, cut, settings)


def require_compaction(path_entries: Sequence[SessionEntry], settings: CompactionSettingsLike) -> CompactionPreparation:
    """`prepare_compaction`, raising NothingToCompactError (``Already compacted`` / ``Nothing to compact …``)."""
    at = latest_compaction_index(path_entries)
    if at >= 0 and not any(item.message for item in context_items(path_entries[at + 1 :])):
        raise NothingToCompactError(ALREADY_COMPACTED)
    preparation = prepare_compaction(path_entries, settings)
    if preparation is None:
        raise NothingToCompactError(NOTHING_TO_COMPACT)
    return preparation


def summary_prompt(
    messages: Sequence[AgentMessage], custom_instructions: str | None = None, previous_summary: str | None = None
) -> str:
    """The user text of a history summary request."""
    instructions = UPDATE_SUMMARIZATION_PROMPT if previous_summary else SUMMARIZATION_PROMPT
    if custom_instructions:
        instructions = f"{instructions}\n\nAdditional focus: {custom_instructions}"
    prompt = f"<conversation>\n{serialize_conversation(convert_to_llm(messages))}\n</conversation>\n\n"
    if previous_summary:
        prompt += f"<previous-summary>\n{previous_summary}\n</previous-summary>\n\n"
    return prompt + instructions


def turn_prefix_prompt(messages: Sequence[AgentMessage], custom_instructions: str | None = None) -> str:
    """The user text of a split turn's prefix summary request."""
    prompt = (
        f"{TURN_PREFIX_HEADER}{serialize_conversation(convert_to_llm(messages))}"
        f"{TURN_PREFIX_INSTRUCTIONS_HEADER}{TURN_PREFIX_SUMMARIZATION_PROMPT}"
    )
    if custom_instructions:
        prompt += f"\n\nAdditional focus: {custom_instructions}"
    return prompt


async def compact(
    preparation: CompactionPreparation,
    model: Model | None,
    api_key: str | None,
    complete_fn: CompleteFn,
    custom_instructions: str | None = None,
    signal: AbortSignal | None = None,
    *,
    thinking_level: str | None = None,
    retry: SummaryRetry | None = None,
    session_id: str | None = None,
) -> CompactionResult:
    """Summarize what `preparation` selected. Raises CompactionError (``Summarization failed: …``).

    `thinking_level` is the session's (reasoning follows it); `retry` the ``retry`` settings and the
    hooks for ``summarization_retry_*`` events. A split turn's two requests are sent one after the other.
    """
    if model is None:
        raise NoSummaryModelError()
    request = SummaryRequest(model, complete_fn, api_key, thinking_level, signal, session_id, retry)
    usage: Usage | None = None
    history: str | None = None
    if preparation.messages_to_summarize or not preparation.is_split_turn:
        reply = await request_summary(
            request,
            summary_prompt(preparation.messages_to_summarize, custom_instructions, preparation.previous_summary),
            "Summarization failed",
            "Summarization attempted to call a tool",
        )
        history, usage = reply.text, reply.usage
    if preparation.is_split_turn and preparation.turn_prefix_messages:
        prefix = await request_summary(
            request,
            turn_prefix_prompt(preparation.turn_prefix_messages, custom_instructions),
            "Turn prefix summarization failed",
            "Turn prefix summarization attempted to call a tool",
        )
        usage = add_usage(usage, prefix.usage)
        # The turn may begin right where the previous compaction cut: its summary is then the history.
        base = history or preparation.previous_summary or "No prior history."
        summary = f"{base}\n\n---\n\n**Turn Context (split turn):**\n\n{prefix.text}"
    else:
        summary = history or ""
    if signal is not None and signal.aborted:
        raise CompactionCancelledError()
    read_files, modified_files = compute_file_lists(preparation.file_ops)
    summary += format_file_operations(read_files, modified_files)
    after = estimate_tokens(CompactionSummaryMessage(summary=summary, tokens_before=preparation.tokens_before))
    after += sum(estimate_tokens(m) for m in preparation.kept_messages)
    return CompactionResult(
        summary=summary,
        first_kept_entry_id=preparation.first_kept_entry_id,
        tokens_before=preparation.tokens_before,
        details=file_lists_details(read_files, modified_files),
        usage=usage,
        estimated_tokens_after=after,
    )


__all__ = [
    "ALREADY_COMPACTED",
    "NOTHING_TO_COMPACT",
    "BranchView",
    "CompactionCancelledError",
    "CompactionError",
    "CompactionPreparation",
    "CompactionResult",
    "CompleteFn",
    "NoSummaryModelError",
    "NothingToCompactError",
    "SummaryRetry",
    "branch_view",
    "compact",
    "preparation_at",
    "prepare_compaction",
    "reply_text",
    "require_compaction",
    "summary_prompt",
    "turn_prefix_prompt",
]
