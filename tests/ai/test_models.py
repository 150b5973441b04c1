"""The built-in catalog: lookups, and invariants every entry must keep."""

from __future__ import annotations

import json
import subprocess
import sys

from pi.ai.models import (
    CATALOG_DIR,
    DEFAULT_MODEL_PER_PROVIDER,
    catalog_models,
    find_models,
    get_default_model,
    get_model,
    get_models,
    get_providers,
    models_are_equal,
)
from pi.ai.registry import BUILTIN_PROVIDER_MODULES
from pi.ai.types import Model

OUR_APIS = set(BUILTIN_PROVIDER_MODULES)

EXPECTED = {
    "anthropic": ("anthropic-messages", "https://api.anthropic.com"),
    "google": ("google-generative-ai", "https://generativelanguage.googleapis.com/v1beta"),
    "xai": ("openai-responses", "https://api.x.ai/v1"),
    "groq": ("openai-completions", "https://api.groq.com/openai/v1"),
    "cerebras": ("openai-completions", "https://api.cerebras.ai/v1"),
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
        assert (api, base_url) in {(m.api, m.base_url) for m in models}, provider
        assert all(m.provider == provider for m in models)


def test_providers_of_pi_16_on_our_apis_are_all_there() -> None:
    expected = {
        "ant-ling", "anthropic", "azure", "baseten", "cerebras", "cloudflare-ai-gateway", "cloudflare-workers-ai",
        "deepseek", "fireworks", "github-copilot", "google", "groq", "huggingface", "kimi-coding", "meta", "minimax",
        "minimax-cn", "mistral", "moonshotai", "moonshotai-cn", "nvidia", "openai", "openai-codex", "opencode",
        "opencode-go", "openrouter", "qwen-token-plan", "qwen-token-plan-cn", "qwen-token-plan-individual",
        "qwen-token-plan-individual-cn", "radius", "together", "vercel-ai-gateway", "xai", "xiaomi",
        "xiaomi-token-plan-ams", "xiaomi-token-plan-cn", "xiaomi-token-plan-sgp", "zai", "zai-coding-cn",
    }  # fmt: skip
    assert set(get_providers()) == expected
    assert len(ALL) > 1300


def test_every_model_speaks_one_of_the_apis_we_ship() -> None:
    for model in ALL:
        assert model.api in OUR_APIS, f"{model.provider}/{model.id}"


def _invariant_problems(model: Model) -> list[str]:
    problems = []
    if not (model.id and model.name):
        problems.append("no id or name")
    if model.base_url and not model.base_url.startswith("https://"):  # azure: set per resource
        problems.append("base URL")
    if not 0 < model.max_tokens <= model.context_window:
        problems.append("output limit")
    if "text" not in model.input or not set(model.input) <= {"text", "image"}:
        problems.append("input kinds")
    prices = (model.cost.input, model.cost.output, model.cost.cache_read, model.cost.cache_write)
    if any(price < 0 for price in prices):
        problems.append("negative price")
    for tier in model.cost.tiers or []:
        if tier.input_tokens_above <= 0:
            problems.append("tier threshold")
    return problems


def test_model_invariants() -> None:
    bad = {f"{m.provider}/{m.id}": p for m in ALL if (p := _invariant_problems(m))}
    assert bad == {}


def test_ids_are_unique_per_provider_in_the_files() -> None:
    for path in CATALOG_DIR.glob("*.json"):
        ids = [spec["id"] for spec in json.loads(path.read_text())["models"]]
        assert len(ids) == len(set(ids)), path.name


def test_default_models_follow_pi_16_in_order() -> None:
    assert list(DEFAULT_MODEL_PER_PROVIDER)[:6] == [
        "amazon-bedrock", "ant-ling", "anthropic", "openai", "azure", "openai-codex",
    ]  # fmt: skip
    assert DEFAULT_MODEL_PER_PROVIDER["anthropic"] == "claude-opus-5-5"
    assert DEFAULT_MODEL_PER_PROVIDER["openai"] == "gpt-6.2-sol"
    assert DEFAULT_MODEL_PER_PROVIDER["google"] == "gemini-4-argon"
    assert DEFAULT_MODEL_PER_PROVIDER["openrouter"] == "moonshotai/kimi-k2.7-code"
    assert len(DEFAULT_MODEL_PER_PROVIDER) == 42
    import pi.ai

    assert pi.ai.DEFAULT_MODEL_PER_PROVIDER is DEFAULT_MODEL_PER_PROVIDER


def test_each_catalog_provider_has_its_default_model_except_azure() -> None:
    # pi 1.6.0's azure default is a Responses model on an API we do not ship.
    for provider in get_providers():
        model = get_default_model(provider)
        if provider == "azure":
            assert model is None
            continue
        assert model is not None, provider
        assert model.id == DEFAULT_MODEL_PER_PROVIDER[provider]
    assert get_default_model("amazon-bedrock") is None
    assert get_default_model("no-such-provider") is None


def test_new_models_and_their_limits_match_pi_16() -> None:
    sonnet = get_model("anthropic", "claude-sonnet-5")
    assert sonnet is not None
    assert (sonnet.context_window, sonnet.max_tokens) == (1_000_000, 128_000)
    assert (sonnet.cost.input, sonnet.cost.output, sonnet.cost.cache_read, sonnet.cost.cache_write) == (2, 10, 0.2, 2.5)
    assert sonnet.thinking_level_map == {"xhigh": "xhigh", "max": "max"}
    assert sonnet.compat is not None and sonnet.compat.supports_temperature is False
    sol = get_model("openai", "gpt-6.2-sol")
    assert sol is not None and sol.api == "openai-responses"
    assert (sol.context_window, sol.max_tokens) == (272_000, 128_000)
    assert sol.cost.tiers is not None and sol.cost.tiers[0].input_tokens_above == 272_000
    assert sol.cost.tiers[0].input == 4
    assert sol.input_limits is not None and sol.input_limits.images is not None
    assert sol.input_limits.images.max_per_request == 1500
    resize = sol.input_limits.images.resize
    assert resize is not None and (resize.max_width, resize.max_height, resize.max_bytes) == (2000, 2000, 4_718_592)
    devstral = get_model("mistral", "devstral-medium-latest")
    assert devstral is not None and (devstral.context_window, devstral.max_tokens) == (262_144, 262_144)


def test_unknown_lookups() -> None:
    assert get_model("anthropic", "no-such-model") is None
    assert get_model("no-such-provider", "claude-sonnet-4-5") is None
    assert get_models("no-such-provider") == []


def test_compat_flags() -> None:
    zai = get_model("zai", "glm-5.3")
    assert zai is not None and zai.compat is not None
    assert zai.compat.thinking_format == "zai"
    assert zai.compat.max_tokens_field == "max_tokens"
    for deepseek in get_models("deepseek"):
        assert deepseek.compat is not None
        assert deepseek.compat.supports_store is False
        assert deepseek.compat.max_tokens_field == "max_tokens"
    pro = get_model("deepseek", "deepseek-v4-pro")
    assert pro is not None and pro.reasoning
    assert pro.to_json_dict()["compat"]["requiresReasoningContentOnAssistantMessages"] is True
    assert pro.compat is not None and pro.compat.supports_mid_convo_system_messages is True


def test_lookups_return_independent_copies() -> None:
    first = get_model("openai", "gpt-6.2-sol")
    assert first is not None
    first.base_url = "http://localhost:9999/v1"
    first.cost.input = 0
    again = get_model("openai", "gpt-6.2-sol")
    assert again is not None
    assert again.base_url == "https://api.openai.com/v1"
    assert again.cost.input > 0
    get_models("openai")[0].context_window = 1
    assert get_models("openai")[0].context_window > 1


def test_models_are_equal() -> None:
    a = get_model("openai", "gpt-5.2")
    b = get_model("openai", "gpt-5.2")
    other_provider = get_model("openrouter", "openai/gpt-5.2")
    assert other_provider is not None
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


def test_catalog_is_not_read_at_import_and_one_lookup_reads_one_provider() -> None:
    code = (
        "import sys, pi.ai, pi.ai.models as m; "
        "assert 'pi.ai.models' not in sys.modules or m._provider_models.cache_info().currsize == 0; "
        "import pi.ai.models as m; assert m._provider_models.cache_info().currsize == 0; "
        "m.get_model('anthropic', 'claude-sonnet-5'); assert m._provider_models.cache_info().currsize == 1; "
        "print('ok')"
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
