"""After a Radius login: point the gateway's MCP server in the global mcp.json at that login.

The gateway serves MCP at ``<gateway>/mcp`` and accepts the Radius login's token there, so a
Radius login also configures that server with ``auth: {"provider": "radius"}``. Nothing changes
when a global server with that URL already uses the login. A server with that URL but its own
sign-in keeps its name and fields and gets the provider auth instead of its ``oauth`` block;
otherwise a new entry is added as ``radius`` (``radius-mcp``, ``radius-mcp-2``, ... when another
server already has that namespace). The rest of the file stays as it was: the other entries, the
key order and the indentation; the file is replaced atomically.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import IO, Any

from msgspec import Struct

PROVIDER = "radius"
_INDENT = re.compile(r"^([ \t]+)\S", re.MULTILINE)


class RadiusMcpPlan(Struct, frozen=True):
    """The entry to write: `name` in the global `path`, set to `entry`."""

    path: Path
    name: str
    entry: dict[str, Any]


def radius_mcp_url(gateway: str) -> str:
    """The gateway's MCP endpoint."""
    from pi.ai.providers.radius import normalize_gateway_url

    return f"{normalize_gateway_url(gateway)}/mcp"


def plan_radius_mcp(agent_dir: Path, gateway: str, provider: str = PROVIDER) -> RadiusMcpPlan | None:
    """What to write so the gateway's MCP server uses `provider`'s login; None when one already does.

    Only the global file counts (provider auth is allowed nowhere else); its invalid entries are
    ignored as they are when servers are loaded.
    """
    from pi.app.mcp.config import global_config_path, load_mcp_config

    servers = load_mcp_config(agent_dir, agent_dir, trusted=False).servers
    url = radius_mcp_url(gateway)
    existing = next((s for s in servers.values() if s.url is not None and s.url.rstrip("/") == url), None)
    if existing is not None and existing.auth_provider == provider:
        return None
    if existing is not None:
        entry = {**existing.raw, "auth": {"provider": provider}}
        entry.pop("oauth", None)  # the login replaces the server's own sign-in
        return RadiusMcpPlan(global_config_path(agent_dir), existing.name, entry)
    taken = {server.namespace for server in servers.values()}
    name, suffix = "radius", 1
    while "mcp__" + name.replace("-", "_") in taken:
        name = "radius-mcp" if suffix == 1 else f"radius-mcp-{suffix}"
        suffix += 1
    return RadiusMcpPlan(global_config_path(agent_dir), name, {"url": url, "auth": {"provider": provider}})


def save_plan(plan: RadiusMcpPlan) -> bool:
    """Write the entry into its file; True when it replaced an entry of the same name.

    Raises ValueError when the file is not a JSON object with an ``mcpServers`` object (it is then
    left untouched), OSError when it cannot be read or written.
    """
    from pi.app.atomic_file import write_atomic

    try:
        text: str | None = plan.path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        text = None
    try:
        data = json.loads(text) if text and text.strip() else {}
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON ({exc.msg} at line {exc.lineno}); fix the file first") from None
    if not isinstance(data, dict) or not isinstance(data.setdefault("mcpServers", {}), dict):
        raise ValueError('expected an object with an "mcpServers" object')
    servers: dict[str, Any] = data["mcpServers"]
    replaced = plan.name in servers
    servers[plan.name] = plan.entry
    found = _INDENT.search(text or "")
    write_atomic(plan.path, json.dumps(data, indent=found.group(1) if found else "  ", ensure_ascii=False) + "\n")
    return replaced


def configure_after_login(agent_dir: Path, gateway: str, out: IO[str], err: IO[str]) -> None:
    """`pi auth login radius`: add or update the server without asking (the login is what it needs)
    and say so; a file that cannot be changed is reported, and the login still counts."""
    plan = plan_radius_mcp(agent_dir, gateway)
    if plan is None:
        return
    try:
        replaced = save_plan(plan)
    except (OSError, ValueError) as exc:
        err.write(f"Could not update {plan.path}: {exc}\n")
        return
    verb = "Updated" if replaced else "Added"
    out.write(f'{verb} MCP server "{plan.name}" in {plan.path} to use the Radius login.\n')


__all__ = ["PROVIDER", "RadiusMcpPlan", "configure_after_login", "plan_radius_mcp", "radius_mcp_url", "save_plan"]
