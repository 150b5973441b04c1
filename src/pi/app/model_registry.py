"""All models pi can use: the built-in catalog plus the user's models.json, and the key for each.

models.json (pi's format) can add providers (any OpenAI-, Anthropic- or Google-compatible server:
Ollama, vLLM, LM Studio, a proxy), move a built-in provider to another base URL, add models to it or
override fields of its models. A broken models.json is reported, never fatal: the built-in catalog
still works.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pi.ai.models import catalog_models
from pi.ai.types import Model, ModelCompat
from pi.app.auth import AuthStorage
from pi.app.key_values import KeyCommandError, resolve_config_value

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
        try:
            text = self.models_json.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        except OSError as exc:
            self.errors.append(f"models.json error: cannot read {self.models_json}: {exc}")
            return
        try:
            data = json.loads(text) if text.strip() else {}
        except ValueError as exc:
            self.errors.append(f"models.json error: {self.models_json} is not valid JSON: {exc}")
            return
        providers = data.get("providers") if isinstance(data, dict) else None
        if not isinstance(providers, dict):
            if data:
                self.errors.append('models.json error: expected {"providers": {"<name>": {...}}}')
            return
        for name, config in providers.items():
            if not isinstance(config, dict):
                self.errors.append(f'models.json error: provider "{name}" must be an object')
                continue
            try:
                self._apply_provider(name, config, by_key)
            except (ValidationError, ValueError, TypeError) as exc:
                self.errors.append(f'models.json error in provider "{name}": {exc}')

    def _apply_provider(self, name: str, config: dict[str, Any], by_key: dict[tuple[str, str], Model]) -> None:
        existing = [m for (p, _), m in by_key.items() if p == name]
        if isinstance(config.get("apiKey"), str):
            self._provider_keys[name] = config["apiKey"]
        self._provider_auth_header[name] = bool(config.get("authHeader"))
        provider_fields: dict[str, Any] = {}
        if "baseUrl" in config:
            provider_fields["base_url"] = str(config["baseUrl"])
        if isinstance(config.get("headers"), dict):
            provider_fields["headers"] = {str(k): str(v) for k, v in config["headers"].items()}
        provider_compat = config.get("compat") if isinstance(config.get("compat"), dict) else None

        for model in existing:
            by_key[(name, model.id)] = _updated(model, provider_fields, provider_compat)

        models = config.get("models") or []
        if not isinstance(models, list):
            raise ValueError('"models" must be a list')
        if models and not existing and not config.get("baseUrl"):
            raise ValueError('a new provider needs "baseUrl"')
        for entry in models:
            if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
                raise ValueError('every model needs an "id"')
            api = entry.get("api") or config.get("api") or (existing[0].api if existing else None)
            if not api:
                raise ValueError(f'model "{entry["id"]}" has no "api" (set it on the provider or the model)')
            base = by_key.get((name, entry["id"]))
            compat = {**(provider_compat or {}), **(entry.get("compat") or {})}
            raw: dict[str, Any] = {
                "id": entry["id"],
                "name": entry.get("name") or (base.name if base else entry["id"]),
                "api": api,
                "provider": name,
                "baseUrl": provider_fields.get("base_url") or (base.base_url if base else config.get("baseUrl")),
                "reasoning": entry.get("reasoning", base.reasoning if base else False),
                "input": entry.get("input", base.input if base else ["text"]),
                "contextWindow": entry.get("contextWindow", base.context_window if base else DEFAULT_CONTEXT_WINDOW),
                "maxTokens": entry.get("maxTokens", base.max_tokens if base else DEFAULT_MAX_TOKENS),
                "cost": {**(base.cost.to_json_dict() if base else {}), **(entry.get("cost") or {})},
                "headers": {**(provider_fields.get("headers") or {}), **(entry.get("headers") or {})} or None,
                "compat": compat or None,
            }
            by_key[(name, entry["id"])] = Model.model_validate(raw)

        overrides = config.get("modelOverrides") or {}
        if not isinstance(overrides, dict):
            raise ValueError('"modelOverrides" must be an object')
        for model_id, patch in overrides.items():
            base = by_key.get((name, model_id))
            if base is None or not isinstance(patch, dict):
                self.errors.append(f'models.json: modelOverrides names unknown model "{name}/{model_id}"')
                continue
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
        """Runtime key, auth.json, environment, then models.json's apiKey (pi's priority)."""
        key = self.auth.get_api_key(provider)
        if key:
            return key
        configured = self._provider_keys.get(provider)
        if configured:
            try:
                return resolve_config_value(configured)
            except KeyCommandError as exc:
                self.errors.append(str(exc))
                return None
        return None

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
            resolved = resolve_config_value(value)
            if resolved is not None:
                headers[key] = resolved
        if self._provider_auth_header.get(model.provider) and api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        return headers or None


def _updated(model: Model, fields: dict[str, Any], compat: dict[str, Any] | None) -> Model:
    update: dict[str, Any] = dict(fields)
    if compat:
        base = model.compat.to_json_dict() if model.compat else {}
        update["compat"] = ModelCompat.model_validate({**base, **compat})
    if "headers" in fields:
        update["headers"] = {**(model.headers or {}), **fields["headers"]}
    return model.model_copy(update=update) if update else model


__all__ = ["ModelRegistry"]
