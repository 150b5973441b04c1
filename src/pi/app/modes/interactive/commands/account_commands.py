"""/login, /logout, /trust, and the commands whose subsystems this version does not have yet.

/login shows the method picker; the sign-in flows themselves are not part of this version, so a
choice explains how to connect a provider with an API key instead. /share, /bug, /llama and /mcp
say in one line what is missing and what to do instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pi.app.modes.interactive.pickers.dialogs import SelectDialog

if TYPE_CHECKING:
    from pi.app.modes.interactive.commands.api import InteractiveApi
    from pi.app.modes.interactive.commands.registry import Handler

LOGIN_TITLE = "Select authentication method:"
LOGIN_OPTIONS = ("Sign in with an account", "Sign in with an API key", "Sign in with Radius • not configured")
API_KEY_HELP = (
    "set the provider's API key variable (for example ANTHROPIC_API_KEY or OPENAI_API_KEY) before starting pi, "
    "or add the provider with an apiKey to <agent-dir>/models.json"
)
LOGIN_UNAVAILABLE = (
    "Signing in with an account is not available in this version of pi. To connect a provider, " + API_KEY_HELP + "."
)
API_KEY_UNAVAILABLE = (
    "Entering an API key here is not available in this version of pi yet. Instead, " + API_KEY_HELP + "."
)
NO_CREDENTIALS = (
    "No stored credentials to remove. /logout only removes credentials saved by /login; "
    "environment variables and models.json config are unchanged."
)
SHARE_UNAVAILABLE = "Sharing is not available in this version of pi; use /export to write an HTML file you can share."
BUG_UNAVAILABLE = (
    "Bug reports are not available in this version of pi; /debug writes a local log you can attach to an issue."
)
LLAMA_UNAVAILABLE = (
    "The llama.cpp extension is not available in this version of pi; add your llama.cpp server to models.json "
    "as an OpenAI-compatible provider instead."
)
MCP_UNAVAILABLE = "MCP servers are not available in this version of pi yet."


async def cmd_login(api: InteractiveApi, args: str) -> None:
    def chosen(index: int) -> None:
        api.close_selector()
        api.show_warning(API_KEY_UNAVAILABLE if index == 1 else LOGIN_UNAVAILABLE)

    dialog = SelectDialog(
        LOGIN_TITLE, LOGIN_OPTIONS, api.theme, api.keybindings, on_select=chosen, on_cancel=api.close_selector
    )
    api.show_selector(dialog)


def stored_providers(api: InteractiveApi) -> list[str]:
    """Providers with credentials in auth.json (of the providers pi knows)."""
    registry = api.session.model_registry
    return [provider for provider in registry.providers() if registry.auth.has_stored(provider)]


async def cmd_logout(api: InteractiveApi, args: str) -> None:
    providers = stored_providers(api)
    if not providers:
        api.show_status(NO_CREDENTIALS)
        return

    def chosen(index: int) -> None:
        api.close_selector()
        provider = providers[index]
        try:
            api.session.model_registry.auth.remove(provider)
        except OSError as exc:
            api.show_error(f"Could not update auth.json: {exc}")
            return
        api.show_status(f"Removed stored credentials for {provider}")

    dialog = SelectDialog(
        "Select provider to log out:",
        providers,
        api.theme,
        api.keybindings,
        on_select=chosen,
        on_cancel=api.close_selector,
    )
    api.show_selector(dialog)


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
    "llama": _unavailable(LLAMA_UNAVAILABLE),
    "mcp": _unavailable(MCP_UNAVAILABLE),
}

__all__ = ["HANDLERS", "LOGIN_OPTIONS", "LOGIN_TITLE", "NO_CREDENTIALS", "stored_providers"]
