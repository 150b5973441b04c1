"""Interception points of a coding session: ordered chains of handlers, each sync or async.

`SessionHooks` holds one list per point; `create_agent_session(hooks=...)` takes it, and anything
that wants to step in (an extension runner, a permission gate, an SDK user) appends handlers. Lists
are read when the point is reached, so handlers added later take part from the next use on.

Each list, the pi event it stands for, what a handler gets and may return, and how results chain:

- `tool_call` (pi `tool_call`): `ToolCallHookEvent`, whose `input` it may edit in place; returns
  `ToolCallHookResult` or a dict `{block, reason}`. The first block wins; an exception fails the
  call (closed, never open).
- `tool_result` (`tool_result`): `ToolResultHookEvent`; returns `ToolResultHookResult` or a dict
  patch `{content, details, isError}`. Chained: each handler sees the result patched so far.
- `input` (`input`): `InputHookEvent`; returns `InputHookResult` or `{action, text, images}` with
  action continue, transform or handled. Transforms chain; the first `handled` wins.
- `context` (`context`): `ContextHookEvent`, whose `messages` it may edit in place; or returns a
  new list (or `{messages}`). Chained.
- `before_provider_request` (`before_provider_request`): `ProviderRequestHookEvent`; a returned
  dict replaces the payload. Chained; None keeps it.
- `before_compact` (`session_before_compact`): `BeforeCompactHookEvent`; returns
  `BeforeCompactHookResult` or `{cancel}` / `{compaction: {summary, firstKeptEntryId, tokensBefore,
  details}}`. The first cancel wins, else the last summary given is used.

Except for `tool_call`, a raising handler is reported (`on_error`, else logged) and the next handler runs.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Literal, TypeAlias, TypeVar

from msgspec import Struct, field

from pi.agent.hooks import AfterToolCallContext, AfterToolCallResult, BeforeToolCallContext, BeforeToolCallResult
from pi.agent.messages import AgentMessage
from pi.agent.tool import ToolContent
from pi.agent.tool_content import ToolContentError, tool_content
from pi.ai.abort import AbortSignal
from pi.ai.types import ImageContent, Model, Usage

logger = logging.getLogger(__name__)

Ev = TypeVar("Ev")
Res = TypeVar("Res")
Hook: TypeAlias = Callable[[Ev], "Awaitable[Res | dict[str, Any] | None] | Res | dict[str, Any] | None"]
InputSource: TypeAlias = Literal["interactive", "rpc", "extension", "sdk"]
HookErrorHandler: TypeAlias = Callable[[str, BaseException], None]


class ToolCallHookEvent(Struct):
    """Given to `tool_call` handlers for a call about to run, once its tool is found and its arguments are valid."""

    tool_call_id: str
    tool_name: str
    input: dict[str, Any]
    """The arguments; edits made in place apply to the call (validated again before it runs)."""
    type: Literal["tool_call"] = "tool_call"


class ToolCallHookResult(Struct):
    """A `tool_call` handler's answer: `block` stops the call; the model gets `reason` as its error result.

    Without a reason the model is told "Tool execution was blocked".
    """

    block: bool = False
    reason: str | None = None


class ToolResultHookEvent(Struct):
    """Given to `tool_result` handlers after a tool ran (or raised), before the model sees its result.

    Handlers run in order; each sees the fields as earlier handlers patched them.
    """

    tool_call_id: str
    tool_name: str
    input: dict[str, Any]
    content: list[ToolContent]
    details: Any
    is_error: bool
    type: Literal["tool_result"] = "tool_result"
    usage: Usage | None = None
    """The model usage the tool reported; a handler may replace it."""


class ToolResultHookResult(Struct):
    """Fields left None stay as they are."""

    content: list[ToolContent] | None = None
    details: Any = None
    is_error: bool | None = None


class InputHookEvent(Struct):
    """Given to `input` handlers for each prompt, steering or follow-up text.

    Handlers see the text as given, before skill commands and prompt templates are expanded.
    """

    text: str
    images: list[ImageContent] | None
    source: InputSource
    streaming_behavior: Literal["steer", "followUp"] | None = None
    """How the text will be queued while a run is going; None when idle."""
    type: Literal["input"] = "input"


class InputHookResult(Struct):
    """An `input` handler's answer on what becomes of the input.

    `continue` keeps it, `transform` replaces the text (and the images when given), and `handled` consumes it:
    nothing is sent or queued.
    """

    action: Literal["continue", "transform", "handled"] = "continue"
    text: str | None = None
    images: list[ImageContent] | None = None


class ContextHookEvent(Struct):
    """Given to `context` handlers before each model request of a run.

    A changed or returned list is used for that request only; the session's stored history stays as it was.
    """

    messages: list[AgentMessage]
    """A copy of the transcript about to be sent; edit in place or return a new list."""
    type: Literal["context"] = "context"


class ProviderRequestHookEvent(Struct):
    """Given to `before_provider_request` handlers just before a request goes to the provider.

    `payload` is the provider-specific JSON body; a handler that returns a dict has that sent instead.
    """

    payload: dict[str, Any]
    model: Model
    type: Literal["before_provider_request"] = "before_provider_request"


class CompactionOverride(Struct):
    """A compaction summary supplied in place of one the model would write.

    It is stored as the compaction entry; the history before `first_kept_entry_id` is replaced by `summary`.
    """

    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: dict[str, Any] | None = None


class BeforeCompactHookEvent(Struct):
    """Given to `before_compact` handlers before a compaction asks the model for its summary.

    `signal` fires when the compaction is aborted; `will_retry` means the failed run continues after it.
    """

    preparation: Any
    """The `pi.session.compaction.CompactionPreparation` about to be summarized."""
    branch_entries: list[Any]
    custom_instructions: str | None
    reason: Literal["manual", "threshold", "overflow"]
    will_retry: bool
    signal: AbortSignal | None
    type: Literal["session_before_compact"] = "session_before_compact"


class BeforeCompactHookResult(Struct):
    """A `before_compact` handler's answer.

    `cancel` stops the compaction (reported as aborted); `compaction` supplies the summary, so none is requested.
    """

    cancel: bool = False
    compaction: CompactionOverride | None = None


class InputOutcome(Struct):
    """What the input chain decided: the (possibly transformed) text, or that a handler consumed it."""

    handled: bool
    text: str
    images: list[ImageContent] | None


class SessionHooks(Struct):
    """The handler lists of each interception point, called in list order.

    How each chain combines its handlers' results is described in the module docstring.
    """

    tool_call: list[Hook[ToolCallHookEvent, ToolCallHookResult]] = field(default_factory=list)
    tool_result: list[Hook[ToolResultHookEvent, ToolResultHookResult]] = field(default_factory=list)
    input: list[Hook[InputHookEvent, InputHookResult]] = field(default_factory=list)
    context: list[Hook[ContextHookEvent, list[AgentMessage]]] = field(default_factory=list)
    before_provider_request: list[Hook[ProviderRequestHookEvent, dict[str, Any]]] = field(default_factory=list)
    before_compact: list[Hook[BeforeCompactHookEvent, BeforeCompactHookResult]] = field(default_factory=list)
    on_error: HookErrorHandler | None = None
    """Told about every handler that raised (the point's pi event name, the error); logged when None."""


def _get(result: Any, *names: str) -> Any:
    """A field of a result object or dict, under its Python or its pi (camelCase) name."""
    for name in names:
        if isinstance(result, dict):
            if name in result:
                return result[name]
        elif hasattr(result, name):
            return getattr(result, name)
    return None


async def _resolve(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


class HookChains:
    """Runs the lists of a `SessionHooks`; its methods are the callbacks the Agent is built with."""

    def __init__(self, hooks: SessionHooks) -> None:
        self.hooks = hooks

    def _report(self, point: str, error: BaseException) -> None:
        handler = self.hooks.on_error
        if handler is not None:
            try:
                handler(point, error)
                return
            except Exception as inner:
                logger.error("the hook error handler failed: %s", inner, exc_info=inner)
        logger.error("a %s hook failed: %s", point, str(error) or type(error).__name__, exc_info=error)

    async def before_tool_call(
        self, ctx: BeforeToolCallContext, signal: AbortSignal | None
    ) -> BeforeToolCallResult | None:
        event = ToolCallHookEvent(ctx.tool_call.id, ctx.tool_call.name, ctx.input)
        for hook in list(self.hooks.tool_call):
            result = await _resolve(hook(event))  # an exception fails the call: closed, never open
            if result is not None and _get(result, "block"):
                return BeforeToolCallResult(block=True, reason=_get(result, "reason"))
        return None

    async def after_tool_call(
        self, ctx: AfterToolCallContext, signal: AbortSignal | None
    ) -> AfterToolCallResult | None:
        if not self.hooks.tool_result:
            return None
        event = ToolResultHookEvent(
            ctx.tool_call.id,
            ctx.tool_call.name,
            dict(ctx.tool_call.arguments),
            list(ctx.result.content),
            ctx.result.details,
            ctx.is_error,
            usage=ctx.result.usage,
        )
        changed = False
        for hook in list(self.hooks.tool_result):
            try:
                patch = await _resolve(hook(event))
            except Exception as error:
                self._report("tool_result", error)
                continue
            if patch is None:
                continue
            content = _get(patch, "content")
            if content is not None:
                try:
                    event.content = tool_content(content)
                except ToolContentError as error:
                    self._report("tool_result", error)
                    continue
                changed = True
            for attr, names in (
                ("details", ("details",)),
                ("is_error", ("is_error", "isError")),
            ):
                value = _get(patch, *names)
                if value is not None:
                    setattr(event, attr, value)
                    changed = True
            usage = _get(patch, "usage")
            if usage is not None:
                from pi.app.tool_usage import usage_from

                event.usage = usage_from(usage) or event.usage
                changed = True
        if not changed:
            return None
        return AfterToolCallResult(
            content=event.content, details=event.details, is_error=event.is_error, usage=event.usage
        )

    async def transform_context(self, messages: list[AgentMessage], signal: AbortSignal | None) -> list[AgentMessage]:
        for hook in list(self.hooks.context):
            event = ContextHookEvent(messages)
            try:
                result = await _resolve(hook(event))
            except Exception as error:
                self._report("context", error)
                continue
            replaced = _get(result, "messages") if isinstance(result, dict) else result
            messages = list(replaced) if isinstance(replaced, list) else event.messages
        return messages

    async def on_payload(self, payload: dict[str, Any], model: Model) -> dict[str, Any] | None:
        if not self.hooks.before_provider_request:
            return None
        for hook in list(self.hooks.before_provider_request):
            try:
                result = await _resolve(hook(ProviderRequestHookEvent(payload, model)))
            except Exception as error:
                self._report("before_provider_request", error)
                continue
            if isinstance(result, dict):
                payload = result
        return payload

    async def input(
        self,
        text: str,
        images: list[ImageContent] | None,
        source: InputSource,
        behavior: Literal["steer", "followUp"] | None,
    ) -> InputOutcome:
        for hook in list(self.hooks.input):
            try:
                result = await _resolve(hook(InputHookEvent(text, images, source, behavior)))
            except Exception as error:
                self._report("input", error)
                continue
            action = _get(result, "action") if result is not None else None
            if action == "handled":
                return InputOutcome(True, text, images)
            if action == "transform":
                new_text = _get(result, "text")
                text = new_text if isinstance(new_text, str) else text
                new_images = _get(result, "images")
                images = list(new_images) if isinstance(new_images, list) else images
        return InputOutcome(False, text, images)

    async def before_compact(self, event: BeforeCompactHookEvent) -> BeforeCompactHookResult | None:
        chosen: BeforeCompactHookResult | None = None
        for hook in list(self.hooks.before_compact):
            try:
                result = await _resolve(hook(event))
            except Exception as error:
                self._report("session_before_compact", error)
                continue
            if result is None:
                continue
            if _get(result, "cancel"):
                return BeforeCompactHookResult(cancel=True)
            override = _get(result, "compaction")
            if override is not None:
                chosen = BeforeCompactHookResult(compaction=_override(override))
        return chosen


def _override(value: Any) -> CompactionOverride:
    if isinstance(value, CompactionOverride):
        return value
    return CompactionOverride(
        summary=str(_get(value, "summary") or ""),
        first_kept_entry_id=str(_get(value, "first_kept_entry_id", "firstKeptEntryId") or ""),
        tokens_before=int(_get(value, "tokens_before", "tokensBefore") or 0),
        details=_get(value, "details"),
    )


__all__ = [
    "BeforeCompactHookEvent",
    "BeforeCompactHookResult",
    "CompactionOverride",
    "ContextHookEvent",
    "Hook",
    "HookChains",
    "HookErrorHandler",
    "InputHookEvent",
    "InputHookResult",
    "InputOutcome",
    "InputSource",
    "ProviderRequestHookEvent",
    "SessionHooks",
    "ToolCallHookEvent",
    "ToolCallHookResult",
    "ToolResultHookEvent",
    "ToolResultHookResult",
]
