"""What an OpenAI-compatible Chat Completions server accepts, detected from the model and overridable.

Dozens of servers speak "the OpenAI API" and each differs in small ways that turn a good request
into a 400: one rejects ``store``, another the ``developer`` role, a third wants ``max_tokens``
instead of ``max_completion_tokens``. `get_compat` resolves one flag set per model: first a guess
from the provider name and base URL (`detect_compat`), then every field the model's own ``compat``
sets, field by field, so a models.json entry only has to name what the guess gets wrong.

Self-hosted servers (Ollama, LM Studio, vLLM, llama.cpp's server, SGLang, any custom provider on
this machine or a private network) get the same guess as any other unknown host, as in pi 1.6:
``store: false``, ``max_completion_tokens`` and, for a model declared ``"reasoning": true``, the
``reasoning_effort`` of the chosen thinking level. Their OpenAI layers accept or ignore these
fields, and leaving ``reasoning_effort`` out would make the thinking level silently do nothing; a
server that refuses one of them is told so in its models.json ``compat`` (``supportsStore``,
``supportsReasoningEffort``, ``maxTokensField``). Only OpenAI's own API gets the ``developer`` role.

Two hosted APIs reached through this wire format get their own treatment: Mistral
(api.mistral.ai) takes ``max_tokens``, no ``store``, no ``stream_options`` (it refuses fields it
does not know, and reports usage in the last chunk anyway) and no ``developer`` role, needs
tool-call ids of nine letters and digits, names the tool on tool results, refuses a user turn
straight after tool results and replays earlier thinking only as text; DeepSeek (api.deepseek.com) takes
``max_tokens``, streams its reasoning in ``reasoning_content`` and, in thinking mode, wants that
field back on every assistant turn.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from msgspec import Struct, field
from msgspec.structs import replace

from pi.ai.types import Model, RoutingPreferences

ThinkingFormat: TypeAlias = str
"""How a server is told to think: ``openai`` (``reasoning_effort``), ``openrouter`` (``reasoning.effort``),
``deepseek`` (``thinking.type``), ``zai`` (``thinking.type``, ``reasoning_effort``), ``qwen``
(``enable_thinking``), ``qwen-chat-template`` / ``chat-template`` (``chat_template_kwargs``),
``baseten`` (``chat_template_args``), ``together`` (``reasoning.enabled``), ``string-thinking``
(``thinking: "<effort>"``) or ``ant-ling`` (``reasoning.effort``); unknown values act as ``openai``."""

MaxTokensField: TypeAlias = Literal["max_completion_tokens", "max_tokens"]


class ResolvedCompat(Struct, frozen=True):
    """Every flag with a value; see the spec's compat table for what each one changes on the wire."""

    supports_store: bool = True
    supports_developer_role: bool = False
    """Only OpenAI's own API takes the ``developer`` role by default; other hosts get ``system``."""
    supports_reasoning_effort: bool = True
    reasoning_effort_map: dict[str, str] = field(default_factory=dict)
    supports_usage_in_streaming: bool = True
    supports_finish_reason: bool = True
    """The server ends every reply with a chunk carrying ``finish_reason``; without one the stream was cut.
    Off for servers that never send it, whose replies then end with the body."""
    max_tokens_field: MaxTokensField = "max_completion_tokens"
    requires_tool_result_name: bool = False
    requires_assistant_after_tool_result: bool = False
    requires_thinking_as_text: bool = False
    thinking_format: ThinkingFormat = "openai"
    open_router_routing: RoutingPreferences = field(default_factory=RoutingPreferences)
    vercel_gateway_routing: RoutingPreferences = field(default_factory=RoutingPreferences)
    supports_strict_mode: bool = False
    """Send ``strict`` on tool definitions; OpenAI compatibility alone does not mean a server takes it."""
    requires_tools_with_tool_history: bool = False
    """Send ``"tools": []`` when there are no tools but the history has tool calls (some proxies want it)."""
    requires_non_null_assistant_content: bool = False
    supports_mid_convo_system_messages: bool = False
    cache_control_format: str | None = None
    """``"anthropic"``: mark the system prompt, the last tool and the last message with ``cache_control``."""
    prompt_cache_key_mode: str = "auto"
    """``auto`` (OpenAI's API, or long retention where supported), ``enabled`` or ``disabled``."""
    supports_long_cache_retention: bool = True
    chat_template_kwargs: dict[str, Any] = field(default_factory=dict)
    requires_mistral_tool_ids: bool = False
    """Tool-call ids must be exactly nine letters or digits (Mistral)."""
    requires_reasoning_content_on_assistant_messages: bool = False
    """Every replayed assistant turn carries ``reasoning_content``, empty if need be (DeepSeek thinking mode)."""


_EXTRA_FLAGS = {
    "requires_mistral_tool_ids": "requiresMistralToolIds",
    "requires_reasoning_content_on_assistant_messages": "requiresReasoningContentOnAssistantMessages",
}

_DICT_FIELDS = frozenset({"reasoning_effort_map", "chat_template_kwargs"})
"""Flags pi's compat object may carry that our `ModelCompat` keeps only as extra keys."""


