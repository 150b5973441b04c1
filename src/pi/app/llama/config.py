"""Where the llama.cpp router is and which key it wants, as pi 1.6.0 configures them.

The router is configured when a stored ``llama.cpp`` credential (auth.json) names it in its
``env.LLAMA_BASE_URL``, or when the ``LLAMA_BASE_URL`` environment variable is set; nothing is
contacted otherwise. The key is the credential's ``key``, else ``LLAMA_API_KEY``, else ``local``
(a router started without ``--api-key`` accepts anything).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from msgspec import Struct

PROVIDER = "llama.cpp"
DEFAULT_SERVER_URL = "http://127.0.0.1:9931"
URL_VARIABLE = "LLAMA_BASE_URL"
KEY_VARIABLE = "LLAMA_API_KEY"
DEFAULT_KEY = "local"
NOT_CONFIGURED = (
    f"No llama.cpp router is configured: set {URL_VARIABLE} to its URL (llama.cpp's default is "
    f"{DEFAULT_SERVER_URL}) and start pi again."
)


class RouterConfig(Struct, frozen=True):
    """The llama.cpp router to talk to and the key to send it, resolved from auth.json or the environment."""

    server_url: str
    api_key: str
    source: str
    """``stored credential`` or ``LLAMA_BASE_URL``."""


def stored_entry(agent_dir: Path) -> dict[str, Any] | None:
    """The ``llama.cpp`` entry of auth.json as written (a key may be absent), or None."""
    try:
        data = json.loads((agent_dir / "auth.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    entry = data.get(PROVIDER) if isinstance(data, dict) else None
    return entry if isinstance(entry, dict) and entry.get("type") == "api_key" else None


def resolve_router(entry: Mapping[str, Any] | None, environ: Mapping[str, str] | None = None) -> RouterConfig | None:
    """The configured router (see the module docstring), or None when none is configured.

    Raises `pi.app.llama.client.LlamaError` for a URL that is not http(s)."""
    from pi.app.llama.client import normalize_server_url

    environ = os.environ if environ is None else environ
    env = entry.get("env") if entry is not None else None
    stored_url = env.get(URL_VARIABLE) if isinstance(env, dict) else None
    if isinstance(stored_url, str) and stored_url.strip():
        url, source = stored_url, "stored credential"
    else:
        url, source = (environ.get(URL_VARIABLE) or "").strip(), URL_VARIABLE
    if not url:
        return None
    key = entry.get("key") if entry is not None else None
    api_key = key if isinstance(key, str) and key else environ.get(KEY_VARIABLE) or DEFAULT_KEY
    return RouterConfig(normalize_server_url(url), api_key, source)


def router_configured(agent_dir: Path, environ: Mapping[str, str] | None = None) -> bool:
    """The cheap start-up test: is a router configured at all (no URL check, no request)?"""
    environ = os.environ if environ is None else environ
    if (environ.get(URL_VARIABLE) or "").strip():
        return True
    try:
        text = (agent_dir / "auth.json").read_text(encoding="utf-8")
    except OSError:
        return False
    return f'"{PROVIDER}"' in text and stored_entry(agent_dir) is not None


def offline(environ: Mapping[str, str] | None = None) -> bool:
    """``--offline`` / ``PI_OFFLINE``: no request at start-up."""
    environ = os.environ if environ is None else environ
    return bool(environ.get("PI_OFFLINE"))


__all__ = [
    "DEFAULT_KEY",
    "DEFAULT_SERVER_URL",
    "KEY_VARIABLE",
    "NOT_CONFIGURED",
    "PROVIDER",
    "URL_VARIABLE",
    "RouterConfig",
    "offline",
    "resolve_router",
    "router_configured",
    "stored_entry",
]
