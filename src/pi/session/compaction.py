"""Compaction: replacing the older part of a branch with a summary when the context fills up.

`prepare_compaction` decides, from the branch alone, what is summarized and what is kept; `compact`
asks a model for the summary through a `complete` function the caller passes in (the application
chooses the model, the key and how the request is made). Nothing here writes to the session: the
caller appends the result with `SessionManager.append_compaction`, after any extension has had its say.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pi.agent.messages import AgentMessage
from pi.ai.abort import AbortSignal
from pi.ai.options import StreamOptions
from pi.ai.types import AssistantMessage, Context, Model, TextContent, UserMessage
from pi.session.context import LATEST, build_session_context, entry_to_message
from pi.session.cut_point import find_cut_point
from pi.session.entries import CompactionEntry, SessionEntry
from pi.session.file_ops import (
    FileOperations,
    add_details,
    compute_file_lists,
    extract_file_ops,
    file_lists_details,
    format_file_operations,
)
from pi.session.messages import convert_to_llm
from pi.session.serialize import serialize_conversation
from pi.session.summary_prompts import (
    SUMMARIZATION_PROMPT,
    SUMMARIZATION_SYSTEM_PROMPT,
    TURN_PREFIX_SUMMARIZATION_PROMPT,
    UPDATE_SUMMARIZATION_PROMPT,
)
from pi.session.tokens import CompactionSettingsLike, estimate_context_tokens


class CompleteFn(Protocol):
    """Sends one request and returns the finished reply; `pi.ai.complete_simple` fits."""

    def __call__(self, model: Model, context: Context, options: StreamOptions, /) -> Awaitable[AssistantMessage]: ...


class CompactionError(Exception):
    """The summary could not be produced; the message is what the user sees."""


class CompactionCancelledError(CompactionError):
    def __init__(self) -> None:
        super().__init__("Compaction cancelled")


@dataclass(slots=True)
class CompactionPreparation:
    first_kept_entry_id: str
    messages_to_summarize: list[AgentMessage]
    turn_prefix_messages: list[AgentMessage]
    """The start of a turn the cut falls inside, summarized on its own."""
    is_split_turn: bool
    tokens_before: int
    previous_summary: str | None
    file_ops: FileOperations
    settings: CompactionSettingsLike


@dataclass(slots=True)
class CompactionResult:
    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: dict[str, Any] = field(default_factory=dict)
    """``{"readFiles": [...], "modifiedFiles": [...]}``, stored with the entry for the next compaction."""


def _messages(entries: Sequence[SessionEntry]) -> list[AgentMessage]:
    out = []
    for entry in entries:
        if isinstance(entry, CompactionEntry):
            continue
        message = entry_to_message(entry)
        if message is not None:
            out.append(message)
    return out


def prepare_compaction(
    path_entries: Sequence[SessionEntry], settings: CompactionSettingsLike
) -> CompactionPreparation | None:
    """What to summarize on this branch (root first), or None when there is nothing to summarize."""
    if not path_entries or isinstance(path_entries[-1], CompactionEntry):
        return None
    previous_index = next(
        (i for i in range(len(path_entries) - 1, -1, -1) if isinstance(path_entries[i], CompactionEntry)), -1
    )
    previous = path_entries[previous_index] if previous_index >= 0 else None
    assert previous is None or isinstance(previous, CompactionEntry)
    # What the previous compaction kept is in the context word for word, not in its summary: it is
    # summarized (or kept) again now, or it would drop out of the context altogether.
    start = 0
    if previous is not None:
        start = next(
            (i for i in range(previous_index) if path_entries[i].id == previous.first_kept_entry_id),
            previous_index + 1,
        )
    end = len(path_entries)
    context_messages = build_session_context(path_entries, path_entries[-1].id or LATEST).messages
    tokens_before = estimate_context_tokens(context_messages).tokens

    cut = find_cut_point(path_entries, start, end, settings.keep_recent_tokens)
    first_kept = path_entries[cut.first_kept_entry_index]
    if not first_kept.id:
        return None
    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_entry_index
    to_summarize = _messages(path_entries[start:history_end])
    turn_prefix = (
        _messages(path_entries[cut.turn_start_index : cut.first_kept_entry_index]) if cut.is_split_turn else []
    )
    if not to_summarize and not turn_prefix:
        return None

    previous_summary: str | None = None
    file_ops = FileOperations()
    if previous is not None:
        previous_summary = previous.summary
        if not previous.from_hook:
            add_details(previous.details, file_ops)
    extract_file_ops(to_summarize, file_ops)
    extract_file_ops(turn_prefix, file_ops)
    return CompactionPreparation(
        first_kept_entry_id=first_kept.id,
        messages_to_summarize=to_summarize,
        turn_prefix_messages=turn_prefix,
        is_split_turn=cut.is_split_turn,
        tokens_before=tokens_before,
        previous_summary=previous_summary,
        file_ops=file_ops,
        settings=settings,
    )


async def request_summary(
    prompt: str,
    model: Model,
    max_tokens: int,
    api_key: str | None,
    complete_fn: CompleteFn,
    signal: AbortSignal | None,
    *,
    reasoning: bool = True,
) -> AssistantMessage:
    """One summarization request; the reply comes back whatever its stop reason."""
    context = Context(
        system_prompt=SUMMARIZATION_SYSTEM_PROMPT,
        messages=[UserMessage(content=[TextContent(text=prompt)])],
    )
    options = StreamOptions(
        max_tokens=max_tokens,
        signal=signal,
        api_key=api_key,
        reasoning="high" if reasoning and model.reasoning else None,
    )
    return await complete_fn(model, context, options)


def _max_tokens(model: Model, share_of_reserve: float) -> int:
    """A share of the reserve, but never more than the model can write (a provider rejects such a request)."""
    limit = math.floor(share_of_reserve)
    return min(limit, model.max_tokens) if model.max_tokens > 0 else limit


def reply_text(reply: AssistantMessage) -> str:
    return "\n".join(b.text for b in reply.content if isinstance(b, TextContent))


async def _summarize(
    prompt: str,
    model: Model,
    max_tokens: int,
    api_key: str | None,
    complete_fn: CompleteFn,
    signal: AbortSignal | None,
    failure: str,
) -> str:
    try:
        reply = await request_summary(prompt, model, max_tokens, api_key, complete_fn, signal)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        raise CompactionError(f"{failure}: {exc}") from exc
    if reply.stop_reason == "aborted" or (signal is not None and signal.aborted):
        raise CompactionCancelledError()
    if reply.stop_reason == "error":
        raise CompactionError(f"{failure}: {reply.error_message or 'Unknown error'}")
    return reply_text(reply)


async def generate_summary(
    messages: Sequence[AgentMessage],
    model: Model,
    reserve_tokens: int,
    api_key: str | None,
    complete_fn: CompleteFn,
    signal: AbortSignal | None = None,
    custom_instructions: str | None = None,
    previous_summary: str | None = None,
) -> str:
    """A summary of `messages`, merged into `previous_summary` when there is one."""
    instructions = UPDATE_SUMMARIZATION_PROMPT if previous_summary else SUMMARIZATION_PROMPT
    if custom_instructions:
        instructions = f"{instructions}\n\nAdditional focus: {custom_instructions}"
    prompt = f"<conversation>\n{serialize_conversation(convert_to_llm(messages))}\n</conversation>\n\n"
    if previous_summary:
        prompt += f"<previous-summary>\n{previous_summary}\n</previous-summary>\n\n"
    prompt += instructions
    return await _summarize(
        prompt, model, _max_tokens(model, 0.8 * reserve_tokens), api_key, complete_fn, signal, "Summarization failed"
    )


async def generate_turn_prefix_summary(
    messages: Sequence[AgentMessage],
    model: Model,
    reserve_tokens: int,
    api_key: str | None,
    complete_fn: CompleteFn,
    signal: AbortSignal | None = None,
) -> str:
    prompt = (
        f"<conversation>\n{serialize_conversation(convert_to_llm(messages))}\n</conversation>\n\n"
        f"{TURN_PREFIX_SUMMARIZATION_PROMPT}"
    )
    return await _summarize(
        prompt,
        model,
        _max_tokens(model, 0.5 * reserve_tokens),
        api_key,
        complete_fn,
        signal,
        "Turn prefix summarization failed",
    )


async def compact(
    preparation: CompactionPreparation,
    model: Model,
    api_key: str | None,
    complete_fn: CompleteFn,
    custom_instructions: str | None = None,
    signal: AbortSignal | None = None,
) -> CompactionResult:
    """Summarize what `preparation` selected. Raises CompactionError (``Summarization failed: …``)."""
    reserve = preparation.settings.reserve_tokens
    if preparation.is_split_turn and preparation.turn_prefix_messages:

        async def history() -> str:
            if not preparation.messages_to_summarize:
                # The turn began right where the previous compaction cut: its summary is the history.
                return preparation.previous_summary or "No prior history."
            return await generate_summary(
                preparation.messages_to_summarize,
                model,
                reserve,
                api_key,
                complete_fn,
                signal,
                custom_instructions,
                preparation.previous_summary,
            )

        history_summary, prefix_summary = await asyncio.gather(
            history(),
            generate_turn_prefix_summary(
                preparation.turn_prefix_messages, model, reserve, api_key, complete_fn, signal
            ),
        )
        summary = f"{history_summary}\n\n---\n\n**Turn Context (split turn):**\n\n{prefix_summary}"
    else:
        summary = await generate_summary(
            preparation.messages_to_summarize,
            model,
            reserve,
            api_key,
            complete_fn,
            signal,
            custom_instructions,
            preparation.previous_summary,
        )
    read_files, modified_files = compute_file_lists(preparation.file_ops)
    summary += format_file_operations(read_files, modified_files)
    return CompactionResult(
        summary=summary,
        first_kept_entry_id=preparation.first_kept_entry_id,
        tokens_before=preparation.tokens_before,
        details=file_lists_details(read_files, modified_files),
    )


__all__ = [
    "CompactionCancelledError",
    "CompactionError",
    "CompactionPreparation",
    "CompactionResult",
    "CompleteFn",
    "compact",
    "generate_summary",
    "generate_turn_prefix_summary",
    "prepare_compaction",
    "reply_text",
    "request_summary",
]
