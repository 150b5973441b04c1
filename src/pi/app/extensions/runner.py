"""`ExtensionRunner`: delivers events to extension handlers with each event's dispatch rule.

Handlers run in extension load order, then registration order, over a snapshot of the lists (so
subscribing during a dispatch affects the next one). The rules (extension spec §1.6):

- notify (`emit`): results ignored;
- in-place mutation (`emit_before_provider_headers`, `tool_call` input, prompt options): handlers
  edit the objects they are given;
- chained transform (`emit_input`, `emit_context`, `emit_context_with_system`, `emit_message_end`,
  `emit_tool_result`, `emit_before_provider_request`): each handler sees the previous one's output;
- gate (`emit_tool_call`, `emit_gate` for the session_before_* events): the first block/cancel wins;
- boundary (`emit_boundary` for `turn_end` / `agent_before_settle`), last override
  (`emit_cache_warming_decision`), and the special `user_bash` and `project_trust` rules.

A handler that raises is reported to the error listeners and the next one runs, except for
`tool_call` (the call fails) and `user_bash` (the command is blocked).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from msgspec import Struct, field

from pi.agent.tool_content import tool_content
from pi.app.extensions import errors
from pi.app.extensions.events import (
    BeforeAgentStartEvent,
    BeforeAgentStartEventResult,
    BeforeProviderHeadersEvent,
    BeforeProviderRequestEvent,
    BoundaryEventResult,
    BoundaryFields,
    CacheWarmingDecisionEvent,
    CacheWarmingDecisionEventResult,
    ContextEvent,
    ContextEventResult,
    ContextWithSystemEvent,
    EventModel,
    InputEvent,
    InputEventResult,
    MessageEndEvent,
    MessageEndEventResult,
    ResourcesDiscoverEvent,
    ResourcesDiscoverEventResult,
    ResultModel,
    ToolCallEvent,
    ToolCallEventResult,
    ToolResultEvent,
    ToolResultEventResult,
    UserBashEvent,
    UserBashEventResult,
)
from pi.app.extensions.extension import Extension
from pi.app.extensions.registry import ErrorListener
from pi.app.extensions.results import InvalidResult, coerce_result
from pi.app.extensions.runtime import ExtensionRuntime

R = TypeVar("R", bound=ResultModel)
ContextFactory = Callable[[Extension], Any]
_RESULT_FIELDS = ("content", "details", "structured_content", "is_error", "usage")


class BeforeAgentStartOutcome(Struct):
    messages: list[dict[str, Any]] = field(default_factory=list)
    """Every message handlers returned, in order (persisted and sent)."""
    system_prompt: str | None = None
    """The prompt that replaces pi's for this run, when a handler set one."""


class BoundaryOutcome(Struct):
    entries: list[Any]
    continue_: bool
    valid: bool = True
    """False when rebuilding the context from the drafts failed: nothing must be appended."""


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, dict) else getattr(message, "role", None)


