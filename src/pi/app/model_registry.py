"""All models pi can use: the built-in catalog plus the user's models.json, and the key for each.

models.json (pi's format) can add providers (any OpenAI-, Anthropic- or Google-compatible server:
Ollama, vLLM, LM Studio, a proxy), move a built-in provider to another base URL, add models to it or
override fields of its models. A broken models.json is reported, never fatal: the built-in catalog
still works.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pi.ai.models import catalog_models
from pi.ai.types import Model, ModelCompat
from pi.app.auth import AuthStorage
from pi.app.key_values import ConfigValueError, resolve_config_value
from pi.app.models_file import ModelEntry, ProviderEntry, load_models_file

logger = logging.getLogger(__name__)

DEFAULT_CONTEXT_WINDOW = 128000
DEFAULT_MAX_TOKENS = 16384


class ModelRegistry:
    def __init__(self, auth: AuthStorage, models_json: Path | None = None) -> None:
        self.auth = auth
        self.models_json = models_json
        self.errors: list[str] = []
        self._models: list[Model] = []
        self._provider_keys: dict[str, str] = {}
        self._provider_auth_header: dict[str, bool] = {}
        self.reload()

    def reload(self) -> None:
        self.errors = []
        by_key: dict[tuple[str, str], Model] = {}
        for model in catalog_models():
            by_key[(model.provider, model.id)] = model
        self._provider_keys = {}
        self._provider_auth_header = {}
        if self.models_json is not None:
            self._apply_models_json(by_key)
        self._models = list(by_key.values())

    # -- models.json -------------------------------------------------------------------------------

    def _apply_models_json(self, by_key: dict[tuple[str, str], Model]) -> None:
        assert self.models_json is not None
        parsed, error = load_models_file(self.models_json)
        if error is not None:
            self.errors.append(error)
        if parsed is None:
            return
        updated = dict(by_key)
        try:
            for name, config in parsed.providers.items():
                self._apply_provider(name, config, updated)
        except (ValidationError, ValueError, TypeError) as exc:
            self.errors.append(f"Invalid models.json schema:\n  - {exc}\n\nFile: {self.models_json}")
            self._provider_keys, self._provider_auth_header = {}, {}
            return
        by_key.clear()
        by_key.update(updated)

    def _apply_provider(self, name: str, config: ProviderEntry, by_key: dict[tuple[str, str], Model]) -> None:
        existing = [m for (p, _), m in by_key.items() if p == name]
        if config.api_key is not None:
            self._provider_keys[name] = config.api_key
        self._provider_auth_header[name] = config.auth_header
        provider_fields: dict[str, Any] = {}
        if config.base_url is not None:
            provider_fields["base_url"] = config.base_url
        if config.headers is not None:
            provider_fields["headers"] = dict(config.headers)
        for model in existing:
            by_key[(name, model.id)] = _updated(model, provider_fields, config.compat)
        if config.models and not existing and not config.base_url:
            raise ValueError(f'providers/{name}: a new provider needs "baseUrl"')
        for entry in config.models:
            by_key[(name, entry.id)] = _model_from(name, config, entry, by_key.get((name, entry.id)), existing)
        for model_id, patch in config.model_overrides.items():
            base = by_key.get((name, model_id))
            if base is None:
                continue  # pi ignores overrides of unknown ids
            merged = base.to_json_dict()
            for key, value in patch.items():
                if key in ("cost", "compat", "headers") and isinstance(value, dict):
                    merged[key] = {**(merged.get(key) or {}), **value}
                else:
                    merged[key] = value
            by_key[(name, model_id)] = Model.model_validate(merged)

    # -- queries ------------------------------------------------------------------------------------

    def all_models(self) -> list[Model]:
        return list(self._models)

    def providers(self) -> list[str]:
        return sorted({m.provider for m in self._models})

    def find(self, provider: str, model_id: str) -> Model | None:
        for model in self._models:
            if model.provider == provider and model.id == model_id:
                return model
        return None

    def get_api_key(self, provider: str) -> str | None:
        """``--api-key``, then auth.json, then models.json's apiKey, then the environment (pi's order).

        A models.json value is resolved again for each call (a ``!command`` is not cached); one that
        cannot be resolved is reported and the environment is tried next.
        """
        runtime = self.auth.runtime_api_key(provider)
        if runtime:
            return runtime
        try:
            stored = self.auth.stored_api_key(provider)
        except ConfigValueError as exc:
            self._report(f"auth.json: {exc}")
            stored = None
        if stored:
            return stored
        configured = self._provider_keys.get(provider)
        if configured:
            try:
                return resolve_config_value(configured, f'API key for provider "{provider}"', cache=False)
            except ConfigValueError as exc:
                self._report(str(exc))
        from pi.ai.env_api_keys import get_env_api_key

        return get_env_api_key(provider)

    def _report(self, message: str) -> None:
        """Say once per process what could not be resolved (logged, and kept in `errors`)."""
        if message not in self.errors:
            self.errors.append(message)
            logger.warning(message)

    def has_auth(self, model: Model) -> bool:
        return bool(self.get_api_key(model.provider))

    def available_models(self) -> list[Model]:
        """Models whose provider has a key from any source."""
        keyed: dict[str, bool] = {}
        out = []
        for model in self._models:
            if model.provider not in keyed:
                keyed[model.provider] = self.has_auth(model)
            if keyed[model.provider]:
                out.append(model)
        return out

    def request_headers(self, model: Model, api_key: str | None) -> dict[str, str] | None:
        """Headers models.json asks for: resolved values, plus Authorization when authHeader is set."""
        headers: dict[str, str] = {}
        for key, value in (model.headers or {}).items():
            try:
                headers[key] = resolve_config_value(
                    value, f'header "{key}" for provider "{model.provider}"', cache=False
                )
            except ConfigValueError as exc:
                self._report(f"{exc} (the header is not sent)")
        if self._provider_auth_header.get(model.provider) and api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        return headers or None


def _model_from(
    name: str, config: ProviderEntry, entry: ModelEntry, base: Model | None, existing: list[Model]
) -> Model:
    api = entry.api or config.api or (existing[0].api if existing else None)
    if not api:
        raise ValueError(f'providers/{name}/models/{entry.id}: no "api" (set it on the provider or the model)')
    compat = {**(config.compat or {}), **(entry.compat or {})}
    headers = {**(config.headers or {}), **(entry.headers or {})}
    raw: dict[str, Any] = {
        "id": entry.id,
        "name": entry.name or (base.name if base else entry.id),
        "api": api,
        "provider": name,
        "baseUrl": entry.base_url or config.base_url or (base.base_url if base else None),
        "reasoning": entry.reasoning if entry.reasoning is not None else (base.reasoning if base else False),
        "input": entry.input if entry.input is not None else (base.input if base else ["text"]),
        "contextWindow": entry.context_window or (base.context_window if base else DEFAULT_CONTEXT_WINDOW),
        "maxTokens": entry.max_tokens or (base.max_tokens if base else DEFAULT_MAX_TOKENS),
        "cost": {**(base.cost.to_json_dict() if base else {}), **(entry.cost or {})},
        "headers": headers or None,
        "compat": compat or None,
    }
    return Model.model_validate(raw)


def _updated(model: Model, fields: dict[str, Any], compat: dict[str, Any] | None) -> Model:
    update: dict[str, Any] = dict(fields)
    if compat:
        base = model.compat.to_json_dict() if model.compat else {}
        update["compat"] = ModelCompat.model_validate({**base, **compat})
    if "headers" in fields:
        update["headers"] = {**(model.headers or {}), **fields["headers"]}
    return model.model_copy(update=update) if update else model


__all__ = ["ModelRegistry"]
