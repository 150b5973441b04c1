"""The `/session` block: where the session is stored, what it holds, what it cost.

Counts come from the session's current context (the messages the next request would carry, plus
the user's own `!` runs), the same numbers RPC's `get_session_stats` reports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi.app.agent_session import AgentSession
    from pi.tui.theme import Theme


def cache_warming_lines(session: AgentSession) -> list[str]:
    """The global mode, the warmer's real state and, while a decision is known, its prices."""
    from pi.app.cache_warming_status import price_lines, status_line

    warming = session.cache_warming
    status = warming.warmer.status
    now = warming.warmer.scheduler.now_ms() if status.state == "scheduled" else 0.0  # the clock is the loop's
    lines = [f"Mode: {warming.mode()}", f"Status: {status_line(status, now)}"]
    return lines + price_lines(status)


def session_info_lines(session: AgentSession, theme: Theme) -> list[str]:
    from pi.app.modes.rpc_shapes import session_stats_json

    stats: dict[str, Any] = session_stats_json(session)
    tokens = stats["tokens"]
    bold = theme.bold
    lines = [bold("Session Info"), ""]
    lines.append(f"File: {stats['sessionFile'] or 'not saved (in memory)'}")
    lines.append(f"ID: {stats['sessionId']}")
    lines.extend(["", bold("Messages"), f"Total: {stats['totalMessages']}", f"User: {stats['userMessages']}"])
    lines.append(f"Assistant: {stats['assistantMessages']}")
    lines.append(f"Tools: {stats['toolCalls']} calls, {stats['toolResults']} results")
    lines.extend(["", bold("Tokens"), f"Input: {tokens['input'] + tokens['cacheRead']:,}"])
    if tokens["cacheRead"]:
        prompt = tokens["input"] + tokens["cacheRead"]
        share = tokens["cacheRead"] / prompt * 100 if prompt else 0.0
        lines.append(f"Cached: {tokens['cacheRead']:,} ({share:.1f}%)")
        lines.append(f"Uncached: {tokens['input']:,}")
    if tokens["cacheWrite"]:
        lines.append(f"Cache writes: {tokens['cacheWrite']:,}")
    lines.append(f"Output: {tokens['output']:,}")
    lines.append(f"Total: {tokens['total']:,}")
    lines.extend(["", bold("Cache Warming"), *cache_warming_lines(session)])
    model = session.model
    from pi.app.oauth.subscription import uses_subscription

    subscription = model is not None and uses_subscription(session.model_registry.auth, model.provider)
    if stats["cost"] or subscription:
        label = f"{model.provider}/{model.id}" if model is not None else "Total"
        lines.extend(["", bold("Cost"), f"{label}: ${stats['cost']:.4f}" + (" (subscription)" if subscription else "")])
    return lines


__all__ = ["cache_warming_lines", "session_info_lines"]
