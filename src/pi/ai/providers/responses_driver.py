"""Driving one streamed Responses reply: start the message, read the events, finish, close.

Every Responses dialect does the same around its own events: open the assistant message, hand the
events to a `ResponsesStreamReader`, drain what follows the final event, report a dropped
connection as a lost reply, and close the response. Dialects differ only in how their raw events
map onto the shared ones (Codex has its own failure and end events), so they pass an *event
adapter*: a function from the raw event iterator to the one the reader should see.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from pi.ai.http import Response, TransportError, connection_lost, finish_stream
from pi.ai.providers.output import OutputBuilder
from pi.ai.providers.responses_events import ResponsesStreamReader, iter_response_events

Events = AsyncIterator[dict[str, Any]]
EventAdapter = Callable[[Events], Events]
"""Maps a dialect's raw stream events onto the shared Responses events."""


def _same(events: Events) -> Events:
    return events


async def read_reply(
    builder: OutputBuilder,
    events: Events,
    payload: dict[str, Any],
    adapt: EventAdapter | None = None,
    grammar_inputs: Mapping[str, str] | None = None,
) -> None:
    """Start the message and read `events` (through `adapt`) until the reply's final event.

    The request's ``service_tier`` prices the reply when the final event does not name one;
    `grammar_inputs` says which argument a grammar tool's raw input fills (see `grammar_tools`).
    """
    builder.start()
    tier = payload.get("service_tier")
    reader = ResponsesStreamReader(builder, tier if isinstance(tier, str) else None, grammar_inputs)
    adapted = (adapt or _same)(events)
    await reader.read(adapted)
    await finish_stream(adapted)


async def drive_sse_reply(
    builder: OutputBuilder,
    response: Response,
    payload: dict[str, Any],
    adapt: EventAdapter | None = None,
    grammar_inputs: Mapping[str, str] | None = None,
) -> None:
    """`read_reply` over an open SSE response, which is closed however reading ends."""
    model = builder.model
    try:
        await read_reply(builder, iter_response_events(response), payload, adapt, grammar_inputs)
    except TransportError as exc:
        raise connection_lost(model.provider, model.id, exc) from exc
    finally:
        await response.aclose()


__all__ = ["EventAdapter", "Events", "drive_sse_reply", "read_reply"]
