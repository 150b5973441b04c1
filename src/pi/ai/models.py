"""The built-in model catalog: which models each provider serves, their limits and prices.

The data lives in ``data/models/<provider>.json``, one file per provider: a ``defaults`` object
(the values most of its models share: API, base URL, compat flags, image limits, ...) and the
models, each naming only what differs (``null`` where a default does not apply). Nothing is read
at import; a lookup reads and validates only the provider it asks about, so `pi --version` pays
nothing and a run that uses one provider does not parse the whole catalog (about 1,400 models).

Lookups return copies, so a caller that adjusts a model (a proxy base URL, a smaller window) changes
only its own object, never the catalog everyone else reads.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from pi.ai.types import Model

CATALOG_DIR = Path(__file__).parent / "data" / "models"

DEFAULT_MODEL_PER_PROVIDER: dict[str, str] = {
    "amazon-bedrock": "us.anthropic.claude-opus-5-5",
    "ant-ling": "Ring-2.6-1T",
    "anthropic": "claude-opus-5-5",
    "openai": "gpt-6.2-sol",
    "azure": "gpt-6.2-sol",
    "openai-codex": "gpt-6.2-sol",
    "radius": "balanced",
    "nvidia": "nvidia/nemotron-3.5-super-vl-120b-a12b",
    "deepseek": "deepseek-v4-pro",
    "google": "gemini-4-argon",
    "google-vertex": "gemini-4-argon",
    "github-copilot": "gpt-6.1-sol",
    "openrouter": "moonshotai/kimi-k2.7-code",
    "vercel-ai-gateway": "zai/glm-5.3",
    "xai": "grok-4.7",
    "groq": "openai/gpt-oss-120b",
    "cerebras": "gpt-oss-120b",
    "zai": "glm-5.3",
    "zai-coding-cn": "glm-5.3",
    "mistral": "devstral-medium-latest",
    "minimax": "MiniMax-M3",
    "minimax-cn": "MiniMax-M3",
    "moonshotai": "kimi-k2.7-code",
    "moonshotai-cn": "kimi-k2.7-code",
    "huggingface": "moonshotai/Kimi-K2.7-Code",
    "fireworks": "accounts/fireworks/models/kimi-k3",
    "together": "moonshotai/Kimi-K3",
    "baseten": "zai-org/GLM-5.3",
    "opencode": "kimi-k2.7-code",
    "opencode-go": "kimi-k3.1-pro",
    "kimi-coding": "kimi-for-coding",
    "meta": "muse-spark-1.3",
    "cloudflare-workers-ai": "@cf/moonshotai/kimi-k2.7-code",
    "cloudflare-ai-gateway": "workers-ai/@cf/moonshotai/kimi-k2.7-code",
    "qwen-token-plan": "qwen3.8-max",
    "qwen-token-plan-cn": "qwen3.8-max",
    "qwen-token-plan-individual": "qwen3.8-max",
    "qwen-token-plan-individual-cn": "qwen3.8-max",
    "xiaomi": "mimo-v2.6-pro",
    "xiaomi-token-plan-ams": "mimo-v2.6-pro",
    "xiaomi-token-plan-cn": "mimo-v2.6-pro",
    "xiaomi-token-plan-sgp": "mimo-v2.6-pro",
}
"""The model chosen for each provider when no saved default applies, in the order providers are
tried at start-up. Some providers here (Bedrock, Vertex) speak APIs this catalog does
not ship; they stay listed so that the order is the same as pi's."""


@cache
def get_providers() -> list[str]:
    """Names of the providers in the built-in catalog, sorted (a directory listing, no parsing)."""
    return sorted(path.stem for path in CATALOG_DIR.glob("*.json"))


def _read_provider(provider: str) -> list[dict[str, Any]]:
    """The raw model objects of one provider, defaults applied, in file order."""
    path = CATALOG_DIR / f"{provider}.json"
    raw: dict[str, Any] = json.loads(path.read_bytes())
    defaults: dict[str, Any] = raw.get("defaults", {})
    out: list[dict[str, Any]] = []
    for spec in raw["models"]:
        merged = {**defaults, **spec, "provider": provider}
        out.append({key: value for key, value in merged.items() if value is not None})
    return out


def _build_provider(provider: str) -> dict[str, Model]:
    models: dict[str, Model] = {}
    for data in _read_provider(provider):
        model = Model.model_validate(data)
        if model.id in models:
            raise ValueError(f"Duplicate model id {model.id!r} for provider {provider!r} in {CATALOG_DIR}")
        models[model.id] = model
    return models


@cache
def _provider_models(provider: str) -> dict[str, Model]:
    """model id -> Model of one provider (newest first, as the catalog lists them); cached."""
    if provider not in get_providers():
        return {}
    return _build_provider(provider)


def catalog_provider_models(provider: str) -> list[Model]:
    """The catalog models of one provider, freshly built and owned by the caller (empty when unknown)."""
    if provider not in get_providers():
        return []
    return list(_build_provider(provider).values())


def catalog_models() -> list[Model]:
    """Every catalog model, providers sorted, freshly built and owned by the caller (a model registry)."""
    return [model for provider in get_providers() for model in _build_provider(provider).values()]


def get_model(provider: str, model_id: str) -> Model | None:
    """The catalog entry for `provider`/`model_id`, or None when the catalog does not know it."""
    model = _provider_models(provider).get(model_id)
    return model.model_copy(deep=True) if model is not None else None


def get_models(provider: str) -> list[Model]:
    """Every model of `provider` (empty for an unknown provider)."""
    return [model.model_copy(deep=True) for model in _provider_models(provider).values()]


def get_default_model(provider: str) -> Model | None:
    """The catalog model `DEFAULT_MODEL_PER_PROVIDER` names for `provider`, when the catalog has it."""
    model_id = DEFAULT_MODEL_PER_PROVIDER.get(provider)
    return get_model(provider, model_id) if model_id is not None else None


def find_models(query: str) -> list[Model]:
    """Models whose provider, id, name or ``provider/id`` contains `query`, ignoring case.

    An empty query lists the whole catalog. Meant for a command line: ``pi --list-models sonnet``.
    """
    needle = query.strip().lower()
    found: list[Model] = []
    for provider in get_providers():
        for model in _provider_models(provider).values():
            haystack = f"{provider}/{model.id}\n{model.name}".lower()
            if needle in haystack:
                found.append(model.model_copy(deep=True))
    return found


def models_are_equal(a: Model | None, b: Model | None) -> bool:
    """Same provider and id; False when either is missing (so "no model" never equals "no model")."""
    if a is None or b is None:
        return False
    return a.id == b.id and a.provider == b.provider


__all__ = [
    "CATALOG_DIR",
    "DEFAULT_MODEL_PER_PROVIDER",
    "catalog_models",
    "catalog_provider_models",
    "find_models",
    "get_default_model",
    "get_model",
    "get_models",
    "get_providers",
    "models_are_equal",
]
