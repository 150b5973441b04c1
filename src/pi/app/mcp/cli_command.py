"""`pi mcp add|remove|list|login|logout`: editing `mcp.json` and checking servers without a session.

`add` and `remove` change one entry and keep everything else in the file, including its
indentation. `list` connects to every enabled server so the user sees what a session would get.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from pi.app.mcp.config import (
    ConfigError,
    McpConfig,
    global_config_path,
    load_mcp_config,
    project_config_path,
    validate_server,
)

USAGE = "Usage: pi mcp add|remove|list|login|logout ..."
HTTP_ONLY = (
    "--header",
    "--bearer-token-env-var",
    "--oauth-client-id",
    "--oauth-client-secret",
    "--oauth-callback-port",
    "--oauth-client-name",
    "--oauth-client-registration",
)
STDIO_ONLY = ("--env", "--cwd")
VALUE_OPTIONS = (*HTTP_ONLY, *STDIO_ONLY, "--url", "--exposure", "--description", "--timeout")


class UsageError(ValueError):
    """A command-line mistake; the message is printed as is."""


def _indent_of(text: str) -> int:
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" ")
        if stripped and len(stripped) < len(line):
            return len(line) - len(stripped)
    return 2


def read_json_file(path: Path) -> tuple[dict[str, Any], int]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, 2
    data = json.loads(text) if text.strip() else {}
    if not isinstance(data, dict):
        raise UsageError(f"{path}: expected a JSON object; fix or remove the file first.")
    return data, _indent_of(text)


def write_json_file(path: Path, data: dict[str, Any], indent: int) -> None:
    from pi.app.atomic_file import write_atomic

    write_atomic(path, json.dumps(data, indent=indent) + "\n")


def _pairs(values: list[str], option: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values:
        key, sep, rest = value.partition("=")
        if not sep or not key:
            raise UsageError(f"{option} expects KEY=VALUE, got {value!r}.")
        out[key] = rest
    return out


def _parse_add(argv: list[str]) -> tuple[str, dict[str, list[str]], bool, list[str]]:
    if not argv or argv[0].startswith("-"):
        raise UsageError("Usage: pi mcp add <server> [options] -- <command> [args...] | --url <url>")
    name, rest = argv[0], argv[1:]
    command: list[str] = []
    if "--" in rest:
        cut = rest.index("--")
        rest, command = rest[:cut], rest[cut + 1 :]
    options: dict[str, list[str]] = {}
    local = False
    index = 0
    while index < len(rest):
        arg = rest[index]
        if arg in ("-l", "--local"):
            local = True
        elif arg in VALUE_OPTIONS:
            if index + 1 >= len(rest):
                raise UsageError(f"{arg} requires a value.")
            options.setdefault(arg, []).append(rest[index + 1])
            index += 1
        else:
            raise UsageError(f"Unknown option for pi mcp add: {arg}")
        index += 1
    return name, options, local, command


def _build_entry(options: dict[str, list[str]], command: list[str]) -> dict[str, Any]:
    url = options.get("--url", [None])[-1]
    if url is None and not command:
        raise UsageError("Give the server command after --, or --url <url> for an HTTP server.")
    for option in HTTP_ONLY if url is None else STDIO_ONLY:
        if option in options:
            kind = "HTTP servers (--url)" if url is None else "stdio servers"
            raise UsageError(f"{option} only applies to {kind}.")
    entry: dict[str, Any] = {}
    if url is not None:
        entry["url"] = url
        headers = _pairs(options.get("--header", []), "--header")
        if "--bearer-token-env-var" in options:
            headers["Authorization"] = "Bearer ${" + options["--bearer-token-env-var"][-1] + "}"
        if headers:
            entry["headers"] = headers
        oauth = _oauth_options(options)
        if oauth:
            entry["oauth"] = oauth
    else:
        entry["command"], entry["args"] = command[0], command[1:]
        env = _pairs(options.get("--env", []), "--env")
        if env:
            entry["env"] = env
        if "--cwd" in options:
            entry["cwd"] = options["--cwd"][-1]
    if "--exposure" in options:
        entry["exposure"] = options["--exposure"][-1]
    if "--description" in options:
        entry["description"] = options["--description"][-1]
    return entry


def _oauth_options(options: dict[str, list[str]]) -> dict[str, Any]:
    fields = {
        "--oauth-client-id": "clientId",
        "--oauth-client-secret": "clientSecret",
        "--oauth-client-name": "clientName",
        "--oauth-client-registration": "clientRegistration",
    }
    oauth: dict[str, Any] = {key: options[opt][-1] for opt, key in fields.items() if opt in options}
    if "--oauth-callback-port" in options:
        port = options["--oauth-callback-port"][-1]
        oauth["callbackPort"] = int(port) if port.isdigit() else port
    return oauth


def _scope_path(local: bool, agent_dir: Path, cwd: Path) -> tuple[str, Path]:
    return ("project", project_config_path(cwd)) if local else ("global", global_config_path(agent_dir))


def cmd_add(argv: list[str], agent_dir: Path, cwd: Path, out: TextIO) -> int:
    name, options, local, command = _parse_add(argv)
    entry = _build_entry(options, command)
    scope, path = _scope_path(local, agent_dir, cwd)
    try:
        validate_server(name, entry, scope="project" if local else "global", source=str(path))
    except ConfigError as error:
        raise UsageError(str(error)) from error
    data, indent = read_json_file(path)
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise UsageError(f'{path}: "mcpServers" must be an object; fix the file first.')
    verb = "Replaced" if name in servers else "Added"
    servers[name] = entry
    write_json_file(path, data, indent)
    out.write(f'{verb} {scope} MCP server "{name}" in {path}.\n')
    may_need_sign_in = "url" in entry and "Authorization" not in entry.get("headers", {})
    hint = f". If it requires sign-in: pi mcp login {name}" if may_need_sign_in else ""
    out.write(f"Check it with: pi mcp list{hint}\n")
    return 0


def cmd_remove(argv: list[str], agent_dir: Path, cwd: Path, out: TextIO, err: TextIO) -> int:
    local = any(a in ("-l", "--local") for a in argv)
    names = [a for a in argv if not a.startswith("-")]
    if len(names) != 1:
        raise UsageError("Usage: pi mcp remove <server> [-l]")
    name = names[0]
    scope, path = _scope_path(local, agent_dir, cwd)
    data, indent = read_json_file(path)
    servers = data.get("mcpServers")
    if not isinstance(servers, dict) or name not in servers:
        _, other = _scope_path(not local, agent_dir, cwd)
        other_data, _ = read_json_file(other)
        hint = ""
        if name in (other_data.get("mcpServers") or {}):
            hint = f" It is defined in {other}; {'omit --local' if local else 'use --local'}."
        err.write(f'No {scope} MCP server named "{name}" in {path}.{hint}\n')
        return 1
    del servers[name]
    write_json_file(path, data, indent)
    out.write(f'Removed {scope} MCP server "{name}" from {path}.\n')
    return 0


def _edit_distance(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def unknown_server_message(name: str, config: McpConfig) -> str:
    names = list(config.servers)
    close = [n for n in names if _edit_distance(n, name) <= 2]
    text = f'No MCP server named "{name}".'
    if close:
        text += f' Did you mean "{min(close, key=lambda n: _edit_distance(n, name))}"?'
    return text + f" Configured: {', '.join(names) if names else '(none)'}."


def cmd_logout(argv: list[str], agent_dir: Path, cwd: Path, trusted: bool, out: TextIO, err: TextIO) -> int:
    from pi.app.mcp.auth_store import delete_credentials

    names = [a for a in argv if not a.startswith("-")]
    if len(names) != 1:
        raise UsageError("Usage: pi mcp logout <server> [-l]")
    config = load_mcp_config(agent_dir, cwd, trusted=trusted)
    server = config.servers.get(names[0])
    if server is None:
        err.write(unknown_server_message(names[0], config) + "\n")
        return 1
    if delete_credentials(agent_dir, server):
        out.write(f'Signed out of MCP server "{server.name}".\n')
    else:
        out.write(f'No stored credentials for MCP server "{server.name}".\n')
    return 0


def _login_timeout(argv: list[str]) -> float:
    from pi.app.mcp.oauth_login import LOGIN_TIMEOUT_S

    if "--timeout" not in argv:
        return LOGIN_TIMEOUT_S
    index = argv.index("--timeout")
    value = argv[index + 1] if index + 1 < len(argv) else ""
    try:
        seconds = float(value)
    except ValueError:
        seconds = 0.0
    if seconds <= 0:
        raise UsageError("--timeout expects a positive number of seconds.")
    return seconds


async def _open_in_browser(url: str, err: TextIO) -> None:
    """Show the URL (the user may open it by hand) and hand it to the system browser."""
    import webbrowser

    err.write(f"Open this URL in your browser to sign in:\n{url}\n")
    if sys.stdin.isatty():
        err.write("If the browser cannot reach this computer, paste the URL it was sent to here:\n")
    err.flush()
    await asyncio.to_thread(webbrowser.open, url)


async def _stdin_line() -> str:
    """One line typed by the user, read on a daemon thread so a finished sign-in never waits for it."""
    import threading

    loop = asyncio.get_running_loop()
    line: asyncio.Future[str] = loop.create_future()

    def deliver(text: str) -> None:
        if not line.done():
            line.set_result(text)

    def read() -> None:
        loop.call_soon_threadsafe(deliver, sys.stdin.readline())

    threading.Thread(target=read, daemon=True).start()
    return await line


def cmd_login(argv: list[str], agent_dir: Path, cwd: Path, trusted: bool, out: TextIO, err: TextIO) -> int:
    from pi.app.mcp.oauth_login import SignInError, sign_in

    timeout_s = _login_timeout(argv)
    skip = {argv.index("--timeout") + 1} if "--timeout" in argv else set()
    names = [a for i, a in enumerate(argv) if not a.startswith("-") and i not in skip]
    if len(names) != 1:
        raise UsageError("Usage: pi mcp login <server> [-l] [--timeout s]")
    config = load_mcp_config(agent_dir, cwd, trusted=trusted)
    server = config.servers.get(names[0])
    if server is None:
        err.write(unknown_server_message(names[0], config) + "\n")
        return 1
    try:
        read_line = _stdin_line if sys.stdin.isatty() else None
        flow = sign_in(
            server, agent_dir, cwd, lambda url: _open_in_browser(url, err), timeout_s=timeout_s, read_line=read_line
        )
        count = asyncio.run(flow)
    except SignInError as error:
        err.write(f'Signing in to MCP server "{server.name}" failed: {error}\n')
        return 1
    out.write(f'Signed in to MCP server "{server.name}" ({count} tools).\n')
    return 0


def run_mcp_command(argv: list[str], agent_dir: Path, cwd: Path, trusted: bool, out: TextIO, err: TextIO) -> int:
    """Entry point of `pi mcp ...`; returns the exit code."""
    if not argv:
        err.write(USAGE + "\n")
        return 1
    sub, rest = argv[0], argv[1:]
    try:
        if sub == "add":
            return cmd_add(rest, agent_dir, cwd, out)
        if sub == "remove":
            return cmd_remove(rest, agent_dir, cwd, out, err)
        if sub == "list":
            from pi.app.mcp.cli_list import cmd_list

            return asyncio.run(cmd_list(rest, agent_dir, cwd, trusted, out))
        if sub == "logout":
            return cmd_logout(rest, agent_dir, cwd, trusted, out, err)
        if sub == "login":
            return cmd_login(rest, agent_dir, cwd, trusted, out, err)
    except (UsageError, json.JSONDecodeError) as error:
        err.write(f"{error}\n")
        return 1
    err.write(f"Unknown pi mcp command: {sub}\n{USAGE}\n")
    return 1


__all__ = ["run_mcp_command", "unknown_server_message"]
