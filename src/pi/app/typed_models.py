"""The image and classifier models of a `ModelRegistry`: the built-in ones plus those models.json and
extensions add, and which of them the user's credentials make usable.

They are built on first use and never on a chat lookup, so the chat path does not pay for them.
Rules, as for chat models: a base URL set for a whole provider moves its models; a provider
whose model list code replaced loses its built-in ones; a model listed again under the same id
replaces the earlier entry. Usable ("available") means the provider has a credential. A ChatGPT
login for ``openai`` (OAuth) hides that provider's classifiers: the Decisions API accepts API keys
only.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from pi.ai.model_types import TypedModel
from pi.ai.model_types_catalog import catalog_typed_models, typed_model_from, typed_providers

if TYPE_CHECKING:
    from pi.app.model_registry import ModelRegistry
    from pi.app.models_file import ModelEntry, ProviderEntry

logger = logging.getLogger(__name__)

OPENAI = "openai"
COPILOT = "github-copilot"


def classifiers_hidden(registry: ModelRegistry, provider: str) -> bool:
    """True when `provider`'s classifiers cannot be used with the credential in use (an OpenAI ChatGPT login)."""
    auth = registry.auth
    return provider == OPENAI and not auth.runtime_api_key(provider) and auth.stored_type(provider) == "oauth"


def _entry_model(provider: str, config: ProviderEntry, entry: ModelEntry) -> TypedModel:
    data: dict[str, Any] = entry.model_dump(by_alias=True, exclude_none=True)
    data.pop("headers", None)  # resolved per request (`request_headers`), never carried as written
    data.setdefault("name", entry.id)
    data["provider"] = provider
    data.setdefault("baseUrl", config.base_url or "")
    if config.api:
        data.setdefault("api", config.api)
    if config.compat:
        data["compat"] = {**config.compat, **(data.get("compat") or {})}
    return typed_model_from(data)


def _report(registry: ModelRegistry, message: str) -> None:
    if message not in registry.errors:
        registry.errors.append(message)
        logger.warning(message)


def _copilot_base(registry: ModelRegistry) -> str | None:
    entry = registry.auth.raw_entry(COPILOT) if registry.auth.stored_type(COPILOT) == "oauth" else None
    if entry is None:
        return None
    from pi.app.oauth.flows.github_copilot import copilot_base_url

    access, enterprise = entry.get("access"), entry.get("enterpriseUrl")
    return copilot_base_url(
        access if isinstance(access, str) else "", enterprise if isinstance(enterprise, str) else None
    )


def typed_models(registry: ModelRegistry, model_type: str, provider: str | None = None) -> list[TypedModel]:
    """Every image or classifier model (`model_type`) the registry knows, optionally of one provider."""
    replaced = registry.replaced_providers()
    by_key: dict[tuple[str, str], TypedModel] = {}
    for name in typed_providers():
        if (provider is not None and name != provider) or name in replaced:
            continue
        moved = registry.provider_base_urls.get(name)
        for model in catalog_typed_models(name):
            by_key[(name, model.id)] = model.model_copy(update={"base_url": moved}) if moved else model
    for name, entries in registry.typed_entries.items():
        if provider is None or name == provider:
            for config, entry in entries:
                try:
                    model = _entry_model(name, config, entry)
                except (ValueError, TypeError) as exc:  # pydantic's ValidationError is a ValueError
                    _report(registry, f"providers/{name}/models/{entry.id}: not a valid model: {exc}")
                    continue
                by_key[(name, model.id)] = model
    copilot = _copilot_base(registry) if provider in (None, COPILOT) else None
    out: list[TypedModel] = []
    for model in by_key.values():
        if model.type != model_type:
            continue
        if copilot and model.provider == COPILOT and model.base_url.rstrip("/") == _COPILOT_DEFAULT:
            model = model.model_copy(update={"base_url": copilot})
        out.append(model)
    return out


_COPILOT_DEFAULT = "https://api.individual.githubcopilot.com"


def available_typed_models(registry: ModelRegistry, model_type: str, provider: str | None = None) -> list[TypedModel]:
    """The models of `typed_models` whose provider has a credential that works for them."""
    keyed: dict[str, bool] = {}
    out: list[TypedModel] = []
    for model in typed_models(registry, model_type, provider):
        if model.provider not in keyed:
            hidden = model_type == "classifier" and classifiers_hidden(registry, model.provider)
            keyed[model.provider] = not hidden and bool(registry.get_api_key(model.provider))
        if keyed[model.provider]:
            out.append(model)
    return out


def find_typed_model(registry: ModelRegistry, model_type: str, provider: str, model_id: str) -> TypedModel | None:
    return next((m for m in typed_models(registry, model_type, provider) if m.id == model_id), None)


def implementation_for(registry: ModelRegistry, model: TypedModel) -> Any:
    """The implementation code registered with the model's provider for its API, or None (built-in)."""
    kind = "images" if model.type == "image" else "classifiers"
    table = registry.implementations.get(model.provider, {}).get(kind)
    if table is None:
        return None
    if isinstance(table, dict):
        return table.get(model.api)
    return getattr(table, model.api, None)


__all__ = [
    "available_typed_models",
    "classifiers_hidden",
    "find_typed_model",
    "implementation_for",
    "typed_models",
]
