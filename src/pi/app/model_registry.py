"""All models pi can use: the built-in catalog plus the user's models.json, and the key for each.

models.json (pi's format) can add providers (any OpenAI-, Anthropic- or Google-compatible server:
Ollama, vLLM, LM Studio, a proxy), move a built-in provider to another base URL, add models to it or
override fields of its models. A broken models.json is reported, never fatal: the built-in catalog
still works.

The catalog holds about 1,400 models in one file per provider. A provider that neither models.json
nor code changes is built only when something asks for its models (`find`, `provider_models`, the
keyed providers of `available_models`), so a run that names its model builds one provider, not all.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, TypeAlias

from pydantic import ValidationError

from pi.ai.models import catalog_provider_models, get_providers
from pi.ai.types import Model, ModelCompat
from pi.app.auth import AuthStorage
from pi.app.key_values import ConfigValueError, resolve_config_value
from pi.app.models_file import ModelEntry, ModelsFile, ProviderEntry, load_models_file

logger = logging.getLogger(__name__)

DEFAULT_CONTEXT_WINDOW = 128000
DEFAULT_MAX_TOKENS = 16384

_UNCHANGED = "\0catalog"
"""Provider part of the key that stands for a whole catalog provider nothing changed (built on use)."""

_HeaderTemplates: TypeAlias = dict[tuple[str, str], dict[str, str]]
"""Configured header values by (provider, model id), unresolved."""

_Layout: TypeAlias = dict[tuple[str, str], Model | None]
"""Every model in the registry's order: a `Model`, or at ``(_UNCHANGED, provider)`` a not yet built provider."""


