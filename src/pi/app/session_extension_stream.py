"""The extension events around each provider request of a session, and virtual-model routing.

`RequestEvents.wrap` turns the agent's stream function into one that, per request:

- routes a virtual model to the physical model its extension picks (`SessionVirtualModels`), with
  that model's own credentials;
- runs `context_with_system` over the transcript with the prompt and the tool declarations as one
  leading system message, and sends what the handlers return: the prompt *and* the tools come from
  that leading message;
- lets `before_provider_headers` edit the headers, tells `after_provider_response` the status and
  headers, and shows `provider_stream_event` handlers each raw frame the provider sent.

Each hook costs nothing when no handler listens for its event.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from pi.app.extensions import events as ext
from pi.app.extensions.results import result_field

if TYPE_CHECKING:
    from pi.ai.event_stream import AssistantMessageEventStream
    from pi.ai.options import StreamOptions
    from pi.ai.types import Context, Model
    from pi.app.extensions.runner import ExtensionRunner
    from pi.app.session_extensions import SessionExtensions

LEADING_SYSTEM_DROPPED = (
    "Handler removed the leading system message; the request has no prompt or initial tool declarations. "
    "Keep it at index 0 or replace a dropped prefix with getCurrentSystemMessage()."
)


def _role(message: Any) -> Any:
    return result_field(message, "role")


class RequestEvents:
    """See the module docstring; reads the owner's current runner at each request (it changes on reload)."""

    def __init__(self, owner: SessionExtensions) -> None:
        self.owner = owner

    def wrap(self, inner: Any) -> Any:
        """A stream function that runs the request events around `inner` (default `stream_simple`)."""

        async def stream(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
            virtual, requested, count = self.owner.virtual, model, len(context.messages)
            routed = virtual.is_virtual(model)
            if routed:
                model, options = await virtual.route(model, context, options)
            runner = self.owner.runner
            if runner is not None:
                context = await self._context_with_system(runner, context)
                options, model = await self._headers(runner, options, model)
                options = self._on_response(runner, options)
                options = self._on_frame(runner, options, model)
            call = inner
            if call is None:
                from pi.ai.stream import stream_simple

                call = stream_simple
            events = call(model, context, options)
            if asyncio.iscoroutine(events) or isinstance(events, asyncio.Future):
                events = await events
            if routed:
                virtual.watch(events, requested, model, count)
            result: AssistantMessageEventStream = events
            return result

        return stream

    async def _context_with_system(self, runner: ExtensionRunner, context: Context) -> Context:
        if not runner.has_handlers("context_with_system"):
            return context
        from pi.session.messages import SystemMessage

        tools = [tool.to_json_dict() for tool in context.tools or []]
        leading = (
            [SystemMessage(content=context.system_prompt or "", tools_added=tools or None)]
            if context.system_prompt or tools
            else []
        )
        messages = await runner.emit_context_with_system([*leading, *context.messages])
        system_prompt: str | None = None
        declared: list[Any] | None = None
        if messages and _role(messages[0]) == "system":
            system_prompt = _text(result_field(messages[0], "content")) or None
            declared = _declared_tools(messages[0])
            messages = messages[1:]
        elif leading:
            runner.registry.report("<runtime>", "context_with_system", LEADING_SYSTEM_DROPPED)
        rest = [m for m in messages if _role(m) != "system"]
        return context.model_copy(update={"system_prompt": system_prompt, "messages": rest, "tools": declared})

    async def _headers(
        self, runner: ExtensionRunner, options: StreamOptions, model: Model
    ) -> tuple[StreamOptions, Model]:
        """Handlers edit the request's headers; a removed one is also left out of the model's own headers."""
        if not runner.has_handlers("before_provider_headers"):
            return options, model
        headers: dict[str, Any] = dict(options.headers or {})
        before = {k.lower() for k in headers}
        await runner.emit_before_provider_headers(headers)
        removed = before - {k.lower() for k in headers}
        if removed and model.headers:
            kept = {k: v for k, v in model.headers.items() if k.lower() not in removed}
            model = model.model_copy(update={"headers": kept})
        return replace(options, headers={k: str(v) for k, v in headers.items()}), model

    def _on_response(self, runner: ExtensionRunner, options: StreamOptions) -> StreamOptions:
        if not runner.has_handlers("after_provider_response"):
            return options

        async def on_response(status: int, headers: Any) -> None:
            normalized = {str(k).lower(): str(v) for k, v in dict(headers).items()}
            await runner.emit(ext.AfterProviderResponseEvent(status=status, headers=normalized))

        return replace(options, extra={**options.extra, "on_response": on_response})

    def _on_frame(self, runner: ExtensionRunner, options: StreamOptions, model: Model) -> StreamOptions:
        """`provider_stream_event` for each raw frame the provider streams (its parsed JSON, read-only)."""
        if not runner.has_handlers("provider_stream_event"):
            return options
        provider, api, model_id = model.provider, str(model.api), model.id

        async def on_frame(frame: Any) -> None:
            await runner.emit(ext.ProviderStreamEventEvent(provider=provider, api=api, model=model_id, data=frame))

        return replace(options, extra={**options.extra, "on_frame": on_frame})


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(result_field(block, "text") or "") for block in content)
    return str(content or "")


def _declared_tools(message: Any) -> list[Any] | None:
    """The tools a leading system message declares (`tools_added`), as the request's tool list."""
    from pi.ai.types import Tool

    raw = result_field(message, "tools_added", "toolsAdded")
    if not isinstance(raw, list):
        return None
    tools: list[Any] = []
    for item in raw:
        data = item.model_dump(by_alias=True) if hasattr(item, "model_dump") else item
        if isinstance(data, dict) and isinstance(data.get("name"), str):
            fields = {
                k: v for k, v in data.items() if k in ("name", "description", "parameters", "constrainedSampling")
            }
            tools.append(Tool.model_validate({"description": "", **fields}))
    return tools or None


__all__ = ["LEADING_SYSTEM_DROPPED", "RequestEvents"]
