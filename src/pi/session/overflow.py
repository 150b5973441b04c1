"""Recovering from a context overflow when even the recent part of the conversation does not fit.

The provider's overflow error is the ground truth: the context must shrink, whatever
``keepRecentTokens`` asks for. `prepare_overflow_compaction` therefore keeps less when it has to:

1. the usual cut, if what it keeps fits in the window;
2. else the earliest later cut, down to the last user message, whose kept part fits;
3. else it cuts at the last user message (the prompt stays word for word, even where the usual
   cut would have split its turn) and shortens the largest tool results after it, each
   with a notice of what was cut and how to get it again. The shortening is applied as
   `context_edit` entries (`ToolResultShrink.replacement`), so the file keeps the full output.

Only a prompt that alone exceeds the window cannot be helped: `PromptTooLargeError` says so.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from msgspec import Struct, field

from pi.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage
from pi.session.compaction import CompactionPreparation, branch_view, preparation_at
from pi.session.cut_point import ContextItem, cut_at, find_cut_point, find_valid_cut_points, kept_tokens
from pi.session.entries import MessageEntry, SessionEntry
from pi.session.tokens import CHARS_PER_TOKEN, CompactionSettingsLike, estimate_tokens

MIN_KEPT_TOOL_CHARS = 400
"""A shortened tool result keeps at least this much of its start (when the window allows any)."""


class PromptTooLargeError(ValueError):
    """The latest prompt alone does not fit the model's context window; no compaction can fix that."""

    def __init__(self, prompt_tokens: int, available_tokens: int) -> None:
        self.prompt_tokens = prompt_tokens
        self.available_tokens = available_tokens
        super().__init__(
            f"The prompt alone is too large for the model's context window: about {prompt_tokens} tokens, "
            f"with room for {available_tokens}. Shorten the prompt or attach less, or switch to a model "
            "with a larger context window."
        )


class ToolResultShrink(Struct, frozen=True):
    """A tool result to shorten in the context: append ``context_edit(target_id, replacement)`` for it."""

    target_id: str
    tool_name: str
    original_chars: int
    kept_chars: int
    replacement: dict[str, Any]
    """``{"content": [text block]}``: the start of the output and the notice."""


class OverflowPlan(Struct):
    preparation: CompactionPreparation | None
    """What to summarize (None when nothing before the kept part is left to summarize)."""
    shrinks: list[ToolResultShrink] = field(default_factory=list)
    """Apply these before appending the compaction."""
    kept_tokens: int = 0
    """Estimated size of what stays verbatim, after the shrinks."""
    deeper_than_settings: bool = False
    """True when less than ``keepRecentTokens`` is kept to make the context fit."""


def _last_user_index(items: Sequence[ContextItem], start: int) -> int:
    for i in range(len(items) - 1, start - 1, -1):
        entry = items[i].entry
        if items[i].message is not None and isinstance(entry, MessageEntry) and entry.role == "user":
            return i
    return -1


def _call_arguments(items: Sequence[ContextItem], tool_call_id: str) -> dict[str, Any]:
    for item in items:
        if isinstance(item.message, AssistantMessage):
            for block in item.message.content:
                if isinstance(block, ToolCall) and block.id == tool_call_id:
                    return block.arguments
    return {}


def shrink_notice(tool_name: str, arguments: dict[str, Any], kept_text: str, total_chars: int) -> str:
    """What the model is told about a shortened tool result, and how it can see the rest."""
    kept = len(kept_text)
    head = f"\n\n[Output shortened to fit the context window: showing the first {kept} of {total_chars} characters."
    if tool_name == "read" and isinstance(arguments.get("path"), str):
        offset = arguments.get("offset")
        next_line = (offset if isinstance(offset, int) else 1) + kept_text.count("\n")
        return f"{head} To see the rest, read {arguments['path']} again with offset={next_line} and a limit.]"
    if tool_name == "bash":
        return f"{head} To see the rest, run the command again with its output narrowed (grep, head, tail).]"
    return f"{head} To see the rest, run the {tool_name} tool again with a narrower request.]"


