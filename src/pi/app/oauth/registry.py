"""The built-in login flows by provider id, in the order `/login` lists them."""

from __future__ import annotations

from pi.app.oauth.flows.anthropic import AnthropicFlow
from pi.app.oauth.flows.base import OAuthFlow
from pi.app.oauth.flows.github_copilot import GitHubCopilotFlow
from pi.app.oauth.flows.kimi import KimiFlow
from pi.app.oauth.flows.meta import MetaFlow
from pi.app.oauth.flows.openai import OpenAIFlow
from pi.app.oauth.flows.openai_codex import OpenAICodexFlow
from pi.app.oauth.flows.openrouter import OpenRouterFlow
from pi.app.oauth.flows.radius import RadiusFlow
from pi.app.oauth.flows.xai import XaiFlow


def builtin_flows() -> dict[str, OAuthFlow]:
    flows: list[OAuthFlow] = [
        AnthropicFlow(),
        OpenAICodexFlow(),
        OpenAIFlow(),
        GitHubCopilotFlow(),
        OpenRouterFlow(),
        KimiFlow(),
        MetaFlow(),
        XaiFlow(),
        RadiusFlow(),
    ]
    return {flow.id: flow for flow in flows}


__all__ = ["builtin_flows"]
