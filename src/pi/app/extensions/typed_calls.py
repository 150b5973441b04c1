"""`ctx.model_registry.classify` / `generate_images`: find the model, resolve its credential for this
request, and run it.

The credential comes from the model's own provider at the moment of the call, through the
session's `RequestResolver` (API key, OAuth token refreshed when due, configured headers): a key
is never remembered between calls nor borrowed from another provider, so switching models
switches servers and keys together.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from pi.ai.model_types import (
    ClassifierModel,
    ClassifierResult,
    ImageModel,
    ImagesResult,
    failed_result,
    model_type_of,
)
from pi.ai.types import Model

if TYPE_CHECKING:
    from pi.ai.options import StreamOptions
    from pi.app.extensions.model_registry_view import ExtensionModelRegistry
    from pi.app.session_requests import RequestResolver

CHATGPT_LOGIN_REFUSED = (
    "OpenAI classifier models need an OpenAI API key: the Decisions API does not accept the ChatGPT "
    "login (Sign in with ChatGPT) in use for provider openai. Use an API key instead (--api-key, or "
    "/logout openai and set OPENAI_API_KEY), or pick another classifier model."
)


_OPTION_NAMES = {"maxRetries": "max_retries", "maxRetryDelayMs": "max_retry_delay_ms", "onPayload": "on_payload"}


def typed_options(options: Any) -> Any:
    """pi's option names (``timeoutMs``, ``maxRetries``, ...) as this library spells them; others as given."""
    if not isinstance(options, Mapping):
        return options
    out: dict[str, Any] = {}
    for raw, value in options.items():
        key = str(raw)
        if key == "timeoutMs" and isinstance(value, (int, float)):
            out["timeout_s"] = value / 1000
        else:
            out[_OPTION_NAMES.get(key, key)] = value
    return out


def _failure(kind: str, model: Model, message: str) -> ClassifierResult | ImagesResult:
    if kind == "classifier":
        return failed_result(ClassifierResult, model, message)
    return failed_result(ImagesResult, model, message)


def _placeholder(provider: str, model_id: str) -> Model:
    return Model(id=model_id, name=model_id, api="unknown", provider=provider, base_url="")


def _resolve(view: ExtensionModelRegistry, kind: str, model: Any) -> Model | str:
    """The model to run, or the message saying why there is none."""
    from pi.app.extensions.model_registry_view import NO_MODELS_OF_TYPE

    if isinstance(model, Model):
        return model
    if isinstance(model, Mapping) and isinstance(model.get("provider"), str) and isinstance(model.get("id"), str):
        found = view.get_model_of_type(kind, model["provider"], model["id"])
        if found is not None:
            return found
        return (
            f"Unknown {kind} model {model['provider']}/{model['id']}: "
            f'list the known ones with get_models_of_type("{kind}").'
        )
    if not view.get_available_of_type(kind):
        return NO_MODELS_OF_TYPE.format(kind=kind)
    return f'Pass the {kind} model to use: one of get_available_of_type("{kind}"), or {{"provider", "id"}}.'


async def run_typed(
    view: ExtensionModelRegistry,
    resolver: RequestResolver,
    kind: str,
    model: Any,
    context: Any,
    options: StreamOptions,
) -> Any:
    """Run `model` (of type `kind`, "classifier" or "image") on `context`; never raises for a failed call."""
    from pi.ai import model_operations
    from pi.app.typed_models import classifiers_hidden, implementation_for

    chosen = _resolve(view, kind, model)
    if isinstance(chosen, str):
        provider = model.get("provider") if isinstance(model, Mapping) else None
        model_id = model.get("id") if isinstance(model, Mapping) else None
        return _failure(kind, _placeholder(str(provider or ""), str(model_id or "")), chosen)
    if model_type_of(chosen) != kind or not isinstance(chosen, (ClassifierModel, ImageModel)):
        article = "an" if kind == "image" else "a"
        return _failure(kind, chosen, f"Model {chosen.provider}/{chosen.id} is not {article} {kind} model")
    registry = resolver.registry
    if isinstance(chosen, ClassifierModel) and classifiers_hidden(registry, chosen.provider):
        return _failure(kind, chosen, CHATGPT_LOGIN_REFUSED)
    merged = await resolver.stream_options(chosen, options)
    extra = {**merged.extra, "env": {**registry.auth.provider_env(chosen.provider), **merged.extra.get("env", {})}}
    prepared = replace(merged, api_key=merged.api_key or resolver.api_key(chosen.provider), extra=extra)
    implementation = implementation_for(registry, chosen)
    if isinstance(chosen, ClassifierModel):
        return await model_operations.classify(chosen, context, prepared, implementation)
    return await model_operations.generate_images(chosen, context, prepared, implementation)


__all__ = ["CHATGPT_LOGIN_REFUSED", "run_typed", "typed_options"]
