"""Sessions: the JSONL tree of a conversation, the context of one branch, and compaction.

`SessionManager` stores and navigates a session; `build_session_context` turns a branch into what
the model sees; `prepare_compaction` / `compact` and `generate_branch_summary` shrink history with a
model the caller supplies; `pi.session.export_html.export_session_html` renders a session as a page.
"""

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