class ExtensionRunner:
    """Dispatches events of one runtime. The session binds `context_factory` (one ctx per handler call)."""

    def __init__(self, runtime: ExtensionRuntime, context_factory: ContextFactory | None = None) -> None:
        self.runtime = runtime
        self.registry = runtime.registry
        self.context_factory = context_factory

    def bind_context(self, factory: ContextFactory) -> None:
        self.context_factory = factory

    def on_error(self, listener: ErrorListener) -> Callable[[], None]:
        return self.registry.on_error(listener)

    def has_handlers(self, event: str) -> bool:
        return self.registry.has_handlers(event)

    def _ctx(self, extension: Extension) -> Any:
        return self.context_factory(extension) if self.context_factory is not None else None

    async def _call(self, extension: Extension, handler: Callable[..., Any], event: Any, ctx: Any = None) -> Any:
        result = handler(event, ctx if ctx is not None else self._ctx(extension))
        if inspect.isawaitable(result):
            result = await result
        return result

    async def _each(self, event: EventModel, model: type[R]) -> list[tuple[Extension, R]]:
        """Run every handler, reporting failures; the valid non-None results in order."""
        results: list[tuple[Extension, R]] = []
        for extension, handler in self.registry.handlers(event.type):
            try:
                result = coerce_result(await self._call(extension, handler, event), model)
            except Exception as error:
                self.registry.report(extension.path, event.type, error)
                continue
            if result is not None:
                results.append((extension, result))
        return results

    # -- notify and in-place ------------------------------------------------------------------

    async def emit(self, event: EventModel) -> None:
        """Notify: every handler runs, results are ignored."""
        for extension, handler in self.registry.handlers(event.type):
            try:
                await self._call(extension, handler, event)
            except Exception as error:
                self.registry.report(extension.path, event.type, error)

    async def emit_before_provider_headers(self, headers: dict[str, Any]) -> dict[str, Any]:
        """Handlers edit `headers` in place; a value set to None removes that header."""
        await self.emit(BeforeProviderHeadersEvent(headers=headers))
        for key in [k for k, v in headers.items() if v is None]:
            del headers[key]
        return headers

    # -- gates ----------------------------------------------------------------------------------

    async def emit_tool_call(self, event: ToolCallEvent) -> ToolCallEventResult | None:
        """The first `block` wins. Fail closed: a raising handler's exception propagates (the call
        fails with its message); a result that is not one blocks with `Extension failed, ...`."""
        for extension, handler in self.registry.handlers("tool_call"):
            value = await self._call(extension, handler, event)
            try:
                result = coerce_result(value, ToolCallEventResult)
            except InvalidResult as invalid:
                return ToolCallEventResult(block=True, reason=errors.blocked_by_failure(invalid.value))
            if result is not None and result.block:
                reason = result.reason or errors.BLOCKED_DEFAULT_REASON
                return ToolCallEventResult(block=True, reason=reason, terminate=result.terminate)
        return None

    async def emit_gate(self, event: EventModel, model: type[R]) -> R | None:
        """session_before_switch/fork/compact/tree: the first `cancel` returns at once, else the
        last non-empty result."""
        chosen: R | None = None
        for extension, handler in self.registry.handlers(event.type):
            try:
                result = coerce_result(await self._call(extension, handler, event), model)
            except Exception as error:
                self.registry.report(extension.path, event.type, error)
                continue
            if result is None or not result.model_fields_set:
                continue
            if getattr(result, "cancel", None):
                return result
            chosen = result
        return chosen

    # -- chained transforms ---------------------------------------------------------------------

    async def emit_input(self, event: InputEvent) -> InputEventResult:
        """Transforms chain (later handlers see the new text); the first `handled` wins."""
        transformed = False
        for extension, handler in self.registry.handlers("input"):
            try:
                result = coerce_result(await self._call(extension, handler, event), InputEventResult)
            except Exception as error:
                self.registry.report(extension.path, "input", error)
                continue
            if result is None or result.action == "continue":
                continue
            if result.action == "handled":
                return InputEventResult(action="handled")
            if result.text is not None:
                event.text = result.text
            if "images" in result.model_fields_set:
                event.images = result.images
            transformed = True
        if transformed:
            return InputEventResult(action="transform", text=event.text, images=event.images)
        return InputEventResult(action="continue")

    async def emit_tool_result(self, event: ToolResultEvent) -> ToolResultEventResult | None:
        """Each handler's partial patch applies to the result the next one sees; new `content`
        without `structured_content` drops the structured content. Returns the fields that changed."""
        changed: set[str] = set()
        for extension, handler in self.registry.handlers("tool_result"):
            try:
                result = coerce_result(await self._call(extension, handler, event), ToolResultEventResult)
                if result is not None and "content" in result.model_fields_set:
                    result.content = tool_content(result.content)
            except Exception as error:
                self.registry.report(extension.path, "tool_result", error)
                continue
            if result is None:
                continue
            given = result.model_fields_set
            for name in _RESULT_FIELDS:
                if name in given:
                    setattr(event, name, getattr(result, name))
                    changed.add(name)
            if "content" in given and "structured_content" not in given and event.structured_content is not None:
                event.structured_content = None
                changed.add("structured_content")
        if not changed:
            return None
        return ToolResultEventResult(**{name: getattr(event, name) for name in changed})

    async def emit_context(self, messages: list[Any]) -> list[Any]:
        """`context`: handlers edit the list in place or return `{messages}` (or a list); chained."""
        return await self._messages_chain(ContextEvent(messages=messages))

    async def emit_context_with_system(self, messages: list[Any]) -> list[Any]:
        """`context_with_system`: like `context`, over the full transcript with system messages."""
        return await self._messages_chain(ContextWithSystemEvent(messages=messages))

    async def _messages_chain(self, event: ContextEvent | ContextWithSystemEvent) -> list[Any]:
        for extension, handler in self.registry.handlers(event.type):
            try:
                value = await self._call(extension, handler, event)
                if isinstance(value, list):
                    value = {"messages": value}
                result = coerce_result(value, ContextEventResult)
            except Exception as error:
                self.registry.report(extension.path, event.type, error)
                continue
            if result is not None and isinstance(result.messages, list):
                event.messages = result.messages
        messages: list[Any] = event.messages
        return messages

    async def emit_before_provider_request(self, payload: Any, model: Any = None) -> Any:
        """Any non-None value a handler returns replaces the payload for the next handler and the request."""
        event = BeforeProviderRequestEvent(payload=payload, model=model)
        for extension, handler in self.registry.handlers(event.type):
            try:
                value = await self._call(extension, handler, event)
            except Exception as error:
                self.registry.report(extension.path, event.type, error)
                continue
            if value is not None:
                event.payload = value
        return event.payload

    async def emit_message_end(self, message: Any) -> Any:
        """Chained `{message}` replacements; one with another role is reported and ignored."""
        event = MessageEndEvent(message=message)
        for extension, handler in self.registry.handlers("message_end"):
            try:
                result = coerce_result(await self._call(extension, handler, event), MessageEndEventResult)
            except Exception as error:
                self.registry.report(extension.path, "message_end", error)
                continue
            if result is None or result.message is None:
                continue
            if _role(result.message) != _role(event.message):
                self.registry.report(extension.path, "message_end", errors.MESSAGE_END_ROLE)
                continue
            event.message = result.message
        return event.message

    async def emit_before_agent_start(self, event: BeforeAgentStartEvent) -> BeforeAgentStartOutcome:
        """Collect returned messages in order; a returned `system_prompt` replaces the prompt for the
        run (sets `force_system_prompt`), and later handlers see it."""
        outcome = BeforeAgentStartOutcome()
        for extension, handler in self.registry.handlers("before_agent_start"):
            try:
                result = coerce_result(await self._call(extension, handler, event), BeforeAgentStartEventResult)
            except Exception as error:
                self.registry.report(extension.path, "before_agent_start", error)
                continue
            if result is None:
                continue
            if result.message is not None:
                outcome.messages.append(result.message)
            if result.system_prompt is not None:
                event.system_prompt = result.system_prompt
                outcome.system_prompt = result.system_prompt
                if isinstance(event.system_prompt_options, dict):
                    event.system_prompt_options["force_system_prompt"] = result.system_prompt
        return outcome

    # -- boundary and last override -------------------------------------------------------------

    async def emit_boundary(
        self, event: BoundaryFields, rebuild_context: Callable[[list[Any]], Any] | None = None
    ) -> BoundaryOutcome:
        """`turn_end` / `agent_before_settle`: returned `entries` or `continue` replace that field only;
        `rebuild_context(entries)` refreshes `event.context` after a change (its failure is reported
        as `Invalid boundary entries: <msg>` and the outcome is not valid)."""
        event_name = str(getattr(event, "type", "turn_end"))
        for extension, handler in self.registry.handlers(event_name):
            try:
                result = coerce_result(await self._call(extension, handler, event), BoundaryEventResult)
            except Exception as error:
                self.registry.report(extension.path, event_name, error)
                continue
            if result is None:
                continue
            if result.entries is not None:
                event.entries = list(result.entries)
                if rebuild_context is not None:
                    try:
                        event.context = rebuild_context(event.entries)
                    except Exception as error:
                        message = f"Invalid boundary entries: {errors.error_text(error)}"
                        self.registry.report(extension.path, event_name, message)
                        return BoundaryOutcome([], event.continue_, valid=False)
            if result.continue_ is not None:
                event.continue_ = result.continue_
        return BoundaryOutcome(list(event.entries or []), event.continue_)

    async def emit_cache_warming_decision(self, event: CacheWarmingDecisionEvent) -> str | None:
        """The last handler that returns an action decides."""
        results = await self._each(event, CacheWarmingDecisionEventResult)
        actions = [r.action for _, r in results if r.action is not None]
        return actions[-1] if actions else None

    async def emit_resources_discover(self, event: ResourcesDiscoverEvent) -> ResourcesDiscoverEventResult:
        """All handlers' paths, concatenated in order."""
        merged = ResourcesDiscoverEventResult(skill_paths=[], prompt_paths=[], theme_paths=[])
        for _, result in await self._each(event, ResourcesDiscoverEventResult):
            for name in ("skill_paths", "prompt_paths", "theme_paths"):
                getattr(merged, name).extend(getattr(result, name) or [])
        return merged

    async def emit_user_bash(self, event: UserBashEvent) -> UserBashEventResult | None:
        """The first handler returning `{operations}` or `{result}` decides; None falls through to
        local execution. Errors are reported and re-raised: the command is blocked, never run locally."""
        for extension, handler in self.registry.handlers("user_bash"):
            try:
                value = await self._call(extension, handler, event)
                result = coerce_result(value, UserBashEventResult)
                if result is not None and (result.operations is None) == (result.result is None):
                    raise errors.ExtensionError(errors.INVALID_USER_BASH_RESULT)
            except InvalidResult as invalid:
                failure = errors.ExtensionError(errors.INVALID_USER_BASH_RESULT)
                self.registry.report(extension.path, "user_bash", failure)
                raise failure from invalid
            except Exception as error:
                self.registry.report(extension.path, "user_bash", error)
                raise
            if result is not None:
                return result
        return None


__all__ = ["BeforeAgentStartOutcome", "BoundaryOutcome", "ContextFactory", "ExtensionRunner"]
