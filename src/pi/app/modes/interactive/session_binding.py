"""Session events to screen changes: the transcript, the queue, the working indicator, the footer.

The session delivers events to this listener through its own queue, so drawing never slows the
model's stream; each handler only changes components and asks for a frame (frames are coalesced).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from pi.ai.types import AssistantMessage

if TYPE_CHECKING:
    from pi.app.modes.interactive.app import InteractiveApp
    from pi.app.modes.interactive.components.assistant_message import AssistantMessageView

WORKING = "Working"


def _user_text(message: Any) -> str:
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return content
    return "".join(getattr(b, "text", "") or "" for b in content if getattr(b, "type", "") == "text")


class SessionBinding:
    """One listener for every session event (see the module docstring)."""

    def __init__(self, app: InteractiveApp) -> None:
        self.app = app
        self.current: AssistantMessageView | None = None
        self.last: AssistantMessageView | None = None
        """The latest finished reply (its `/bug` hint goes when a retry follows)."""
        self.retry_task: asyncio.Task[None] | None = None
        self.compacting = False
        self.retrying = False
        from pi.app.cache_warming_transcript import CacheNotices

        self.cache_notices = CacheNotices(app)
        """`showCacheMissNotices`: refresh and cache-miss lines in the transcript."""
        app.chat.rebuild_hook = self.cache_notices.for_rebuild

    def __call__(self, event: Any) -> None:
        handler = getattr(self, "on_" + str(getattr(event, "type", "")), None)
        if handler is not None:
            handler(event)
            self.app.request_render()

    # --- the run ---------------------------------------------------------------------------------
    def on_agent_start(self, event: Any) -> None:
        self.app.chat.forget_pending_tools()
        self.app.set_working(WORKING)
        from pi.app.modes.interactive.terminal_status import report_working

        report_working(self.app, True)

    def on_agent_end(self, event: Any) -> None:
        if getattr(event, "will_retry", False) and self.last is not None:
            self.last.set_bug_hint(False)
        self.app.chat.forget_pending_tools()
        self.app.footer.refresh()

    def on_agent_settled(self, event: Any) -> None:
        self.stop_retry_countdown()
        self.compacting = False
        self.current = None
        self.app.set_working(None)
        self.app.footer.refresh()
        self.app.flush_pending_bash()
        from pi.app.modes.interactive.terminal_status import report_working

        messages = self.app.session.messages
        failed = bool(messages) and getattr(messages[-1], "stop_reason", None) == "error"
        report_working(self.app, False, error=failed)

    def on_turn_end(self, event: Any) -> None:
        self.app.footer.refresh()

    def on_message_start(self, event: Any) -> None:
        message = event.message
        role = getattr(message, "role", None)
        if role == "user":
            self.app.chat.add_user(_user_text(message))
            self.app.footer.refresh()  # the prompt counts towards the context before any reply
        elif role == "assistant":
            self.current = self.app.chat.assistant_start()
            self._tool_calls(message, complete=False)

    def on_message_update(self, event: Any) -> None:
        message = event.message
        if self.current is None:
            self.current = self.app.chat.assistant_start()
        self.app.chat.assistant_update(self.current, message)
        self._tool_calls(message, complete=False)

    def on_message_end(self, event: Any) -> None:
        message = event.message
        if isinstance(message, AssistantMessage):
            if self.current is None:
                self.current = self.app.chat.assistant_start()
            self.app.chat.assistant_finish(self.current, message)
            self.last = self.current
            self._tool_calls(message, complete=True)
            if message.stop_reason in ("error", "aborted"):
                self.app.chat.fail_calls_of(message)
            self.current = None
            self.app.footer.refresh()
            self.cache_notices.on_reply(message)

    def on_entry_appended(self, event: Any) -> None:
        self.cache_notices.on_entry(getattr(event, "entry", None))

    def _tool_calls(self, message: Any, *, complete: bool) -> None:
        for block in getattr(message, "content", None) or []:
            if getattr(block, "type", "") == "toolCall" and block.id:
                self.app.chat.tool_start(block.id, block.name, dict(block.arguments or {}), complete=complete)

    def on_tool_execution_start(self, event: Any) -> None:
        self.app.chat.tool_running(event.tool_call_id, event.tool_name, dict(event.args or {}))

    def on_tool_execution_update(self, event: Any) -> None:
        self.app.chat.tool_update(event.tool_call_id, event.partial_result)

    def on_tool_execution_end(self, event: Any) -> None:
        self.app.chat.tool_end(event.tool_call_id, event.result, event.is_error, event.duration_ms)

    # --- queue, model, session ---------------------------------------------------------------------
    def on_queue_update(self, event: Any) -> None:
        self.app.queue.set_queues(event.steering, event.follow_up)

    def on_thinking_level_changed(self, event: Any) -> None:
        self.app.editor.thinking_level = event.level
        self.app.footer.invalidate()

    def on_model_select(self, event: Any) -> None:
        self.app.editor.thinking_level = self.app.session.thinking_level
        self.app.footer.refresh()

    def on_session_info_changed(self, event: Any) -> None:
        self.app.footer.invalidate()
        self.app.update_title()

    def on_session_start(self, event: Any) -> None:
        app = self.app
        # A command that switched sessions has already redrawn the chat and added its notice.
        if app.chat_session_id != app.session.session_id:
            app.chat.rebuild(app.session.messages)
            app.chat_session_id = app.session.session_id
        self.app.footer.refresh()
        self.app.update_title()

    def on_bash_execution_update(self, event: Any) -> None:
        self.app.bash_output(event.delta)

    # --- compaction and retry ------------------------------------------------------------------------
    def on_compaction_start(self, event: Any) -> None:
        self.compacting = True
        if event.reason == "manual":
            label = "Compacting context... (escape to cancel)"
        elif event.reason == "overflow":
            label = "Context overflow detected, Auto-compacting... (escape to cancel)"
        else:
            label = "Auto-compacting... (escape to cancel)"
        self.app.set_working(label)

    def on_compaction_end(self, event: Any) -> None:
        self.compacting = False
        if event.result is not None:
            self.app.chat.rebuild(self.app.session.messages)
        elif event.error_message and not event.aborted:
            self.app.chat.add_error(f"Compaction failed: {event.error_message}")
        self.app.footer.refresh()
        self.app.set_working(WORKING if self.app.session.is_streaming else None)
        if self.app.queue.compaction_queue:
            from pi.app.modes.interactive.compaction_queue import send_after_compaction

            self.app.spawn(send_after_compaction(self.app))

    def on_auto_retry_start(self, event: Any) -> None:
        self.retrying = True
        self.stop_retry_countdown()
        self.retry_task = asyncio.ensure_future(self._countdown(event.attempt, event.max_attempts, event.delay_ms))

    def on_auto_retry_end(self, event: Any) -> None:
        self.retrying = False
        self.stop_retry_countdown()
        self.app.set_working(WORKING if self.app.session.is_streaming else None)
        if not event.success:
            # The retries ran out (or Esc cancelled the wait): say so, as pi does, below the error.
            final = event.final_error or "Unknown error"
            self.app.chat.add_error(f"Retry failed after {event.attempt} attempts: {final}")

    def stop_retry_countdown(self) -> None:
        if self.retry_task is not None:
            self.retry_task.cancel()
            self.retry_task = None

    async def _countdown(self, attempt: int, max_attempts: int, delay_ms: int) -> None:
        """`Retrying (1/3) in 2s... (escape to cancel)`, counting down each second."""
        loop = asyncio.get_running_loop()
        end = loop.time() + delay_ms / 1000
        while True:
            left = max(0, round(end - loop.time()))
            self.app.set_working(f"Retrying ({attempt}/{max_attempts}) in {left}s... (escape to cancel)")
            if left <= 0:
                return
            await asyncio.sleep(1.0)


__all__ = ["WORKING", "SessionBinding"]
