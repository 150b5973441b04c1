"""`pi auth login <provider> [--api-key] [--no-browser]`."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import IO, Any

from pi.app.oauth.console import ConsoleInteraction
from pi.app.oauth.errors import LoginCancelled, OAuthError
from pi.app.oauth.flows.base import OAuthContext, OAuthFlow
from pi.app.oauth.interaction import DeviceCode, LoginInteraction, SelectOption
from pi.app.oauth.provider_names import api_key_providers, display_name, oauth_flows
from pi.app.oauth.store import OAuthStore

log = logging.getLogger(__name__)
USAGE = "pi auth login <provider> [--api-key] [--no-browser]"


class _ShellLogin:
    """Adds the `--no-browser` hint to the sign-in URL and opens a browser when asked to."""

    def __init__(self, inner: LoginInteraction, hint: str | None, open_browser: bool) -> None:
        self._inner = inner
        self._hint = hint
        self._open_browser = open_browser

    async def text(self, message: str, placeholder: str | None = None, allow_empty: bool = False) -> str:
        return await self._inner.text(message, placeholder, allow_empty)

    async def secret(self, message: str) -> str:
        return await self._inner.secret(message)

    async def select(self, message: str, options: list[SelectOption]) -> str | None:
        return await self._inner.select(message, options)

    async def manual_code(self, message: str) -> str:
        return await self._inner.manual_code(message)

    def auth_url(self, url: str, instructions: str | None = None) -> None:
        text = "\n".join(part for part in (instructions, self._hint) if part) or None
        self._inner.auth_url(url, text)
        if self._open_browser:
            import webbrowser

            try:
                webbrowser.open(url)
            except webbrowser.Error as exc:
                log.info("cannot open a browser: %s", exc)

    def device_code(self, code: DeviceCode) -> None:
        self._inner.device_code(code)

    def progress(self, message: str) -> None:
        self._inner.progress(message)

    def info(self, message: str) -> None:
        self._inner.info(message)


async def run_login(
    args: list[str],
    store: OAuthStore,
    ctx: OAuthContext,
    out: IO[str],
    err: IO[str],
    interaction: LoginInteraction | None,
    input: IO[str],
) -> int:
    flags = {a for a in args if a.startswith("-")}
    names = [a for a in args if not a.startswith("-")]
    unknown = flags - {"--api-key", "--no-browser"}
    if len(names) != 1 or unknown:
        err.write(f"Usage: {USAGE}\n")
        return 1
    provider, api_key, no_browser = names[0], "--api-key" in flags, "--no-browser" in flags
    flows, key_providers = oauth_flows(), api_key_providers()
    if provider not in flows and provider not in key_providers:
        err.write(f'Unknown provider "{provider}".\nProviders: {", ".join(sorted({*flows, *key_providers}))}\n')
        return 1
    name = display_name(provider)
    if api_key and no_browser:
        err.write("--no-browser only applies to account sign-in; omit it with --api-key.\n")
        return 1
    if api_key and provider in flows and not flows[provider].api_key_login:
        err.write(f"{name} has no API key login. Omit --api-key to sign in.\n")
        return 1
    console = interaction is None
    if interaction is None:
        if not input.isatty():
            err.write(f'"{USAGE}" requires an interactive terminal\n')
            return 1
        interaction = ConsoleInteraction(input, out)
    flow = None if api_key else flows.get(provider)
    try:
        if flow is None:
            key = (await interaction.secret(f"API key for {name}:")).strip()
            if not key:
                raise LoginCancelled()
            store.set(provider, {"type": "api_key", "key": key})
            out.write(f"Saved API key for {name}. Credentials saved to {store.path}\n")
            return 0
        method, hint = _method(flow, no_browser)
        shell = _ShellLogin(interaction, hint, open_browser=console and not no_browser)
        entry = await flow.login(shell, ctx, method)
        store.set(provider, entry)
    except LoginCancelled:
        err.write("Login cancelled.\n")
        return 1
    except OAuthError as exc:
        err.write(f"Failed to log in to {name}: {exc}\n")
        return 1
    out.write(f"Logged in to {name}. Credentials saved to {store.path}\n")
    if provider == "radius" and ctx.agent_dir is not None:
        await _after_radius_login(ctx.agent_dir, ctx.providers.radius.gateway_url, entry, out, err)
    return 0


async def _after_radius_login(agent_dir: Path, gateway: str, entry: dict[str, Any], out: IO[str], err: IO[str]) -> None:
    """Fetch the account's model list (unless offline), then point the gateway's MCP server at the login."""
    from pi.app.oauth.radius_catalog import CatalogError, network_allowed, refresh_radius_models
    from pi.app.oauth.radius_mcp import configure_after_login

    if network_allowed():
        access = entry.get("access")
        try:
            await refresh_radius_models(agent_dir, gateway, access if isinstance(access, str) else None)
        except (CatalogError, OSError) as exc:
            out.write(f"The Radius model catalog could not be refreshed: {exc}\n")
    configure_after_login(agent_dir, gateway, out, err)


def _method(flow: OAuthFlow, no_browser: bool) -> tuple[str | None, str | None]:
    """The first method, or the other one with --no-browser; plus the hint naming the alternative."""
    methods = flow.methods
    if not methods:
        return None, None
    if no_browser and len(methods) > 1:
        return methods[1].id, None
    other = (
        f'To use "{methods[1].label}" instead, run "pi auth login {flow.id} --no-browser"' if len(methods) > 1 else None
    )
    return methods[0].id, other


__all__ = ["run_login"]
