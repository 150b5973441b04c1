"""What opening the model selector refreshes: the Radius account's model list.

pi 1.6.0 refreshes the provider catalogs each time the selector opens. Of ours, only Radius's list
lives on the network (`GET <gateway>/v1/config`, `pi.app.oauth.radius_catalog`): it is fetched in
the background with the Radius key or login while the selector is shown, kept in
models-store.json, and the model list is rebuilt so the selector, if still open, lists the
account's current models. Offline, without Radius credentials, or when the gateway cannot answer,
nothing changes: the list kept before stays, and the failure goes to the debug log rather than
interrupting the user.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi.app.modes.interactive.commands.api import InteractiveApi

log = logging.getLogger(__name__)


def radius_token(api: InteractiveApi) -> str | None:
    """The key or login token Radius requests would use now, or None when there is none (or pi is offline)."""
    from pi.app.oauth.radius_catalog import PROVIDER, network_allowed

    if not network_allowed():
        return None
    return api.session.model_registry.auth.get_api_key(PROVIDER)


async def refresh_radius_catalog(api: InteractiveApi, token: str, on_refreshed: Callable[[], None]) -> None:
    """Fetch and keep the account's list, rebuild the model list, then call `on_refreshed`."""
    from pi.app.oauth.providers import table_from_env
    from pi.app.oauth.radius_catalog import CatalogError, refresh_radius_models

    gateway = table_from_env(os.environ).radius.gateway_url
    try:
        await refresh_radius_models(api.agent_dir, gateway, token)
    except (CatalogError, OSError) as exc:
        log.debug("Radius model list not refreshed: %s", exc)
        return
    api.session.model_registry.reload()
    on_refreshed()


__all__ = ["radius_token", "refresh_radius_catalog"]
