"""/model, /thinking and /scoped-models, and the model selector Ctrl+L opens.

Choosing a model or level with Enter changes only the session; Ctrl+S in a selector also saves it
as the default in settings.json. Nothing is saved implicitly. Opening the selector refreshes the
Radius account's model list in the background (`catalog_refresh`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi.app.modes.interactive.pickers.model_selector import ModelSelector
from pi.app.modes.interactive.pickers.scoped_models import Scope, ScopedModelsPicker
from pi.app.modes.interactive.pickers.thinking_selector import ThinkingSelector

if TYPE_CHECKING:
    from pi.ai.types import Model
    from pi.app.agent_session import AgentSession
    from pi.app.modes.interactive.commands.api import InteractiveApi
    from pi.app.modes.interactive.commands.registry import Handler

DEFAULT_THINKING_LEVEL = "medium"


def selectable_models(session: AgentSession) -> list[Model]:
    """The models the selector offers: the scope when there is one, else every model with a key."""
    scoped = [model for model, _level in session.scoped_models]
    return scoped or session.model_registry.available_models()


def find_model(reference: str, models: list[Model]) -> Model | None:
    """The model an exact `provider/id` or bare id names (case-insensitive), else None."""
    ref = reference.strip().lower()
    if not ref:
        return None
    for model in models:
        if f"{model.provider}/{model.id}".lower() == ref:
            return model
    return next((m for m in models if m.id.lower() == ref), None)


def _default_model(api: InteractiveApi) -> tuple[str, str] | None:
    provider, model_id = api.settings.get("defaultProvider"), api.settings.get("defaultModel")
    return (provider, model_id) if isinstance(provider, str) and isinstance(model_id, str) else None


def switch_model(api: InteractiveApi, model: Model, save: bool) -> None:
    api.session.set_model(model)
    api.show_status(f"Model: {model.id}")
    if save:
        api.settings.set("defaultProvider", model.provider)
        api.settings.set("defaultModel", model.id)
        api.show_status(f"Default model: {model.provider}/{model.id}")


def open_model_selector(api: InteractiveApi, query: str = "") -> None:
    """Show the model selector (also bound to Ctrl+L); a Radius account's list is refreshed meanwhile."""
    from pi.app.modes.interactive.commands.catalog_refresh import radius_token, refresh_radius_catalog

    def chosen(model: Model, save: bool) -> None:
        api.close_selector()
        switch_model(api, model, save)

    selector = ModelSelector(
        selectable_models(api.session),
        api.theme,
        api.keybindings,
        current=api.session.model,
        default=_default_model(api),
        on_select=chosen,
        on_cancel=api.close_selector,
        query=query,
    )
    api.show_selector(selector)
    token = radius_token(api)
    if token is not None:

        def refreshed() -> None:
            selector.set_models(selectable_models(api.session))
            api.request_render()

        api.spawn(refresh_radius_catalog(api, token, refreshed))


async def cmd_model(api: InteractiveApi, args: str) -> None:
    if args:
        model = find_model(args, api.session.model_registry.available_models()) or find_model(
            args, api.session.model_registry.all_models()
        )
        if model is not None and api.session.model_registry.has_auth(model):
            switch_model(api, model, save=False)
            return
    open_model_selector(api, args)


def default_thinking_level(api: InteractiveApi) -> str:
    value = api.settings.get("defaultThinkingLevel")
    return value if isinstance(value, str) else DEFAULT_THINKING_LEVEL


def open_thinking_selector(api: InteractiveApi) -> None:
    session = api.session

    def chosen(level: str, save: bool) -> None:
        api.close_selector()
        session.set_thinking_level(level)
        api.show_status(f"Thinking level: {session.thinking_level}")
        if save:
            api.settings.set("defaultThinkingLevel", level)
            api.show_status(f"Default thinking level: {level}")

    selector = ThinkingSelector(
        session.available_thinking_levels(),
        api.theme,
        api.keybindings,
        current=session.thinking_level,
        default=default_thinking_level(api),
        on_select=chosen,
        on_cancel=api.close_selector,
    )
    api.show_selector(selector)


async def cmd_thinking(api: InteractiveApi, args: str) -> None:
    if not args:
        open_thinking_selector(api)
        return
    levels = api.session.available_thinking_levels()
    level = args.strip().lower()
    if level not in levels:
        api.show_error(f'Unknown thinking level "{args.strip()}". Available levels: {", ".join(levels)}.')
        return
    api.session.set_thinking_level(level)
    api.show_status(f"Thinking level: {api.session.thinking_level}")


def _apply_scope(session: AgentSession, scope: Scope) -> None:
    """Make `scope` the session's cycle list (empty: every available model)."""
    session.set_scoped_models([(model, None) for model in scope or []])


async def cmd_scoped_models(api: InteractiveApi, args: str) -> None:
    session = api.session
    models = session.model_registry.available_models()
    scoped = [model for model, _ in session.scoped_models] or None

    def save(scope: Scope) -> None:
        _apply_scope(session, scope)
        patterns = [f"{m.provider}/{m.id}" for m in scope] if scope is not None else None
        api.settings.set("enabledModels", patterns)
        api.close_selector()
        api.show_status("Saved model scope to settings" if patterns else "Saved model scope: all models")

    picker = ScopedModelsPicker(
        models,
        scoped,
        api.theme,
        api.keybindings,
        on_change=lambda scope: _apply_scope(session, scope),
        on_save=save,
        on_cancel=api.close_selector,
    )
    api.show_selector(picker)


HANDLERS: dict[str, Handler] = {
    "model": cmd_model,
    "thinking": cmd_thinking,
    "scoped-models": cmd_scoped_models,
}

__all__ = [
    "HANDLERS",
    "default_thinking_level",
    "find_model",
    "open_model_selector",
    "open_thinking_selector",
    "selectable_models",
    "switch_model",
]
