"""/login, /logout, /trust, and the commands whose subsystems this version does not have yet.

/login asks how to sign in (an account, an API key, or Radius), then which provider, then runs the
provider's sign-in in a `LoginDialog` in the editor's place: the URL or device-code screen, a paste
prompt raced against the loopback callback, Escape to go back. What it gets is saved to auth.json
and the model list is rebuilt, so a Copilot login's endpoint and model list apply at once. /logout
removes one stored credential (environment variables and models.json stay as they are). Both lists,
and every message about a login, call a provider by its short name (`Anthropic`, not the flow's
`Anthropic (Claude Pro/Max)`), featured providers first. /llama
hands over to the built-in llama.cpp extension. /share, /bug and /mcp say in one line what is
missing and what to do instead.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pi.app.llama.config import PROVIDER as LLAMA
from pi.app.modes.interactive.pickers.dialogs import SelectDialog
from pi.app.modes.interactive.pickers.login_providers import (
    LOGIN_TITLE as PROVIDER_TITLE,
)
from pi.app.modes.interactive.pickers.login_providers import (
    LOGOUT_TITLE,
    AuthType,
    LoginProviderPicker,
    ProviderOption,
    status_suffix,
)

if TYPE_CHECKING:
    from pi.app.modes.interactive.commands.api import InteractiveApi
    from pi.app.modes.interactive.commands.registry import Handler
    from pi.app.modes.interactive.pickers.login_dialog import LoginDialog

log = logging.getLogger(__name__)

LOGIN_TITLE = "Select authentication method:"
ACCOUNT_LABEL = "Sign in with an account"
API_KEY_LABEL = "Sign in with an API key"
RADIUS = "radius"
LOGIN_CANCELLED = "Login cancelled"
ANTHROPIC_SUBSCRIPTION_WARNING = (
    "Anthropic subscription auth is active. Third-party harness usage draws from extra usage and is billed per "
    "token, not your Claude plan limits. Manage extra usage at https://claude.ai/settings/usage. "
    "Disable this warning in /settings."
)
NO_CREDENTIALS = (
    "No stored credentials to remove. /logout only removes credentials saved by /login; "
    "environment variables and models.json config are unchanged."
)
SHARE_UNAVAILABLE = "Sharing is not available in this version of pi; use /export to write an HTML file you can share."
BUG_UNAVAILABLE = (
    "Bug reports are not available in this version of pi; /debug writes a local log you can attach to an issue."
)
LLAMA_NOT_LOADED = "llama.cpp support is not loaded in this session (-ne or -builtin:llama.cpp)."
MCP_UNAVAILABLE = "MCP servers are not available in this version of pi yet."


def open_in_browser(url: str) -> None:
    """Open the sign-in page in a browser, when there is one, without holding up the UI."""
    import threading
    import webbrowser

    def run() -> None:
        try:
            webbrowser.open(url)
        except webbrowser.Error as exc:
            log.info("cannot open a browser: %s", exc)

    threading.Thread(target=run, name="pi-login-browser", daemon=True).start()


NO_API_KEY = frozenset({"openai-codex"})
"""Providers that sign in only with an account: there is no key an API-key login could save."""


def login_options(api: InteractiveApi, auth_type: AuthType | None = None) -> list[ProviderOption]:
    """Every login `/login` offers (only those of `auth_type` when given), each with where the
    provider's credential comes from today.

    A provider with a login flow offers an account option, one with a key an API-key option, some
    both. Every option is named by the provider's short name, and the whole list is sorted once:
    featured providers first, then by name; the sort is stable, so a provider's account option stays
    just above its API-key option."""
    from pi.app.modes.interactive.commands.login_sources import key_source
    from pi.app.oauth.provider_names import display_name, oauth_flows
    from pi.app.provider_display_names import is_featured, sorted_providers

    registry = api.session.model_registry
    flows = oauth_flows()
    key_providers = set(registry.providers()) - NO_API_KEY
    key_providers |= {f.id for f in flows.values() if f.api_key_login}
    key_providers.add(LLAMA)  # a router is configured here even before any of its models is known

    options: list[ProviderOption] = []
    for provider in [*flows, *sorted(key_providers - set(flows))]:
        source = key_source(registry, provider)
        kind, label = (source.kind, source.label) if source is not None else (None, None)
        name = display_name(provider)
        flow = flows.get(provider)
        subscription = flow is not None and flow.is_subscription
        featured = is_featured(provider)
        if flow is not None and auth_type in (None, "oauth"):
            options.append(
                ProviderOption(provider, name, "oauth", kind, subscription, label, featured, method_name=flow.name)
            )
        if provider in key_providers and auth_type in (None, "api_key"):
            options.append(
                ProviderOption(
                    provider, name, "api_key", kind, subscription, label, featured, method_name=f"{name} API key"
                )
            )
    return sorted_providers(options, lambda o: o.id, lambda o: o.name)


async def cmd_login(api: InteractiveApi, args: str) -> None:
    ref = args.strip()
    if not ref:
        show_method_picker(api)
        return
    matches = [o for o in login_options(api) if ref.lower() in (o.id.lower(), o.name.lower())]
    if len(matches) == 1:
        start_login(api, matches[0])
    elif matches and len({o.id for o in matches}) == 1:
        show_method_picker(api, matches)
    else:
        show_provider_picker(api, None, ref)


def show_method_picker(api: InteractiveApi, for_provider: list[ProviderOption] | None = None) -> None:
    """Account, API key, or (at the top level) Radius directly."""
    radius = None
    if for_provider is None:
        radius = next((o for o in login_options(api, "oauth") if o.id == RADIUS), None)
    kinds = {o.auth_type for o in for_provider} if for_provider else {"oauth", "api_key"}
    labels = ([ACCOUNT_LABEL] if "oauth" in kinds else []) + ([API_KEY_LABEL] if "api_key" in kinds else [])
    if radius is not None:
        labels.append(f"Sign in with {radius.name}" + status_suffix(api.theme, radius))
    title = f"Select authentication method for {for_provider[0].name}:" if for_provider else LOGIN_TITLE

    def chosen(index: int) -> None:
        api.close_selector()
        if radius is not None and index == len(labels) - 1:
            start_login(api, radius, back=lambda: show_method_picker(api))
            return
        auth_type: AuthType = "oauth" if labels[index] == ACCOUNT_LABEL else "api_key"
        if for_provider:
            option = next(o for o in for_provider if o.auth_type == auth_type)
            start_login(api, option, back=lambda: show_method_picker(api, for_provider))
        else:
            show_provider_picker(api, auth_type)

    api.show_selector(
        SelectDialog(title, labels, api.theme, api.keybindings, on_select=chosen, on_cancel=api.close_selector)
    )


def show_provider_picker(api: InteractiveApi, auth_type: AuthType | None, query: str = "") -> None:
    options = login_options(api, auth_type)
    if not options:
        kind = {"oauth": "account ", "api_key": "API key "}.get(auth_type or "", "login ")
        api.show_status(f"No {kind}providers available.")
        return

    def chosen(option: ProviderOption) -> None:
        api.close_selector()
        start_login(api, option, back=lambda: show_provider_picker(api, auth_type, query))

    def cancelled() -> None:
        api.close_selector()
        if auth_type is not None:
            show_method_picker(api)

    picker = LoginProviderPicker(
        PROVIDER_TITLE, options, api.theme, api.keybindings, on_select=chosen, on_cancel=cancelled, query=query
    )
    api.show_selector(picker)


def start_login(api: InteractiveApi, option: ProviderOption, back: Callable[[], None] | None = None) -> None:
    """Show the sign-in screen for `option` and run its login in the background."""
    from pi.app.modes.interactive.pickers.login_dialog import LoginDialog

    dialog = LoginDialog(
        option.name,
        api.theme,
        api.keybindings,
        open_url=lambda url: open_in_browser(url),
        copy=api.copy_to_clipboard,
        on_change=api.request_render,
    )
    api.show_selector(dialog)
    api.spawn(_run_login(api, dialog, option, back))


async def _run_login(
    api: InteractiveApi, dialog: LoginDialog, option: ProviderOption, back: Callable[[], None] | None
) -> None:
    from pi.app.oauth.errors import LoginCancelled, OAuthError

    task = asyncio.ensure_future(_sign_in(api, dialog, option))
    dialog.attach(task)
    try:
        saved = await task
    except (LoginCancelled, asyncio.CancelledError) as exc:
        if isinstance(exc, asyncio.CancelledError) and not dialog.cancelled:
            raise  # the app is shutting down, not the user going back
        api.close_selector()
        if back is not None:
            back()
        else:
            api.show_status(LOGIN_CANCELLED)
        return
    except (OAuthError, OSError) as exc:
        api.close_selector()
        verb = "login to" if option.auth_type == "oauth" else "save API key for"
        api.show_error(f"Failed to {verb} {option.name}: {exc}")
        return
    api.close_selector()
    _finish(api, option, saved)


async def _sign_in(api: InteractiveApi, dialog: LoginDialog, option: ProviderOption) -> Path | None:
    """Run the flow (or ask for the key) and store the result; returns the auth.json path."""
    from pi.app.oauth.errors import LoginCancelled
    from pi.app.oauth.flows.base import OAuthContext
    from pi.app.oauth.provider_names import oauth_flows
    from pi.app.oauth.providers import table_from_env

    auth = api.session.model_registry.auth
    if option.id == LLAMA and option.auth_type == "api_key":
        from pi.app.modes.interactive.commands.llama_login import save_router_login

        return await save_router_login(dialog, auth)
    if option.auth_type == "api_key":
        key = (await dialog.secret(f"Enter API key for {option.name}:")).strip()
        if not key:
            raise LoginCancelled()
        await asyncio.to_thread(auth.set_api_key, option.id, key)
        return auth.path
    flow = oauth_flows()[option.id]
    method = None
    if len(flow.methods) > 1:
        method = await dialog.select("Select login method:", list(flow.methods))
        if method is None:
            raise LoginCancelled()
    ctx = OAuthContext(providers=table_from_env(os.environ), agent_dir=api.agent_dir)
    entry = await flow.login(dialog, ctx, method)
    await asyncio.to_thread(auth.set_oauth, option.id, entry)
    if option.id == RADIUS:
        from pi.app.modes.interactive.commands.radius_login import refresh_catalog

        await refresh_catalog(api, entry)
    return auth.path


def _finish(api: InteractiveApi, option: ProviderOption, path: Path | None) -> None:
    """Rebuild the model list; with no model yet, select the provider's default one."""
    from pi.ai.models import DEFAULT_MODEL_PER_PROVIDER

    registry = api.session.model_registry
    registry.auth.reload()
    registry.reload()
    action = f"Logged in to {option.name}" if option.auth_type == "oauth" else f"Saved API key for {option.name}"
    if option.id == LLAMA and option.auth_type == "api_key":
        action = "Saved the llama.cpp router (/llama lists and loads its models)"
    where = f"Credentials saved to {path}" if path is not None else "Credentials kept for this session"
    selected = ""
    if api.session.model is None:
        default = DEFAULT_MODEL_PER_PROVIDER.get(option.id)
        model = registry.find(option.id, default) if default else None
        if model is not None:
            api.session.set_model(model)
            selected = f" Selected {model.id}."
    api.show_status(f"{action}.{selected} {where}")
    warnings = api.settings.get("warnings")
    quiet = isinstance(warnings, dict) and warnings.get("anthropicExtraUsage") is False
    if option.id == "anthropic" and option.auth_type == "oauth" and not quiet:
        api.show_warning(ANTHROPIC_SUBSCRIPTION_WARNING)
    if option.id == RADIUS and option.auth_type == "oauth":
        from pi.app.modes.interactive.commands.radius_login import offer_radius_mcp

        offer_radius_mcp(api, option.name)


