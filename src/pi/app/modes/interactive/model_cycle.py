"""Ctrl+P / Shift+Ctrl+P: the next or previous model, among the scoped models when there are any."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi.ai.types import Model
    from pi.app.agent_session import AgentSession


def _candidates(session: AgentSession) -> tuple[list[tuple[Model, str | None]], bool]:
    scoped = list(session.scoped_models)
    if scoped:
        return scoped, True
    return [(m, None) for m in session.model_registry.available_models()], False


def cycle_model(session: AgentSession, *, forward: bool) -> str:
    """Switch model and return the status to show (`Switched to <name>` or why nothing changed)."""
    candidates, scoped = _candidates(session)
    if len(candidates) <= 1:
        return "Only one model in scope" if scoped else "Only one model available"
    current = session.model
    index = next(
        (
            i
            for i, (m, _) in enumerate(candidates)
            if current is not None and (m.provider, m.id) == (current.provider, current.id)
        ),
        -1,
    )
    step = 1 if forward else -1
    model, level = candidates[(index + step) % len(candidates)]
    session.set_model(model)
    if level is not None:
        session.set_thinking_level(level)
    name = model.name or model.id
    return f"Switched to {name} (thinking: {level})" if level is not None else f"Switched to {name}"


__all__ = ["cycle_model"]
