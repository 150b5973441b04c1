"""The `/session` words for cache warming's state, and the notices `showCacheMissNotices` shows."""

from __future__ import annotations

from typing import Any

from pi.app.cache_warmer import WarmerStatus
from pi.app.cache_warming_notices import cache_miss_text, cache_warmed_text, detect_cache_miss, stored_notices
from pi.app.cache_warming_status import price_lines, status_line
from pi.session.entries import CompactionEntry, MessageEntry, UsageEntry
from pi.session.usage_totals import usage_entry_totals
from tests.app.test_cache_warmer import Harness, current, request


async def test_a_planned_refresh_reads_as_a_countdown_with_the_odds_and_savings() -> None:
    h = Harness()
    h.warmer.start(request(tokens=100_000), current)
    status = h.warmer.status
    assert status_line(status, h.clock.now_ms()) == (
        "Decision in 4m 30s (100% continuation probability while agent is running, "
        "expected savings $0.525 >= $0.050 -> warm)"
    )
    assert price_lines(status) == ["Cache miss penalty: $0.575", "Refresh cost: $0.050"]
    await h.clock.advance(200_000)
    assert status_line(h.warmer.status, h.clock.now_ms()).startswith("Decision in 1m 10s (")
    h.warmer.on_agent_settled()
    assert status_line(h.warmer.status, h.clock.now_ms()) == (
        "Decision in 1m 10s (15% continuation probability, expected savings $0.036 < $0.050 -> stop)"
    )
    await h.clock.advance(70_000)
    assert h.calls == []
    assert status_line(h.warmer.status, h.clock.now_ms()) == (
        "Stopped (15% continuation probability, expected savings $0.036 < $0.050 -> stop)"
    )


async def test_an_override_and_a_refresh_in_flight_say_so() -> None:
    h = Harness(decide=lambda d: "warm")
    h.warmer.start(request(tokens=100_000), current)
    h.warmer.on_agent_settled()
    seen: list[str] = []
    h.warmer.on_change = lambda s: seen.append(status_line(s, h.clock.now_ms()))
    await h.clock.advance(270_000)
    assert len(h.calls) == 1
    assert seen[0] == (
        "Warming cache (extension override, 15% continuation probability, expected savings $0.036 < $0.050)"
    )
    assert seen[-1].startswith("Decision in 4m 30s (15% continuation probability")


async def test_before_anything_is_decided_the_reason_is_shown() -> None:
    h = Harness()
    assert status_line(h.warmer.status, 0) == "Inactive (waiting for first request)"
    h.mode = "off"
    assert status_line(h.warmer.status, 0) == "Inactive (cache warming disabled)"
    assert price_lines(h.warmer.status) == []
    assert status_line(WarmerStatus("inactive", None), 0) == "Inactive (unknown reason)"


def _assistant(entry_id: str, *, fresh: int, read: int, write: int, model: str = "m", at: int = 0) -> MessageEntry:
    usage: dict[str, Any] = {
        "input": fresh,
        "output": 10,
        "cacheRead": read,
        "cacheWrite": write,
        "cost": {"input": fresh * 3e-6, "cacheRead": read * 3e-7, "cacheWrite": write * 3.75e-6, "total": 0.5},
    }
    message = {"role": "assistant", "provider": "p", "model": model, "usage": usage, "timestamp": at, "content": []}
    return MessageEntry(id=entry_id, parent_id=None, timestamp="2026-01-01T00:00:00Z", stored=message)


def test_a_reply_that_rewrote_a_cached_prefix_is_a_miss_and_small_ones_are_not() -> None:
    first = _assistant("a", fresh=100, read=0, write=50_000)
    missed = _assistant("b", fresh=100, read=0, write=60_000, at=1000).message_json
    miss = detect_cache_miss([first], missed, 0.3)
    assert miss is not None and miss.missed_tokens == 50_100 and not miss.model_changed
    assert cache_miss_text(miss) == "Cache miss: 50k tokens re-billed (~$0.17)"
    idle = _assistant("c", fresh=100, read=0, write=60_000, at=10 * 60_000).message_json
    idle_miss = detect_cache_miss([first], idle, 0.3)
    assert idle_miss is not None
    assert cache_miss_text(idle_miss) == "Cache miss after 10m idle: 50k tokens re-billed (~$0.17)"
    switched = _assistant("d", fresh=100, read=0, write=60_000, model="other").message_json
    text = cache_miss_text(detect_cache_miss([first], switched, 0.3))  # type: ignore[arg-type]
    assert text is not None and text.startswith("Cache miss after model switch: 50k")
    hit = _assistant("e", fresh=100, read=50_000, write=10_000).message_json
    assert detect_cache_miss([first], hit, 0.3) is None
    compacted = CompactionEntry(id="k", parent_id="a", summary="s", first_kept_entry_id="a", tokens_before=1)
    assert detect_cache_miss([first, compacted], missed, 0.3) is None
    small = _assistant("f", fresh=100, read=0, write=2_000).message_json
    tiny = detect_cache_miss([_assistant("g", fresh=100, read=0, write=2_000)], small, 0.3)
    assert tiny is not None and cache_miss_text(tiny) is None


def test_refresh_notices_and_usage_totals() -> None:
    assert cache_warmed_text(0.000011, None) == "Cache warmed: $0.000011"
    assert cache_warmed_text(0.05, "extension override") == "Cache warmed (extension override): $0.050"
    usage = {"input": 0, "output": 1, "cacheRead": 300, "cacheWrite": 0, "cost": {"total": 0.25}}
    entries = [
        UsageEntry(id="u1", parent_id=None, kind="cache_warm", provider="p", model="m", usage=usage),
        UsageEntry(id="u2", parent_id="u1", kind="future-kind", provider="p", model="m", usage=usage),
        UsageEntry(id="u3", parent_id="u2", kind="cache_warm", provider="p", model="m", usage={"output": "x"}),
        _assistant("a", fresh=1, read=1, write=1),
        CompactionEntry(id="k", parent_id="a", summary="s", first_kept_entry_id="a", tokens_before=1, usage=usage),
        CompactionEntry(id="k2", parent_id="k", summary="s", first_kept_entry_id="a", tokens_before=1),
    ]
    totals = usage_entry_totals(entries)
    assert totals.token_dict() == {"input": 0, "output": 3, "cacheRead": 900, "cacheWrite": 0}
    assert totals.cost == 0.75


def test_a_resumed_transcript_gets_the_same_notices_after_the_messages_they_follow() -> None:
    first = _assistant("a", fresh=100, read=0, write=50_000)
    usage = {"input": 0, "output": 1, "cacheRead": 50_100, "cacheWrite": 0, "cost": {"total": 0.0001}}
    warms = [
        UsageEntry(id=f"u{i}", parent_id="a", kind="cache_warm", provider="p", model="m", usage=usage, timestamp="")
        for i in range(2)
    ]
    second = _assistant("b", fresh=100, read=0, write=60_000, at=1000)
    notices = stored_notices([first, *warms, second], lambda provider, model: 0.3)
    assert [(n.kind, n.text) for n in notices[id(first.message)]] == [("warm", "Cache warmed: $0.0002")]
    assert [(n.kind, n.text) for n in notices[id(second.message)]] == [
        ("miss", "Cache miss: 50k tokens re-billed (~$0.17)")
    ]
