"""Compaction of a session: summarize older history into an entry and continue from the summary.

Every compaction, asked for by the user or started by the recovery policy, is reported the same way:
`compaction_start` then `compaction_end` with its reason (manual, threshold, overflow). The
`before_compact` hooks may cancel it or supply the summary themselves. Summary requests that fail
transiently are sent again with the ``retry`` settings, reported as ``summarization_retry_*``.

After a provider overflow the context must shrink whatever ``keepRecentTokens`` says: the overflow
compaction may keep less than usual and shorten oversized tool results (as context edits, so the
session file keeps the full output). Only a prompt that alone exceeds the window is reported as such.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import math
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pi.agent.messages import AgentMessage
from pi.ai.abort import AbortController, AbortSignal
from pi.ai.types import ToolResultMessage
from pi.app.session_events import (
    CompactionEndEvent,
    CompactionReason,
    CompactionStartEvent,
    EntryAppendedEvent,
    SummarizationRetryAttemptStartEvent,
    SummarizationRetryFinishedEvent,
    SummarizationRetryScheduledEvent,
    SummarySource,
)
from pi.app.session_hooks import BeforeCompactHookEvent, CompactionOverride
from pi.app.session_runtime import SessionCore
from pi.session.compaction_errors import CompactionError
from pi.session.entries import CompactionEntry, iso_to_ms
from pi.session.tokens import (
    CHARS_PER_TOKEN,
    CompactionSettings,
    calculate_context_tokens,
    estimate_context_tokens,
    should_compact,
)

if TYPE_CHECKING:  # the summarizer and the cut-point search load with the first compaction
    from pi.session.branch_summary import BranchEntries, BranchSummaryResult
    from pi.session.compaction import CompactionPreparation
    from pi.session.summarize import RetryAttempt, SummaryRetry

_log = logging.getLogger(__name__)

DEFAULT_MAX_AGENT_DELAY_MS = 60000
_MAX_SAFE_INTEGER = 2**53 - 1


class PromptTooLargeForWindowError(CompactionError):
    """The latest prompt alone exceeds the model's window: no compaction can help; the message says so."""


def max_agent_delay_ms(retry: Any) -> int:
    """``retry.maxAgentDelayMs``: the cap on each automatic backoff (0 = no cap)."""
    value = getattr(retry, "max_agent_delay_ms", None)
    if value is None:
        extra = getattr(retry, "model_extra", None) or {}
        value = extra.get("maxAgentDelayMs")
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return DEFAULT_MAX_AGENT_DELAY_MS


def backoff_ms(retry: Any, attempt: int) -> int:
    """``baseDelayMs · 2^(attempt−1)``, capped by ``retry.maxAgentDelayMs``."""
    delay: int = retry.base_delay_ms * (1 << max(attempt - 1, 0))
    cap = max_agent_delay_ms(retry)
    return min(delay, cap) if cap > 0 else delay


