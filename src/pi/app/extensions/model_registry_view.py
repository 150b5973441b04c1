"""`ctx.model_registry`: the session's model catalog and auth, as extensions use it (extension spec §1.7).

Requests an extension makes here (`complete`, `stream_simple`) carry the same credentials, headers
and session id as the session's own requests, OAuth logins included (their token is resolved, and
refreshed when needed, per request); a virtual model is routed first (reason `direct`). They are the
extension's own requests: the session's request events (`context_with_system`, headers, stream
frames) do not run for them. `classify` and `generate_images` run classifier and image models
(`pi.app.extensions.typed_calls`) with the key of the model's own provider, resolved for each call.

Everything else the session's `ModelRegistry` offers (`get_api_key`, `request_headers`, `all_models`,
...) is reachable through this view unchanged.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

if TYPE_CHECKING:
    from pi.ai.event_stream import AssistantMessageEventStream
    from pi.ai.model_types import ClassifierResult, ImagesResult
    from pi.ai.options import StreamOptions
    from pi.ai.types import AssistantMessage, Context, Model
    from pi.app.model_registry import ModelRegistry
    from pi.app.session_extensions import SessionExtensions


def _context(value: Any) -> Context:
    from pi.ai.types import Context

    if isinstance(value, Context):
        return value
    if isinstance(value, Mapping):
        return Context.model_validate(dict(value))
    raise TypeError("context must be a Context or a {systemPrompt?, messages, tools?} mapping")


def _options(value: Any, overrides: Mapping[str, Any]) -> StreamOptions:
    from pi.ai.options import StreamOptions, make_options

    if value is None or isinstance(value, StreamOptions):
        return make_options(value, **overrides)
    if isinstance(value, Mapping):
        return make_options(None, **{**dict(value), **overrides})
    raise TypeError("options must be StreamOptions or a mapping of option names")


MODEL_TYPES = ("chat", "image", "classifier")
NO_MODELS_OF_TYPE = (
    "No {kind} models are available: set an API key for a provider that serves them "
    '(list them with get_models_of_type("{kind}")), or register one with register_provider.'
)


def _model_type(value: str) -> str:
    if value not in MODEL_TYPES:
        raise ValueError(f'model type must be one of "chat", "image", "classifier", got {value!r}')
    return value


class ExtensionModelRegistry:
    """See the module docstring. One per `ctx.model_registry` read; holds no state of its own."""

    def __init__(self, registry: ModelRegistry, owner: SessionExtensions) -> None:
        self._registry = registry
        self._owner = owner

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._registry, name)

    # -- catalog ---------------------------------------------------------------------------------

    def find(self, provider: str, model_id: str) -> Model | None:
        return self._registry.find(provider, model_id)

    def get_all(self) -> list[Model]:
        return self._registry.all_models()

    def get_available(self) -> list[Model]:
        """Models whose provider has credentials (virtual models included)."""
        return self._registry.available_models()

    def get_provider(self, name: str) -> dict[str, Any] | None:
        """`{name, api, baseUrl, models}` of a provider of the catalog, or None."""
        actual = self._registry.provider_named(name)
        models = self._registry.provider_models(actual) if actual is not None else []
        if not models:  # a provider of image or classifier models only (e.g. typesafe)
            from pi.app.typed_models import typed_models

            actual = name
            models = [*typed_models(self._registry, "classifier", name), *typed_models(self._registry, "image", name)]
        if not models:
            return None
        first = models[0]
        return {"name": actual, "api": first.api, "baseUrl": first.base_url, "models": models}

    async def get_provider_auth(self, provider: str) -> dict[str, Any] | None:
        """How requests to `provider` authenticate now: `{type: "oauth"|"api_key", apiKey, headers?}`, or None.

        An OAuth token is refreshed first when it is about to expire."""
        resolver = self._owner.session.request_resolver()
        auth = await resolver.request_auth(provider)
        if auth is not None:
            out: dict[str, Any] = {"type": "oauth", "apiKey": auth.api_key}
            if auth.headers:
                out["headers"] = dict(auth.headers)
            return out
        key = self._registry.get_api_key(provider)
        return {"type": "api_key", "apiKey": key} if key else None

    # -- models by type --------------------------------------------------------------------------
    # Chat models are the catalog above; image and classifier models live in lists of their own
    # (`pi.app.typed_models`), built on first use.

    def get_models_of_type(self, model_type: str, provider: str | None = None) -> list[Model]:
        """Every known model of `model_type` ("chat", "image", "classifier"), optionally of one provider."""
        if _model_type(model_type) == "chat":
            models = self._registry.provider_models(provider) if provider is not None else self.get_all()
            return list(models)
        from pi.app.typed_models import typed_models

        return list(typed_models(self._registry, model_type, provider))

    def get_available_of_type(self, model_type: str, provider: str | None = None) -> list[Model]:
        """The models of `model_type` whose provider has a credential that works for them."""
        if _model_type(model_type) == "chat":
            return [m for m in self.get_available() if provider is None or m.provider == provider]
        from pi.app.typed_models import available_typed_models

        return list(available_typed_models(self._registry, model_type, provider))

    def get_model_of_type(self, model_type: str, provider: str, model_id: str) -> Model | None:
        """The model `provider`/`model_id` of `model_type`, or None."""
        if _model_type(model_type) == "chat":
            return self.find(provider, model_id)
        from pi.app.typed_models import find_typed_model

        return find_typed_model(self._registry, model_type, provider, model_id)

    find_of_type = get_model_of_type

    async def classify(self, model: Any, context: Any, options: Any = None, **overrides: Any) -> ClassifierResult:
        """Answer the questions of `context` (``{state, questions, images?}``) with classifier `model`.

        `model` is a classifier model (from `get_models_of_type("classifier")`) or ``{provider, id}``.
        Never raises for a failed call: the result then has ``stop_reason`` "error" and says why.
        """
        from pi.app.extensions.typed_calls import run_typed, typed_options

        resolver = self._owner.session.request_resolver()
        wanted = _options(typed_options(options), overrides)
        result: ClassifierResult = await run_typed(self, resolver, "classifier", model, context, wanted)
        return result

    async def generate_images(self, model: Any, context: Any, options: Any = None, **overrides: Any) -> ImagesResult:
        """Generate images from `context` (``{input: [text/image blocks]}`` or a prompt string) with `model`.

        `model` is an image model (from `get_models_of_type("image")`) or ``{provider, id}``. Never
        raises for a failed call: the result then has ``stop_reason`` "error" and says why.
        """
        from pi.app.extensions.typed_calls import run_typed, typed_options

        resolver = self._owner.session.request_resolver()
        wanted = _options(typed_options(options), overrides)
        result: ImagesResult = await run_typed(self, resolver, "image", model, context, wanted)
        return result

    # -- requests --------------------------------------------------------------------------------

    async def _prepared(self, model: Model, context: Context, options: StreamOptions) -> tuple[Model, StreamOptions]:
        virtual = self._owner.virtual
        if virtual.is_virtual(model):
            return await virtual.route(model, context, options, reason="direct")
        resolver = self._owner.session.request_resolver()
        merged = await resolver.stream_options(model, options)
        return model, replace(merged, api_key=merged.api_key or resolver.api_key(model.provider))

    async def complete(self, model: Model, context: Any, options: Any = None, **overrides: Any) -> AssistantMessage:
        """One whole reply from `model` (errors come back as a message with `stop_reason` "error")."""
        from pi.ai.stream import complete_simple

        request = _context(context)
        physical, prepared = await self._prepared(model, request, _options(options, overrides))
        return await complete_simple(physical, request, prepared)

    def stream_simple(
        self, model: Model, context: Any, options: Any = None, **overrides: Any
    ) -> AssistantMessageEventStream:
        """The reply of `model` as a stream of events (iterate it, or await `result()`)."""
        from pi.ai.event_stream import AssistantMessageEventStream
        from pi.ai.events import ErrorEvent
        from pi.ai.stream import stream_simple

        out = AssistantMessageEventStream()
        request = _context(context)
        wanted = _options(options, overrides)

        async def pump() -> None:
            try:
                physical, prepared = await self._prepared(model, request, wanted)
                async for event in stream_simple(physical, request, prepared):
                    out.push(event)
            except Exception as error:
                from pi.agent.loop import failure_message
                from pi.app.extensions.errors import error_text

                out.push(ErrorEvent("error", failure_message(model, "error", error_text(error))))
            finally:
                out.end()

        out.task = asyncio.ensure_future(pump())
        return out


__all__ = ["ExtensionModelRegistry"]
