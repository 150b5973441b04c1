"""How cache warming's state reads in `/session`: one status line, and the prices it weighs.

The words follow pi's: `Inactive (<reason>)` before anything was decided, `Decision in 4m 30s (…)`
while a refresh is planned, `Warming cache (…)` while one is sent, `Stopped (…)` after a `stop`
decision. The parenthesis gives the odds, the expected savings against the threshold and the
action (or that an extension overrode pi's own).
"""

from __future__ import annotations

import math

from pi.app.cache_warmer import WarmerStatus
from pi.app.cache_warming import CACHE_WARMING_MINIMUM_EXPECTED_SAVINGS


def _dollars(value: float) -> str:
    return f"-${abs(value):.3f}" if value < 0 else f"${value:.3f}"


def _economics_text(status: WarmerStatus) -> str:
    economics = status.economics
    if economics is None:
        return "cache economics unavailable"
    probability = status.continuation_probability
    odds = f"{round(probability * 100)}% continuation probability"
    if status.phase != "idle":
        odds += " while agent is running"
    savings = economics.expected_savings(probability)
    comparison = ">=" if status.action == "warm" else "<"
    return f"{odds}, expected savings {_dollars(savings)} {comparison} ${CACHE_WARMING_MINIMUM_EXPECTED_SAVINGS:.3f}"


def _time_until(at: float | None, now_ms: float) -> str:
    if at is None or at <= now_ms:
        return "Decision now"
    seconds = math.ceil((at - now_ms) / 1000)
    hours, seconds = divmod(seconds, 3600)
    minutes, seconds = divmod(seconds, 60)
    parts = [f"{hours}h"] if hours else []
    if minutes:
        parts.append(f"{minutes}m")
    if seconds or not parts:
        parts.append(f"{seconds}s")
    return "Decision in " + " ".join(parts)


def status_line(status: WarmerStatus, now_ms: float) -> str:
    """The `Status:` value of `/session` (`now_ms` on the warmer's own clock)."""
    if status.action is None or (status.state == "inactive" and status.economics is None and not status.override):
        return f"Inactive ({status.reason or 'unknown reason'})"
    economics = _economics_text(status)
    details = f"extension override, {economics}" if status.override else f"{economics} -> {status.action}"
    if status.state == "stopped" or status.state == "inactive":
        return f"Stopped ({details})"
    if status.state == "warming":
        return f"Warming cache ({details})"
    return f"{_time_until(status.next_warm_at, now_ms)} ({details})"


def price_lines(status: WarmerStatus) -> list[str]:
    """What losing the cached prefix would cost against what keeping it costs (when known)."""
    economics = status.economics
    if economics is None:
        return []
    return [f"Cache miss penalty: ${economics.miss_cost:.3f}", f"Refresh cost: ${economics.warm_cost:.3f}"]


__all__ = ["price_lines", "status_line"]