class Compactor:
    def __init__(self, core: SessionCore, require_model: Any) -> None:
        self.core = core
        self._require_model = require_model
        self._controller: AbortController | None = None
        self.enabled = core.settings.compaction.enabled
        """Automatic compaction (threshold, overflow and length recovery); manual compaction always works."""
        self._compacted_run: AbortSignal | None = None
        """The signal of the run a mid-run compaction happened in: its own copy of the history is stale."""
        # Every request of a run passes through here first, which is where the mid-run check belongs.
        self._inner_transform = core.agent.transform_context
        core.agent.transform_context = self._before_request

    def budget(self) -> CompactionSettings:
        """The ``compaction`` settings for the current model: ``compaction.modelOverrides["provider/id"]``
        may set its own ``reserveTokens`` and ``keepRecentTokens``, each falling back on its own. An
        invalid value is reported (a warning naming it) and the global value used instead, so a typo
        in settings never stops a run."""
        settings = self.core.settings.compaction
        model = self.core.model
        overrides = (self.core.settings.get("compaction") or {}).get("modelOverrides")
        if model is None or not isinstance(overrides, dict):
            return settings
        override = overrides.get(f"{model.provider}/{model.id}")
        if not isinstance(override, dict):
            return settings
        values = {"reserveTokens": settings.reserve_tokens, "keepRecentTokens": settings.keep_recent_tokens}
        for key in values:
            value = override.get(key)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _MAX_SAFE_INTEGER:
                _log.warning(
                    'Invalid compaction.modelOverrides["%s/%s"].%s: expected a non-negative integer, got %s; using %s',
                    model.provider,
                    model.id,
                    key,
                    json.dumps(value),
                    values[key],
                )
                continue
            values[key] = value
        return CompactionSettings(settings.enabled, values["reserveTokens"], values["keepRecentTokens"])

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
        result = await self._reported(reason, will_retry, lambda: self._run(custom_instructions, reason, will_retry))
        assert result is not None
        return result

    async def _reported(
        self,
        reason: CompactionReason,
        will_retry: bool,
        work: Callable[[], Awaitable[dict[str, Any] | None]],
    ) -> dict[str, Any] | None:
        """Run `work` as one compaction: busy throughout, framed by `compaction_start`/`compaction_end`."""
        from pi.session.compaction_errors import CompactionCancelledError

        core = self.core
        # A compaction makes the session busy from its first event to its last, so a prompt queues behind
        # it instead of running on the history that is being replaced.
        core.run.compacting = True
        core.run.enter()
        try:
            await core.events.emit(CompactionStartEvent(reason=reason))
            result = await work()
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
        try:
            await self.compact(None, reason, will_retry)
        except CompactionError:
            return False
        return True

    async def overflow_compact(self, will_retry: bool) -> CompactionError | None:
        """Make the context fit after the provider reported an overflow; None when it now should.

        Otherwise returns why not (also reported as `compaction_end`): nothing could be cut, the
        summary failed, or the prompt alone exceeds the window (`PromptTooLargeError`'s message).
        """
        try:
            await self._reported("overflow", will_retry, lambda: self._run_overflow(will_retry))
        except CompactionError as exc:
            return exc
        return None

    async def report_failure(self, reason: CompactionReason, message: str) -> None:
        await self.core.events.emit(CompactionStartEvent(reason=reason))
        await self.core.events.emit(CompactionEndEvent(reason, None, False, False, error_message=message))

    async def _before_request(self, messages: list[AgentMessage], signal: AbortSignal | None) -> list[AgentMessage]:
        """The mid-run threshold check: after a tool batch's results, before the run's next request.

        A run keeps its own copy of the history; once a compaction happened during it, its requests are
        built from the session (summary, kept part, and everything appended since) instead.
        """
        run = self.core.agent.signal
        if messages and isinstance(messages[-1], ToolResultMessage) and await self._mid_run_compaction(messages):
            self._compacted_run = run
        if run is not None and self._compacted_run is run:
            messages = list(self.core.manager.build_session_context().messages)
        if self._inner_transform is None:
            return messages
        transformed = self._inner_transform(messages, signal)
        if inspect.isawaitable(transformed):
            return await transformed
        return transformed

    async def _mid_run_compaction(self, messages: list[AgentMessage]) -> bool:
        core = self.core
        model = core.model
        if not self.enabled or model is None or core.run.aborted:
            return False
        view = core.agent.state.messages
        tokens = estimate_context_tokens(view if view else messages).tokens
        if not should_compact(tokens, model.context_window, self.budget()):
            return False
        return await self.auto_compact("threshold", will_retry=False)

    def _overhead_tokens(self) -> int:
        """What every request carries besides the messages: the system prompt and the tool schemas."""
        state = self.core.agent.state
        chars = len(state.system_prompt)
        for tool in state.tools:
            definition = tool.to_tool()
            chars += len(definition.name) + len(definition.description) + len(json.dumps(definition.parameters))
        return math.ceil(chars / CHARS_PER_TOKEN)

    async def _run_overflow(self, will_retry: bool) -> dict[str, Any] | None:
        from pi.session.compaction import NOTHING_TO_COMPACT, NothingToCompactError
        from pi.session.overflow import PromptTooLargeError, prepare_overflow_compaction

        core = self.core
        model = self._require_model()
        try:
            plan = prepare_overflow_compaction(
                core.manager.get_branch(), self.budget(), model.context_window, self._overhead_tokens()
            )
        except PromptTooLargeError as exc:
            raise PromptTooLargeForWindowError(str(exc)) from exc
        if plan.preparation is None and not plan.shrinks:
            raise NothingToCompactError(NOTHING_TO_COMPACT)
        for shrink in plan.shrinks:
            entry_id = core.manager.append_context_edit(shrink.target_id, shrink.replacement)
            await core.events.emit(EntryAppendedEvent(core.manager.get_entry(entry_id)))
        if plan.preparation is None:
            core.agent.replace_messages(core.manager.build_session_context().messages)
            return None
        return await self._run(None, "overflow", will_retry, plan.preparation)

    def _summary_retry(self, reason: CompactionReason | None, source: SummarySource = "compaction") -> SummaryRetry:
        """The ``retry`` settings for summary requests, reporting each attempt as ``summarization_retry_*``."""
        from pi.session.summarize import SummaryRetry

        retry = self.core.settings.retry
        events = self.core.events

        def scheduled(attempt: RetryAttempt) -> None:
            events.emit_nowait(
                SummarizationRetryScheduledEvent(
                    attempt.attempt, attempt.max_attempts, attempt.delay_ms, attempt.error_message
                )
            )

        def finished(success: bool, attempts: int, error: str | None) -> None:
            events.emit_nowait(SummarizationRetryFinishedEvent())

        async def wait_then_start(seconds: float) -> None:
            # Only reached when the wait is not cut short by an abort: then the next attempt starts.
            await asyncio.sleep(seconds)
            await events.emit(SummarizationRetryAttemptStartEvent(source, reason))

        return SummaryRetry(
            enabled=retry.enabled,
            max_retries=retry.max_retries,
            base_delay_ms=retry.base_delay_ms,
            max_delay_ms=max_agent_delay_ms(retry),
            on_retry_start=scheduled,
            on_retry_end=finished,
            sleep=wait_then_start,
        )

    async def summarize_branch(
        self, branch: BranchEntries, custom_instructions: str | None, replace_instructions: bool
    ) -> BranchSummaryResult:
        """Summarize the branch being left when the tree is navigated with a summary.

        Sent like a compaction summary (the session's thinking level, no tools, the ``retry``
        settings reported as ``summarization_retry_*`` with source ``branchSummary``); the session
        counts as compacting meanwhile, and `abort()` cancels it.
        """
        from pi.session.branch_summary import DEFAULT_BRANCH_RESERVE_TOKENS, generate_branch_summary

        core = self.core
        model = core.model
        if model is None:
            raise CompactionError("No model available for summarization")
        configured = (core.settings.get("branchSummary") or {}).get("reserveTokens")
        reserve = configured if isinstance(configured, int) and configured >= 0 else DEFAULT_BRANCH_RESERVE_TOKENS
        controller = AbortController()
        self._controller = controller
        core.run.compacting = True
        core.run.enter()
        try:
            return await generate_branch_summary(
                branch.entries,
                model,
                core.requests.api_key(model.provider),
                core.requests.complete_fn(core.agent.stream_fn),
                signal=controller.signal,
                custom_instructions=custom_instructions,
                replace_instructions=replace_instructions,
                reserve_tokens=reserve,
                thinking_level=core.agent.state.thinking_level,
                retry=self._summary_retry(None, "branchSummary"),
                edits=branch.edits,
            )
        finally:
            self._controller = None
            core.run.compacting = False
            core.run.leave()

    async def _run(
        self,
        custom_instructions: str | None,
        reason: CompactionReason,
        will_retry: bool,
        preparation: CompactionPreparation | None = None,
    ) -> dict[str, Any]:
        from pi.session.compaction import CompactionCancelledError, require_compaction
        from pi.session.compaction import compact as run_compaction

        core = self.core
        model = self._require_model()
        branch = core.manager.get_branch()
        if preparation is None:
            preparation = require_compaction(branch, self.budget())
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
                    retry=self._summary_retry(reason),
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
        if should_compact(tokens, model.context_window, self.budget()):
            await self.auto_compact("threshold", will_retry=False)

    def _latest_compaction_ms(self) -> int:
        for entry in reversed(self.core.manager.get_branch()):
            if isinstance(entry, CompactionEntry):
                return iso_to_ms(entry.timestamp)
        return 0


__all__ = [
    "DEFAULT_MAX_AGENT_DELAY_MS",
    "Compactor",
    "PromptTooLargeForWindowError",
    "backoff_ms",
    "max_agent_delay_ms",
]