def _result_text(message: ToolResultMessage) -> str:
    return "".join(b.text for b in message.content if isinstance(b, TextContent))


def _shrinks(items: Sequence[ContextItem], start: int, over_tokens: int) -> list[ToolResultShrink]:
    """Shorten the largest tool results after `start` until about `over_tokens` are saved."""
    candidates = [
        (i, item)
        for i, item in enumerate(items[start:], start)
        if isinstance(item.message, ToolResultMessage) and item.entry.id
    ]
    candidates.sort(key=lambda pair: -estimate_tokens(pair[1].message))  # type: ignore[arg-type]
    out: list[ToolResultShrink] = []
    remaining = over_tokens
    for _, item in candidates:
        if remaining <= 0:
            break
        message = item.message
        assert isinstance(message, ToolResultMessage)
        text = _result_text(message)
        total = len(text)
        keep = max(total - remaining * CHARS_PER_TOKEN - 600, MIN_KEPT_TOOL_CHARS)
        if keep >= total:
            continue
        kept_text = text[:keep]
        notice = shrink_notice(message.tool_name, _call_arguments(items, message.tool_call_id), kept_text, total)
        replacement = {"content": [{"type": "text", "text": kept_text + notice}]}
        saved = estimate_tokens(message) - math.ceil((keep + len(notice)) / CHARS_PER_TOKEN)
        remaining -= saved
        out.append(ToolResultShrink(item.entry.id, message.tool_name, total, keep, replacement))
    return out


def prepare_overflow_compaction(
    path_entries: Sequence[SessionEntry],
    settings: CompactionSettingsLike,
    context_window: int,
    overhead_tokens: int = 0,
) -> OverflowPlan:
    """How to compact after the provider reported an overflow (see the module docstring).

    `overhead_tokens` is what every request carries besides the messages (system prompt, tool
    schemas). The summary and the reply must fit too: ``settings.reserve_tokens`` stays free.
    Raises PromptTooLargeError when the last user message alone exceeds the room left.
    """
    branch = branch_view(path_entries)
    if branch is None:
        return OverflowPlan(None)
    items, start = branch.items, branch.start
    budget = max(context_window - settings.reserve_tokens - overhead_tokens, 0)
    usual = find_cut_point(items, start, len(items), settings.keep_recent_tokens)
    if kept_tokens(items, usual.first_kept_entry_index) <= budget:
        return OverflowPlan(
            preparation_at(branch, usual, settings), [], kept_tokens(items, usual.first_kept_entry_index)
        )
    last_user = _last_user_index(items, start)
    if last_user < 0:
        last_user = usual.first_kept_entry_index
    prompt = items[last_user].message
    prompt_tokens = estimate_tokens(prompt) if prompt is not None else 0
    room = max(context_window - overhead_tokens, 0)
    if prompt_tokens > room:
        raise PromptTooLargeError(prompt_tokens, room)
    # Cut deeper, but keep the latest prompt word for word.
    for index in find_valid_cut_points(items, usual.first_kept_entry_index + 1, last_user + 1):
        if kept_tokens(items, index) <= budget:
            cut = cut_at(items, start, index)
            return OverflowPlan(preparation_at(branch, cut, settings), [], kept_tokens(items, index), True)
    cut = cut_at(items, start, last_user)
    kept = kept_tokens(items, cut.first_kept_entry_index)
    shrinks = _shrinks(items, last_user + 1, kept - budget)
    for shrink in shrinks:
        kept -= math.ceil((shrink.original_chars - shrink.kept_chars) / CHARS_PER_TOKEN)
    return OverflowPlan(preparation_at(branch, cut, settings), shrinks, max(kept, 0), True)


__all__ = [
    "MIN_KEPT_TOOL_CHARS",
    "OverflowPlan",
    "PromptTooLargeError",
    "ToolResultShrink",
    "prepare_overflow_compaction",
    "shrink_notice",
]