class ModelRegistry:
    def __init__(self, auth: AuthStorage, models_json: Path | None = None) -> None:
        self.auth = auth
        self.models_json = models_json
        self.errors: list[str] = []
        self._layout: _Layout = {}
        self._built: dict[str, list[Model]] = {}
        """Catalog providers built so far, each the registry's own copies."""
        self._all: list[Model] | None = None
        self._provider_keys: dict[str, str] = {}
        self._provider_auth_header: dict[str, bool] = {}
        self._headers: _HeaderTemplates = {}
        """Headers models.json or code configured per model, as written (``$NAME``, ``!command``).

        They stay here and are resolved for each request (`request_headers`): a `Model` handed out
        carries only the catalog's own fixed headers, so a value that cannot be resolved is never
        sent as written by a provider that merges `model.headers`.
        """
        self._registered: dict[str, ProviderEntry] = {}
        """Providers added from code (`register_provider`), applied after models.json on every reload."""
        self.typed_entries: dict[str, list[tuple[ProviderEntry, ModelEntry]]] = {}
        """Image and classifier models models.json or code listed, by provider (`pi.app.typed_models` builds them)."""
        self.provider_base_urls: dict[str, str] = {}
        """Base URLs models.json or code set for whole providers (they move image and classifier models too)."""
        self.implementations: dict[str, dict[str, Any]] = {}
        """``images``/``classifiers`` implementations a provider registered from code brought, by provider."""
        self.reload()

    def reload(self) -> None:
        """Read models.json again and apply it and the registered providers over the catalog.

        Every provider models.json or code changes is built and checked now, so a mistake is
        reported at once; the others wait for their first use.
        """
        self.errors = []
        self._provider_keys = {}
        self._provider_auth_header = {}
        self._headers = {}
        self.typed_entries, self.provider_base_urls = {}, {}
        self._built = {}
        self._all = None
        parsed, error = load_models_file(self.models_json) if self.models_json is not None else (None, None)
        if error is not None:
            self.errors.append(error)
        changed = set(self._registered) | (set(parsed.providers) if parsed is not None else set())
        oauth = {name: self.auth.raw_entry(name) or {} for name in self.auth.oauth_providers()}
        by_key: _Layout = {}
        for provider in get_providers():
            if provider in changed or oauth:
                for model in self._catalog(provider):
                    by_key[(provider, model.id)] = model
            else:
                by_key[(_UNCHANGED, provider)] = None
        if parsed is not None:
            self._apply_models_json(parsed, by_key)
        for name, entry in self._registered.items():
            if entry.models:  # an extension's model list replaces the provider's
                for key in [k for k in by_key if k[0] == name]:
                    del by_key[key]
                    self._headers.pop(key, None)
            self._apply_provider(name, entry, by_key, self._headers)
        self._layout = by_key
        if oauth:  # a stored login can move a provider's models or limit which are offered
            from pi.app.oauth.model_overrides import apply_oauth_models

            self._all = apply_oauth_models(self.all_models(), oauth)

    def _catalog(self, provider: str) -> list[Model]:
        built = self._built.get(provider)
        if built is None:
            stored = self._stored_catalog(provider)
            built = self._built[provider] = stored if stored is not None else catalog_provider_models(provider)
        return built

    def _stored_catalog(self, provider: str) -> list[Model] | None:
        """The Radius account's own list a login fetched (models-store.json beside models.json), if any."""
        if provider != "radius" or self.models_json is None:
            return None
        from pi.app.oauth.radius_catalog import STORE_FILE, stored_models

        return stored_models(self.models_json.with_name(STORE_FILE))

    # -- models.json -------------------------------------------------------------------------------

    def _apply_models_json(self, parsed: ModelsFile, by_key: _Layout) -> None:
        updated = dict(by_key)
        headers: _HeaderTemplates = {}
        try:
            for name, config in parsed.providers.items():
                self._apply_provider(name, config, updated, headers)
        except (ValidationError, ValueError, TypeError) as exc:
            self.errors.append(f"Invalid models.json schema:\n  - {exc}\n\nFile: {self.models_json}")
            self._provider_keys, self._provider_auth_header = {}, {}
            self.typed_entries, self.provider_base_urls = {}, {}
            return
        by_key.clear()
        by_key.update(updated)
        self._headers.update(headers)

    def _apply_provider(self, name: str, config: ProviderEntry, by_key: _Layout, headers: _HeaderTemplates) -> None:
        existing = [m for (p, _), m in by_key.items() if p == name and m is not None]
        if config.api_key is not None:
            self._provider_keys[name] = config.api_key
        self._provider_auth_header[name] = config.auth_header
        provider_fields: dict[str, Any] = {}
        if config.base_url is not None:
            provider_fields["base_url"] = self.provider_base_urls[name] = config.base_url
        for model in existing:
            by_key[(name, model.id)] = _updated(model, provider_fields, config.compat)
            if config.headers:
                headers[(name, model.id)] = {**headers.get((name, model.id), {}), **config.headers}
        if config.models and not existing and not config.base_url:
            raise ValueError(f'providers/{name}: a new provider needs "baseUrl"')
        for entry in config.models:
            if (entry.model_extra or {}).get("type") in ("image", "classifier"):
                self.typed_entries.setdefault(name, []).append((config, entry))  # kept apart from the chat models
                headers[(name, entry.id)] = {**(config.headers or {}), **(entry.headers or {})}
                continue
            by_key[(name, entry.id)] = _model_from(name, config, entry, by_key.get((name, entry.id)), existing)
            headers[(name, entry.id)] = {**(config.headers or {}), **(entry.headers or {})}
        for model_id, patch in config.model_overrides.items():
            base = by_key.get((name, model_id))
            if base is None:
                continue  # pi ignores overrides of unknown ids
            merged = base.to_json_dict()
            for key, value in patch.items():
                if key == "headers" and isinstance(value, dict):
                    headers[(name, model_id)] = {**headers.get((name, model_id), {}), **_header_values(value)}
                elif isinstance(value, dict) and isinstance(merged.get(key), dict):
                    merged[key] = _merged_fields(merged[key], value)  # cost, compat, inputLimits, ...
                else:
                    merged[key] = value
            by_key[(name, model_id)] = Model.model_validate(merged)

    def register_provider(self, name: str, config: dict[str, Any]) -> None:
        """Add or change provider `name` from code (an extension), in models.json's provider format.

        `models` replace the provider's models; a config with only `baseUrl` moves the existing ones.
        Raises ValueError (saying what is wrong) for a config that models.json would reject.
        """
        config = dict(config)
        implementations = {kind: config.pop(kind) for kind in ("images", "classifiers") if config.get(kind)}
        entry = ProviderEntry.model_validate(config)
        if implementations:
            self.implementations[name] = implementations
        else:
            self.implementations.pop(name, None)
        previous = self._registered.get(name)
        self._registered[name] = entry
        try:
            self.reload()
        except (ValidationError, ValueError, TypeError):
            if previous is None:
                del self._registered[name]
            else:
                self._registered[name] = previous
            self.reload()
            raise

    def unregister_provider(self, name: str) -> None:
        """Undo `register_provider(name)`: its models go, overridden built-ins come back."""
        self.implementations.pop(name, None)
        if self._registered.pop(name, None) is not None:
            self.reload()

    # -- queries ------------------------------------------------------------------------------------

    def all_models(self) -> list[Model]:
        """Every model: catalog providers sorted, each in catalog order, then those models.json or code added."""
        if self._all is None:
            self._all = [model for key, model in self._layout.items() for model in self._expand(key, model)]
        return list(self._all)

    def _expand(self, key: tuple[str, str], model: Model | None) -> list[Model]:
        if model is not None:
            return [model]
        return self._catalog(key[1])

    def replaced_providers(self) -> set[str]:
        """Providers whose whole model list code replaced (`register_provider` with ``models``)."""
        return {name for name, entry in self._registered.items() if entry.models}

    def providers(self) -> list[str]:
        return sorted({m.provider for m in self.all_models()})

    def provider_named(self, name: str) -> str | None:
        """The provider spelled `name` ignoring case (as the command line matches it), or None."""
        if self._all is not None:
            names = [m.provider for m in self._all]
        else:
            names = [model_id if provider == _UNCHANGED else provider for provider, model_id in self._layout]
        return next((actual for actual in reversed(names) if actual.lower() == name.lower()), None)

    def provider_models(self, provider: str) -> list[Model]:
        """The models of `provider`, in the order `all_models` lists them; builds only that provider."""
        if self._all is not None:
            return [m for m in self._all if m.provider == provider]
        out: list[Model] = []
        for key, model in self._layout.items():
            if key == (_UNCHANGED, provider) or (model is not None and key[0] == provider):
                out.extend(self._expand(key, model))
        return out

    def find(self, provider: str, model_id: str) -> Model | None:
        for model in self.provider_models(provider):
            if model.id == model_id:
                return model
        return None

    def configured_api_key(self, provider: str) -> str | None:
        """`provider`'s ``apiKey`` as models.json writes it (``$NAME``, ``!command`` unresolved)."""
        return self._provider_keys.get(provider)

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
        """Models whose provider has a key from any source (only those providers are built)."""
        keyed: dict[str, bool] = {}
        out: list[Model] = []
        candidates: list[tuple[str, Model | None]]
        if self._all is not None:
            candidates = [(m.provider, m) for m in self._all]
        else:
            candidates = [(model_id if p == _UNCHANGED else p, m) for (p, model_id), m in self._layout.items()]
        for provider, model in candidates:
            if provider not in keyed:
                keyed[provider] = bool(self.get_api_key(provider))
            if keyed[provider]:
                out.extend(self._expand((_UNCHANGED, provider), model))
        return out

    def request_headers(self, model: Model, api_key: str | None) -> dict[str, str] | None:
        """The headers configured for `model`, resolved now, plus Authorization when authHeader is set.

        A value that cannot be resolved is reported and left out; the request goes without it.
        """
        headers: dict[str, str] = {}
        templates = self._headers.get((model.provider, model.id))
        env = self.auth.provider_env(model.provider) if templates else None
        for key, value in (templates or {}).items():
            try:
                headers[key] = resolve_config_value(
                    value, f'header "{key}" for provider "{model.provider}"', cache=False, env=env
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
    raw: dict[str, Any] = {
        # Fields this code does not interpret itself (thinkingLevelMap, samplingParams, inputLimits,
        # promptCache, ...) are the model's own, as models.json spells them.
        **(entry.model_extra or {}),
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
        "compat": compat or None,
    }
    return Model.model_validate(raw)


def _merged_fields(base: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """`patch` over `base` field by field, nested objects too (``inputLimits.images.resize.maxWidth`` alone)."""
    out = dict(base)
    for key, value in patch.items():
        current = out.get(key)
        out[key] = _merged_fields(current, value) if isinstance(value, dict) and isinstance(current, dict) else value
    return out


def _header_values(value: dict[str, Any]) -> dict[str, str]:
    """The headers of a modelOverrides entry; every value must be a string (a value, ``$NAME`` or ``!command``)."""
    bad = [key for key, item in value.items() if not isinstance(item, str)]
    if bad:
        raise ValueError(f'modelOverrides: header "{bad[0]}" must be a string')
    return {str(key): item for key, item in value.items()}


def _updated(model: Model, fields: dict[str, Any], compat: dict[str, Any] | None) -> Model:
    update: dict[str, Any] = dict(fields)
    if compat:
        base = model.compat.to_json_dict() if model.compat else {}
        update["compat"] = ModelCompat.model_validate({**base, **compat})
    return model.model_copy(update=update) if update else model


__all__ = ["ModelRegistry"]
