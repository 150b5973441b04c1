"""Validation of a server's `oauth` object (client id/secret, callback, scope, registration mode)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

LOOPBACK = ("localhost", "127.0.0.1", "::1")
REGISTRATION_MODES = ("auto", "dcr", "cimd")


def _fail(name: str, message: str) -> ValueError:
    """The config module's error type, imported here to keep the two modules free of an import cycle."""
    from pi.app.mcp.config import ConfigError

    return ConfigError(f'server "{name}": oauth{message}')


def _optional_string(name: str, oauth: dict[str, Any], key: str, *, non_empty: bool = False) -> None:
    if key in oauth and (not isinstance(oauth[key], str) or (non_empty and not oauth[key].strip())):
        raise _fail(name, f".{key} must be a {'non-empty ' if non_empty else ''}string")


def _check_callback_url(name: str, oauth: dict[str, Any]) -> None:
    url = oauth["callbackUrl"]
    parts = urlsplit(url) if isinstance(url, str) else None
    if parts is None or parts.scheme != "http" or parts.hostname not in LOOPBACK or parts.query or parts.fragment:
        raise _fail(name, ".callbackUrl must be an http URL on localhost, 127.0.0.1 or [::1] without query or fragment")
    port = oauth.get("callbackPort")
    if port is not None and parts.port != port:
        raise _fail(name, ".callbackUrl port must equal callbackPort")


def validate_oauth(name: str, oauth: Any) -> dict[str, Any]:
    """Return the `oauth` object unchanged when every sub-field is valid; raise the first problem."""
    if not isinstance(oauth, dict):
        raise _fail(name, " must be an object")
    for key in ("clientId", "clientSecret", "scope"):
        _optional_string(name, oauth, key)
    _optional_string(name, oauth, "clientName", non_empty=True)
    port = oauth.get("callbackPort")
    if port is not None and (isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535):
        raise _fail(name, ".callbackPort must be an integer from 1 to 65535")
    if "callbackUrl" in oauth:
        _check_callback_url(name, oauth)
    mode = oauth.get("clientRegistration")
    if mode is not None and mode not in REGISTRATION_MODES:
        raise _fail(name, '.clientRegistration must be "auto", "dcr" or "cimd"')
    if mode == "cimd":
        if "clientId" in oauth or "clientName" in oauth:
            raise _fail(name, '.clientRegistration "cimd" cannot be combined with clientId or clientName')
        parts = urlsplit(oauth.get("callbackUrl") or "")
        if parts.hostname not in ("localhost", "127.0.0.1") or parts.path != "/callback":
            raise _fail(
                name, 'clientRegistration "cimd" needs a callbackUrl on localhost or 127.0.0.1 with path /callback'
            )
    if "authServerMetadataUrl" in oauth:
        meta = oauth["authServerMetadataUrl"]
        loopback_http = isinstance(meta, str) and re.match(r"^http://(localhost|127\.0\.0\.1|\[::1\])(:\d+)?/", meta)
        if not isinstance(meta, str) or not (meta.startswith("https://") or loopback_http):
            raise _fail(name, ".authServerMetadataUrl must be an https URL, or http on a loopback host")
    return dict(oauth)


__all__ = ["validate_oauth"]
