"""The registry builds a catalog provider only when asked for its models, with the same result as building all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pi.app.model_registry as registry_module
from pi.ai.models import catalog_models, catalog_provider_models, get_providers
from pi.ai.types import Model
from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry
from pi.app.model_resolver import resolve_cli_model, resolve_registry_model

MODELS_JSON = {
    "providers": {
        "anthropic": {"baseUrl": "http://127.0.0.1:9999", "models": [{"id": "extra-model", "contextWindow": 1000}]},
        "ollama": {
            "baseUrl": "http://localhost:11434/v1",
            "api": "openai-completions",
            "apiKey": "ollama",
            "models": [{"id": "qwen3-coder"}],
        },
    }
}


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The catalog providers the registry builds, in order."""
    calls: list[str] = []
    original = catalog_provider_models

    def recording(provider: str) -> list[Model]:
        calls.append(provider)
        return original(provider)

    monkeypatch.setattr(registry_module, "catalog_provider_models", recording)
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GROQ_API_KEY", "XAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return calls


def _registry(tmp_path: Path, data: object | None = MODELS_JSON) -> ModelRegistry:
    path = tmp_path / "models.json"
    if data is not None:
        path.write_text(json.dumps(data))
    return ModelRegistry(AuthStorage(tmp_path / "auth.json"), path)


def test_only_the_providers_models_json_changes_are_built_at_start(tmp_path: Path, built: list[str]) -> None:
    registry = _registry(tmp_path)
    assert built == ["anthropic"]
    model = registry.find("openai", "gpt-4o") or registry.provider_models("openai")[0]
    assert model.provider == "openai"
    assert built == ["anthropic", "openai"]
    registry.find("openai", "gpt-4o")
    assert built == ["anthropic", "openai"]  # built once


def test_naming_provider_and_model_builds_one_provider(tmp_path: Path, built: list[str]) -> None:
    registry = _registry(tmp_path, None)
    resolved = resolve_registry_model("gpt-4o", registry, "OpenAI")
    assert resolved.model.provider == "openai"
    assert built == ["openai"]


def test_lazy_registry_lists_the_same_models_in_the_same_order(tmp_path: Path, built: list[str]) -> None:
    registry = _registry(tmp_path)
    everything = registry.all_models()
    assert set(built) == set(get_providers())
    catalog = [(m.provider, m.id) for m in catalog_models()]
    keys = [(m.provider, m.id) for m in everything]
    # catalog order first (models.json's base URL applied in place), then what models.json added
    assert keys == [*catalog, ("anthropic", "extra-model"), ("ollama", "qwen3-coder")]
    assert all(m.base_url == "http://127.0.0.1:9999" for m in everything if m.provider == "anthropic")
    for provider in [*get_providers(), "ollama"]:
        assert registry.provider_models(provider) == [m for m in everything if m.provider == provider]


def test_resolving_through_the_registry_matches_resolving_over_every_model(tmp_path: Path) -> None:
    registry = _registry(tmp_path)
    cases = [("sonnet", "anthropic"), ("extra-model", "anthropic"), ("qwen", "ollama"), ("x", "ollama")]
    for pattern, provider in cases:
        lazy = resolve_registry_model(pattern, _registry(tmp_path), provider)
        eager = resolve_cli_model(pattern, registry.all_models(), provider)
        assert (lazy.model, lazy.warning) == (eager.model, eager.warning)


def test_available_models_builds_only_keyed_providers(
    tmp_path: Path, built: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROQ_API_KEY", "k")
    registry = _registry(tmp_path)
    available = registry.available_models()
    assert {m.provider for m in available} == {"groq", "ollama"}
    assert sorted(built) == ["anthropic", "groq"]
    assert available == [m for m in registry.all_models() if m.provider in ("groq", "ollama")]
