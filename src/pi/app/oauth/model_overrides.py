"""What a stored login changes about a provider's models: where they are served and which are offered.

GitHub Copilot is the one built-in case. Its token says which endpoint serves the account
(`proxy-ep`, or the Enterprise host), and its login recorded which models the account may pick
(`availableModelIds`). An extension's OAuth provider may adjust its models as well
(`modify_models`, see `pi.app.oauth.extension_flow`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from pi.ai.types import Model

log = logging.getLogger(__name__)

COPILOT = "github-copilot"
COPILOT_DEFAULT_BASE = "https://api.individual.githubcopilot.com"

ModelModifier = Callable[[list[Model], dict[str, Any]], list[Model]]


def copilot_models(models: list[Model], entry: Mapping[str, Any]) -> list[Model]:
    """Copilot's models served from the token's endpoint and limited to the account's available ids.

    A base URL the user set in models.json is kept: only models still at the catalog's default
    endpoint move to the account's.
    """
    from pi.app.oauth.flows.github_copilot import copilot_base_url

    access = entry.get("access")
    enterprise = entry.get("enterpriseUrl")
    base = copilot_base_url(
        access if isinstance(access, str) else "", enterprise if isinstance(enterprise, str) else None
    )
    available = entry.get("availableModelIds")
    allowed = {item for item in available if isinstance(item, str)} if isinstance(available, list) else None
    out: list[Model] = []
    for model in models:
        if model.provider != COPILOT:
            out.append(model)
            continue
        if allowed is not None and model.id not in allowed:
            continue
        if model.base_url.rstrip("/") == COPILOT_DEFAULT_BASE and base != COPILOT_DEFAULT_BASE:
            model = model.model_copy(update={"base_url": base})
        out.append(model)
    return out


def copilot_shaping(entry: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """What of a Copilot login the model list depends on: the Enterprise host, the available ids and
    the endpoint its token names. A refresh that changes any of them must rebuild the model list."""
    if entry is None:
        return None
    from pi.app.oauth.flows.github_copilot import copilot_base_url

    access = entry.get("access")
    enterprise = entry.get("enterpriseUrl")
    return {
        "enterpriseUrl": enterprise,
        "availableModelIds": entry.get("availableModelIds"),
        "baseUrl": copilot_base_url(
            access if isinstance(access, str) else "", enterprise if isinstance(enterprise, str) else None
        ),
    }


def apply_oauth_models(models: list[Model], entries: Mapping[str, dict[str, Any]]) -> list[Model]:
    """`models` as the stored OAuth logins (`entries`, by provider) shape them."""
    from pi.app.oauth.registry import registered_modifiers

    out = list(models)
    copilot = entries.get(COPILOT)
    if copilot is not None:
        out = copilot_models(out, copilot)
    for provider, modify in registered_modifiers().items():
        entry = entries.get(provider)
        if entry is None:
            continue
        try:
            out = _modified(out, provider, modify, entry)
        except Exception as exc:  # an extension's hook must not take the model list down
            log.warning("modify_models of the %s login failed: %s", provider, type(exc).__name__)
    return out


def _modified(models: list[Model], provider: str, modify: ModelModifier, entry: dict[str, Any]) -> list[Model]:
    own = [m for m in models if m.provider == provider]
    others = [m for m in models if m.provider != provider]
    changed = modify(own, dict(entry))
    return others + [m for m in changed if isinstance(m, Model)]


__all__ = ["COPILOT_DEFAULT_BASE", "ModelModifier", "apply_oauth_models", "copilot_models", "copilot_shaping"]
