"""Sessions: the JSONL tree of a conversation, the context of one branch, and compaction.

`SessionManager` stores and navigates a session; `build_session_context` turns a branch into what
the model sees; `prepare_compaction` / `compact` and `generate_branch_summary` shrink history with a
model the caller supplies; `pi.session.export_html.export_session_html` renders a session as a page.
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
        compact,
        prepare_compaction,
    )
    from pi.session.context import LATEST, ModelRef, SessionContext, build_session_context
    from pi.session.cut_point import CutPoint, find_cut_point
    from pi.session.entries import (
        CURRENT_SESSION_VERSION,
        BranchSummaryEntry,
        CompactionEntry,
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
    )
    from pi.session.listing import FoundSession, SessionInfo
    from pi.session.manager import SessionManager, SessionTreeNode
    from pi.session.serialize import serialize_conversation
    from pi.session.storage import SessionFileError
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
    "CustomEntry": "pi.session.entries",
    "CustomMessageEntry": "pi.session.entries",
    "CutPoint": "pi.session.cut_point",
    "DEFAULT_COMPACTION_SETTINGS": "pi.session.tokens",
    "FoundSession": "pi.session.listing",
    "LATEST": "pi.session.context",
    "LabelEntry": "pi.session.entries",
    "MessageEntry": "pi.session.entries",
    "ModelChangeEntry": "pi.session.entries",
    "ModelRef": "pi.session.context",
    "SessionContext": "pi.session.context",
    "SessionEntry": "pi.session.entries",
    "SessionFileError": "pi.session.storage",
    "SessionHeader": "pi.session.entries",
    "SessionInfo": "pi.session.listing",
    "SessionInfoEntry": "pi.session.entries",
    "SessionManager": "pi.session.manager",
    "SessionTreeNode": "pi.session.manager",
    "ThinkingLevelChangeEntry": "pi.session.entries",
    "UnknownEntry": "pi.session.entries",
    "build_session_context": "pi.session.context",
    "calculate_context_tokens": "pi.session.tokens",
    "collect_entries_for_branch_summary": "pi.session.branch_summary",
    "compact": "pi.session.compaction",
    "estimate_context_tokens": "pi.session.tokens",
    "estimate_tokens": "pi.session.tokens",
    "find_cut_point": "pi.session.cut_point",
    "generate_branch_summary": "pi.session.branch_summary",
    "prepare_compaction": "pi.session.compaction",
    "serialize_conversation": "pi.session.serialize",
    "should_compact": "pi.session.tokens",
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
    "CustomEntry",
    "CustomMessageEntry",
    "CutPoint",
    "FoundSession",
    "LabelEntry",
    "MessageEntry",
    "ModelChangeEntry",
    "ModelRef",
    "SessionContext",
    "SessionEntry",
    "SessionFileError",
    "SessionHeader",
    "SessionInfo",
    "SessionInfoEntry",
    "SessionManager",
    "SessionTreeNode",
    "ThinkingLevelChangeEntry",
    "UnknownEntry",
    "build_session_context",
    "calculate_context_tokens",
    "collect_entries_for_branch_summary",
    "compact",
    "estimate_context_tokens",
    "estimate_tokens",
    "find_cut_point",
    "generate_branch_summary",
    "prepare_compaction",
    "serialize_conversation",
    "should_compact",
]
