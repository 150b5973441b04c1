"""Cache warming in a coding session: which requests count, what a refresh records, who may veto it.

`attach_cache_warming(session)` puts a `CacheWarmer` behind the session's model requests:

- every request a run makes (not summaries, not the refreshes themselves) ends the schedule of
  the one before; once its reply arrived without error, warming is planned for it;
- a refresh is sent straight to the request function underneath (with the request's own key,
  headers, payload hooks and session id), and recorded as a ``usage`` entry of kind
  ``cache_warm`` (counted in the session's totals, never part of the context), announced with
  `entry_appended`;
- the mode is the global `cacheWarming` setting (a project cannot turn it on), read each time;
- extensions see `cache_warming_decision` before each refresh; the last handler's action wins;
- an aborted run and `close()` (the session ends) stop warming.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from pi.agent.events import MessageEndEvent
from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.options import StreamOptions
from pi.ai.types import AssistantMessage, Context, Model
from pi.app.cache_warmer import CacheWarmer, WarmingDecision, WarmRequest
from pi.app.cache_warming import CacheWarmingMode, WarmingAction, cache_warming_mode
from pi.app.cache_warming_scheduler import LoopScheduler, Scheduler
from pi.app.session_events import AgentSettledEvent, EntryAppendedEvent

if TYPE_CHECKING:
    from pi.app.agent_session import AgentSession

log = logging.getLogger(__name__)

USAGE_KIND = "cache_warm"


class SessionCacheWarming:
    """The warmer of one session, and the glue between it and the session's requests and events."""

    def __init__(self, session: AgentSession, scheduler: Scheduler | None = None) -> None:
        self._session = session
        agent = session.agent
        self._inner: Any = agent.stream_fn
        agent.stream_fn = self._capture
        self._sent: tuple[Model, Context, StreamOptions] | None = None
        self.warmer = CacheWarmer(
            send=self._send,
            record=self._record,
            mode=self.mode,
            scheduler=scheduler or LoopScheduler(),
            decide=self._decide,
        )
        self._unsubscribe = session.subscribe(self._on_event, awaited=True)

    def mode(self) -> CacheWarmingMode:
        """The global `cacheWarming` setting (project settings never choose it)."""
        return cache_warming_mode(self._session.settings.global_data.get("cacheWarming"))

    def close(self) -> None:
        """The session ends: no refresh after this."""
        self.warmer.cancel("session ended")
        self._unsubscribe()

    # -- requests -----------------------------------------------------------------------------------

    def _capture(self, model: Model, context: Context, options: StreamOptions) -> Any:
        """Every request passes here; those of a run end the earlier schedule and are remembered."""
        signal = self._session.agent.signal
        if signal is not None and options.signal is signal:
            self.warmer.cancel("new request")
            self._sent = (model, context, options)
        return self._underneath()(model, context, options)

    def _underneath(self) -> Any:
        if self._inner is not None:
            return self._inner
        from pi.ai.stream import stream_simple

        return stream_simple

    async def _send(self, model: Model, context: Context, options: StreamOptions) -> AssistantMessage:
        extra = {k: v for k, v in options.extra.items() if k != "on_response"}  # not a response of the run's
        events = self._underneath()(model, context, _with_extra(options, extra))
        if not isinstance(events, AssistantMessageEventStream):
            events = await events
        reply: AssistantMessage = await events.result()
        return reply

    async def _record(self, reply: AssistantMessage, note: str | None) -> None:
        session = self._session
        manager = session.session
        entry_id = manager.append_usage(USAGE_KIND, reply.provider, reply.model, reply.usage, note)
        await session.emit_session_event(EntryAppendedEvent(manager.get_entry(entry_id)))

    async def _decide(self, decision: WarmingDecision) -> WarmingAction | None:
        runner = self._session.extension_runner
        if runner is None or not runner.has_handlers("cache_warming_decision"):
            return None
        from pi.app.extensions.events import CacheWarmingDecisionEvent

        event = CacheWarmingDecisionEvent(
            warm_cost=decision.warm_cost,
            miss_cost=decision.miss_cost,
            continuation_probability=decision.continuation_probability,
            action=decision.action,
            mode=decision.mode,
            phase=decision.phase,
            model={"provider": decision.provider, "id": decision.model_id},
            ttl_ms=decision.ttl_ms,
            prompt_tokens=decision.prompt_tokens,
            spent_cost=decision.spent_cost,
        )
        action = await runner.emit_cache_warming_decision(event)
        return "warm" if action == "warm" else "stop" if action == "stop" else None

    # -- events -------------------------------------------------------------------------------------

    async def _on_event(self, event: Any) -> None:
        if isinstance(event, MessageEndEvent):
            self._reply_ended(event.message)
        elif isinstance(event, AgentSettledEvent):
            if event.aborted:
                self.warmer.cancel("aborted")
            else:
                self.warmer.on_agent_settled()

    def _reply_ended(self, message: Any) -> None:
        if not isinstance(message, AssistantMessage):
            return  # the prompt before the request, tool results after the reply
        sent, self._sent = self._sent, None
        if sent is None:
            return
        if message.stop_reason in ("error", "aborted"):
            return
        model, context, options = sent
        self.warmer.start(WarmRequest(model, context, options, message.usage), self._still_current(model))

    def _still_current(self, model: Model) -> Any:
        """Whether the session still continues from the request: same file, same model, same history."""
        session = self._session
        messages = session.agent.state.messages
        anchor = len(messages)
        last = messages[-1] if messages else None
        session_id = session.session_id

        def is_current() -> bool:
            now = session.agent.state.messages
            current = session.model
            return (
                session.session_id == session_id
                and current is not None
                and (current.provider, current.id) == (model.provider, model.id)
                and len(now) >= anchor
                and (anchor == 0 or now[anchor - 1] is last)
            )

        return is_current


def _with_extra(options: StreamOptions, extra: dict[str, Any]) -> StreamOptions:
    from msgspec.structs import replace

    return replace(options, extra=extra)


def attach_cache_warming(session: AgentSession, scheduler: Scheduler | None = None) -> SessionCacheWarming:
    """Warm `session`'s prompt cache as its `cacheWarming` setting asks (see the module docstring)."""
    return SessionCacheWarming(session, scheduler)


__all__ = ["USAGE_KIND", "SessionCacheWarming", "attach_cache_warming"]
