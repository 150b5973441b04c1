"""Transcript notices about prompt-cache spending, shown only with `showCacheMissNotices: true`.

Two kinds, worded as pi words them:

- `Cache warmed[ (<note>)]: $<cost>` after a successful refresh (a `usage` entry of kind
  ``cache_warm``); refreshes that follow each other with nothing in between share one line whose
  cost grows;
- `Cache miss[ after model switch| after <n>m idle]: <tokens> tokens re-billed[ (~$<cost>)]`
  when a reply paid again for prompt tokens the previous request had in its cache, and the miss
  is significant (at least 20k tokens or $0.10). The previous request is the last reply or
  refresh; a compaction or branch summary starts over (the context changed on purpose), and a
  provider that never reported cache activity never produces one.

The detection reads stored entries (pi's JSON) so that it needs no live state.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from msgspec import Struct

CACHE_TTL_MS = 5 * 60_000
"""An idle gap at least this long is named as the likely cause of a miss."""
NOISE_FLOOR_TOKENS = 1024
"""Misses up to this size are the granularity of cache breakpoints, not a loss."""
NOTICE_MIN_TOKENS = 20_000
NOTICE_MIN_COST = 0.1


class CacheMiss(Struct, frozen=True):
    missed_tokens: int
    missed_cost: float
    idle_ms: float
    model_changed: bool


class _Previous(Struct, frozen=True):
    prompt_tokens: int
    model_key: str
    timestamp: float
    reported_cache: bool


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _num(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _prompt_tokens(usage: dict[str, Any]) -> int:
    return _int(usage.get("input")) + _int(usage.get("cacheRead")) + _int(usage.get("cacheWrite"))


def _entry_time(text: Any) -> float:
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00")).timestamp() * 1000
    except ValueError:
        return 0.0


def _miss(previous: _Previous | None, message: dict[str, Any], cache_read_price: float) -> CacheMiss | None:
    """The miss one reply (pi's message JSON) paid for against the request before it."""
    usage = _dict(message.get("usage"))
    prompt = _prompt_tokens(usage)
    read, write, fresh = _int(usage.get("cacheRead")), _int(usage.get("cacheWrite")), _int(usage.get("input"))
    if previous is None or prompt <= 0 or (read + write == 0 and not previous.reported_cache):
        return None
    missed = min(previous.prompt_tokens, prompt) - read
    if missed <= NOISE_FLOOR_TOKENS:
        return None
    cost = _dict(usage.get("cost"))
    paid = fresh + write
    paid_per_token = (_num(cost.get("input")) + _num(cost.get("cacheWrite"))) / paid if paid else 0.0
    read_per_token = _num(cost.get("cacheRead")) / read if read else cache_read_price / 1_000_000
    return CacheMiss(
        missed_tokens=missed,
        missed_cost=missed * max(0.0, paid_per_token - read_per_token),
        idle_ms=max(0.0, _num(message.get("timestamp")) - previous.timestamp),
        model_changed=f"{message.get('provider')}/{message.get('model')}" != previous.model_key,
    )


def _as_previous(message: dict[str, Any], reported: bool) -> _Previous | None:
    usage = _dict(message.get("usage"))
    prompt = _prompt_tokens(usage)
    if prompt <= 0:
        return None
    cached = _int(usage.get("cacheRead")) + _int(usage.get("cacheWrite")) > 0
    key = f"{message.get('provider')}/{message.get('model')}"
    return _Previous(prompt, key, _num(message.get("timestamp")), reported or cached)


def _advance(previous: _Previous | None, entry: Any) -> _Previous | None:
    """The request a later reply is compared with, once `entry` (a stored entry) is passed."""
    kind = getattr(entry, "type", None)
    if kind in ("compaction", "branch_summary"):
        return None  # the context changed on purpose: the next prompt is new, not re-billed
    if kind == "usage" and getattr(entry, "kind", None) == "cache_warm":
        prompt = _prompt_tokens(_dict(entry.usage))
        if prompt > 0:
            return _Previous(prompt, f"{entry.provider}/{entry.model}", _entry_time(entry.timestamp), True)
    elif kind == "message" and entry.message_json.get("role") == "assistant":
        reported = previous.reported_cache if previous is not None else False
        return _as_previous(entry.message_json, reported) or previous
    return previous


def _previous_request(entries: Iterable[Any]) -> _Previous | None:
    """The last request among stored entries that a next reply can be compared with."""
    previous: _Previous | None = None
    for entry in entries:
        previous = _advance(previous, entry)
    return previous


class StoredNotice(Struct):
    """A notice to show after a stored message when the transcript is drawn again (a resume)."""

    kind: str
    """``"miss"`` or ``"warm"``."""
    text: str
    note: str | None = None
    cost: float = 0.0


def stored_notices(
    entries: Iterable[Any], cache_read_price: Callable[[str, str], float]
) -> dict[int, list[StoredNotice]]:
    """The notices of a branch's stored entries, keyed by `id()` of the message object each follows.

    A reply's miss follows the reply; refreshes follow the message before them, consecutive ones with
    the same note summed into one line. `cache_read_price(provider, model)` is in dollars per million."""
    notices: dict[int, list[StoredNotice]] = {}
    anchor: list[StoredNotice] | None = None
    previous: _Previous | None = None
    for entry in entries:
        kind = getattr(entry, "type", None)
        if kind == "message":
            anchor = notices.setdefault(id(entry.message), [])
            data = entry.message_json
            if data.get("role") == "assistant" and data.get("stopReason") not in ("error", "aborted"):
                miss = _miss(previous, data, cache_read_price(str(data.get("provider")), str(data.get("model"))))
                text = cache_miss_text(miss) if miss is not None else None
                if text is not None:
                    anchor.append(StoredNotice("miss", text))
        elif kind == "usage" and getattr(entry, "kind", None) == "cache_warm" and anchor is not None:
            cost = _num(_dict(_dict(entry.usage).get("cost")).get("total"))
            last = anchor[-1] if anchor else None
            if last is not None and last.kind == "warm" and last.note == entry.note:
                last.cost += cost
                last.text = cache_warmed_text(last.cost, last.note)
            else:
                anchor.append(StoredNotice("warm", cache_warmed_text(cost, entry.note), entry.note, cost))
        previous = _advance(previous, entry)
    return notices


def detect_cache_miss(entries: Iterable[Any], message: dict[str, Any], cache_read_price: float) -> CacheMiss | None:
    """The miss of a just finished reply (`message`, pi's JSON) given the entries stored before it.
    `cache_read_price` (dollars per million tokens) prices a reply that read nothing from the cache."""
    return _miss(_previous_request(entries), message, cache_read_price)


def cache_miss_text(miss: CacheMiss) -> str | None:
    """The notice for a significant miss (None below 20k tokens and $0.10)."""
    if miss.missed_tokens < NOTICE_MIN_TOKENS and miss.missed_cost < NOTICE_MIN_COST:
        return None
    cost = f" (~${miss.missed_cost:.2f})" if miss.missed_cost >= 0.01 else ""
    label = "Cache miss"
    if miss.model_changed:
        label = "Cache miss after model switch"
    elif miss.idle_ms >= CACHE_TTL_MS:
        label = f"Cache miss after {round(miss.idle_ms / 60_000)}m idle"
    from pi.app.modes.interactive.footer import format_tokens  # the footer's own token format

    return f"{label}: {format_tokens(miss.missed_tokens)} tokens re-billed{cost}"


def cache_warmed_text(total_cost: float, note: str | None) -> str:
    """`Cache warmed: $0.000123` (six decimals, trailing zeros after the third dropped)."""
    amount = re.sub(r"(\.\d{3}\d*?)0+$", r"\1", f"{total_cost:.6f}")
    return f"Cache warmed{f' ({note})' if note else ''}: ${amount}"


__all__ = ["CacheMiss", "StoredNotice", "cache_miss_text", "cache_warmed_text", "detect_cache_miss", "stored_notices"]
