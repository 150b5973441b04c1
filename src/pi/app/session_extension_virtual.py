"""Virtual models: catalog entries whose extension picks the physical model of each request.

`pi.register_virtual_model({provider, id, name, thinkingLevels?, contextWindow?, maxTokens?, input?,
route})` lists `provider/id` in the model registry (`--model`, `/model`, `ctx.model_registry.find`),
under a provider of its own. Before each request to it, `route(request, ctx)` (sync or async) gets a
`ModelRouteRequest` and returns `{model, thinkingLevel?, state?}`: the request then goes to `model`
(a catalog model, or `"provider/id"`) with that model's own credentials, at `thinkingLevel` when
given (clamped to the model). `state` is kept on the session branch (a `pi.virtual-model-state`
custom entry) and handed back as `request.state`, so routing follows the branch and survives a resume.

Request reasons: `user` (the last message is the user's), `tool` (tool results to answer),
`continuation` (anything else the loop sends), `retry` (the same request again after the previous one
to this model failed: `failed` says which model and reply), `direct` (`ctx.model_registry.complete` or
`stream_simple` called with the virtual model).
"""

from __future__ import annotations

import asyncio
import inspect
from typing import TYPE_CHECKING, Any, Literal

from msgspec import Struct, field
from msgspec.structs import replace

from pi.app.extensions.errors import ExtensionError
from pi.app.extensions.results import result_field

if TYPE_CHECKING:
    from pi.ai.abort import AbortSignal
    from pi.ai.options import StreamOptions
    from pi.ai.types import Context, Model
    from pi.app.session_extensions import SessionExtensions

VIRTUAL_API = "pi-virtual"
"""The `api` of virtual catalog entries; a request to one that is not routed fails."""
STATE_ENTRY = "pi.virtual-model-state"
"""`customType` of the session entry that keeps a router's state on the branch."""
_NO_KEY = "pi-virtual"
RouteReason = Literal["user", "tool", "continuation", "retry", "direct"]


class ModelRouteRequest(Struct):
    """What `route(request, ctx)` is asked about one request."""

    reason: RouteReason
    model: Model
    """The virtual catalog entry the request was made to."""
    messages: list[Any]
    thinking_level: str | None
    """The level the user chose for the virtual model."""
    state: Any = None
    """The `state` the last route on this branch returned (None at first)."""
    previous: dict[str, Any] | None = None
    """`{model, thinking_level}` of the last route on this branch."""
    failed: dict[str, Any] | None = None
    """For `retry`: `{model, message}` of the request that failed."""
    signal: AbortSignal | None = None


class VirtualModel(Struct):
    model: Model
    route: Any
    extension_path: str


class _Failure(Struct):
    model: Model
    message: Any
    message_count: int


