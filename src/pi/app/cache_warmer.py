"""The schedule of cache-warming refreshes after each real model request.

After a real request succeeds, `CacheWarmer.start` plans a refresh shortly before its cache entry
expires (`pi.app.cache_warming`). At that moment the warmer checks that the request still is the
session's context, asks whether a refresh pays (pi's estimate, which a `cache_warming_decision`
handler may override), and, if so, sends the same request with a one-token budget and no retries.
A successful refresh is recorded (a `usage` entry of kind ``cache_warm``) and the next one planned.

Phases: while the run that made the request still works (a long tool call) the next request is
certain ("streaming"); once the run settles it is a guess ("idle"). Mode ``streaming`` warms only
in the first phase, ``idle`` in both, ``off`` never. The next real request, an abort and the end of
the session call `cancel`; a ``stop`` decision ends warming until the next real request.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Literal

from msgspec import Struct
from msgspec.structs import replace

from pi.ai.abort import AbortController
from pi.ai.options import StreamOptions
from pi.ai.types import AssistantMessage, Context, Model, Usage
from pi.app.cache_warming import (
    MAX_IDLE_WARMING_AGE_MS,
    MAX_WARMING_AGE_MS,
    CacheWarmingMode,
    WarmingAction,
    WarmingEconomics,
    WarmingPhase,
    continuation_probability,
    is_replayable,
    prompt_cache_ttl_ms,
    warming_delay_ms,
    warming_economics,
)
from pi.app.cache_warming_scheduler import CancelTimer, Scheduler

log = logging.getLogger(__name__)

WarmerState = Literal["inactive", "scheduled", "warming", "stopped"]
OVERRIDE_NOTE = "extension override"
WAITING = "waiting for first request"
CONTEXT_CHANGED = "conversation context changed"
RUN_SETTLED = "agent run settled"
NO_LIFETIME = "cache lifetime unavailable"
IDLE_LIMIT = "30-minute idle safety limit reached"
RUN_LIMIT = "one-hour safety limit reached"
DISABLED = "cache warming disabled"
"""The note of a refresh sent because a decision handler overrode pi's ``stop``."""


class WarmRequest(Struct, frozen=True):
    """A real request as it was sent, and the usage of the reply it got (what its prompt was worth)."""

    model: Model
    context: Context
    options: StreamOptions
    usage: Usage


class WarmingDecision(Struct, frozen=True):
    """What a decision handler is told (never the prompt itself)."""

    mode: CacheWarmingMode
    phase: WarmingPhase
    provider: str
    model_id: str
    ttl_ms: int
    prompt_tokens: int
    warm_cost: float
    miss_cost: float
    spent_cost: float
    continuation_probability: float
    action: WarmingAction


class WarmerStatus(Struct, frozen=True):
    """Where warming stands, for a UI (`/session`) or a test.

    `economics`/`action` are pi's own decision for the next (or, for ``stopped``, the last)
    refresh; `override` says an extension chose the other action."""

    state: WarmerState
    reason: str | None = None
    next_warm_at: float | None = None
    phase: WarmingPhase | None = None
    spent_cost: float = 0.0
    economics: WarmingEconomics | None = None
    action: WarmingAction | None = None
    override: bool = False

    @property
    def continuation_probability(self) -> float:
        return continuation_probability(self.phase or "streaming")


Send = Callable[[Model, Context, StreamOptions], Awaitable[AssistantMessage]]
Record = Callable[[AssistantMessage, "str | None"], Awaitable[None]]
Decide = Callable[[WarmingDecision], Awaitable["WarmingAction | None"]]


class _Run(Struct):
    request: WarmRequest
    is_current: Callable[[], bool]
    ttl_ms: int
    delay_ms: int
    economics: WarmingEconomics
    started_at: float
    last_activity: float
    phase: WarmingPhase = "streaming"
    settled_at: float | None = None
    spent_cost: float = 0.0
    next_at: float | None = None
    cancel_timer: CancelTimer | None = None
    in_flight: AbortController | None = None

    def horizon(self) -> float:
        if self.phase == "idle" and self.settled_at is not None:
            return self.settled_at + MAX_IDLE_WARMING_AGE_MS
        return self.started_at + MAX_WARMING_AGE_MS

    def stop(self) -> None:
        if self.cancel_timer is not None:
            self.cancel_timer()
            self.cancel_timer = None
        if self.in_flight is not None:
            self.in_flight.abort()
            self.in_flight = None


