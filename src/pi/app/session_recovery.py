"""What the session does after a run ends badly: retry a transient error, or compact and retry.

The decision is made once, from what the run reported when it ended (its final assistant message
and whether it was aborted), at `agent_end`: that is when clients learn `willRetry`, and the same
decision is carried out after the run. Nothing is inferred from the transcript afterwards, so an
abort during a tool call, whose last assistant message looks like a normal tool-use reply, is never
taken for a run to continue.

- A transient error (pi-ai's classifier; quota and billing errors never count) is retried with
  exponential backoff capped by ``retry.maxAgentDelayMs``.
- A context overflow, or a reply cut at the output limit before the model's ``maxTokens`` was
  reached, is compacted and retried once. A completed (silent) overflow is compacted, not retried.
  With ``compaction.enabled`` false neither happens.
- Before another attempt, the failed reply is recorded as omitted (a ``context_edit`` entry with
  ``replacement: null``, announced by ``entry_appended``): the file keeps it, the context does not.
"""

from __future__ import annotations

from typing import Literal

from msgspec import Struct

from pi.agent.events import AgentEndEvent
from pi.ai.abort import AbortController
from pi.ai.overflow import is_context_overflow
from pi.ai.types import AssistantMessage
from pi.app.session_compaction import Compactor, PromptTooLargeForWindowError, backoff_ms
from pi.app.session_events import AutoRetryEndEvent, AutoRetryStartEvent, EntryAppendedEvent
from pi.app.session_runtime import SessionCore
from pi.session.entries import MessageEntry

OVERFLOW_RECOVERY_FAILED = (
    "Context overflow recovery failed after one compact-and-retry attempt. "
    "Try reducing context or switching to a larger-context model."
)
LENGTH_RECOVERY_FAILED = "Truncated response recovery failed after one compact-and-retry attempt."

PlanKind = Literal["retry", "overflow", "length", "compact_only", "overflow_failed", "length_failed"]


def is_retryable_error(message: AssistantMessage, context_window: int | None = None) -> bool:
    """A transient provider failure worth another attempt (never a context overflow)."""
    from pi.ai.retry_classifier import is_retryable_assistant_error

    return is_retryable_assistant_error(message, context_window)


class RecoveryPlan(Struct, frozen=True):
    kind: PlanKind
    message: AssistantMessage

    @property
    def will_retry(self) -> bool:
        return self.kind in ("retry", "overflow", "length")


