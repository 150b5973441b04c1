"""`<agent dir>/mcp-auth.json`: per-server OAuth state, keyed `mcp__<namespace>|<server URL>`.

The file holds secrets, so it is always written with mode 0600. An entry stored under the bare URL
(the older key) is found too and moved to the current key on the next write.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi.app.mcp.config import ServerConfig


def auth_path(agent_dir: Path) -> Path:
    return agent_dir / "mcp-auth.json"


def credential_key(server: ServerConfig) -> str:
    return f"{server.namespace}|{server.url or ''}"


def read_store(agent_dir: Path) -> dict[str, Any]:
    """The whole store; an unreadable or malformed file reads as empty (it is rewritten on change)."""
    try:
        data = json.loads(auth_path(agent_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_store(agent_dir: Path, data: dict[str, Any]) -> None:
    from pi.app.atomic_file import write_atomic

    write_atomic(auth_path(agent_dir), json.dumps(data, indent=2) + "\n", mode=0o600)


def load_credentials(agent_dir: Path, server: ServerConfig) -> dict[str, Any] | None:
    store = read_store(agent_dir)
    value = store.get(credential_key(server), store.get(server.url or ""))
    return value if isinstance(value, dict) else None


def save_credentials(agent_dir: Path, server: ServerConfig, state: dict[str, Any]) -> None:
    store = read_store(agent_dir)
    store.pop(server.url or "", None)
    store[credential_key(server)] = state
    write_store(agent_dir, store)


def delete_credentials(agent_dir: Path, server: ServerConfig) -> bool:
    """Remove the server's state (current and legacy key); False when there was none."""
    store = read_store(agent_dir)
    found = [key for key in (credential_key(server), server.url or "") if key and key in store]
    for key in found:
        del store[key]
    if found:
        write_store(agent_dir, store)
    return bool(found)


__all__ = ["auth_path", "credential_key", "delete_credentials", "load_credentials", "save_credentials"]
