"""How full the current context is: the last complete reply's usage against the model's window.

One reading for every place that reports it (RPC `get_session_stats`, `ctx.get_context_usage()`), so
they cannot disagree. A reply that failed or was aborted says nothing reliable about the context, so
the last complete one counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi.app.agent_session import AgentSession


def context_usage(session: AgentSession) -> dict[str, Any] | None:
    """`{tokens, contextWindow, percent}`, or None without a model; `tokens` is None before any reply."""
    from pi.ai.types import AssistantMessage
    from pi.session.tokens import calculate_context_tokens

    model = session.model
    if model is None:
        return None
    last = next(
        (
            m
            for m in reversed(session.messages)
            if isinstance(m, AssistantMessage) and m.stop_reason not in ("error", "aborted")
        ),
        None,
    )
    tokens = calculate_context_tokens(last.usage) if last is not None else None
    window = model.context_window
    percent = tokens / window * 100 if tokens is not None and window else None
    return {"tokens": tokens, "contextWindow": window, "percent": percent}
