"""MCP server configuration: `<agent dir>/mcp.json` and a trusted project's `.pi/mcp.json`.

Both files share the shape other MCP clients use (`{"mcpServers": {...}}`). Every entry is
validated on its own: a bad entry is reported with the file it came from and skipped, so one typo
never keeps the other servers from connecting. Secrets (`${VAR}`, `!command`) are resolved only
when a server connects, never at load time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, TypeAlias

import msgspec.structs
from msgspec import Struct, field

from pi.app.mcp.oauth_config import validate_oauth

ServerExposure: TypeAlias = Literal["codemode", "deferred", "direct", "hidden"]
Scope: TypeAlias = Literal["global", "project", "extension"]
EXPOSURES: tuple[ServerExposure, ...] = ("codemode", "deferred", "direct", "hidden")
EXPOSURE_ALIASES = {"codemode-deferred": "codemode"}
DEFAULT_TIMEOUT_S = 60.0
NAME_RE = re.compile(r"^[A-Za-z0-9_-]+$")
OVERRIDE_KEYS = frozenset({"enabled", "exposure", "toolExposure"})
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")


class ConfigError(ValueError):
    """One invalid server entry; the message is what the user sees (without the file prefix)."""


class ServerConfig(Struct):
    """One validated server entry, after project overrides were applied."""

    name: str
    scope: Scope
    source: str
    transport: Literal["stdio", "http"]
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    oauth: dict[str, Any] | None = None
    auth_provider: str | None = None
    enabled: bool = True
    exposure: ServerExposure = "codemode"
    tool_exposure: dict[str, ServerExposure] = field(default_factory=dict)
    description: str | None = None
    timeout: float = DEFAULT_TIMEOUT_S
    override: str | None = None
    """Path of the project file whose override changed this global server, if any."""
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def namespace(self) -> str:
        """`mcp__<server>` with `-` as `_`: the identifier the model and codemode use."""
        return "mcp__" + self.name.replace("-", "_")

    def exposure_for_tool(self, tool: str) -> ServerExposure:
        """`toolExposure`: an exact name wins, then the first matching `*` pattern, else the server's."""
        if tool in self.tool_exposure:
            return self.tool_exposure[tool]
        for pattern, exposure in self.tool_exposure.items():
            if "*" in pattern and _pattern_matches(pattern, tool):
                return exposure
        return self.exposure


class McpConfig(Struct):
    """Everything loaded: valid servers in file order, the error lines, and notes for `/mcp`."""

    servers: dict[str, ServerConfig] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    auto_enable_codemode: bool | None = None


def _pattern_matches(pattern: str, name: str) -> bool:
    regex = "^" + ".*".join(re.escape(part) for part in pattern.split("*")) + "$"
    return re.match(regex, name) is not None


def global_config_path(agent_dir: Path) -> Path:
    return agent_dir / "mcp.json"


def project_config_path(cwd: Path) -> Path:
    return cwd / ".pi" / "mcp.json"


def _normalize_exposure(value: Any) -> ServerExposure | None:
    value = EXPOSURE_ALIASES.get(value, value) if isinstance(value, str) else value
    return value if value in EXPOSURES else None


