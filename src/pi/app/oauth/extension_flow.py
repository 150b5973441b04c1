"""OAuth providers that extensions add with `register_provider(name, {..., "oauth": {...}})`.

The extension hands a mapping (or an object with the same attributes):

- ``name`` (str): shown in `/login`;
- ``login(callbacks)`` -> ``{"refresh", "access", "expires", ...extra}`` (may be async);
- ``refresh_token(credentials, signal)`` -> the renewed mapping (may be async);
- ``get_api_key(credentials)`` -> the key requests send (may be async; default: ``access``);
- ``is_subscription`` (bool, optional), ``modify_models(models, credentials)`` (optional).

`login` gets `LoginCallbacks`, the legacy callback surface, bridged onto pi's `LoginInteraction` so
that the flow works in the terminal UI, RPC and `pi auth login` alike. What `login` returns is stored
in auth.json as ``type: "oauth"``; `refresh_token` runs under the auth.json lock on a worker thread
(with an event loop of its own) and is bounded like every refresh.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from msgspec import Struct

from pi.ai.abort import AbortController, AbortSignal
from pi.app.oauth.errors import LoginCancelled, OAuthError
from pi.app.oauth.flows.base import OAuthContext
from pi.app.oauth.interaction import DeviceCode, LoginInteraction, SelectOption


def _field(config: Any, name: str) -> Any:
    if isinstance(config, Mapping):
        return config.get(name)
    return getattr(config, name, None)


async def _settle(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class LoginCallbacks(Struct):
    """What an extension's `login` is given (the names and payloads of pi's legacy callback surface)."""

    interaction: LoginInteraction
    signal: AbortSignal

    def on_auth(self, info: Mapping[str, Any]) -> None:
        """Show the sign-in URL: ``{"url", "instructions"?}``."""
        instructions = info.get("instructions")
        self.interaction.auth_url(str(info.get("url") or ""), str(instructions) if instructions else None)

    def on_device_code(self, info: Mapping[str, Any]) -> None:
        """Show a device code: ``{"user_code", "verification_uri", "interval_seconds"?, "expires_in_seconds"?}``."""
        interval = info.get("interval_seconds")
        expires = info.get("expires_in_seconds")
        self.interaction.device_code(
            DeviceCode(
                user_code=str(info.get("user_code") or ""),
                verification_uri=str(info.get("verification_uri") or ""),
                interval_seconds=float(interval) if isinstance(interval, (int, float)) else None,
                expires_in_seconds=float(expires) if isinstance(expires, (int, float)) else None,
            )
        )

    async def on_prompt(self, prompt: Mapping[str, Any]) -> str:
        """Ask for a line: ``{"message", "placeholder"?, "allow_empty"?}``."""
        placeholder = prompt.get("placeholder")
        return await self.interaction.text(
            str(prompt.get("message") or ""),
            str(placeholder) if placeholder else None,
            bool(prompt.get("allow_empty", False)),
        )

    def on_progress(self, message: str) -> None:
        self.interaction.progress(str(message))

    async def on_manual_code_input(self) -> str:
        """A pasted code or redirect URL (cancelled when a callback server wins the race)."""
        return await self.interaction.manual_code("Paste the authorization code or the redirect URL:")

    async def on_select(self, prompt: Mapping[str, Any]) -> str | None:
        """Pick one of ``{"message", "options": [{"id", "label"}]}``; None when cancelled."""
        options = [
            SelectOption(str(_field(o, "id")), str(_field(o, "label") or _field(o, "id")))
            for o in prompt.get("options") or []
        ]
        return await self.interaction.select(str(prompt.get("message") or ""), options)


class ExtensionOAuthFlow:
    """An extension's OAuth provider as an `OAuthFlow` (plus the key it derives from a credential)."""

    api_key_login = False
    methods: tuple[SelectOption, ...] = ()

    def __init__(self, provider: str, config: Any) -> None:
        name = _field(config, "name")
        login = _field(config, "login")
        refresh = _field(config, "refresh_token")
        if not callable(login) or not callable(refresh):
            raise ValueError(f'The oauth of provider "{provider}" needs callable "login" and "refresh_token"')
        self.id = provider
        self.name = str(name or provider)
        self.is_subscription = bool(_field(config, "is_subscription"))
        self._login: Callable[..., Any] = login
        self._refresh: Callable[..., Any] = refresh
        get_api_key = _field(config, "get_api_key")
        self._get_api_key: Callable[..., Any] | None = get_api_key if callable(get_api_key) else None
        modify = _field(config, "modify_models")
        self.modify_models: Callable[..., Any] | None = modify if callable(modify) else None

    async def login(self, interaction: LoginInteraction, ctx: OAuthContext, method: str | None) -> dict[str, Any]:
        controller = AbortController()
        try:
            result = await _settle(self._login(LoginCallbacks(interaction, controller.signal)))
        except (OAuthError, LoginCancelled):
            raise
        except Exception as exc:
            raise OAuthError(str(exc) or type(exc).__name__) from exc
        finally:
            controller.abort()
        return self._entry(result)

    async def refresh(self, credential: dict[str, Any], ctx: OAuthContext) -> dict[str, Any]:
        try:
            result = await _settle(self._refresh(dict(credential), AbortController().signal))
        except OAuthError:
            raise
        except Exception as exc:
            raise OAuthError(str(exc) or type(exc).__name__) from exc
        return self._entry(result)

    async def api_key(self, credential: dict[str, Any]) -> str:
        """The key requests send: the extension's `get_api_key`, else the access token."""
        if self._get_api_key is None:
            return str(credential.get("access") or "")
        return str(await _settle(self._get_api_key(dict(credential))))

    def _entry(self, result: Any) -> dict[str, Any]:
        data = dict(result) if isinstance(result, Mapping) else None
        if data is None or not isinstance(data.get("access"), str):
            raise OAuthError(f'The login of "{self.name}" returned no "access" token')
        return {**data, "type": "oauth"}


def register_extension_oauth(provider: str, config: Any, source_id: str | None = None) -> ExtensionOAuthFlow:
    """Add an extension's OAuth provider to `/login`, `pi auth` and per-request refresh.

    Raises ValueError when `config` lacks `login` or `refresh_token`. `source_id` (the extension's
    path) lets `unregister_oauth_flows(source_id)` remove it on reload.
    """
    from pi.app.oauth.registry import register_oauth_flow

    flow = ExtensionOAuthFlow(provider, config)
    modify = flow.modify_models

    def modify_models(models: list[Any], credential: dict[str, Any]) -> list[Any]:
        assert modify is not None
        return list(modify(models, credential))

    register_oauth_flow(flow, source_id, modify_models if modify is not None else None)
    return flow


__all__ = ["ExtensionOAuthFlow", "LoginCallbacks", "register_extension_oauth"]