def stored_providers(api: InteractiveApi) -> list[str]:
    """Providers with credentials in auth.json."""
    return api.session.model_registry.auth.stored_providers()


async def cmd_logout(api: InteractiveApi, args: str) -> None:
    from pi.app.oauth.provider_names import display_name, oauth_flows
    from pi.app.provider_display_names import is_featured, sorted_providers

    auth = api.session.model_registry.auth
    flows = oauth_flows()
    stored: list[ProviderOption] = []
    for provider in stored_providers(api):
        kind: AuthType = "oauth" if auth.stored_type(provider) == "oauth" else "api_key"
        flow = flows.get(provider)
        subscription = flow is not None and flow.is_subscription
        stored.append(
            ProviderOption(provider, display_name(provider), kind, kind, subscription, featured=is_featured(provider))
        )
    options = sorted_providers(stored, lambda o: o.id, lambda o: o.name)
    if not options:
        api.show_status(NO_CREDENTIALS)
        return

    def chosen(option: ProviderOption) -> None:
        api.close_selector()
        try:
            auth.remove(option.id)
        except OSError as exc:
            api.show_error(f"Logout failed: {exc}")
            return
        api.session.model_registry.reload()
        if option.auth_type == "oauth":
            api.show_status(f"Logged out of {option.name}")
        else:
            api.show_status(
                f"Removed stored API key for {option.name}. Environment variables and models.json config are unchanged."
            )

    picker = LoginProviderPicker(
        LOGOUT_TITLE, options, api.theme, api.keybindings, on_select=chosen, on_cancel=api.close_selector
    )
    api.show_selector(picker)


