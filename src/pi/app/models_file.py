"""models.json as typed data: providers, their models and overrides, checked before any is used.

The reader is tolerant where pi is (a missing file is no error; unknown keys are kept) and strict
where a mistake would send requests to the wrong place: a file that does not parse, or does not fit
the schema, is ignored as a whole and reported in pi's words, and the built-in catalog still works. Comments
and trailing commas are accepted (JSONC), as is a byte-order mark.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.alias_generators import to_camel

from pi.ai.field_defaults import empty_list
from pi.app.jsonc import loads_jsonc


class _Entry(BaseModel):
    # Validators are built on first use: without a models.json none is needed, and with one the
    # file's validator is built once with its nested shapes instead of once per class as well.
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow", defer_build=True)


class ModelEntry(_Entry):
    id: str
    name: str | None = None
    api: str | None = None
    base_url: str | None = None
    reasoning: bool | None = None
    input: list[str] | None = None
    context_window: int | None = Field(default=None, gt=0)
    max_tokens: int | None = Field(default=None, gt=0)
    cost: dict[str, Any] | None = None
    headers: dict[str, str] | None = None
    compat: dict[str, Any] | None = None


class ProviderEntry(_Entry):
    name: str | None = None
    base_url: str | None = None
    api: str | None = None
    api_key: str | None = None
    auth_header: bool = False
    headers: dict[str, str] | None = None
    compat: dict[str, Any] | None = None
    models: list[ModelEntry] = Field(default_factory=empty_list)
    model_overrides: dict[str, dict[str, Any]] = Field(default_factory=dict)


class ModelsFile(_Entry):
    providers: dict[str, ProviderEntry] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _models_have_an_api(self) -> ModelsFile:
        for name, provider in self.providers.items():
            for model in provider.models:
                if model.api is None and provider.api is None and not _is_builtin(name):
                    raise ValueError(f'provider "{name}": model "{model.id}" has no "api" (set it on the provider)')
        return self


def _is_builtin(provider: str) -> bool:
    """A provider of the built-in catalog (one file per provider, each with models: no need to build them)."""
    from pi.ai.models import get_providers

    return provider in get_providers()


def load_models_file(path: Path) -> tuple[ModelsFile | None, str | None]:
    """The parsed file (None when absent or unusable) and the error to report, if any."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"Failed to load models.json: {exc.strerror or exc}\n\nFile: {path}"
    if not text.strip():
        return None, None
    try:
        data = loads_jsonc(text)
    except ValueError as exc:
        return None, f"Failed to parse models.json: {exc}\n\nFile: {path}"
    try:
        return ModelsFile.model_validate(data), None
    except ValidationError as exc:
        lines = []
        for error in exc.errors():
            where = "/".join(str(part) for part in error["loc"]) or "(root)"
            lines.append(f"  - {where}: {error['msg']}")
        return None, "Invalid models.json schema:\n" + "\n".join(lines) + f"\n\nFile: {path}"


__all__ = ["ModelEntry", "ModelsFile", "ProviderEntry", "load_models_file"]
