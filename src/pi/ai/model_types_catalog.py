"""The built-in image and classifier models, read on first use.

The data lives in ``data/model_types/<provider>.json`` in the chat catalog's layout (a
``defaults`` object and the models, ``null`` where a default does not apply), each model naming its
``type``. Chat lookups never touch these files: they are read only when a caller asks for a model
of another type, so `pi -p` pays nothing for them.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from pi.ai.model_types import ClassifierModel, ImageModel, TypedModel

TYPED_CATALOG_DIR = Path(__file__).parent / "data" / "model_types"


@cache
def typed_providers() -> list[str]:
    """Providers with image or classifier models in the built-in catalog, sorted."""
    return sorted(path.stem for path in TYPED_CATALOG_DIR.glob("*.json"))


def typed_model_from(data: dict[str, Any]) -> TypedModel:
    """An image or classifier model from its JSON form; ValueError for another or a missing ``type``."""
    kind = data.get("type")
    if kind == "image":
        return ImageModel.model_validate(data)
    if kind == "classifier":
        return ClassifierModel.model_validate(data)
    raise ValueError(f'model "{data.get("id")}": type must be "image" or "classifier", got {kind!r}')


def _read(provider: str) -> list[TypedModel]:
    raw: dict[str, Any] = json.loads((TYPED_CATALOG_DIR / f"{provider}.json").read_bytes())
    defaults: dict[str, Any] = raw.get("defaults", {})
    out: list[TypedModel] = []
    for spec in raw["models"]:
        merged = {**defaults, **spec, "provider": provider}
        out.append(typed_model_from({key: value for key, value in merged.items() if value is not None}))
    return out


@cache
def _provider_entries(provider: str) -> tuple[TypedModel, ...]:
    return tuple(_read(provider)) if provider in typed_providers() else ()


def catalog_typed_models(provider: str) -> list[TypedModel]:
    """The built-in image and classifier models of `provider`, as copies the caller owns."""
    return [model.model_copy(deep=True) for model in _provider_entries(provider)]


__all__ = ["TYPED_CATALOG_DIR", "catalog_typed_models", "typed_model_from", "typed_providers"]
