"""The four entry points of the LLM layer: stream / complete, and their `_simple` forms.

`stream` passes options straight to the model's wire API; `stream_simple` takes one portable
`reasoning` level and insists on an API key (given or from the environment) before anything is sent.
Keys follow one rule everywhere (`pi.ai.api_key`): the given one, else the provider's own variables.
"""

from __future__ import annotations

from typing import Any

from pi.ai.api_key import MissingApiKeyError, resolve_api_key
from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.options import StreamOptions, make_options
from pi.ai.registry import require_api_provider
from pi.ai.types import AssistantMessage, Context, Model


def _served_at(model: Model, options: StreamOptions) -> Model:
    """`model` at ``options.extra["base_url"]`` when a request names another endpoint for it.

    A credential may decide where its requests go and change that when it is refreshed (GitHub
    Copilot's token names its proxy endpoint); the request then goes there at once.
    """
    base = options.extra.get("base_url")
    if isinstance(base, str) and base and base != model.base_url:
        return model.model_copy(update={"base_url": base})
    return model


def stream(
    model: Model, context: Context, options: StreamOptions | None = None, **kwargs: Any
) -> AssistantMessageEventStream:
    """Stream a reply. Raises only if no provider speaks `model.api`; every later failure is an event."""
    provider = require_api_provider(model.api)
    opts = make_options(options, **kwargs)
    return provider.stream(_served_at(model, opts), context, opts)


async def complete(
    model: Model, context: Context, options: StreamOptions | None = None, **kwargs: Any
) -> AssistantMessage:
    return await stream(model, context, options, **kwargs).result()


def stream_simple(
    model: Model, context: Context, options: StreamOptions | None = None, **kwargs: Any
) -> AssistantMessageEventStream:
    """Stream with a portable `reasoning` level; raises MissingApiKeyError when no key is known."""
    provider = require_api_provider(model.api)
    opts = make_options(options, **kwargs)
    opts.api_key = resolve_api_key(model, opts)
    return provider.stream_simple(_served_at(model, opts), context, opts)


async def complete_simple(
    model: Model, context: Context, options: StreamOptions | None = None, **kwargs: Any
) -> AssistantMessage:
    return await stream_simple(model, context, options, **kwargs).result()


__all__ = ["MissingApiKeyError", "complete", "complete_simple", "stream", "stream_simple"]
