"""The parent side of a script's `models` global: the session's model catalog and the models it can run.

Scripts list models by type (`chat`, `image`, `classifier`), look one up by provider and id, and run
classifier and image models through `ctx.model_registry` (the session's credentials). Chat models
are listed only; a script cannot run them. A model passed to `classify`/`generateImages` is looked
up again by provider and id, so a script-made object can never point the credentials elsewhere.
At most `MAX_MODEL_CALLS` runs are in flight per script; the rest wait in call order.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from collections.abc import Callable, Mapping
from typing import Any

from pi.app.codemode.model_contexts import check_classifier_context, check_images_context, describe_value
from pi.app.codemode.script_result import CallRecord

MAX_MODEL_CALLS = 4
MODEL_TYPES = ("chat", "image", "classifier")
ERROR_PREVIEW = 500
RUNNERS = {"models.classify": ("classifier", "classify"), "models.generateImages": ("image", "generate_images")}


def _model_type(value: Any) -> str:
    if isinstance(value, str) and value in MODEL_TYPES:
        return value
    raise ValueError(f'model type must be "chat", "image" or "classifier", not {json.dumps(value)}')


def _provider(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError('the provider, when given, must be a string such as "openai"')
    return value


def plain(value: Any) -> Any:
    """A registry value as JSON data (pydantic models by their wire names)."""
    dump = getattr(value, "to_json_dict", None)
    if callable(dump):
        return dump()
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def model_info(model: Any) -> dict[str, Any]:
    """A catalog entry for scripts; `headers` is left out (models.json headers may carry credentials)."""
    info = plain(model)
    if not isinstance(info, dict):
        return {}
    info.pop("headers", None)
    return info


def _with_article(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


def _field(value: Any, *keys: str) -> Any:
    for key in keys:
        found = value.get(key) if isinstance(value, Mapping) else getattr(value, key, None)
        if found is not None:
            return found
    return None


def _preview(text: str) -> str:
    return text if len(text) <= ERROR_PREVIEW else text[: ERROR_PREVIEW - 1] + "…"


async def _maybe(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class ModelCalls:
    """One script's `models.*` calls; records runs as call rows (the model only, never the prompt)."""

    def __init__(self, registry: Any, tool_call_id: str, calls: list[CallRecord], progress: Callable[[], None]) -> None:
        self.registry = registry
        self.tool_call_id = tool_call_id
        self.calls = calls
        self.progress = progress
        self.limit = asyncio.Semaphore(MAX_MODEL_CALLS)
        self.runs = 0
        self.generated_images = 0
        self.usage: list[Any] = []

    async def call(self, name: str, args: Any, signal: Any = None) -> Any:
        """What `models.<name>(...args)` resolves to; raises with the text the script's Error carries."""
        argv = list(args) if isinstance(args, list) else []
        argv += [None] * (3 - len(argv))
        if name == "models.getModelsOfType":
            kind, provider = _model_type(argv[0]), _provider(argv[1])
            models = await _maybe(self.registry.get_models_of_type(kind, provider))
            return [model_info(m) for m in models if provider is None or _field(m, "provider") == provider]
        if name == "models.getAvailableOfType":
            kind, provider = _model_type(argv[0]), _provider(argv[1])
            models = await _maybe(self.registry.get_available_of_type(kind, provider))
            return [model_info(m) for m in models if provider is None or _field(m, "provider") == provider]
        if name == "models.getModelOfType":
            if not isinstance(argv[1], str) or not isinstance(argv[2], str):
                shown = ", ".join(describe_value(a) for a in (args if isinstance(args, list) else []))
                raise ValueError(
                    f"models.getModelOfType takes three strings (type, provider, id) but was given ({shown}); "
                    'pass the provider and the id separately, e.g. models.getModelOfType("image", "openai", '
                    '"gpt-image-1")'
                )
            model = self._lookup(_model_type(argv[0]), argv[1], argv[2])
            return None if model is None else model_info(model)
        if name in RUNNERS:
            return await self._run(name, argv[0], argv[1], signal)
        raise ValueError(f"{name} is not part of the models global")

    def _lookup(self, kind: str, provider: str, model_id: str) -> Any:
        return self.registry.get_model_of_type(kind, provider, model_id)

    def _resolve(self, name: str, kind: str, given: Any) -> Any:
        hint = f'models.getAvailableOfType("{kind}") lists the {kind} models this session can run.'
        provider, model_id = _field(given, "provider"), _field(given, "id")
        if not isinstance(provider, str) or not isinstance(model_id, str):
            missing = " (models.getModelOfType() gives undefined when it knows no such model)" if given is None else ""
            raise ValueError(
                f"{name}() needs {_with_article(kind)} model first, but was given {describe_value(given)}{missing}. "
                f"{hint}"
            )
        resolved = self._lookup(kind, provider, model_id)
        if resolved is not None:
            return resolved
        ref = f"{provider}/{model_id}"
        actual = next((t for t in MODEL_TYPES if t != kind and self._lookup(t, provider, model_id) is not None), None)
        if actual is not None:
            raise ValueError(
                f'{name}() needs {_with_article(kind)} model; "{ref}" is {_with_article(actual)} model. {hint}'
            )
        raise ValueError(f'There is no {kind} model "{ref}". {hint}')

    async def _run(self, name: str, given: Any, context: Any, signal: Any) -> Any:
        kind, method = RUNNERS[name]
        model = self._resolve(name, kind, given)
        checked = check_classifier_context(context) if kind == "classifier" else check_images_context(context)
        self.runs += 1
        record = CallRecord(
            id=f"{self.tool_call_id}/{name}/{self.runs}",
            name=name,
            args=f"{_field(model, 'provider')}/{_field(model, 'id')}",
        )
        self.calls.append(record)
        self.progress()
        started = time.monotonic()
        try:
            async with self.limit:
                run = getattr(self.registry, method)
                result = await (run(model, checked) if signal is None else run(model, checked, {"signal": signal}))
        except Exception as error:
            record.duration_ms = (time.monotonic() - started) * 1000
            record.status, record.error = "error", _preview(str(error) or type(error).__name__)
            self.progress()
            raise
        record.duration_ms = (time.monotonic() - started) * 1000
        self._finish(record, result, kind)
        return plain(result)

    def _finish(self, record: CallRecord, result: Any, kind: str) -> None:
        stop = _field(result, "stop_reason", "stopReason")
        record.status = "ok" if stop in (None, "stop") else "cancelled" if stop == "aborted" else "error"
        error = _field(result, "error_message", "errorMessage")
        if error:
            record.error = _preview(str(error))
        usage = _field(result, "usage")
        if usage is not None:
            self.usage.append(usage)
            total = _field(_field(usage, "cost"), "total")
            if isinstance(total, int | float):
                record.cost = float(total)
        if kind == "image":
            output = _field(result, "output") or []
            self.generated_images += sum(1 for block in output if _field(block, "type") == "image")
        self.progress()


__all__ = ["MAX_MODEL_CALLS", "ModelCalls", "model_info"]
