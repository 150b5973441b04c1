"""The built-in model catalog: which models each provider serves, their limits and prices.

The data lives in ``data/models.json`` (grouped by provider, with the provider's API, base URL and
compat flags stated once and overridable per model). It is read on the first lookup, not at import:
`pi --version` and anything that never asks for a model pays nothing. JSON was chosen over a Python
module after measuring both: ``json.loads`` of the file takes about 0.35 ms, importing the same data
as a dict literal from a cached ``.pyc`` about 4.8 ms.

Lookups return copies, so a caller that adjusts a model (a proxy base URL, a smaller window) changes
only its own object, never the catalog everyone else reads.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from pi.ai.types import Model

CATALOG_PATH = Path(__file__).parent / "data" / "models.json"

_PROVIDER_DEFAULTS = ("api", "baseUrl", "compat", "headers")


@cache
def _catalog() -> dict[str, dict[str, Model]]:
    """provider -> model id -> Model, in file order (newest models first within a provider)."""
    return _build_catalog()


def catalog_models() -> list[Model]:
    """Every catalog model, providers sorted, freshly built and owned by the caller (a model registry).

    Building them from the file again is cheaper than deep-copying the cached ones (about 1 ms
    against 3 for the whole catalog), and a registry is made once per run.
    """
    catalog = _build_catalog()
    return [model for provider in sorted(catalog) for model in catalog[provider].values()]


def _build_catalog() -> dict[str, dict[str, Model]]:
    raw: dict[str, Any] = json.loads(CATALOG_PATH.read_bytes())
    catalog: dict[str, dict[str, Model]] = {}
    for provider, entry in raw["providers"].items():
        defaults = {key: entry[key] for key in _PROVIDER_DEFAULTS if key in entry}
        models: dict[str, Model] = {}
        for spec in entry["models"]:
            model = Model.model_validate({**defaults, **spec, "provider": provider})
            if model.id in models:
                raise ValueError(f"Duplicate model id {model.id!r} for provider {provider!r} in {CATALOG_PATH}")
            models[model.id] = model
        catalog[provider] = models
    return catalog


def get_providers() -> list[str]:
    """Names of the providers in the built-in catalog, sorted."""
    return sorted(_catalog())


def get_model(provider: str, model_id: str) -> Model | None:
    """The catalog entry for `provider`/`model_id`, or None when the catalog does not know it."""
    model = _catalog().get(provider, {}).get(model_id)
    return model.model_copy(deep=True) if model is not None else None


def get_models(provider: str) -> list[Model]:
    """Every model of `provider` (empty for an unknown provider)."""
    return [model.model_copy(deep=True) for model in _catalog().get(provider, {}).values()]


def find_models(query: str) -> list[Model]:
    """Models whose provider, id, name or ``provider/id`` contains `query`, ignoring case.

    An empty query lists the whole catalog. Meant for a command line: ``pi --list-models sonnet``.
    """
    needle = query.strip().lower()
    found: list[Model] = []
    for provider in get_providers():
        for model in _catalog()[provider].values():
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
    "CATALOG_PATH",
    "catalog_models",
    "find_models",
    "get_model",
    "get_models",
    "get_providers",
    "models_are_equal",
]
