"""Transcript components of the interactive mode: messages, tool cards, `!` blocks, summaries, notices.

Each is a pure component: built from its data, changed through its methods, drawn by
`render(width)` into lines no wider than `width`, cached while nothing changed.
"""

from __future__ import annotations

from pi.app.modes.interactive.components.assistant_message import AssistantMessageView
from pi.app.modes.interactive.components.bash_block import UserBashView
from pi.app.modes.interactive.components.formatting import format_duration
from pi.app.modes.interactive.components.notices import CustomMessageView, ErrorLine, StatusLine, WarningLine
from pi.app.modes.interactive.components.summaries import BranchSummaryView, CompactionView, SkillCard
from pi.app.modes.interactive.components.tool_card import ToolCard
from pi.app.modes.interactive.components.user_message import UserMessageView

__all__ = [
    "AssistantMessageView",
    "BranchSummaryView",
    "CompactionView",
    "CustomMessageView",
    "ErrorLine",
    "SkillCard",
    "StatusLine",
    "ToolCard",
    "UserBashView",
    "UserMessageView",
    "WarningLine",
    "format_duration",
]