class Recovery:
    def __init__(self, core: SessionCore, compactor: Compactor) -> None:
        self.core = core
        self.compactor = compactor
        self.enabled = core.settings.retry.enabled
        """Automatic retry of transient errors."""
        self.attempt = 0
        self._overflow_attempted = False
        self._plan: RecoveryPlan | None = None
        self._controller: AbortController | None = None

    def start_sequence(self) -> None:
        """A new prompt: attempts count from zero again."""
        self.attempt = 0
        self._overflow_attempted = False
        self._plan = None

    def abort(self) -> None:
        self._plan = None
        if self._controller is not None:
            self._controller.abort()

    def on_agent_end(self, event: AgentEndEvent, aborted: bool) -> bool:
        """Decide what follows this run; True when a retry (or compact-and-retry) will."""
        final = next((m for m in reversed(event.messages) if isinstance(m, AssistantMessage)), None)
        self._plan = None if aborted or final is None else self._decide(final)
        return self._plan is not None and self._plan.will_retry

    def _decide(self, final: AssistantMessage) -> RecoveryPlan | None:
        core = self.core
        model = core.model
        if model is None or final.stop_reason not in ("error", "stop", "length"):
            return None
        same_model = final.provider == model.provider and final.model == model.id
        if final.stop_reason != "length" and same_model and is_context_overflow(final, model.context_window):
            if not self.compactor.enabled:
                return None
            if final.stop_reason == "stop":
                # The server cut the input silently but answered: compact for the next prompt, no retry.
                return RecoveryPlan("compact_only", final)
            return RecoveryPlan("overflow_failed" if self._overflow_attempted else "overflow", final)
        if final.stop_reason == "length":
            recoverable = same_model and model.max_tokens > 0 and final.usage.output < model.max_tokens
            if not recoverable or not self.compactor.enabled:
                return None
            return RecoveryPlan("length_failed" if self._overflow_attempted else "length", final)
        retry = core.settings.retry
        if self.enabled and self.attempt < retry.max_retries and is_retryable_error(final, model.context_window):
            return RecoveryPlan("retry", final)
        return None

    async def recover(self) -> bool:
        """Carry out the plan of the run that just ended; True when another run was made."""
        plan, self._plan = self._plan, None
        if plan is None or self.core.run.aborted:
            return False
        if plan.kind == "overflow_failed":
            await self.compactor.report_failure("overflow", OVERFLOW_RECOVERY_FAILED)
            return False
        if plan.kind == "length_failed":
            await self.compactor.report_failure("overflow", LENGTH_RECOVERY_FAILED)
            return False
        if plan.kind == "compact_only":
            await self.compactor.auto_compact("overflow", will_retry=False)
            return False
        if plan.kind in ("overflow", "length"):
            return await self._compact_and_retry(plan)
        return await self._retry(plan.message)

    async def _compact_and_retry(self, plan: RecoveryPlan) -> bool:
        self._overflow_attempted = True
        failed = plan.message
        # Omitted first, so the compaction measures and summarizes the context without it.
        self._omit(failed)
        if plan.kind == "overflow":
            error = await self.compactor.overflow_compact(will_retry=True)
            if error is not None:
                self._explain(failed, error)
                return False  # the error stays the last message, so the caller reports it
        elif not await self.compactor.auto_compact("overflow", will_retry=True):
            return False
        messages = self.core.agent.state.messages
        if messages and messages[-1] is failed:
            self.core.agent.replace_messages(messages[:-1])
        await self.core.agent.continue_run()
        return True

    def _explain(self, failed: AssistantMessage, error: Exception) -> None:
        """A prompt too large for the window: the reply in memory says so, in place of the provider's text."""
        if not isinstance(error, PromptTooLargeForWindowError):
            return
        messages = list(self.core.agent.state.messages)
        if messages and messages[-1] is failed:
            messages[-1] = failed.model_copy(update={"error_message": str(error)})
            self.core.agent.replace_messages(messages)

    def _omit(self, message: AssistantMessage) -> None:
        """Record the failed reply as omitted (``context_edit`` with ``replacement: null``) and announce it."""
        manager = self.core.manager
        for entry in reversed(manager.get_branch()):
            if not isinstance(entry, MessageEntry) or entry.role != "assistant":
                continue
            if entry.parsed is message or entry.message_json.get("timestamp") == message.timestamp:
                edit_id = manager.append_context_edit(entry.id, None)
                self.core.events.emit_nowait(EntryAppendedEvent(manager.get_entry(edit_id)))
            return

    def _drop_from_context(self, message: AssistantMessage) -> None:
        """The failed reply leaves the context (and is omitted in the file), so the next request is clean."""
        self._omit(message)
        messages = list(self.core.agent.state.messages)
        if messages and messages[-1] is message:
            messages.pop()
            self.core.agent.replace_messages(messages)

    async def _retry(self, failed: AssistantMessage) -> bool:
        core = self.core
        retry = core.settings.retry
        self.attempt += 1
        delay_ms = backoff_ms(retry, self.attempt)
        await core.events.emit(
            AutoRetryStartEvent(self.attempt, retry.max_retries, delay_ms, failed.error_message or "")
        )
        self._drop_from_context(failed)
        from pi.ai.http import abortable_sleep

        controller = AbortController()
        self._controller = controller
        try:
            completed = await abortable_sleep(delay_ms / 1000, controller.signal)
        finally:
            self._controller = None
        if not completed or core.run.aborted:
            await core.events.emit(
                AutoRetryEndEvent(success=False, attempt=self.attempt, final_error="Retry cancelled")
            )
            self.attempt = 0
            return False
        await core.agent.continue_run()
        return True

    async def on_reply_end(self, message: AssistantMessage) -> None:
        """An assistant reply was recorded: one that did not fail ends the retries at once.

        `auto_retry_end` then comes right after the reply's `message_end`, before its turn ends and
        before any tool of the reply runs, and the count starts again: a later failure in the same
        prompt (after a tool call) gets every attempt again, as in pi. An aborted reply is left to
        `end_sequence`, which reports the retries as failed rather than successful.
        """
        if self.attempt and message.stop_reason not in ("error", "aborted"):
            await self.core.events.emit(AutoRetryEndEvent(success=True, attempt=self.attempt))
            self.attempt = 0

    async def end_sequence(self) -> None:
        """After the last attempt: report how the retries ended, unless a successful reply already did."""
        if not self.attempt:
            return
        outcome = self.core.agent.last_run
        final = outcome.final_message if outcome is not None else None
        failed = outcome is None or outcome.kind != "completed"
        error = final.error_message if final is not None and failed else None
        await self.core.events.emit(AutoRetryEndEvent(success=not failed, attempt=self.attempt, final_error=error))
        self.attempt = 0


__all__ = ["LENGTH_RECOVERY_FAILED", "OVERFLOW_RECOVERY_FAILED", "Recovery", "RecoveryPlan", "is_retryable_error"]
