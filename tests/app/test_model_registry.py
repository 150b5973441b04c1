"""models.json: custom providers, overrides of built-ins, key sources, and tolerance of mistakes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry


@pytest.fixture(autouse=True)
def _no_env_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN", "OPENAI_API_KEY", "GEMINI_API_KEY", "GROQ_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def _registry(tmp_path: Path, data: object) -> ModelRegistry:
    path = tmp_path / "models.json"
    path.write_text(json.dumps(data))
    return ModelRegistry(AuthStorage(tmp_path / "auth.json"), path)


def test_custom_provider_with_compat_and_literal_key(tmp_path: Path) -> None:
    registry = _registry(
        tmp_path,
        {
            "providers": {
                "ollama": {
                    "baseUrl": "http://localhost:11434/v1",
                    "api": "openai-completions",
                    "apiKey": "ollama",
                    "compat": {"supportsDeveloperRole": False},
                    "models": [
                        {"id": "qwen3-coder", "contextWindow": 32768, "compat": {"supportsReasoningEffort": False}}
                    ],
                }
            }
        },
    )
    model = registry.find("ollama", "qwen3-coder")
    assert model is not None
    assert model.base_url == "http://localhost:11434/v1"
    assert model.context_window == 32768 and model.max_tokens == 16384
    assert model.compat is not None
    assert model.compat.supports_developer_role is False and model.compat.supports_reasoning_effort is False
    assert registry.get_api_key("ollama") == "ollama"
    assert [m.id for m in registry.available_models()] == ["qwen3-coder"]
    assert registry.errors == []


def test_base_url_override_keeps_builtin_models(tmp_path: Path) -> None:
    registry = _registry(tmp_path, {"providers": {"anthropic": {"baseUrl": "http://127.0.0.1:9999"}}})
    models = [m for m in registry.all_models() if m.provider == "anthropic"]
    assert len(models) > 3
    assert all(m.base_url == "http://127.0.0.1:9999" for m in models)


def test_model_overrides_patch_fields(tmp_path: Path) -> None:
    registry = _registry(
        tmp_path,
        {"providers": {"openai": {"modelOverrides": {"gpt-5.4": {"contextWindow": 1000, "cost": {"input": 9}}}}}},
    )
    model = registry.find("openai", "gpt-5.4")
    assert model is not None and model.context_window == 1000 and model.cost.input == 9
    assert model.cost.output > 0


def test_key_from_env_var_name_and_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_LLM_KEY", "from-env")
    registry = _registry(
        tmp_path,
        {
            "providers": {
                "a": {
                    "baseUrl": "http://a",
                    "api": "openai-completions",
                    "apiKey": "$MY_LLM_KEY",
                    "models": [{"id": "m"}],
                },
                "b": {
                    "baseUrl": "http://b",
                    "api": "openai-completions",
                    "apiKey": "!echo cmd-key",
                    "models": [{"id": "m"}],
                },
            }
        },
    )
    assert registry.get_api_key("a") == "from-env"
    assert registry.get_api_key("b") == "cmd-key"


def test_broken_models_json_is_reported_and_builtins_still_load(tmp_path: Path) -> None:
    path = tmp_path / "models.json"
    path.write_text("{oops")
    registry = ModelRegistry(AuthStorage(None), path)
    assert registry.errors and registry.errors[0].startswith("Failed to parse models.json: ")
    assert registry.errors[0].endswith(f"\n\nFile: {path}")
    assert registry.find("anthropic", "claude-opus-4-6") is not None


def test_model_without_api_is_an_error_naming_the_provider(tmp_path: Path) -> None:
    registry = _registry(tmp_path, {"providers": {"x": {"baseUrl": "http://x", "models": [{"id": "m"}]}}})
    assert any('provider "x"' in e and '"api"' in e for e in registry.errors)
    assert registry.errors[0].startswith("Invalid models.json schema:\n  - ")


def test_a_schema_error_ignores_the_whole_file(tmp_path: Path) -> None:
    good = {"baseUrl": "http://ok", "api": "openai-completions", "apiKey": "k", "models": [{"id": "fine"}]}
    bad = {"baseUrl": "http://bad", "api": "openai-completions", "models": [{"id": "m", "contextWindow": "big"}]}
    registry = _registry(tmp_path, {"providers": {"good": good, "bad": bad}})
    assert registry.find("good", "fine") is None and registry.find("bad", "m") is None
    assert "providers/bad/models/0/contextWindow" in registry.errors[0]
    assert registry.find("anthropic", "claude-opus-4-6") is not None


def test_unknown_keys_are_accepted(tmp_path: Path) -> None:
    provider: dict[str, object] = {
        "baseUrl": "http://ok",
        "api": "openai-completions",
        "apiKey": "k",
        "futureField": {"a": 1},
    }
    provider["models"] = [{"id": "m", "thinkingLevelMap": {"high": "max"}}]
    schema = "https://pi.dev/schemas/models.schema.json"
    registry = _registry(tmp_path, {"$schema": schema, "providers": {"p": provider}})
    assert registry.errors == [] and registry.find("p", "m") is not None
