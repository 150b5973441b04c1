"""Compat detection for OpenAI-compatible servers: provider name and base URL, then field-wise overrides."""

from __future__ import annotations

from typing import Any

import pytest

from pi.ai.providers.openai_compat import ResolvedCompat, detect_compat, get_compat
from pi.ai.types import Model, ModelCompat, RoutingPreferences


def make(provider: str, base_url: str, model_id: str = "m", **kw: Any) -> Model:
    return Model(id=model_id, name=model_id, api="openai-completions", provider=provider, base_url=base_url, **kw)


def test_openai_gets_every_standard_feature() -> None:
    compat = get_compat(make("openai", "https://api.openai.com/v1"))
    assert compat == ResolvedCompat(supports_developer_role=True)
    assert compat.supports_store and compat.supports_developer_role and compat.supports_reasoning_effort
    assert compat.supports_usage_in_streaming and not compat.supports_strict_mode
    assert compat.max_tokens_field == "max_completion_tokens"
    assert compat.thinking_format == "openai"
    assert compat.reasoning_effort_map == {}
    assert not compat.requires_tool_result_name
    assert not compat.requires_assistant_after_tool_result
    assert not compat.requires_thinking_as_text


@pytest.mark.parametrize(
    ("provider", "base_url"),
    [
        ("cerebras", "https://api.cerebras.ai/v1"),
        ("custom", "https://api.cerebras.ai/v1"),
        ("xai", "https://api.x.ai/v1"),
        ("custom", "https://api.x.ai/v1"),
        ("custom", "https://llm.chutes.ai/v1"),
        ("custom", "https://api.deepseek.com/v1"),
        ("zai", "https://api.z.ai/api/coding/paas/v4"),
        ("custom", "https://api.z.ai/api/paas/v4"),
        ("opencode", "https://opencode.ai/zen/v1"),
    ],
)
def test_servers_without_store_or_developer_role(provider: str, base_url: str) -> None:
    compat = get_compat(make(provider, base_url))
    assert compat.supports_store is False
    assert compat.supports_developer_role is False


@pytest.mark.parametrize(
    ("provider", "base_url", "effort"),
    [
        ("xai", "https://api.x.ai/v1", False),
        ("custom", "https://api.x.ai/v1", False),
        ("zai", "https://api.z.ai/api/coding/paas/v4", False),
        ("cerebras", "https://api.cerebras.ai/v1", True),
        ("custom", "https://api.deepseek.com/v1", True),
        ("groq", "https://api.groq.com/openai/v1", True),
    ],
)
def test_reasoning_effort_support(provider: str, base_url: str, effort: bool) -> None:
    assert get_compat(make(provider, base_url)).supports_reasoning_effort is effort


def test_zai_uses_its_thinking_format() -> None:
    assert get_compat(make("zai", "https://api.z.ai/api/coding/paas/v4")).thinking_format == "zai"
    assert get_compat(make("custom", "https://api.z.ai/api/paas/v4")).thinking_format == "zai"
    assert get_compat(make("groq", "https://api.groq.com/openai/v1")).thinking_format == "openai"


def test_groq_qwen3_32b_maps_every_level_to_default() -> None:
    qwen = get_compat(make("groq", "https://api.groq.com/openai/v1", "qwen/qwen3-32b"))
    assert qwen.reasoning_effort_map == dict.fromkeys(["minimal", "low", "medium", "high", "xhigh"], "default")
    other = get_compat(make("groq", "https://api.groq.com/openai/v1", "openai/gpt-oss-120b"))
    assert other.reasoning_effort_map == {}
    assert other.supports_store is True


def test_chutes_takes_max_tokens() -> None:
    assert get_compat(make("custom", "https://llm.chutes.ai/v1")).max_tokens_field == "max_tokens"


def test_mistral_flags() -> None:
    for model in (make("mistral", "https://api.mistral.ai/v1"), make("custom", "https://api.mistral.ai/v1")):
        compat = get_compat(model)
        assert compat.max_tokens_field == "max_tokens"
        assert compat.supports_store is False
        assert compat.supports_developer_role is False
        assert compat.supports_reasoning_effort is False
        assert compat.requires_tool_result_name is True
        assert compat.requires_assistant_after_tool_result is True
        assert compat.requires_thinking_as_text is True
        assert compat.requires_mistral_tool_ids is True


def test_deepseek_flags() -> None:
    compat = get_compat(make("deepseek", "https://api.deepseek.com"))
    assert compat.max_tokens_field == "max_tokens"
    assert compat.supports_store is False
    assert compat.requires_reasoning_content_on_assistant_messages is True
    assert compat.requires_mistral_tool_ids is False


@pytest.mark.parametrize(
    ("provider", "base_url"),
    [
        ("custom", "http://localhost:11434/v1"),  # Ollama
        ("custom", "http://127.0.0.1:1234/v1"),  # LM Studio
        ("custom", "http://127.0.0.1:8000/v1"),  # vLLM
        ("custom", "http://localhost:8080/v1"),  # llama.cpp server
        ("custom", "http://127.0.0.1:30000/v1"),  # SGLang
        ("custom", "http://192.168.1.20:8000/v1"),  # a box on the LAN
        ("custom", "http://gpu-box.local:11434/v1"),
        ("ollama", "https://ollama.example.com/v1"),
        ("vllm", "https://inference.example.com/v1"),
        ("lmstudio", "https://lm.example.com/v1"),
        ("llama.cpp", "https://llama.example.com/v1"),
        ("sglang", "https://sglang.example.com/v1"),
    ],
)
def test_self_hosted_servers_get_the_guess_of_any_other_host(provider: str, base_url: str) -> None:
    # As in pi 1.6: store, max_completion_tokens and reasoning_effort go out; only the developer role does not.
    assert get_compat(make(provider, base_url)) == ResolvedCompat()


