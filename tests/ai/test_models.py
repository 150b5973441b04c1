"""The built-in catalog: lookups, and invariants every entry must keep."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pi.ai.models import (
    CATALOG_PATH,
    catalog_models,
    find_models,
    get_model,
    get_models,
    get_providers,
    models_are_equal,
)
from pi.ai.registry import BUILTIN_PROVIDER_MODULES
from pi.ai.types import Model

KNOWN_APIS = {
    "anthropic-messages",
    "openai-completions",
    "openai-responses",
    "google-generative-ai",
    "azure-openai-responses",
    "openai-codex-responses",
    "google-gemini-cli",
    "google-vertex",
    "mistral-conversations",
    "bedrock-converse-stream",
}

EXPECTED = {
    "anthropic": ("anthropic-messages", "https://api.anthropic.com"),
    "openai": ("openai-responses", "https://api.openai.com/v1"),
    "google": ("google-generative-ai", "https://generativelanguage.googleapis.com/v1beta"),
    "xai": ("openai-completions", "https://api.x.ai/v1"),
    "groq": ("openai-completions", "https://api.groq.com/openai/v1"),
    "cerebras": ("openai-completions", "https://api.cerebras.ai/v1"),
    "zai": ("openai-completions", "https://api.z.ai/api/coding/paas/v4"),
    "mistral": ("openai-completions", "https://api.mistral.ai/v1"),
    "deepseek": ("openai-completions", "https://api.deepseek.com"),
    "openrouter": ("openai-completions", "https://openrouter.ai/api/v1"),
}

ALL = [model for provider in get_providers() for model in get_models(provider)]


def test_every_expected_provider_is_present_with_its_api_and_base_url() -> None:
    assert set(EXPECTED) <= set(get_providers())
    for provider, (api, base_url) in EXPECTED.items():
        models = get_models(provider)
        assert models, provider
        assert {(m.api, m.base_url) for m in models} == {(api, base_url)}, provider
        assert all(m.provider == provider for m in models)


def test_every_model_speaks_a_known_api_and_one_we_ship() -> None:
    for model in ALL:
        assert model.api in KNOWN_APIS, model.id
        assert model.api in BUILTIN_PROVIDER_MODULES, model.id


@pytest.mark.parametrize("model", ALL, ids=lambda m: f"{m.provider}/{m.id}")
def test_model_invariants(model: Model) -> None:
    assert model.id and model.name
    assert model.base_url.startswith("https://")
    assert model.context_window > 0
    assert 0 < model.max_tokens <= model.context_window
    assert "text" in model.input
    assert set(model.input) <= {"text", "image"}
    prices = (model.cost.input, model.cost.output, model.cost.cache_read, model.cost.cache_write)
    assert all(price >= 0 for price in prices)
    assert model.cost.cache_read <= model.cost.input
    assert model.cost.output >= model.cost.input or model.cost.output == 0


def test_ids_are_unique_per_provider_in_the_file() -> None:
    raw = json.loads(CATALOG_PATH.read_text())
    for provider, entry in raw["providers"].items():
        ids = [spec["id"] for spec in entry["models"]]
        assert len(ids) == len(set(ids)), provider


def test_each_provider_has_its_default_model() -> None:
    # The coding agent's fallback choice per provider must exist in the catalog.
    defaults = {
        "anthropic": "claude-opus-4-6",
        "openai": "gpt-5.4",
        "google": "gemini-2.5-pro",
        "openrouter": "openai/gpt-5.1-codex",
        "xai": "grok-4-fast-non-reasoning",
        "groq": "openai/gpt-oss-120b",
        "cerebras": "zai-glm-4.6",
        "zai": "glm-4.6",
        "mistral": "devstral-medium-latest",
    }
    for provider, model_id in defaults.items():
        assert get_model(provider, model_id) is not None, f"{provider}/{model_id}"


def test_get_model_fields() -> None:
    model = get_model("anthropic", "claude-sonnet-4-5")
    assert model is not None
    assert model.reasoning is True
    assert model.input == ["text", "image"]
    assert (model.cost.input, model.cost.output, model.cost.cache_read, model.cost.cache_write) == (3, 15, 0.3, 3.75)
    assert model.compat is None


def test_unknown_lookups() -> None:
    assert get_model("anthropic", "no-such-model") is None
    assert get_model("no-such-provider", "claude-sonnet-4-5") is None
    assert get_models("no-such-provider") == []


def test_compat_flags() -> None:
    zai = get_model("zai", "glm-4.6")
    assert zai is not None and zai.compat is not None
    assert zai.compat.supports_developer_role is False
    assert zai.compat.thinking_format == "zai"

    mistral = get_model("mistral", "devstral-medium-latest")
    assert mistral is not None and mistral.compat is not None
    assert mistral.compat.supports_store is False
    assert mistral.compat.supports_developer_role is False
    assert mistral.compat.max_tokens_field == "max_tokens"

    for deepseek in get_models("deepseek"):
        assert deepseek.compat is not None
        assert deepseek.compat.supports_store is False
        assert deepseek.compat.supports_developer_role is False
        assert deepseek.compat.max_tokens_field == "max_tokens"
    reasoner = get_model("deepseek", "deepseek-reasoner")
    assert reasoner is not None and reasoner.reasoning
    assert reasoner.to_json_dict()["compat"]["requiresReasoningContentOnAssistantMessages"] is True

    qwen = get_model("groq", "qwen/qwen3-32b")
    assert qwen is not None and qwen.compat is not None
    assert qwen.compat.reasoning_effort_map == dict.fromkeys(("minimal", "low", "medium", "high", "xhigh"), "default")


def test_lookups_return_independent_copies() -> None:
    first = get_model("openai", "gpt-5.2")
    assert first is not None
    first.base_url = "http://localhost:9999/v1"
    first.cost.input = 0
    again = get_model("openai", "gpt-5.2")
    assert again is not None
    assert again.base_url == "https://api.openai.com/v1"
    assert again.cost.input > 0
    get_models("openai")[0].context_window = 1
    assert get_models("openai")[0].context_window > 1


def test_models_are_equal() -> None:
    a = get_model("openai", "gpt-5.2")
    b = get_model("openai", "gpt-5.2")
    other_provider = get_model("openrouter", "openai/gpt-5.2")
    assert models_are_equal(a, b)
    assert not models_are_equal(a, get_model("openai", "gpt-5.1"))
    assert not models_are_equal(a, other_provider)
    assert not models_are_equal(a, None)
    assert not models_are_equal(None, None)
    assert a is not None and b is not None
    assert models_are_equal(a, b.model_copy(update={"provider": "openai", "name": "renamed"}))


def test_find_models_is_a_case_insensitive_substring_search() -> None:
    found = {f"{m.provider}/{m.id}" for m in find_models("SONNET-4-5")}
    assert {"anthropic/claude-sonnet-4-5", "anthropic/claude-sonnet-4-5-20250929"} <= found
    assert all("sonnet-4-5" in key.lower() for key in found)
    assert {f"{m.provider}/{m.id}" for m in find_models("openrouter/anthropic/")} == {
        f"openrouter/{m.id}" for m in get_models("openrouter") if m.id.startswith("anthropic/")
    }
    by_name = find_models("Devstral 2")
    assert by_name and all("devstral 2" in m.name.lower() for m in by_name)
    assert len(find_models("")) == len(ALL)
    assert find_models("no model is called this") == []


def test_catalog_is_not_read_at_import() -> None:
    code = (
        "import sys, pi.ai, pi.ai.models as m; "
        "assert m._catalog.cache_info().currsize == 0; "
        "m.get_providers(); assert m._catalog.cache_info().currsize == 1; print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"


def test_pi_ai_exports_the_catalog_lazily() -> None:
    import pi.ai

    assert pi.ai.get_model is get_model
    assert pi.ai.get_providers is get_providers


def test_catalog_models_are_fresh_objects_in_provider_order() -> None:
    first, second = catalog_models(), catalog_models()
    assert [(m.provider, m.id) for m in first] == [(m.provider, m.id) for p in get_providers() for m in get_models(p)]
    assert all(a is not b and a == b for a, b in zip(first, second, strict=True))
    first[0].cost.input = 123.0
    assert catalog_models()[0].cost.input != 123.0
    assert get_model(first[0].provider, first[0].id).cost.input != 123.0  # type: ignore[union-attr]