def _string_map(value: Any, message: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ConfigError(message)
    return dict(value)


def _is_loopback_http(url: str) -> bool:
    match = re.match(r"^http://(\[::1\]|[^/:?#]+)(:\d+)?(?:[/?#]|$)", url)
    return match is not None and match.group(1) in LOOPBACK_HOSTS


def _common_fields(name: str, entry: Mapping[str, Any], out: ServerConfig) -> None:
    """The fields both transports and overrides share."""
    if "enabled" in entry:
        if not isinstance(entry["enabled"], bool):
            raise ConfigError(f'server "{name}": enabled must be a boolean')
        out.enabled = entry["enabled"]
    if "exposure" in entry:
        exposure = _normalize_exposure(entry["exposure"])
        if exposure is None:
            raise ConfigError(f'server "{name}": exposure must be one of "codemode", "deferred", "direct", "hidden"')
        out.exposure = exposure
    if "toolExposure" in entry:
        mapping = entry["toolExposure"]
        if not isinstance(mapping, dict):
            raise ConfigError(f'server "{name}": toolExposure must map tool names to exposures')
        resolved: dict[str, ServerExposure] = {}
        for tool, value in mapping.items():
            exposure = _normalize_exposure(value)
            if exposure is None:
                raise ConfigError(f'server "{name}": toolExposure must map tool names to exposures')
            resolved[tool] = exposure
        out.tool_exposure = resolved


def _stdio_fields(name: str, entry: Mapping[str, Any], out: ServerConfig) -> None:
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ConfigError(f'server "{name}": command must be a non-empty string')
    out.command = command
    args = entry.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ConfigError(f'server "{name}": args must be an array of strings')
    out.args = list(args)
    out.env = _string_map(entry.get("env"), f'server "{name}": env must map names to strings')
    if "cwd" in entry:
        if not isinstance(entry["cwd"], str):
            raise ConfigError(f'server "{name}": cwd must be a string')
        out.cwd = entry["cwd"]


def _http_fields(name: str, entry: Mapping[str, Any], out: ServerConfig, scope: Scope) -> None:
    url = entry.get("url")
    if not isinstance(url, str) or not re.match(r"^https?://[^/\s]+", url):
        raise ConfigError(f'server "{name}": url must be an http or https URL')
    out.url = url
    out.headers = _string_map(entry.get("headers"), f'server "{name}": headers must map names to strings')
    if "oauth" in entry:
        out.oauth = validate_oauth(name, entry["oauth"])
    if "auth" in entry:
        auth = entry["auth"]
        provider = auth.get("provider") if isinstance(auth, dict) else None
        if not isinstance(provider, str) or not provider.strip():
            raise ConfigError(f'server "{name}": auth.provider must be a provider name')
        if not (url.startswith("https://") or _is_loopback_http(url)):
            raise ConfigError(f'server "{name}": auth requires an https URL, or http on localhost, 127.0.0.1, or [::1]')
        out.auth_provider = provider


def validate_server(name: str, entry: Any, *, scope: Scope, source: str) -> ServerConfig:
    """Check one full (non-override) entry and turn it into a `ServerConfig`."""
    if not NAME_RE.match(name):
        raise ConfigError(f'invalid server name "{name}" (use letters, digits, "_" and "-")')
    if not isinstance(entry, dict):
        raise ConfigError(f'server "{name}" must be an object')
    kind = entry.get("type")
    if kind == "sse":
        raise ConfigError(f'server "{name}": legacy SSE transport is not supported; use the streamable HTTP URL')
    if kind is not None and kind not in ("stdio", "http", "streamable-http"):
        raise ConfigError(f'server "{name}": type must be "stdio", "http" or "streamable-http"')
    wants_http = kind in ("http", "streamable-http") or (kind is None and "url" in entry and "command" not in entry)
    if (wants_http and "url" not in entry) or (not wants_http and "command" not in entry):
        raise ConfigError(f'server "{name}" needs either "command" (stdio) or "url" (streamable HTTP)')
    out = ServerConfig(name=name, scope=scope, source=source, transport="http" if wants_http else "stdio")
    out.raw = dict(entry)
    if "description" in entry:
        if not isinstance(entry["description"], str):
            raise ConfigError(f'server "{name}": description must be a string')
        out.description = entry["description"]
    if "timeout" in entry:
        timeout = entry["timeout"]
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise ConfigError(f'server "{name}": timeout must be a positive number of seconds')
        out.timeout = float(timeout)
    if wants_http:
        _http_fields(name, entry, out, scope)
    else:
        _stdio_fields(name, entry, out)
    _common_fields(name, entry, out)
    return out


def _read_file(path: Path, errors: list[str]) -> tuple[dict[str, Any], bool | None]:
    """The `mcpServers` object and `autoEnableCodemode` of one file; problems go to `errors`."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None
    except OSError as error:
        errors.append(f"{path}: cannot read the file: {error}")
        return {}, None
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as error:
        errors.append(f"{path}: invalid JSON ({error.msg} at line {error.lineno}); fix the file to load its servers")
        return {}, None
    if not isinstance(data, dict):
        errors.append(f'{path}: expected an object with "mcpServers"')
        return {}, None
    servers = data.get("mcpServers", {})
    if not isinstance(servers, dict):
        errors.append(f'{path}: "mcpServers" must be an object mapping server names to configurations')
        servers = {}
    auto = data.get("autoEnableCodemode")
    return servers, auto if isinstance(auto, bool) else None


def _is_override(entry: Any) -> bool:
    return isinstance(entry, dict) and not any(key in entry for key in ("command", "url", "type"))


def _apply_override(name: str, entry: dict[str, Any], base: ServerConfig, path: Path) -> ServerConfig:
    extra = [key for key in entry if key not in OVERRIDE_KEYS]
    if extra:
        raise ConfigError(f'server "{name}": an override can only set enabled, exposure, toolExposure')
    merged = msgspec.structs.replace(base, tool_exposure=dict(base.tool_exposure))
    _common_fields(name, entry, merged)
    merged.override = str(path)
    return merged


def _load_scope(path: Path, scope: Scope, config: McpConfig, base: dict[str, ServerConfig]) -> None:
    entries, auto = _read_file(path, config.errors)
    if auto is not None:
        config.auto_enable_codemode = auto
    for name, entry in entries.items():
        try:
            if scope == "project" and _is_override(entry) and NAME_RE.match(name):
                if name not in base:
                    raise ConfigError(f'server "{name}" needs "command" or "url", or a global server to override')
                config.servers[name] = _apply_override(name, entry, base[name], path)
                continue
            if scope == "project" and isinstance(entry, dict) and "auth" in entry:
                raise ConfigError(f'server "{name}": auth is only allowed in the global mcp.json')
            server = validate_server(name, entry, scope=scope, source=str(path))
        except ConfigError as error:
            config.errors.append(f"{path}: {error}")
            continue
        clash = _conflicting_name(name, config.servers)
        if clash is not None:
            config.errors.append(f'{path}: server "{name}" conflicts with "{clash}"')
            continue
        config.servers[name] = server


def _conflicting_name(name: str, servers: Mapping[str, ServerConfig]) -> str | None:
    key = name.replace("-", "_")
    for other in servers:
        if other != name and other.replace("-", "_") == key:
            return other
    return None


def load_mcp_config(agent_dir: Path, cwd: Path, *, trusted: bool) -> McpConfig:
    """Read the global file, then (when the project is trusted) the project file over it."""
    config = McpConfig()
    _load_scope(global_config_path(agent_dir), "global", config, {})
    if trusted:
        base = dict(config.servers)
        _load_scope(project_config_path(cwd), "project", config, base)
    return config


def registration_error(name: str, config: Any) -> str | None:
    """Why `register_mcp_server(name, config)` is invalid (the §3.1 message), or None when it is fine."""
    try:
        validate_server(name, config, scope="extension", source="extension")
    except ConfigError as error:
        return str(error)
    return None


def merge_registered(config: McpConfig, registrations: list[tuple[str, dict[str, Any], str]]) -> McpConfig:
    """Add servers that extensions registered; an `mcp.json` server of the same namespace wins."""
    for name, entry, extension_path in registrations:
        clash = name if name in config.servers else _conflicting_name(name, config.servers)
        if clash is not None:
            source = config.servers[clash].source
            config.notes.append(f'"{name}" registered by {extension_path} is overridden by "{clash}" in {source}')
            continue
        try:
            server = validate_server(name, entry, scope="extension", source=extension_path)
        except ConfigError as error:
            config.errors.append(f"{extension_path}: {error}")
            continue
        config.servers[name] = server
    return config


__all__ = [
    "DEFAULT_TIMEOUT_S",
    "EXPOSURES",
    "ConfigError",
    "McpConfig",
    "ServerConfig",
    "ServerExposure",
    "global_config_path",
    "load_mcp_config",
    "merge_registered",
    "project_config_path",
    "registration_error",
    "validate_server",
]
