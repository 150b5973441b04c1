"""`/login` for llama.cpp: the router's URL first, then its key, kept in auth.json's ``llama.cpp`` entry.

A router needs a URL more than a key (one started without ``--api-key`` accepts anything), so the
entry stores the URL as ``env.LLAMA_BASE_URL``, the way `pi.app.llama.config` reads it, and a key
only when one is given. `/llama` reads the entry on every use, so it reaches the new router at once.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from pi.app.llama.config import DEFAULT_SERVER_URL, PROVIDER, URL_VARIABLE

if TYPE_CHECKING:
    from pi.app.auth import AuthStorage
    from pi.app.modes.interactive.pickers.login_dialog import LoginDialog

URL_PROMPT = f"Enter the llama.cpp router URL (empty for {DEFAULT_SERVER_URL}):"
KEY_PROMPT = "Enter the router's API key (empty if it was started without --api-key):"


async def save_router_login(dialog: LoginDialog, auth: AuthStorage) -> Path | None:
    """Ask for the URL and key and store them; returns the auth.json path."""
    from pi.app.llama.client import LlamaError, normalize_server_url
    from pi.app.oauth.errors import OAuthError

    typed = await dialog.text(URL_PROMPT, allow_empty=True)
    try:
        url = normalize_server_url(typed or DEFAULT_SERVER_URL)
    except LlamaError as exc:
        raise OAuthError(f"{exc}: {typed!r}. Run /login again with an http:// or https:// URL.") from exc
    key = await dialog.secret(KEY_PROMPT)
    await asyncio.to_thread(auth.set_api_key, PROVIDER, key or None, {URL_VARIABLE: url})
    return auth.path


__all__ = ["KEY_PROMPT", "URL_PROMPT", "save_router_login"]