def test_known_hosted_provider_behind_a_local_proxy_keeps_its_flags() -> None:
    assert get_compat(make("openai", "http://127.0.0.1:4000/v1")) == ResolvedCompat(supports_developer_role=True)


def test_remote_custom_server_is_not_local() -> None:
    assert get_compat(make("custom", "https://llm.example.com/v1")) == ResolvedCompat()


def test_explicit_compat_overrides_field_by_field() -> None:
    model = make(
        "xai",
        "https://api.x.ai/v1",
        compat=ModelCompat(supports_store=True, max_tokens_field="max_tokens", thinking_format="qwen"),
    )
    compat = get_compat(model)
    assert compat.supports_store is True  # overridden
    assert compat.max_tokens_field == "max_tokens"  # overridden
    assert compat.thinking_format == "qwen"  # overridden
    assert compat.supports_developer_role is False  # still detected
    assert compat.supports_reasoning_effort is False  # still detected
    assert detect_compat(model).supports_store is False


def test_explicit_compat_turns_off_what_a_self_hosted_server_refuses() -> None:
    model = make(
        "custom",
        "http://localhost:8000/v1",
        compat=ModelCompat(supports_store=False, supports_reasoning_effort=False, max_tokens_field="max_tokens"),
    )
    compat = get_compat(model)
    assert (compat.supports_store, compat.supports_reasoning_effort) == (False, False)
    assert compat.max_tokens_field == "max_tokens"
    assert compat.supports_developer_role is False  # still the guess


def test_supports_finish_reason_defaults_on_and_reads_from_models_json() -> None:
    assert get_compat(make("custom", "https://llm.example.com/v1")).supports_finish_reason is True
    off = make(
        "custom", "https://llm.example.com/v1", compat=ModelCompat.model_validate({"supportsFinishReason": False})
    )
    assert get_compat(off).supports_finish_reason is False


def test_compat_from_models_json_camel_case_including_extra_flags() -> None:
    compat_json = {
        "supportsStrictMode": False,
        "requiresToolResultName": True,
        "openRouterRouting": {"only": ["anthropic"], "order": ["anthropic", "google"]},
        "requiresMistralToolIds": True,
        "requiresReasoningContentOnAssistantMessages": True,
    }
    model = make("openrouter", "https://openrouter.ai/api/v1", compat=ModelCompat.model_validate(compat_json))
    compat = get_compat(model)
    assert compat.supports_strict_mode is False
    assert compat.requires_tool_result_name is True
    assert compat.open_router_routing == RoutingPreferences(only=["anthropic"], order=["anthropic", "google"])
    assert compat.requires_mistral_tool_ids is True
    assert compat.requires_reasoning_content_on_assistant_messages is True
    assert compat.supports_store is True


def test_only_openais_own_api_gets_the_developer_role_by_default() -> None:
    assert get_compat(make("openai", "https://api.openai.com/v1")).supports_developer_role is True
    assert get_compat(make("custom", "https://api.openai.com/v1")).supports_developer_role is True
    assert get_compat(make("groq", "https://api.groq.com/openai/v1")).supports_developer_role is False
    assert get_compat(make("custom", "https://llm.example.com/v1")).supports_developer_role is False
    explicit = make("custom", "https://llm.example.com/v1", compat=ModelCompat(supports_developer_role=True))
    assert get_compat(explicit).supports_developer_role is True


@pytest.mark.parametrize(
    ("provider", "base_url", "fmt"),
    [
        ("deepseek", "https://api.deepseek.com", "deepseek"),
        ("zai", "https://api.z.ai/api/coding/paas/v4", "zai"),
        ("together", "https://api.together.xyz/v1", "together"),
        ("ant-ling", "https://api.ant-ling.com/v1", "ant-ling"),
        ("openrouter", "https://openrouter.ai/api/v1", "openrouter"),
        ("groq", "https://api.groq.com/openai/v1", "openai"),
    ],
)
def test_thinking_format_is_detected_per_host(provider: str, base_url: str, fmt: str) -> None:
    assert get_compat(make(provider, base_url)).thinking_format == fmt


def test_new_compat_defaults_of_pi_16() -> None:
    compat = get_compat(make("custom", "https://llm.example.com/v1"))
    assert compat.supports_strict_mode is False
    assert compat.requires_tools_with_tool_history is False
    assert compat.supports_mid_convo_system_messages is False
    assert compat.prompt_cache_key_mode == "auto"
    assert compat.cache_control_format is None
    claude = make("openrouter", "https://openrouter.ai/api/v1", model_id="anthropic/claude-sonnet-5")
    assert get_compat(claude).cache_control_format == "anthropic"
    override = make(
        "custom", "https://x.example/v1", compat=ModelCompat.model_validate({"promptCacheKeyMode": "enabled"})
    )
    assert get_compat(override).prompt_cache_key_mode == "enabled"
