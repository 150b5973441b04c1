"""Model and thinking-level control of a session: set, cycle, clamp, record, report.

The Agent's state is the one place the current model and level live; this module changes them,
records each change as a session entry and reports it as an event (`model_select`,
`thinking_level_changed`). Changes are session-only: settings.json keeps the user's defaults.
"""

from __future__ import annotations

from pi.ai.types import Model
from pi.app.model_resolver import as_thinking_level, clamp_thinking_level, supported_thinking_levels
from pi.app.session_events import ModelSelectEvent, ModelSelectSource, ThinkingLevelChangedEvent
from pi.app.session_runtime import SessionCore


class ModelControl:
    def __init__(self, core: SessionCore) -> None:
        self.core = core

    def set_model(self, model: Model, source: ModelSelectSource = "set") -> None:
        core = self.core
        previous = core.model
        core.agent.set_model(model)
        core.manager.append_model_change(model.provider, model.id)
        core.events.emit_nowait(ModelSelectEvent(model, previous, source))
        self.set_thinking_level(core.agent.state.thinking_level)

    def restore_model(self, model: Model) -> None:
        """The model a resumed session names (no entry is written: the session already has it)."""
        previous = self.core.model
        if previous is not None and previous.provider == model.provider and previous.id == model.id:
            return
        self.core.agent.set_model(model)
        self.core.events.emit_nowait(ModelSelectEvent(model, previous, "restore"))

    def clamp(self, level: str) -> str:
        model = self.core.model
        return clamp_thinking_level(level, model) if model is not None else as_thinking_level(level)

    def set_thinking_level(self, level: str, record: bool = True) -> None:
        """Set the level the model allows closest to `level`; recorded and reported only when it changes."""
        clamped = self.clamp(level)
        agent = self.core.agent
        if clamped == agent.state.thinking_level:
            return
        agent.set_thinking_level(as_thinking_level(clamped))
        if record:
            self.core.manager.append_thinking_level_change(clamped)
        self.core.events.emit_nowait(ThinkingLevelChangedEvent(clamped))

    def available_thinking_levels(self) -> list[str]:
        model = self.core.model
        return ["off"] if model is None else list(supported_thinking_levels(model))

    def cycle_thinking_level(self) -> str | None:
        model = self.core.model
        if model is None or not model.reasoning:
            return None
        levels = self.available_thinking_levels()
        current = self.core.agent.state.thinking_level
        index = levels.index(current) if current in levels else 0
        self.set_thinking_level(levels[(index + 1) % len(levels)])
        return self.core.agent.state.thinking_level

    def cycle_model(self) -> tuple[Model, str] | None:
        core = self.core
        candidates = [m for m, _ in core.scoped_models] or core.registry.available_models()
        if len(candidates) < 2:
            return None
        current = core.model
        index = next(
            (i for i, m in enumerate(candidates) if current and m.provider == current.provider and m.id == current.id),
            -1,
        )
        model = candidates[(index + 1) % len(candidates)]
        self.set_model(model, "cycle")
        scoped_level = next((lvl for m, lvl in core.scoped_models if m is model), None)
        if scoped_level:
            self.set_thinking_level(scoped_level)
        return model, core.agent.state.thinking_level


__all__ = ["ModelControl"]