class SessionVirtualModels(Struct):
    """The virtual models of one session (all extension generations share it; a reload clears it)."""

    owner: SessionExtensions
    models: dict[tuple[str, str], VirtualModel] = field(default_factory=dict)
    _failed: dict[tuple[str, str], _Failure | None] = field(default_factory=dict)
    _tasks: set[asyncio.Future[Any]] = field(default_factory=set)
    _routes: dict[tuple[str, str], dict[str, Any]] | None = None
    """The latest `STATE_ENTRY` data of each virtual model on the current branch (None: not read yet).

    Kept here, where routes are recorded, so that reading the last route (the footer does at every
    render) costs no walk over the branch; read again when the branch moves (`branch_moved`).
    """
    _routes_of: str | None = None
    """The session id `_routes` was read for: another session file (resume, fork, new) reads again."""

    # -- catalog ---------------------------------------------------------------------------------

    def register(self, definition: Any, extension_path: str) -> None:
        """Add or replace `provider/id`; ExtensionError (with the reason) for a definition that cannot work."""
        from pi.ai.types import Model

        provider = result_field(definition, "provider")
        model_id = result_field(definition, "id")
        if not isinstance(provider, str) or not provider or not isinstance(model_id, str) or not model_id:
            raise ExtensionError("A virtual model needs a non-empty provider and id")
        route = result_field(definition, "route")
        if not callable(route):
            raise ExtensionError(f'Virtual model "{provider}/{model_id}" must define route(request, ctx)')
        registry = self.owner.session.model_registry
        physical = [m for m in registry.provider_models(provider) if m.api != VIRTUAL_API]
        if physical:
            raise ExtensionError(
                f'Virtual model "{provider}/{model_id}": provider "{provider}" already has models; '
                "list virtual models under a provider name of their own"
            )
        levels = result_field(definition, "thinking_levels", "thinkingLevels")
        model = Model(
            id=model_id,
            name=str(result_field(definition, "name") or model_id),
            api=VIRTUAL_API,
            provider=provider,
            base_url=f"{VIRTUAL_API}://{provider}",
            reasoning=bool(levels),
            input=list(result_field(definition, "input") or ["text", "image"]),
            context_window=int(result_field(definition, "context_window", "contextWindow") or 200_000),
            max_tokens=int(result_field(definition, "max_tokens", "maxTokens") or 32_000),
        )
        self.models[(provider, model_id)] = VirtualModel(model, route, extension_path)
        self._publish(provider)
        self._branch_routes()  # read now, not at the first footer render

    def unregister(self, provider: str, model_id: str) -> None:
        if self.models.pop((provider, model_id), None) is not None:
            self._publish(provider)

    def clear(self) -> None:
        """Drop every virtual model (the extensions that routed them are gone)."""
        providers = {provider for provider, _ in self.models}
        self.models.clear()
        self._routes = None
        for provider in providers:
            self._publish(provider)

    def _publish(self, provider: str) -> None:
        """List the provider's virtual models in the model registry (or remove the provider when none is left)."""
        registry = self.owner.session.model_registry
        entries = [v.model for (p, _), v in self.models.items() if p == provider]
        if not entries:
            registry.unregister_provider(provider)
            return
        models = [
            {
                "id": m.id,
                "name": m.name,
                "reasoning": m.reasoning,
                "input": list(m.input),
                "contextWindow": m.context_window,
                "maxTokens": m.max_tokens,
            }
            for m in entries
        ]
        config = {"baseUrl": entries[0].base_url, "api": VIRTUAL_API, "apiKey": _NO_KEY, "models": models}
        registry.register_provider(provider, config)

    def is_virtual(self, model: Model) -> bool:
        return model.api == VIRTUAL_API and (model.provider, model.id) in self.models

    def last_route(self, model: Model) -> tuple[str, str | None] | None:
        """`(id, thinking level)` of the model the last request to virtual `model` on this branch went to."""
        if not self.is_virtual(model):
            return None
        remembered = self._remembered((model.provider, model.id))
        routed = remembered.get("routed") if remembered else None
        if remembered is None or not isinstance(routed, dict):
            return None
        level = remembered.get("thinkingLevel")
        return str(routed.get("id")), (str(level) if level is not None else None)

    # -- routing ---------------------------------------------------------------------------------

    async def route(
        self, model: Model, context: Context, options: StreamOptions, reason: RouteReason | None = None
    ) -> tuple[Model, StreamOptions]:
        """The physical model for this request and options carrying its credentials and thinking level."""
        key = (model.provider, model.id)
        virtual = self.models.get(key)
        if virtual is None:
            raise ExtensionError(f'Virtual model "{model.provider}/{model.id}" is not registered')
        remembered = self._remembered(key)
        failure = self._failed.pop(key, None)
        if reason is None:
            reason = self._reason(context, failure)
        request = ModelRouteRequest(
            reason=reason,
            model=model,
            messages=list(context.messages),
            thinking_level=options.reasoning,
            state=remembered.get("state") if remembered else None,
            previous=self._previous(remembered),
            failed={"model": failure.model, "message": failure.message} if reason == "retry" and failure else None,
            signal=options.signal,
        )
        try:
            answer = virtual.route(request, self.owner.extension_context())
            if inspect.isawaitable(answer):
                answer = await answer
            physical, level, state = self._answer(model, answer)
        except Exception as error:
            from pi.app.extensions.errors import error_text

            raise ExtensionError(
                f'Virtual model "{model.provider}/{model.id}" could not route the request: {error_text(error)}'
            ) from error
        self._remember(key, physical, level, state, remembered)
        return physical, await self._options(physical, level, options)

    def _reason(self, context: Context, failure: _Failure | None) -> RouteReason:
        if failure is not None and failure.message_count == len(context.messages):
            return "retry"
        last = context.messages[-1] if context.messages else None
        role = getattr(last, "role", None)
        return "user" if role == "user" else "tool" if role == "toolResult" else "continuation"

    def _answer(self, model: Model, answer: Any) -> tuple[Model, str | None, Any]:
        target = result_field(answer, "model")
        registry = self.owner.session.model_registry
        if isinstance(target, str) and "/" in target:
            provider, _, model_id = target.partition("/")
            target = registry.find(provider, model_id)
        elif target is not None and not hasattr(target, "api"):
            target = registry.find(str(result_field(target, "provider")), str(result_field(target, "id")))
        if target is None or not hasattr(target, "api"):
            raise ExtensionError("route() must return {model} naming a model of the catalog")
        if target.api == VIRTUAL_API:
            raise ExtensionError(f"route() returned the virtual model {target.provider}/{target.id}")
        level = result_field(answer, "thinking_level", "thinkingLevel")
        state = result_field(answer, "state")
        return target, (str(level) if level is not None else None), state

    async def _options(self, physical: Model, level: str | None, options: StreamOptions) -> StreamOptions:
        """The request's options merged for `physical` the way a request to it directly would be.

        The key the request holds was looked up for the virtual provider (a placeholder that only lists
        it as usable): it goes, so the routed provider's own credential is the one sent.
        """
        from pi.ai.thinking import clamp_thinking_level

        resolver = self.owner.session.request_resolver()
        merged = await resolver.stream_options(physical, replace(options, api_key=None))
        reasoning = options.reasoning if level is None else level
        if reasoning not in (None, "off"):
            reasoning = clamp_thinking_level(physical, str(reasoning))
        return replace(
            merged,
            api_key=merged.api_key or resolver.api_key(physical.provider),
            reasoning=reasoning,
        )

    # -- state on the branch ---------------------------------------------------------------------

    def branch_moved(self) -> None:
        """The session's leaf moved to another branch (`/tree`): the last routes are those recorded there."""
        self._routes = None
        if self.models:
            self._branch_routes()

    def _branch_routes(self) -> dict[tuple[str, str], dict[str, Any]]:
        manager = self.owner.session.session
        if self._routes is None or self._routes_of != manager.get_session_id():
            self._routes, self._routes_of = _recorded_routes(manager.get_branch()), manager.get_session_id()
        return self._routes

    def _remembered(self, key: tuple[str, str]) -> dict[str, Any] | None:
        return self._branch_routes().get(key)

    def _previous(self, remembered: dict[str, Any] | None) -> dict[str, Any] | None:
        routed = remembered.get("routed") if remembered else None
        if remembered is None or not isinstance(routed, dict):
            return None
        model = self.owner.session.model_registry.find(str(routed.get("provider")), str(routed.get("id")))
        return {"model": model, "thinking_level": remembered.get("thinkingLevel")} if model is not None else None

    def _remember(
        self, key: tuple[str, str], physical: Model, level: str | None, state: Any, before: dict[str, Any] | None
    ) -> None:
        data = {
            "provider": key[0],
            "id": key[1],
            "routed": {"provider": physical.provider, "id": physical.id},
            "thinkingLevel": level,
            "state": state,
        }
        if data != before:
            routes = self._branch_routes()
            self.owner.session.session.append_custom_entry(STATE_ENTRY, data)
            routes[key] = data

    def watch(self, events: Any, model: Model, physical: Model, message_count: int) -> None:
        """Note whether the routed request failed, so the next one to the same messages is a `retry`."""
        key = (model.provider, model.id)

        async def outcome() -> None:
            message = await events.result()
            if getattr(message, "stop_reason", None) == "error":
                self._failed[key] = _Failure(physical, message, message_count)

        task = asyncio.ensure_future(outcome())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _recorded_routes(branch: list[Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """The last `STATE_ENTRY` data of each virtual model among `branch` (root first)."""
    from pi.session.entries import CustomEntry

    routes: dict[tuple[str, str], dict[str, Any]] = {}
    for entry in branch:
        data = entry.data if isinstance(entry, CustomEntry) and entry.custom_type == STATE_ENTRY else None
        if isinstance(data, dict):
            routes[(str(data.get("provider")), str(data.get("id")))] = data
    return routes


__all__ = ["STATE_ENTRY", "VIRTUAL_API", "ModelRouteRequest", "SessionVirtualModels"]
