"""Running image and classifier models: pick the wire implementation by the model's ``api`` and
turn every failure into a result (these calls never raise, as pi's do not).

Built-in APIs: ``openai-decisions``, ``typesafe-system-one``, ``cloudflare-workers-ai-system-one``,
``llama-cpp-classify`` (classifiers) and ``openrouter-images`` (images). A provider registered
from code may bring its own implementation for another API name: an object with
``classify(model, context, options)`` / ``generate_images(model, context, options)`` (sync or async)
or such a function itself. Each module is imported on the first call that needs it.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
from collections.abc import Awaitable, Mapping
from typing import Any, Generic

from msgspec import Struct

from pi.ai.model_types import (
    ClassifierModel,
    ClassifierResult,
    ImageModel,
    ImagesResult,
    R,
    failed_result,
)
from pi.ai.options import StreamOptions

CLASSIFIER_APIS = {
    "openai-decisions": "pi.ai.openai_decisions",
    "typesafe-system-one": "pi.ai.system_one",
    "cloudflare-workers-ai-system-one": "pi.ai.system_one",
    "llama-cpp-classify": "pi.ai.llama_cpp_classify",
}
IMAGE_APIS = {"openrouter-images": "pi.ai.openrouter_images"}


def _method(implementation: Any, name: str) -> Any:
    if callable(implementation) and not hasattr(implementation, name):
        return implementation
    if isinstance(implementation, Mapping):
        return implementation.get(name) or implementation.get(_camel(name))
    return getattr(implementation, name, None) or getattr(implementation, _camel(name), None)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _registered(implementation: Any, name: str, model: ClassifierModel | ImageModel) -> Any:
    from pi.ai.typed_requests import RequestFailed

    function = _method(implementation, name)
    if not callable(function):
        raise RequestFailed(
            f'The "{model.api}" implementation registered for provider {model.provider} has no {name}'
            f"(model, context, options) method: give it one, or register the function itself."
        )
    return function


def _checked(shape: type[R], value: Any, model: ClassifierModel | ImageModel) -> R:
    """An implementation's result as `shape`; a mapping may leave out api, provider and model."""
    from pydantic import ValidationError

    from pi.ai.typed_requests import RequestFailed

    if isinstance(value, shape):
        return value
    if not isinstance(value, Mapping):
        raise RequestFailed(
            f'The "{model.api}" implementation of provider {model.provider} returned {type(value).__name__}, '
            f"not a result object: return {{answers|output, stopReason?, usage?}}."
        )
    try:
        return shape.model_validate({"api": model.api, "provider": model.provider, "model": model.id, **value})
    except ValidationError as exc:
        detail = exc.errors()[0]
        where = ".".join(str(part) for part in detail["loc"])
        raise RequestFailed(
            f'The "{model.api}" implementation of provider {model.provider} returned an invalid result: '
            f"{where}: {detail['msg']}"
        ) from None


async def _call(function: Any, *args: Any) -> Any:
    value = function(*args)
    if inspect.isawaitable(value):
        value = await value
    return value


class _Operation(Struct, Generic[R], frozen=True):
    """What differs between classifying and generating images; the dispatch around it is shared."""

    method: str
    """The implementation's function, e.g. ``classify`` (camelCase accepted from registered ones)."""
    result: type[R]
    apis: Mapping[str, str]
    """Built-in API name -> module with `method`."""
    kind: str
    """Named in errors: "classifier" or "image"."""
    registry_key: str
    """The `register_provider` keyword for implementations of this kind."""
    builtins: str
    """How errors name the built-in APIs."""


_CLASSIFY = _Operation(
    "classify",
    ClassifierResult,
    CLASSIFIER_APIS,
    "classifier",
    "classifiers",
    f"a built-in API ({', '.join(sorted(CLASSIFIER_APIS))})",
)
_GENERATE_IMAGES = _Operation("generate_images", ImagesResult, IMAGE_APIS, "image", "images", '"openrouter-images"')


async def _perform(
    operation: _Operation[R],
    model: ClassifierModel | ImageModel,
    payload: Any,
    options: StreamOptions,
    implementation: Any,
) -> R:
    """`payload` sent through the registered `implementation`, else the built-in module of the model's API."""
    from pi.ai.typed_requests import RequestFailed

    if implementation is not None:
        value = await _call(_registered(implementation, operation.method, model), model, payload, options)
        return _checked(operation.result, value, model)
    module = operation.apis.get(model.api)
    if module is None:
        raise RequestFailed(
            f'Provider {model.provider} has no {operation.kind} implementation for "{model.api}": register one '
            f'with register_provider(..., {operation.registry_key}={{"{model.api}": ...}}) or use {operation.builtins}.'
        )
    result: R = await getattr(importlib.import_module(module), operation.method)(model, payload, options)
    return result


async def _never_raising(
    operation: _Operation[R], model: ClassifierModel | ImageModel, options: StreamOptions, work: Awaitable[R]
) -> R:
    """`work`'s result, or a failure result for any error (and for an abort of this request's signal)."""
    try:
        return await work
    except asyncio.CancelledError:
        if options.signal is not None and options.signal.aborted:
            return failed_result(operation.result, model, "Request was aborted", aborted=True)
        raise
    except Exception as error:
        return failed_result(operation.result, model, str(error) or type(error).__name__)


async def classify(
    model: ClassifierModel, context: Any, options: StreamOptions, implementation: Any = None
) -> ClassifierResult:
    """Classify `context` (``{state, questions, images?}``) with `model`; `implementation` overrides the built-in."""

    async def work() -> ClassifierResult:
        from pi.ai.classifier_input import classifier_input
        from pi.ai.typed_requests import RequestFailed

        request = classifier_input(context)
        if request.images and "image" not in model.input:
            raise RequestFailed(
                f"Model {model.provider}/{model.id} does not accept image input: leave out the images "
                "or pick a classifier whose input includes images."
            )
        payload: Any = request
        if implementation is not None:  # registered code gets the plain mapping
            payload = {"state": request.state, "questions": request.questions, "images": request.images}
        return await _perform(_CLASSIFY, model, payload, options, implementation)

    return await _never_raising(_CLASSIFY, model, options, work())


async def generate_images(
    model: ImageModel, context: Any, options: StreamOptions, implementation: Any = None
) -> ImagesResult:
    """Generate images from `context` (``{input: [text/image blocks]}``) with `model`."""
    return await _never_raising(
        _GENERATE_IMAGES, model, options, _perform(_GENERATE_IMAGES, model, context, options, implementation)
    )


__all__ = ["CLASSIFIER_APIS", "IMAGE_APIS", "classify", "generate_images"]
