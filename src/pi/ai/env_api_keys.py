"""API keys from the environment, per provider, with pi's variable names and precedence (pi 1.6.0)."""

from __future__ import annotations

import os
from pathlib import Path

AUTHENTICATED = "<authenticated>"
"""Returned for providers that authenticate by ambient credentials (AWS, Google ADC) rather than a key."""

ENV_KEYS: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "azure": ("AZURE_OPENAI_API_KEY",),
    "azure-openai-responses": ("AZURE_OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"),
    "google": ("GEMINI_API_KEY",),
    "google-vertex": ("GOOGLE_CLOUD_API_KEY",),
    "github-copilot": ("COPILOT_GITHUB_TOKEN",),
    "groq": ("GROQ_API_KEY",),
    "cerebras": ("CEREBRAS_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "vercel-ai-gateway": ("AI_GATEWAY_API_KEY",),
    "zai": ("ZAI_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "minimax": ("MINIMAX_API_KEY",),
    "minimax-cn": ("MINIMAX_CN_API_KEY",),
    "huggingface": ("HF_TOKEN",),
    "opencode": ("OPENCODE_API_KEY",),
    "opencode-go": ("OPENCODE_API_KEY",),
    "kimi-coding": ("KIMI_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "ant-ling": ("ANT_LING_API_KEY",),
    "nvidia": ("NVIDIA_API_KEY",),
    "radius": ("RADIUS_API_KEY",),
    "typesafe": ("TYPESAFE_API_KEY",),
    "fireworks": ("FIREWORKS_API_KEY",),
    "together": ("TOGETHER_API_KEY",),
    "baseten": ("BASETEN_API_KEY",),
    "meta": ("META_API_KEY",),
    "moonshotai": ("MOONSHOT_API_KEY",),
    "moonshotai-cn": ("MOONSHOT_API_KEY",),
    "zai-coding-cn": ("ZAI_CODING_CN_API_KEY",),
    "qwen-token-plan": ("QWEN_TOKEN_PLAN_TEAM_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"),
    "qwen-token-plan-cn": ("QWEN_TOKEN_PLAN_TEAM_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"),
    "qwen-token-plan-individual": ("QWEN_TOKEN_PLAN_INDIVIDUAL_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"),
    "qwen-token-plan-individual-cn": ("QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"),
    "xiaomi": ("XIAOMI_API_KEY",),
    "xiaomi-token-plan-cn": ("XIAOMI_TOKEN_PLAN_CN_API_KEY",),
    "xiaomi-token-plan-ams": ("XIAOMI_TOKEN_PLAN_AMS_API_KEY",),
    "xiaomi-token-plan-sgp": ("XIAOMI_TOKEN_PLAN_SGP_API_KEY",),
    "cloudflare-workers-ai": ("CLOUDFLARE_API_KEY",),
    "cloudflare-ai-gateway": ("CLOUDFLARE_API_KEY",),
}
"""Each provider's own variables, in the order they are read. A variable is never shared with a
provider it does not belong to (GitHub Copilot reads only its own token, not a general GitHub one).

``ANTHROPIC_AUTH_TOKEN`` is listed for discovery (it counts as Anthropic being configured) but is not
an API key: it is sent as ``Authorization: Bearer`` (`env_bearer_token`), and only when the request
carries no API key of its own."""

BEARER_TOKEN_VARS: dict[str, str] = {"anthropic": "ANTHROPIC_AUTH_TOKEN"}
"""Variables holding a token sent as ``Authorization: Bearer`` rather than as the provider's key header."""

PROVIDER_CONFIG_VARS: dict[str, tuple[str, ...]] = {
    "anthropic": (
        "ANTHROPIC_FEDERATION_RULE_ID",
        "ANTHROPIC_ORGANIZATION_ID",
        "ANTHROPIC_IDENTITY_TOKEN_FILE",
        "ANTHROPIC_SERVICE_ACCOUNT_ID",
        "ANTHROPIC_WORKSPACE_ID",
    ),
    "azure": ("AZURE_OPENAI_BASE_URL", "AZURE_OPENAI_RESOURCE_NAME", "AZURE_OPENAI_API_VERSION"),
    "google-vertex": (
        "GOOGLE_CLOUD_PROJECT",
        "GCLOUD_PROJECT",
        "GOOGLE_CLOUD_LOCATION",
        "GOOGLE_APPLICATION_CREDENTIALS",
    ),
    "amazon-bedrock": (
        "AWS_PROFILE",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_REGION",
        "AWS_BEARER_TOKEN_BEDROCK",
    ),
    "cloudflare-workers-ai": ("CLOUDFLARE_ACCOUNT_ID",),
    "cloudflare-ai-gateway": ("CLOUDFLARE_ACCOUNT_ID", "CLOUDFLARE_GATEWAY_ID"),
}
"""Other variables a provider reads (accounts, regions, workload identity), for `--help` and diagnostics."""

_AWS_VARS = (
    "AWS_PROFILE",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
)


def env_var_names(provider: str) -> tuple[str, ...]:
    """The variables consulted for `provider`, in order; empty for OAuth-only or unknown providers."""
    return ENV_KEYS.get(provider, ())


def env_bearer_token(provider: str) -> str | None:
    """A bearer token for `provider` from the environment (``ANTHROPIC_AUTH_TOKEN``), or None."""
    name = BEARER_TOKEN_VARS.get(provider)
    return (os.environ.get(name) or None) if name else None


def get_env_api_key(provider: str) -> str | None:
    """The key for `provider` from the environment, or None (bearer-token variables are not keys)."""
    bearer = BEARER_TOKEN_VARS.get(provider)
    for name in ENV_KEYS.get(provider, ()):
        if name == bearer:
            continue
        value = os.environ.get(name)
        if value:
            return value
    if provider == "google-vertex" and _has_vertex_adc():
        return AUTHENTICATED
    if provider == "amazon-bedrock" and _has_aws_credentials():
        return AUTHENTICATED
    return None


def _has_vertex_adc() -> bool:
    creds = os.environ.get("GOOGLE_APPLICATION_CREDENTIALS") or str(
        Path.home() / ".config" / "gcloud" / "application_default_credentials.json"
    )
    project = os.environ.get("GOOGLE_CLOUD_PROJECT") or os.environ.get("GCLOUD_PROJECT")
    return Path(creds).is_file() and bool(project) and bool(os.environ.get("GOOGLE_CLOUD_LOCATION"))


def _has_aws_credentials() -> bool:
    if any(os.environ.get(name) for name in _AWS_VARS):
        return True
    return bool(os.environ.get("AWS_ACCESS_KEY_ID") and os.environ.get("AWS_SECRET_ACCESS_KEY"))


__all__ = [
    "AUTHENTICATED",
    "BEARER_TOKEN_VARS",
    "ENV_KEYS",
    "PROVIDER_CONFIG_VARS",
    "env_bearer_token",
    "env_var_names",
    "get_env_api_key",
]
