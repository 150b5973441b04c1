"""Messages typed while the context is being compacted (tui.md §8): held, shown, sent afterwards.

While a compaction runs, a prompt cannot go to the model (the context it would join is being
rewritten), so Enter puts it in the compaction queue, listed with the other queued messages, and
says `Queued message for after compaction`. When the compaction ends the queue is sent in order; a
message that fails is reported (`Failed to send queued message(s): …`) and it and the ones after it
are put back in the queue.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi.app.modes.interactive.app import InteractiveApp

QUEUED = "Queued message for after compaction"


def compacting(app: InteractiveApp) -> bool:
    return app.binding.compacting or app.session.is_compacting


def hold_for_compaction(app: InteractiveApp, text: str) -> None:
    app.queue.compaction_queue.append(text)
    app.queue.invalidate()
    app.show_status(QUEUED)


async def send_after_compaction(app: InteractiveApp) -> None:
    """Send what waited for the compaction, one prompt after another."""
    from pi.app.agent_session import NoApiKeyError

    queue = app.queue
    while queue.compaction_queue:
        text = queue.compaction_queue[0]
        try:
            if app.session.is_streaming:
                await app.session.prompt(text, streaming_behavior="followUp", source="interactive")
            else:
                await app.session.prompt(text, source="interactive")
        except (NoApiKeyError, ValueError, RuntimeError) as exc:
            app.show_error(f"Failed to send queued message(s): {exc}")
            queue.invalidate()
            return
        queue.compaction_queue.pop(0)
        queue.invalidate()
        app.request_render()


__all__ = ["QUEUED", "compacting", "hold_for_compaction", "send_after_compaction"]
