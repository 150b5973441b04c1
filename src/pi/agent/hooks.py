"""Points where an application can step into tool execution: before a call runs, and after it returns.

A permission gate blocks a call before it runs (and tells the model why); an auditing or redacting
layer rewrites what a tool returned before the model sees it. Hooks receive the abort signal of the
run; they may be plain functions or coroutines.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, Protocol

from msgspec import Struct, field

from pi.agent.context import AgentContext
from pi.agent.tool import AgentToolResult, ToolContent
from pi.ai.abort import AbortSignal
from pi.ai.types import AssistantMessage, ToolCall, Usage

BLOCKED_DEFAULT_REASON = "Tool execution was blocked"


class BeforeToolCallContext(Struct):
    """What a `before_tool_call` hook sees: a call about to run, whose tool exists and whose arguments are valid."""

    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: Any
    """The validated parameters (an instance of the tool's parameter model)."""
    context: AgentContext
    input: dict[str, Any] = field(default_factory=dict)
    """The arguments as a plain dict the hook may edit in place; edits are validated again before the call runs."""


class BeforeToolCallResult(Struct):
    """A `before_tool_call` hook's verdict: with `block` the call does not run and the model gets `reason` instead.

    Returning None, or a result without `block`, lets the call run.
    """

    block: bool = False
    reason: str | None = None
    """Told to the model instead of a result; "Tool execution was blocked" when absent."""


class AfterToolCallContext(Struct):
    """What an `after_tool_call` hook sees: a call that ran, with its result (`is_error` if it failed or raised).

    The hook runs before `tool_execution_end`, so a change it returns is what clients and the model see.
    """

    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: Any
    result: AgentToolResult
    is_error: bool
    context: AgentContext


class AfterToolCallResult(Struct):
    """Each field that is not None replaces the tool's own; nothing is merged."""

    content: list[ToolContent] | None = None
    details: Any = None
    is_error: bool | None = None
    terminate: bool | None = None
    usage: Usage | None = None


class BeforeToolCall(Protocol):
    def __call__(
        self, ctx: BeforeToolCallContext, signal: AbortSignal | None
    ) -> Awaitable[BeforeToolCallResult | None] | BeforeToolCallResult | None: ...


class AfterToolCall(Protocol):
    def __call__(
        self, ctx: AfterToolCallContext, signal: AbortSignal | None
    ) -> Awaitable[AfterToolCallResult | None] | AfterToolCallResult | None: ...


__all__ = [
    "BLOCKED_DEFAULT_REASON",
    "AfterToolCall",
    "AfterToolCallContext",
    "AfterToolCallResult",
    "BeforeToolCall",
    "BeforeToolCallContext",
    "BeforeToolCallResult",
]
