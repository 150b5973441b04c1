"""Compaction of a session: summarize older history into an entry and continue from the summary.

Every compaction, asked for by the user or started by the recovery policy, is reported the same way:
`compaction_start` then `compaction_end` with its reason (manual, threshold, overflow). The
`before_compact` hooks may cancel it or supply the summary themselves.
"""

from __future__ import annotations

from typing import Any

from pi.ai.abort import AbortController
from pi.app.session_events import CompactionEndEvent, CompactionReason, CompactionStartEvent
from pi.app.session_hooks import BeforeCompactHookEvent, CompactionOverride
from pi.app.session_runtime import SessionCore
from pi.session.entries import CompactionEntry, iso_to_ms
from pi.session.tokens import calculate_context_tokens, estimate_context_tokens, should_compact


class Compactor:
    def __init__(self, core: SessionCore, require_model: Any) -> None:
        self.core = core
        self._require_model = require_model
        self._controller: AbortController | None = None
        self.enabled = core.settings.compaction.enabled
        """Automatic compaction (threshold and overflow); manual compaction always works."""

    @property
    def is_compacting(self) -> bool:
        return self.core.run.compacting

    def abort(self) -> None:
        if self._controller is not None:
            self._controller.abort()

    async def compact(
        self, custom_instructions: str | None = None, reason: CompactionReason = "manual", will_retry: bool = False
    ) -> dict[str, Any]:
        """Compact now; returns pi's CompactionResult JSON.

        Raises CompactionError when there is nothing to compact or the summary fails, and
        CompactionCancelledError when aborted or cancelled by a hook; the session is then unchanged.
        Both outcomes are also reported as `compaction_end`.
        """
        from pi.session.compaction import CompactionCancelledError, CompactionError

        core = self.core
        # A compaction makes the session busy from its first event to its last, so a prompt queues behind
        # it instead of running on the history that is being replaced.
        core.run.compacting = True
        core.run.enter()
        try:
            await core.events.emit(CompactionStartEvent(reason=reason))
            result = await self._run(custom_instructions, reason, will_retry)
        except CompactionCancelledError:
            await core.events.emit(CompactionEndEvent(reason, None, aborted=True, will_retry=False))
            raise
        except CompactionError as exc:
            await core.events.emit(CompactionEndEvent(reason, None, False, False, error_message=str(exc)))
            raise
        except Exception as exc:
            await core.events.emit(CompactionEndEvent(reason, None, False, False, error_message=str(exc)))
            raise CompactionError(str(exc) or type(exc).__name__) from exc
        finally:
            core.run.compacting = False
            core.run.leave()
        await core.events.emit(CompactionEndEvent(reason, result, aborted=False, will_retry=will_retry))
        return result

    async def auto_compact(self, reason: CompactionReason, will_retry: bool) -> bool:
        """Compact for the recovery policy; False (reported, never raised) when it did not happen."""
        from pi.session.compaction import CompactionError

        try:
            await self.compact(None, reason, will_retry)
        except CompactionError:
            return False
        return True

    async def report_failure(self, reason: CompactionReason, message: str) -> None:
        await self.core.events.emit(CompactionStartEvent(reason=reason))
        await self.core.events.emit(CompactionEndEvent(reason, None, False, False, error_message=message))

    async def _run(self, custom_instructions: str | None, reason: CompactionReason, will_retry: bool) -> dict[str, Any]:
        from pi.session.compaction import CompactionCancelledError, require_compaction
        from pi.session.compaction import compact as run_compaction

        core = self.core
        model = self._require_model()
        branch = core.manager.get_branch()
        preparation = require_compaction(branch, core.settings.compaction)
        controller = AbortController()
        self._controller = controller
        try:
            decision = await core.chains.before_compact(
                BeforeCompactHookEvent(
                    preparation, list(branch), custom_instructions, reason, will_retry, controller.signal
                )
            )
            if decision is not None and decision.cancel:
                raise CompactionCancelledError()
            override = decision.compaction if decision is not None else None
            if override is None:
                result = await run_compaction(
                    preparation,
                    model,
                    core.requests.api_key(model.provider),
                    core.requests.complete_fn(core.agent.stream_fn),
                    custom_instructions,
                    controller.signal,
                    thinking_level=core.agent.state.thinking_level,
                    session_id=core.manager.get_session_id(),
                )
                override = CompactionOverride(
                    result.summary, result.first_kept_entry_id, result.tokens_before, result.details
                )
                usage = result.usage
                from_hook = False
            else:
                usage = None
                from_hook = True
        finally:
            self._controller = None
        if controller.signal.aborted:
            raise CompactionCancelledError()
        core.manager.append_compaction(
            override.summary,
            override.first_kept_entry_id,
            override.tokens_before,
            override.details,
            from_hook,
            usage=usage,
        )
        core.agent.replace_messages(core.manager.build_session_context().messages)
        out: dict[str, Any] = {
            "summary": override.summary,
            "firstKeptEntryId": override.first_kept_entry_id,
            "tokensBefore": override.tokens_before,
            "estimatedTokensAfter": estimate_context_tokens(core.agent.state.messages).tokens,
        }
        if override.details:
            out["details"] = override.details
        if usage is not None:
            out["usage"] = usage.to_json_dict()
        return out

    async def check_threshold(self, before_prompt: bool = False) -> None:
        """Compact when the context is over the threshold: after each run, and before a new prompt.

        After a run an aborted reply is skipped; before a prompt it counts (its usage is the best
        measure of the context the prompt would be added to). After an error the size is estimated
        from the last usable reply. A reply older than the latest compaction measured the context
        before it and is ignored.
        """
        from pi.ai.overflow import is_context_overflow

        core = self.core
        model = core.model
        last = core.last_assistant()
        if not self.enabled or model is None or last is None:
            return
        if last.stop_reason == "aborted" and not before_prompt:
            return
        if last.timestamp <= self._latest_compaction_ms():
            return
        if last.stop_reason in ("error", "stop") and is_context_overflow(last, model.context_window):
            return  # the overflow path has dealt with it (compacted and retried, or reported why not)
        messages = core.agent.state.messages
        if last.stop_reason in ("error", "aborted"):
            estimate = estimate_context_tokens(messages)
            if last.stop_reason == "aborted" and calculate_context_tokens(last.usage):
                tokens = calculate_context_tokens(last.usage)
            elif estimate.last_usage_index is None:
                return
            else:
                tokens = estimate.tokens
        else:
            tokens = estimate_context_tokens(messages).tokens
        if should_compact(tokens, model.context_window, core.settings.compaction):
            await self.auto_compact("threshold", will_retry=False)

    def _latest_compaction_ms(self) -> int:
        for entry in reversed(self.core.manager.get_branch()):
            if isinstance(entry, CompactionEntry):
                return iso_to_ms(entry.timestamp)
        return 0


__all__ = ["Compactor"]