class CacheWarmer:
    def __init__(
        self,
        *,
        send: Send,
        record: Record,
        mode: Callable[[], CacheWarmingMode],
        scheduler: Scheduler,
        decide: Decide | None = None,
    ) -> None:
        self._send = send
        self._record = record
        self._mode = mode
        self.scheduler = scheduler
        """The clock and timers (replace it before the first request to drive the schedule by hand)."""
        self._decide = decide
        self._run: _Run | None = None
        self._status = WarmerStatus("inactive", WAITING)
        self.on_change: Callable[[WarmerStatus], None] | None = None
        """Called whenever the status changes (a UI showing it, a test following it)."""

    @property
    def status(self) -> WarmerStatus:
        run = self._run
        if run is not None and not run.is_current():
            self._end("inactive", CONTEXT_CHANGED)
        if self._mode() == "off":
            return WarmerStatus("inactive", DISABLED, spent_cost=self._status.spent_cost)
        return self._status

    def _live(self, run: _Run, state: WarmerState) -> WarmerStatus:
        """The status of a planned or running refresh, with the decision pi would take now."""
        return WarmerStatus(
            state,
            next_warm_at=run.next_at if state == "scheduled" else None,
            phase=run.phase,
            spent_cost=run.spent_cost,
            economics=run.economics,
            action=run.economics.action(continuation_probability(run.phase)),
        )

    def _set(self, status: WarmerStatus) -> None:
        self._status = status
        if self.on_change is not None:
            self.on_change(status)

    def _end(self, state: WarmerState, reason: str, decided: tuple[WarmingAction, bool] | None = None) -> None:
        run, self._run = self._run, None
        if run is not None:
            run.stop()
        spent = run.spent_cost if run is not None else 0.0
        if decided is None or run is None:
            self._set(WarmerStatus(state, reason, spent_cost=spent))
            return
        action, override = decided
        status = WarmerStatus(
            state, reason, phase=run.phase, spent_cost=spent, economics=run.economics, action=action, override=override
        )
        self._set(status)

    def start(self, request: WarmRequest, is_current: Callable[[], bool]) -> None:
        """A real request succeeded: replace any earlier schedule with one for this request."""
        if self._run is not None:
            self._end("inactive", "replaced by a newer request")
        reason = self._unusable(request)
        if reason is not None:
            self._set(WarmerStatus("inactive", reason))
            return
        ttl = prompt_cache_ttl_ms(request.model, request.options)
        delay = warming_delay_ms(ttl) if ttl is not None else None
        economics = warming_economics(request.model, request.usage)
        assert ttl is not None and delay is not None and economics is not None  # checked by _unusable
        now = self.scheduler.now_ms()
        self._run = _Run(request, is_current, ttl, delay, economics, started_at=now, last_activity=now)
        self._plan(self._run, now + delay)

    def _unusable(self, request: WarmRequest) -> str | None:
        if self._mode() == "off":
            return DISABLED
        if not is_replayable(request.model, request.options):
            return "request cannot be replayed safely"
        ttl = prompt_cache_ttl_ms(request.model, request.options)
        if ttl is None:
            return "request disabled prompt caching" if request.options.cache_retention == "none" else NO_LIFETIME
        if warming_delay_ms(ttl) is None:
            return NO_LIFETIME
        if warming_economics(request.model, request.usage) is None:
            return "cache economics unavailable"
        return None

    def on_agent_settled(self) -> None:
        """The run ended: mode ``streaming`` stops here, mode ``idle`` goes on with idle odds."""
        run = self._run
        if run is None:
            return
        if self._mode() != "idle":
            self._end("inactive", RUN_SETTLED)
            return
        run.phase = "idle"
        run.settled_at = self.scheduler.now_ms()
        if run.next_at is not None and run.next_at > run.horizon():
            self._end("inactive", IDLE_LIMIT)
        else:
            self._set(self._live(run, "scheduled"))

    def cancel(self, reason: str = "cancelled") -> None:
        """A real request, an abort or the end of the session: no more refreshes for the last request."""
        if self._run is not None:
            self._end("inactive", reason)

    def _plan(self, run: _Run, at: float) -> None:
        if at > run.horizon():
            self._end("inactive", IDLE_LIMIT if run.phase == "idle" else RUN_LIMIT)
            return
        run.next_at = at
        run.cancel_timer = self.scheduler.call_later(at - self.scheduler.now_ms(), lambda: self._tick(run))
        self._set(self._live(run, "scheduled"))

    async def _tick(self, run: _Run) -> None:
        run.cancel_timer = None
        if run is not self._run:
            return
        mode = self._mode()
        if mode == "off" or (mode == "streaming" and run.phase == "idle"):
            self._end("inactive", DISABLED if mode == "off" else RUN_SETTLED)
            return
        if not run.is_current():
            self._end("inactive", CONTEXT_CHANGED)
            return
        if self.scheduler.now_ms() >= run.last_activity + run.ttl_ms:
            self._end("inactive", "cache refresh deadline missed")  # a refresh now would write the entry again
            return
        action, note = await self._decision(run, mode)
        if run is not self._run:
            return
        if action == "stop":
            overridden = note is not None
            reason = "stopped by extension" if overridden else "expected savings below threshold"
            self._end("stopped", reason, ("warm" if overridden else "stop", overridden))  # pi's own action
            return
        await self._refresh(run, note)

    async def _decision(self, run: _Run, mode: CacheWarmingMode) -> tuple[WarmingAction, str | None]:
        probability = continuation_probability(run.phase)
        own = run.economics.action(probability)
        if self._decide is None:
            return own, None
        request = run.request
        decision = WarmingDecision(
            mode=mode,
            phase=run.phase,
            provider=request.model.provider,
            model_id=request.model.id,
            ttl_ms=run.ttl_ms,
            prompt_tokens=run.economics.prompt_tokens,
            warm_cost=run.economics.warm_cost,
            miss_cost=run.economics.miss_cost,
            spent_cost=run.spent_cost,
            continuation_probability=probability,
            action=own,
        )
        try:
            chosen = await self._decide(decision)
        except Exception:  # a broken hook must not end the session's warming in an unclear state
            log.exception("cache warming decision failed")
            chosen = None
        final = chosen or own
        return final, (OVERRIDE_NOTE if final != own else None)

    async def _refresh(self, run: _Run, note: str | None) -> None:
        controller = AbortController()
        run.in_flight = controller
        expired = self.scheduler.call_later(
            run.last_activity + run.ttl_ms - self.scheduler.now_ms(),
            _abort_later(controller),
        )
        self._set(replace(self._live(run, "warming"), override=note is not None))
        request = run.request
        options = replace(request.options, max_tokens=1, max_retries=0, signal=controller.signal)
        try:
            reply: AssistantMessage | None = await self._send(request.model, request.context, options)
        except Exception as error:
            log.info("cache warming request failed: %s", error)
            reply = None
        finally:
            expired()
            if run.in_flight is controller:
                run.in_flight = None
        if run is not self._run:
            return
        now = self.scheduler.now_ms()
        if reply is not None and reply.stop_reason not in ("error", "aborted"):
            await self._record(reply, note)
            if run is not self._run:
                return
            run.spent_cost += reply.usage.cost.total
            run.last_activity = now
        self._plan(run, now + run.delay_ms)


def _abort_later(controller: AbortController) -> Callable[[], Awaitable[None]]:
    """A refresh still running when the entry expires would only write it again at full price."""

    async def abort() -> None:
        controller.abort()

    return abort


__all__ = ["DISABLED", "OVERRIDE_NOTE", "WAITING", "CacheWarmer", "WarmRequest", "WarmerStatus", "WarmingDecision"]
