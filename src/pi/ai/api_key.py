"""Which API key a request carries: one rule for every wire API.

The key passed in the options wins; otherwise the provider's own environment variables are read
(`pi.ai.env_api_keys`). Nothing else: a key is never borrowed from another provider, so a custom
OpenAI-compatible server or a gateway such as Groq never sees the user's ``OPENAI_API_KEY``. A
server that needs no key (a local one) is configured by the caller with any placeholder key.
"""

from __future__ import annotations

from pi.ai.env_api_keys import env_var_names, get_env_api_key
from pi.ai.options import StreamOptions
from pi.ai.types import Model


class MissingApiKeyError(ValueError):
    """No key was passed and the provider's environment variables hold none."""


def missing_key_message(provider: str) -> str:
    """The error text for a provider without a key: which provider, and what to set."""
    names = env_var_names(provider)
    if names:
        fix = f"Set {' or '.join(names)}, or pass an API key."
    else:
        fix = f'Add "apiKey" to the "{provider}" provider in models.json, or pass an API key.'
    return f"No API key for provider: {provider}\n{fix}"


def resolve_api_key(model: Model, options: StreamOptions) -> str:
    """The key to send for `model`; raises MissingApiKeyError (an error event, in a provider) when none is known."""
    key = options.api_key or get_env_api_key(model.provider)
    if not key:
        raise MissingApiKeyError(missing_key_message(model.provider))
    return key


__all__ = ["MissingApiKeyError", "missing_key_message", "resolve_api_key"]
