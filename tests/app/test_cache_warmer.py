"""Cache warming: the lifetime arithmetic, pi's cost decision, and the refresh schedule on a hand-driven clock."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pi.ai.options import StreamOptions
from pi.ai.types import AssistantMessage, Context, Cost, Model, ModelCost, PromptCache, Usage
from pi.app.cache_warmer import OVERRIDE_NOTE, CacheWarmer, WarmingDecision, WarmRequest
from pi.app.cache_warming import (
    CACHE_WARMING_MINIMUM_EXPECTED_SAVINGS,
    cache_warming_mode,
    is_replayable,
    prompt_cache_ttl_ms,
    warming_delay_ms,
    warming_economics,
)
from tests.app.cache_warming_clock import ManualClock

OPUS = Model(
    id="claude-opus-4-6",
    name="Opus",
    api="anthropic-messages",
    provider="anthropic",
    base_url="http://127.0.0.1:1",
    reasoning=True,
    cost=ModelCost(input=5, output=25, cache_read=0.5, cache_write=6.25),
    prompt_cache=PromptCache(short=300, long=3600),
)
BUDGET = OPUS.model_copy(update={"id": "claude-sonnet-4-5"})
OPENAI = OPUS.model_copy(update={"api": "openai-responses", "provider": "openai", "id": "gpt-5"})


def prompt_usage(tokens: int) -> Usage:
    return Usage(cache_read=tokens, output=10, total_tokens=tokens + 10)


def reply(model: Model, stop_reason: str = "length", cost: float = 0.01) -> AssistantMessage:
    return AssistantMessage(
        content=[],
        api=model.api,
        provider=model.provider,
        model=model.id,
        usage=Usage(output=1, cache_read=100, total_tokens=101, cost=Cost(cache_read=cost, total=cost)),
        stop_reason=stop_reason,
    )


def request(model: Model = OPUS, tokens: int = 100_000, **options: Any) -> WarmRequest:
    return WarmRequest(model, Context(messages=[]), StreamOptions(**options), prompt_usage(tokens))


class Harness:
    def __init__(self, mode: str = "idle", decide: Any = None, stop_reason: str = "length", send: Any = None) -> None:
        self.clock = ManualClock()
        self.mode = mode
        self.calls: list[tuple[Model, StreamOptions]] = []
        self.recorded: list[tuple[AssistantMessage, str | None]] = []
        self.decisions: list[WarmingDecision] = []
        self.stop_reason = stop_reason
        self._decide = decide
        self.warmer = CacheWarmer(
            send=send or self.send,
            record=self.record,
            mode=lambda: self.mode,  # type: ignore[arg-type, return-value]
            scheduler=self.clock,
            decide=self.decide,
        )

    async def send(self, model: Model, context: Context, options: StreamOptions) -> AssistantMessage:
        self.calls.append((model, options))
        return reply(model, self.stop_reason)

    async def record(self, message: AssistantMessage, note: str | None) -> None:
        self.recorded.append((message, note))

    async def decide(self, decision: WarmingDecision) -> Any:
        self.decisions.append(decision)
        return self._decide(decision) if self._decide is not None else None


def current() -> bool:
    return True


def test_lifetimes_follow_the_retention_the_request_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PI_CACHE_RETENTION", raising=False)
    assert prompt_cache_ttl_ms(OPUS, StreamOptions()) == 300_000
    assert prompt_cache_ttl_ms(OPUS, StreamOptions(cache_retention="long")) == 3_600_000
    assert prompt_cache_ttl_ms(OPUS, StreamOptions(cache_retention="none")) is None
    assert prompt_cache_ttl_ms(OPUS.model_copy(update={"prompt_cache": None}), None) is None
    short_only = OPUS.model_copy(update={"prompt_cache": PromptCache(short=60)})
    assert prompt_cache_ttl_ms(short_only, StreamOptions(cache_retention="long")) is None
    monkeypatch.setenv("PI_CACHE_RETENTION", "long")
    assert prompt_cache_ttl_ms(OPUS, StreamOptions()) == 3_600_000


def test_refresh_at_ninety_percent_keeping_ten_seconds() -> None:
    assert warming_delay_ms(300_000) == 270_000
    assert warming_delay_ms(60_000) == 50_000
    assert warming_delay_ms(10_000) is None
    assert warming_delay_ms(11_000) == 1_000


def test_only_anthropic_budget_thinking_cannot_be_replayed() -> None:
    assert not is_replayable(BUDGET, StreamOptions(reasoning="medium"))
    assert is_replayable(BUDGET, StreamOptions())
    assert is_replayable(OPUS, StreamOptions(reasoning="medium"))
    assert is_replayable(OPENAI, StreamOptions(reasoning="medium"))


def test_economics_of_a_large_prefix_and_the_settings_value() -> None:
    economics = warming_economics(OPUS, prompt_usage(100_000))
    assert economics is not None
    assert economics.miss_cost == pytest.approx(0.575)
    assert economics.warm_cost == pytest.approx(0.050025)
    assert economics.action(1.0) == "warm"
    assert economics.action(0.15) == "stop"
    assert warming_economics(OPUS, Usage()) is None
    assert warming_economics(OPUS.model_copy(update={"cost": ModelCost()}), prompt_usage(1000)) is None
    assert [cache_warming_mode(v) for v in ("off", "streaming", "idle", "bogus", None)] == [
        "off",
        "streaming",
        "idle",
        "idle",
        "idle",
    ]


async def test_replays_with_a_one_token_budget_and_records_the_usage() -> None:
    h = Harness()
    signal_owner = StreamOptions(reasoning="high", session_id="s", headers={"x": "1"})
    h.warmer.start(WarmRequest(OPUS, Context(messages=[]), signal_owner, prompt_usage(100_000)), current)
    assert h.warmer.status.state == "scheduled"
    assert h.warmer.status.next_warm_at == 270_000
    await h.clock.advance(269_999)
    assert h.calls == []
    await h.clock.advance(1)
    assert len(h.calls) == 1
    model, options = h.calls[0]
    assert model is OPUS
    assert (options.max_tokens, options.max_retries) == (1, 0)
    assert (options.reasoning, options.session_id, options.headers) == ("high", "s", {"x": "1"})
    assert options.signal is not None
    assert [note for _, note in h.recorded] == [None]
    await h.clock.advance(270_000)
    assert len(h.calls) == 2
    assert h.warmer.status.spent_cost == pytest.approx(0.02)


async def test_the_decision_is_priced_from_the_last_request_and_accumulates_spending() -> None:
    h = Harness()
    h.warmer.start(request(), current)
    await h.clock.advance(540_000)
    first, second = h.decisions
    assert (first.mode, first.phase, first.provider, first.model_id) == ("idle", "streaming", "anthropic", OPUS.id)
    assert (first.ttl_ms, first.prompt_tokens, first.continuation_probability, first.action) == (
        300_000,
        100_000,
        1.0,
        "warm",
    )
    assert first.miss_cost == pytest.approx(0.575)
    assert first.warm_cost == pytest.approx(0.050025)
    assert [first.spent_cost, second.spent_cost] == [0, pytest.approx(0.01)]


async def test_a_small_prefix_is_not_worth_a_refresh() -> None:
    h = Harness()
    h.warmer.start(request(tokens=5_000), current)
    await h.clock.advance(270_000)
    decision = h.decisions[0]
    assert decision.miss_cost - decision.warm_cost < CACHE_WARMING_MINIMUM_EXPECTED_SAVINGS
    assert decision.action == "stop"
    assert h.calls == []
    assert h.warmer.status.state == "stopped"
    await h.clock.advance(600_000)
    assert h.calls == []


async def test_a_handler_overrides_and_the_refresh_says_so() -> None:
    h = Harness(decide=lambda d: "warm")
    h.warmer.start(request(tokens=5_000), current)
    await h.clock.advance(270_000)
    assert len(h.calls) == 1
    assert [note for _, note in h.recorded] == [OVERRIDE_NOTE]
    stopper = Harness(decide=lambda d: "stop")
    stopper.warmer.start(request(), current)
    await stopper.clock.advance(270_000)
    assert stopper.calls == []
    assert stopper.warmer.status.state == "stopped"


async def test_nothing_is_planned_when_off_unknown_unpriced_or_not_replayable() -> None:
    h = Harness(mode="off")
    h.warmer.start(request(), current)
    assert h.warmer.status.state == "inactive"
    h.mode = "idle"
    h.warmer.start(request(OPUS.model_copy(update={"prompt_cache": None})), current)
    assert h.warmer.status.reason == "cache lifetime unavailable"
    h.warmer.start(request(BUDGET, reasoning="high"), current)
    assert h.warmer.status.reason == "request cannot be replayed safely"
    h.warmer.start(request(tokens=0), current)
    assert h.warmer.status.reason == "cache economics unavailable"
    await h.clock.advance(600_000)
    assert h.calls == [] and h.decisions == []


async def test_a_changed_context_or_warming_turned_off_stops_at_the_next_tick() -> None:
    h = Harness()
    still = True
    h.warmer.start(request(), lambda: still)
    still = False
    assert h.warmer.status.state == "inactive"
    await h.clock.advance(270_000)
    assert h.calls == []
    h.warmer.start(request(), current)
    h.mode = "off"
    await h.clock.advance(270_000)
    assert h.calls == []
    assert h.warmer.status.state == "inactive"


async def test_streaming_warming_has_a_one_hour_horizon_and_idle_half_an_hour() -> None:
    h = Harness()
    h.warmer.start(request(tokens=400_000, cache_retention="long"), current)
    await h.clock.advance(3_600_000)
    assert len(h.calls) == 1
    assert h.warmer.status.state == "inactive"
    h.warmer.start(request(tokens=400_000), current)
    h.warmer.on_agent_settled()
    await h.clock.advance(1_800_000)
    assert len(h.calls) == 7
    assert h.warmer.status.state == "inactive"


async def test_failed_refreshes_are_not_recorded_and_warming_goes_on() -> None:
    h = Harness(stop_reason="error")
    h.warmer.start(request(), current)
    await h.clock.advance(270_000)
    assert len(h.calls) == 1
    assert h.recorded == []
    assert h.warmer.status.state == "scheduled"
    # The entry has expired by the next tick: no full-price rewrite, warming ends.
    await h.clock.advance(270_000)
    assert len(h.calls) == 1
    assert h.warmer.status.reason == "cache refresh deadline missed"


async def test_streaming_mode_stops_when_the_run_settles_and_idle_mode_lowers_the_odds() -> None:
    h = Harness(mode="streaming")
    h.warmer.start(request(tokens=400_000), current)
    h.warmer.on_agent_settled()
    await h.clock.advance(540_000)
    assert h.calls == []
    h.mode = "idle"
    h.warmer.start(request(tokens=400_000), current)
    h.warmer.on_agent_settled()
    await h.clock.advance(540_000)
    assert len(h.calls) == 2
    assert [(d.phase, d.continuation_probability) for d in h.decisions] == [("idle", 0.15), ("idle", 0.15)]
    idle = Harness()
    idle.warmer.start(request(tokens=100_000), current)
    idle.warmer.on_agent_settled()
    await idle.clock.advance(270_000)
    assert idle.decisions[0].action == "stop"
    assert idle.calls == []


async def test_a_new_request_aborts_the_refresh_in_flight_and_cancel_ends_everything() -> None:
    started = asyncio.Event()
    release = asyncio.get_running_loop().create_future()
    signals: list[Any] = []

    async def slow(model: Model, context: Context, options: StreamOptions) -> AssistantMessage:
        signals.append(options.signal)
        started.set()
        await release
        return reply(model)

    h = Harness(send=slow)
    h.warmer.start(request(), current)
    ticking = asyncio.ensure_future(h.clock.advance(270_000))
    await started.wait()
    h.warmer.start(request(), current)
    assert signals[0].aborted
    release.set_result(None)
    await ticking
    assert h.recorded == []
    h.warmer.cancel()
    await h.clock.advance(600_000)
    assert len(signals) == 1
    assert h.warmer.status.state == "inactive"


async def test_a_refresh_still_running_when_the_entry_expires_is_aborted() -> None:
    started = asyncio.Event()
    signals: list[Any] = []

    async def hanging(model: Model, context: Context, options: StreamOptions) -> AssistantMessage:
        signals.append(options.signal)
        started.set()
        aborted = asyncio.get_running_loop().create_future()
        options.signal.add_listener(lambda: aborted.set_result(None))  # type: ignore[union-attr]
        await aborted
        return reply(model, "aborted")

    h = Harness(send=hanging)
    h.warmer.start(request(), current)
    ticking = asyncio.ensure_future(h.clock.advance(270_000))
    await started.wait()
    assert 300_000 in h.clock.pending()  # the entry's end
    await h.clock.fire(300_000)
    await ticking
    assert signals[0].aborted
    assert h.recorded == []