def is_openrouter(model: Model) -> bool:
    return model.provider == "openrouter" or "openrouter.ai" in model.base_url


def is_vercel_gateway(model: Model) -> bool:
    return model.provider == "vercel-ai-gateway" or "ai-gateway.vercel.sh" in model.base_url


def is_mistral(model: Model) -> bool:
    return model.provider == "mistral" or "api.mistral.ai" in model.base_url


def is_deepseek(model: Model) -> bool:
    return model.provider == "deepseek" or "deepseek.com" in model.base_url


def _thinking_format(provider: str, url: str, deepseek: bool, zai: bool) -> ThinkingFormat:
    if deepseek:
        return "deepseek"
    if zai:
        return "zai"
    if provider == "together" or "api.together." in url:
        return "together"
    if provider == "ant-ling" or "api.ant-ling.com" in url:
        return "ant-ling"
    if provider == "openrouter" or "openrouter.ai" in url:
        return "openrouter"
    return "openai"


def detect_compat(model: Model) -> ResolvedCompat:
    """The flags guessed from provider name and base URL alone."""
    provider = model.provider
    url = model.base_url
    is_zai = provider in ("zai", "zai-coding-cn") or "api.z.ai" in url or "open.bigmodel.cn" in url
    is_xai = provider == "xai" or "api.x.ai" in url
    is_chutes = "chutes.ai" in url
    is_together = provider == "together" or "api.together." in url
    is_moonshot = provider in ("moonshotai", "moonshotai-cn") or "api.moonshot." in url
    is_cf_workers = provider == "cloudflare-workers-ai" or "api.cloudflare.com" in url
    is_cf_gateway = provider == "cloudflare-ai-gateway" or "gateway.ai.cloudflare.com" in url
    is_nvidia = provider == "nvidia" or "integrate.api.nvidia.com" in url
    is_ant_ling = provider == "ant-ling" or "api.ant-ling.com" in url
    is_cerebras = provider == "cerebras" or "cerebras.ai" in url
    is_opencode = provider in ("opencode", "opencode-go") or "opencode.ai" in url
    is_groq = provider == "groq" or "groq.com" in url
    is_openai = provider == "openai" or "api.openai.com" in url
    mistral = is_mistral(model)
    deepseek = is_deepseek(model)

    no_store = (is_cerebras or is_xai or is_chutes or deepseek or is_zai or is_opencode or mistral or is_nvidia) or (
        is_together or is_moonshot or is_cf_workers or is_cf_gateway or is_ant_ling
    )
    effort_map: dict[str, str] = {}
    if is_groq and model.id == "qwen/qwen3-32b":
        effort_map = dict.fromkeys(("minimal", "low", "medium", "high", "xhigh"), "default")
    classic_max_tokens = (is_chutes or mistral or deepseek or is_moonshot or is_cf_gateway) or (
        is_together or is_nvidia or is_ant_ling or is_zai
    )
    no_effort = is_xai or is_zai or mistral or is_moonshot or is_together or is_cf_gateway
    anthropic_via_openrouter = is_openrouter(model) and model.id.startswith("anthropic/")
    return ResolvedCompat(
        supports_store=not no_store,
        supports_developer_role=is_openai,
        supports_reasoning_effort=not (no_effort or is_nvidia or is_ant_ling),
        reasoning_effort_map=effort_map,
        supports_usage_in_streaming=not mistral,
        max_tokens_field="max_tokens" if classic_max_tokens else "max_completion_tokens",
        requires_tool_result_name=mistral,
        requires_assistant_after_tool_result=mistral,
        requires_thinking_as_text=mistral,
        thinking_format=_thinking_format(provider, url, deepseek, is_zai),
        cache_control_format="anthropic" if anthropic_via_openrouter else None,
        supports_long_cache_retention=not (is_together or is_cf_workers or is_cf_gateway or is_nvidia or is_ant_ling),
        requires_mistral_tool_ids=mistral,
        requires_reasoning_content_on_assistant_messages=deepseek,
    )


def get_compat(model: Model) -> ResolvedCompat:
    """Detected flags, overridden field by field by whatever `model.compat` sets."""
    detected = detect_compat(model)
    explicit = model.compat
    if explicit is None:
        return detected
    updates: dict[str, Any] = {}
    for name in ResolvedCompat.__struct_fields__:
        value = getattr(explicit, name, None)
        if value is None:
            extra = explicit.model_extra or {}
            camel = _EXTRA_FLAGS.get(name)
            value = extra.get(name, extra.get(camel) if camel else None)
        if value is None:
            continue
        if name in ("open_router_routing", "vercel_gateway_routing") and isinstance(value, dict):
            value = RoutingPreferences.model_validate(value)
        updates[name] = dict(value) if name in _DICT_FIELDS else value
    return replace(detected, **updates) if updates else detected


__all__ = [
    "MaxTokensField",
    "ResolvedCompat",
    "ThinkingFormat",
    "detect_compat",
    "get_compat",
    "is_deepseek",
    "is_mistral",
    "is_openrouter",
    "is_vercel_gateway",
]
