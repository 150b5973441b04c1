"""The installation's device id (a UUID in the global settings.json), which Sign in with ChatGPT sends."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from pi.app.atomic_file import write_atomic
from pi.app.oauth.errors import OAuthError

MISSING = "Sign in with ChatGPT requires a device ID (UUID) for this installation"


def installation_device_id(agent_dir: Path | None) -> str:
    """The stored `deviceId`, lowercased; created (and saved, other settings kept) on first use."""
    if agent_dir is None:
        raise OAuthError(MISSING)
    path = agent_dir / "settings.json"
    try:
        settings = json.loads(path.read_text(encoding="utf-8") or "{}")
    except FileNotFoundError:
        settings = {}
    except (OSError, ValueError) as exc:
        raise OAuthError(f"{MISSING} (settings.json cannot be read: {exc})") from None
    if not isinstance(settings, dict):
        raise OAuthError(MISSING)
    value = settings.get("deviceId")
    if value is None:
        value = str(uuid.uuid4())
        write_atomic(path, json.dumps({**settings, "deviceId": value}, indent=2) + "\n")
    try:
        return str(uuid.UUID(str(value))).lower()
    except ValueError:
        raise OAuthError(MISSING) from None


__all__ = ["installation_device_id"]
