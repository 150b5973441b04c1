"""Saving a change made in `/mcp` (enabled, exposure) to the file that defines the server.

Global servers change in `<agent dir>/mcp.json`, project servers (and project overrides) in
`.pi/mcp.json`; servers that extensions registered are not saved, so the change lasts for the
session. The rest of the file, including its indentation, is kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi.app.mcp.config import ServerConfig, global_config_path, project_config_path


def defining_file(server: ServerConfig, agent_dir: Path, cwd: Path) -> Path | None:
    """Where the server's entry lives (the project override when there is one); None for extensions."""
    if server.override:
        return Path(server.override)
    if server.scope == "global":
        return global_config_path(agent_dir)
    if server.scope == "project":
        return project_config_path(cwd)
    return None


def save_server_field(server: ServerConfig, agent_dir: Path, cwd: Path, key: str, value: Any) -> Path | None:
    """Set `key` of the server's entry in its file; the file written, or None when nothing is saved."""
    from pi.app.mcp.cli_command import read_json_file, write_json_file

    path = defining_file(server, agent_dir, cwd)
    if path is None:
        return None
    data, indent = read_json_file(path)
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        return None
    entry = servers.setdefault(server.name, {})
    if not isinstance(entry, dict):
        return None
    entry[key] = value
    write_json_file(path, data, indent)
    return path


def save_project_override(server: ServerConfig, cwd: Path, key: str, value: Any) -> Path:
    """Write (or extend) the trusted project's override of a global server: `{"<name>": {key: value}}`."""
    from pi.app.mcp.cli_command import read_json_file, write_json_file

    path = project_config_path(cwd)
    data, indent = read_json_file(path)
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise ValueError(f'{path}: "mcpServers" must be an object; fix the file first.')
    entry = servers.get(server.name)
    if not isinstance(entry, dict):
        entry = servers[server.name] = {}
    entry[key] = value
    write_json_file(path, data, indent)
    server.override = str(path)
    return path


__all__ = ["defining_file", "save_project_override", "save_server_field"]
