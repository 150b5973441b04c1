"""What a provider is called on screen, and the order provider lists show providers in.

Provider ids (`moonshotai`, `zai`) are what settings, models.json and `--provider` take; people
look for the brand (`Moonshot AI`, `Z.AI`). The names are pi's, so a list reads the same in both
programs. `provider_display_name` falls back to the id; `pi.app.oauth.provider_names.display_name`,
which messages and the login lists use, first tries the provider's login flow (an extension's
provider has no entry here but may bring a named login).

Lists put the featured providers first, in their own order, then everything else by name without
regard to case (`llama.cpp` sits between `Kimi For Coding` and `Meta`); of two names that differ only
in case the lower-case one comes first, as a locale comparison has it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

PROVIDER_NAMES: dict[str, str] = {
    "amazon-bedrock": "Amazon Bedrock",
    "ant-ling": "Ant Ling",
    "anthropic": "Anthropic",
    "azure": "Azure",
    "baseten": "Baseten",
    "cerebras": "Cerebras",
    "cloudflare-ai-gateway": "Cloudflare AI Gateway",
    "cloudflare-workers-ai": "Cloudflare Workers AI",
    "deepseek": "DeepSeek",
    "fireworks": "Fireworks",
    "github-copilot": "GitHub Copilot",
    "google": "Google",
    "google-vertex": "Google Vertex AI",
    "groq": "Groq",
    "huggingface": "Hugging Face",
    "kimi-coding": "Kimi For Coding",
    "llama.cpp": "llama.cpp",
    "meta": "Meta",
    "minimax": "MiniMax",
    "minimax-cn": "MiniMax CN",
    "mistral": "Mistral",
    "moonshotai": "Moonshot AI",
    "moonshotai-cn": "Moonshot AI CN",
    "nvidia": "NVIDIA",
    "openai": "OpenAI",
    "openai-codex": "OpenAI Codex",
    "opencode": "OpenCode Zen",
    "opencode-go": "OpenCode Go",
    "openrouter": "OpenRouter",
    "qwen-token-plan": "Qwen Token Plan Team",
    "qwen-token-plan-cn": "Qwen Token Plan Team CN",
    "qwen-token-plan-individual": "Qwen Token Plan Individual",
    "qwen-token-plan-individual-cn": "Qwen Token Plan Individual CN",
    "radius": "Radius",
    "together": "Together",
    "typesafe": "TypeSafe",
    "vercel-ai-gateway": "Vercel AI Gateway",
    "xai": "xAI",
    "xiaomi": "Xiaomi",
    "xiaomi-token-plan-ams": "Xiaomi Token Plan AMS",
    "xiaomi-token-plan-cn": "Xiaomi Token Plan CN",
    "xiaomi-token-plan-sgp": "Xiaomi Token Plan SGP",
    "zai": "Z.AI",
    "zai-coding-cn": "Z.AI Coding CN",
}

FEATURED_PROVIDERS: tuple[str, ...] = ("radius", "openrouter")
"""Partner providers, most prominent first: they lead every provider list and carry a `✦`."""

T = TypeVar("T")


def provider_display_name(provider: str) -> str:
    """The brand name of `provider`, or its id when it has none."""
    return PROVIDER_NAMES.get(provider, provider)


def is_featured(provider: str) -> bool:
    return provider in FEATURED_PROVIDERS


def provider_order(provider: str, name: str) -> tuple[int, str, str]:
    """A sort key: featured providers by rank, then the rest by name, case ignored (lower case first on a tie)."""
    rank = FEATURED_PROVIDERS.index(provider) if provider in FEATURED_PROVIDERS else len(FEATURED_PROVIDERS)
    return rank, name.casefold(), name.swapcase()


def sorted_providers(items: Iterable[T], provider: Callable[[T], str], name: Callable[[T], str]) -> list[T]:
    """`items` in list order; the sort is stable, so two entries of one provider (its account login
    and its API key) keep the order they came in."""
    return sorted(items, key=lambda item: provider_order(provider(item), name(item)))


__all__ = [
    "FEATURED_PROVIDERS",
    "PROVIDER_NAMES",
    "is_featured",
    "provider_display_name",
    "provider_order",
    "sorted_providers",
]
