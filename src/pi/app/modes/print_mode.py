"""Print mode: run the prompts one after another, then print the answer (text) or every event (json).

Text mode prints only the text of the final assistant message, so `pi -p` composes in pipelines; a
final message that failed goes to stderr and exits 1, as does one cut at the output token limit (its
partial text still goes to stdout). JSON mode prints the session header and then
every event as one JSON line, and always exits 0: errors are in the stream.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, Literal

from pi.ai.types import AssistantMessage, ImageContent, TextContent
from pi.app.agent_session import AgentSession
from pi.app.modes.jsonl import JsonlWriter
from pi.app.session_events import SessionEvent

TRUNCATED_MESSAGE = "Response was truncated: the model reached its output token limit."

_NOT_JSON_EVENTS = frozenset({"session_start", "model_select"})
"""Session events that exist for extensions and the UI only: pi's JSON stream does not carry them."""


def _print_extension_error(info: Any) -> None:
    sys.stderr.write(f"Extension error ({info.extension_path}): {info.error}\n")
    sys.stderr.flush()


async def run_print_mode(
    session: AgentSession,
    messages: Sequence[str],
    images: Sequence[ImageContent] = (),
    mode: Literal["text", "json"] = "text",
) -> int:
    if mode == "json":
        writer = JsonlWriter()
        writer.write(session.session.get_header().to_dict())

        reported: list[Any] = [[], []]  # the steering and follow-up queues as the stream last showed them

        def emit(event: SessionEvent) -> None:
            if event.type in _NOT_JSON_EVENTS:
                return
            out = event.to_json_dict()
            if event.type == "queue_update":
                # pi reports a queue only when it changes. Moving to a new session (an extension's
                # `ctx.new_session()`) empties queues that were already empty: not news to the reader.
                queues = [out["steering"], out["followUp"]]
                if queues == reported:
                    return
                reported[:] = queues
            writer.write(out)

        session.subscribe(emit, awaited=True)

    if session.extension_runner is not None:
        session.on_extension_error(_print_extension_error)
        await session.bind_extensions(mode=mode if mode == "json" else "print")
    try:
        for index, text in enumerate(messages):
            await session.prompt(text, images if index == 0 else None)
        if session.extension_runner is not None:
            await session.wait_for_idle()
    finally:
        # Also when Ctrl+C, SIGTERM or SIGHUP cancelled the run: extensions hear `session_shutdown`
        # and MCP servers are closed while the event loop still runs.
        if session.extension_runner is not None:
            await session.shutdown_extensions("quit")

    if mode == "json":
        return 0
    last = next((m for m in reversed(session.messages) if isinstance(m, AssistantMessage)), None)
    if last is None:
        return 0
    if last.stop_reason in ("error", "aborted"):
        sys.stderr.write(f"{last.error_message or f'Request {last.stop_reason}'}\n")
        return 1
    for block in last.content:
        if isinstance(block, TextContent):
            sys.stdout.write(block.text + "\n")
    sys.stdout.flush()
    if last.stop_reason == "length":
        sys.stderr.write(f"{TRUNCATED_MESSAGE}\n")
        return 1
    return 0


__all__ = ["run_print_mode"]
