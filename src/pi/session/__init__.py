"""Sessions: the JSONL tree of a conversation, the context of one branch, and compaction.

`SessionManager` stores and navigates a session; `build_session_context` turns a branch into what
the model sees (context edits applied, compactions standing in for what they replaced);
`prepare_compaction` / `compact`, `prepare_overflow_compaction` and `generate_branch_summary` shrink
history with a model the caller supplies; `replay_system_messages` gives the prompt sections and tools
a transcript declares; `pi.session.export_html.export_session_html` renders a session as a page.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi.session.branch_summary import (
        BranchSummaryResult,
        collect_entries_for_branch_summary,
        generate_branch_summary,
    )
    from pi.session.compaction import (
        CompactionCancelledError,
        CompactionError,
        CompactionPreparation,
        CompactionResult,
        CompleteFn,
        NothingToCompactError,
        compact,
        prepare_compaction,
        require_compaction,
    )
    from pi.session.context import (
        LATEST,
        ModelRef,
        ProjectedMessage,
        SessionContext,
        build_context_entries,
        build_session_context,
        build_session_projection,
    )
    from pi.session.cut_point import (
        CutPoint,
        find_cut_point,
    )
    from pi.session.entries import (
        CURRENT_SESSION_VERSION,
        BranchSummaryEntry,
        CompactionEntry,
        ContextEditEntry,
        CustomEntry,
        CustomMessageEntry,
        LabelEntry,
        MessageEntry,
        ModelChangeEntry,
        SessionEntry,
        SessionHeader,
        SessionInfoEntry,
        ThinkingLevelChangeEntry,
        UnknownEntry,
        UsageEntry,
    )
    from pi.session.ids import (
        InvalidSessionIdError,
        create_session_id,
        normalize_session_name,
        validate_session_id,
    )
    from pi.session.listing import (
        FoundSession,
        SessionInfo,
    )
    from pi.session.manager import (
        SessionManager,
        SessionTreeNode,
    )
    from pi.session.messages import (
        SystemMessage,
    )
    from pi.session.overflow import (
        OverflowPlan,
        PromptTooLargeError,
        ToolResultShrink,
        prepare_overflow_compaction,
    )
    from pi.session.serialize import (
        serialize_conversation,
    )
    from pi.session.storage import (
        SessionFileError,
    )
    from pi.session.summarize import (
        NoSummaryModelError,
        RetryAttempt,
        SummaryRetry,
    )
    from pi.session.system_state import (
        SystemState,
        checkpoint_of,
        replay_system_messages,
        system_message_patch,
    )
    from pi.session.tokens import (
        DEFAULT_COMPACTION_SETTINGS,
        CompactionSettings,
        CompactionSettingsLike,
        calculate_context_tokens,
        estimate_context_tokens,
        estimate_tokens,
        should_compact,
    )

_LAZY: dict[str, str] = {
    "BranchSummaryEntry": "pi.session.entries",
    "BranchSummaryResult": "pi.session.branch_summary",
    "CURRENT_SESSION_VERSION": "pi.session.entries",
    "CompactionCancelledError": "pi.session.compaction",
    "CompactionEntry": "pi.session.entries",
    "CompactionError": "pi.session.compaction",
    "CompactionPreparation": "pi.session.compaction",
    "CompactionResult": "pi.session.compaction",
    "CompactionSettings": "pi.session.tokens",
    "CompactionSettingsLike": "pi.session.tokens",
    "CompleteFn": "pi.session.compaction",
    "ContextEditEntry": "pi.session.entries",
    "CustomEntry": "pi.session.entries",
    "CustomMessageEntry": "pi.session.entries",
    "CutPoint": "pi.session.cut_point",
    "DEFAULT_COMPACTION_SETTINGS": "pi.session.tokens",
    "FoundSession": "pi.session.listing",
    "InvalidSessionIdError": "pi.session.ids",
    "LATEST": "pi.session.context",
    "LabelEntry": "pi.session.entries",
    "MessageEntry": "pi.session.entries",
    "ModelChangeEntry": "pi.session.entries",
    "ModelRef": "pi.session.context",
    "NoSummaryModelError": "pi.session.summarize",
    "NothingToCompactError": "pi.session.compaction",
    "OverflowPlan": "pi.session.overflow",
    "ProjectedMessage": "pi.session.context",
    "PromptTooLargeError": "pi.session.overflow",
    "RetryAttempt": "pi.session.summarize",
    "SessionContext": "pi.session.context",
    "SessionEntry": "pi.session.entries",
    "SessionFileError": "pi.session.storage",
    "SessionHeader": "pi.session.entries",
    "SessionInfo": "pi.session.listing",
    "SessionInfoEntry": "pi.session.entries",
    "SessionManager": "pi.session.manager",
    "SessionTreeNode": "pi.session.manager",
    "SummaryRetry": "pi.session.summarize",
    "SystemMessage": "pi.session.messages",
    "SystemState": "pi.session.system_state",
    "ThinkingLevelChangeEntry": "pi.session.entries",
    "ToolResultShrink": "pi.session.overflow",
    "UnknownEntry": "pi.session.entries",
    "UsageEntry": "pi.session.entries",
    "build_context_entries": "pi.session.context",
    "build_session_context": "pi.session.context",
    "build_session_projection": "pi.session.context",
    "calculate_context_tokens": "pi.session.tokens",
    "checkpoint_of": "pi.session.system_state",
    "collect_entries_for_branch_summary": "pi.session.branch_summary",
    "compact": "pi.session.compaction",
    "create_session_id": "pi.session.ids",
    "estimate_context_tokens": "pi.session.tokens",
    "estimate_tokens": "pi.session.tokens",
    "find_cut_point": "pi.session.cut_point",
    "generate_branch_summary": "pi.session.branch_summary",
    "normalize_session_name": "pi.session.ids",
    "prepare_compaction": "pi.session.compaction",
    "prepare_overflow_compaction": "pi.session.overflow",
    "require_compaction": "pi.session.compaction",
    "serialize_conversation": "pi.session.serialize",
    "should_compact": "pi.session.tokens",
    "system_message_patch": "pi.session.system_state",
    "replay_system_messages": "pi.session.system_state",
    "validate_session_id": "pi.session.ids",
}


def __getattr__(name: str) -> Any:
    """Load a name's module on first use: a print run never needs compaction, listing or export code."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pi.session' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "CURRENT_SESSION_VERSION",
    "DEFAULT_COMPACTION_SETTINGS",
    "LATEST",
    "BranchSummaryEntry",
    "BranchSummaryResult",
    "CompactionCancelledError",
    "CompactionEntry",
    "CompactionError",
    "CompactionPreparation",
    "CompactionResult",
    "CompactionSettings",
    "CompactionSettingsLike",
    "CompleteFn",
    "ContextEditEntry",
    "CustomEntry",
    "CustomMessageEntry",
    "CutPoint",
    "FoundSession",
    "InvalidSessionIdError",
    "LabelEntry",
    "MessageEntry",
    "ModelChangeEntry",
    "ModelRef",
    "NoSummaryModelError",
    "NothingToCompactError",
    "OverflowPlan",
    "ProjectedMessage",
    "PromptTooLargeError",
    "RetryAttempt",
    "SessionContext",
    "SessionEntry",
    "SessionFileError",
    "SessionHeader",
    "SessionInfo",
    "SessionInfoEntry",
    "SessionManager",
    "SessionTreeNode",
    "SummaryRetry",
    "SystemMessage",
    "SystemState",
    "ThinkingLevelChangeEntry",
    "ToolResultShrink",
    "UnknownEntry",
    "UsageEntry",
    "build_context_entries",
    "build_session_context",
    "build_session_projection",
    "calculate_context_tokens",
    "checkpoint_of",
    "collect_entries_for_branch_summary",
    "compact",
    "create_session_id",
    "estimate_context_tokens",
    "estimate_tokens",
    "find_cut_point",
    "generate_branch_summary",
    "normalize_session_name",
    "prepare_compaction",
    "prepare_overflow_compaction",
    "replay_system_messages",
    "require_compaction",
    "serialize_conversation",
    "should_compact",
    "system_message_patch",
    "validate_session_id",
]
