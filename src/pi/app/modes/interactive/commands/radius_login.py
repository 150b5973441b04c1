"""After `/login radius`: fetch the account's model list, and offer to set up the gateway's MCP server.

The list (see `pi.app.oauth.radius_catalog`) is fetched before the model list is rebuilt, so the
account's models are offered at once; offline, or when the gateway cannot say, the list kept
before (or the shipped catalog) stays. `pi auth login radius` changes the global mcp.json without
asking; here the user confirms first. Nothing is asked when a global server already uses the
Radius login. After "Yes" the session reloads, since MCP servers are read from mcp.json when a
session's resources load.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi.app.modes.interactive.commands.api import InteractiveApi


async def refresh_catalog(api: InteractiveApi, entry: dict[str, Any]) -> None:
    """Keep the account's model list in models-store.json; a failure is shown as a warning."""
    from pi.app.oauth.providers import table_from_env
    from pi.app.oauth.radius_catalog import CatalogError, network_allowed, refresh_radius_models

    if not network_allowed():
        return
    access = entry.get("access")
    gateway = table_from_env(os.environ).radius.gateway_url
    try:
        await refresh_radius_models(api.agent_dir, gateway, access if isinstance(access, str) else None)
    except (CatalogError, OSError) as exc:
        api.show_warning(f"The Radius model catalog could not be refreshed: {exc}")


def offer_radius_mcp(api: InteractiveApi, provider_name: str) -> None:
    """Ask `Configure <name> MCP in <path>?` (Yes/No) when the server is missing or uses another sign-in."""
    from pi.app.modes.interactive.pickers.dialogs import SelectDialog
    from pi.app.oauth.providers import table_from_env
    from pi.app.oauth.radius_mcp import plan_radius_mcp, save_plan

    plan = plan_radius_mcp(api.agent_dir, table_from_env(os.environ).radius.gateway_url)
    if plan is None:
        return

    def chosen(index: int) -> None:
        api.close_selector()
        if index != 0:
            return
        try:
            save_plan(plan)
        except (OSError, ValueError) as exc:
            api.show_error(f"Could not update {plan.path}: {exc}")
            return
        from pi.app.modes.interactive.commands.info_commands import cmd_reload

        api.spawn(cmd_reload(api, ""))

    title = f"Configure {provider_name} MCP in {plan.path}?"
    dialog = SelectDialog(
        title, ["Yes", "No"], api.theme, api.keybindings, on_select=chosen, on_cancel=api.close_selector
    )
    api.show_selector(dialog)


__all__ = ["offer_radius_mcp", "refresh_catalog"]