async def cmd_trust(api: InteractiveApi, args: str) -> None:
    from pi.app.trust import TrustChoice, TrustStoreError, canonical_dir, read_trust_store, save_trust_decision
    from pi.app.trust import saved_decision as saved_for

    cwd = api.session.cwd
    try:
        saved = saved_for(read_trust_store(api.agent_dir), cwd)
    except TrustStoreError as exc:
        api.show_error(str(exc))
        return
    saved_text = "none" if saved is None else "trusted" if saved else "untrusted"
    current = (
        "trusted"
        if saved is True or (saved is None and api.settings.get("defaultProjectTrust") == "always")
        else "untrusted"
    )
    choices = [
        (TrustChoice.TRUST, "Trust"),
        (TrustChoice.TRUST_PARENT, f"Trust parent folder ({Path(canonical_dir(cwd)).parent})"),
        (TrustChoice.DISTRUST, "Do not trust"),
    ]

    def chosen(index: int) -> None:
        api.close_selector()
        choice = choices[index][0]
        try:
            save_trust_decision(api.agent_dir, cwd, choice)
        except (OSError, TrustStoreError) as exc:
            api.show_error(f"Could not save the trust decision: {exc}")
            return
        word = "untrusted" if choice is TrustChoice.DISTRUST else "trusted"
        api.show_status(f"Saved trust decision: {word}. Restart pi for this to take effect.")

    dialog = SelectDialog(
        "Project trust",
        [label for _, label in choices],
        api.theme,
        api.keybindings,
        message=[str(cwd), f"Saved decision: {saved_text}", f"Current session: {current}"],
        on_select=chosen,
        on_cancel=api.close_selector,
    )
    api.show_selector(dialog)


async def cmd_llama(api: InteractiveApi, args: str) -> None:
    """Handed to `builtin:llama.cpp`'s own `/llama`; without it loaded, say why."""
    if await api.session.run_extension_command(f"/llama {args}".rstrip()):
        return
    from pi.app.llama.config import NOT_CONFIGURED, router_configured

    api.show_warning(LLAMA_NOT_LOADED if router_configured(api.agent_dir) else NOT_CONFIGURED)


def _unavailable(message: str) -> Handler:
    async def handler(api: InteractiveApi, args: str) -> None:
        api.show_warning(message)

    return handler


HANDLERS: dict[str, Handler] = {
    "login": cmd_login,
    "logout": cmd_logout,
    "trust": cmd_trust,
    "share": _unavailable(SHARE_UNAVAILABLE),
    "bug": _unavailable(BUG_UNAVAILABLE),
    "llama": cmd_llama,
    "mcp": _unavailable(MCP_UNAVAILABLE),
}

__all__ = [
    "ACCOUNT_LABEL",
    "API_KEY_LABEL",
    "HANDLERS",
    "LOGIN_TITLE",
    "NO_CREDENTIALS",
    "login_options",
    "open_in_browser",
    "start_login",
    "stored_providers",
]
