"""The tool names Claude Code uses, for requests made with a Claude subscription (OAuth) token.

Such a token is only accepted for requests that look like Claude Code's, so our tools travel under
Claude Code's spelling where the names match ("read" as "Read") and come back under ours.
"""

from __future__ import annotations

from collections.abc import Sequence

from pi.ai.types import Tool

CLAUDE_CODE_TOOL_NAMES: tuple[str, ...] = (
    "Read",
    "Write",
    "Edit",
    "Bash",
    "Grep",
    "Glob",
    "AskUserQuestion",
    "EnterPlanMode",
    "ExitPlanMode",
    "KillShell",
    "NotebookEdit",
    "Skill",
    "Task",
    "TaskOutput",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
)
"""Tool names a subscription token is expected to use; ours are sent under these when they match."""

_CANONICAL_BY_LOWER = {name.lower(): name for name in CLAUDE_CODE_TOOL_NAMES}


def to_claude_code_name(name: str) -> str:
    return _CANONICAL_BY_LOWER.get(name.lower(), name)


def from_claude_code_name(name: str, tools: Sequence[Tool] | None) -> str:
    """The caller's spelling of a tool the model called by its Claude Code name."""
    lowered = name.lower()
    for tool in tools or ():
        if tool.name.lower() == lowered:
            return tool.name
    return name


__all__ = ["CLAUDE_CODE_TOOL_NAMES", "from_claude_code_name", "to_claude_code_name"]
