"""`/mcp` in the interactive mode: handed to the extension that provides MCP support.

MCP is the built-in extension `builtin:mcp` (or whatever extension replaced it by registering its
own `/mcp`), so the built-in command only forwards the text to the session's extension commands,
where the manager dialog runs with the terminal UI. Without MCP support loaded it says how to get
servers configured instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi.app.modes.interactive.commands.api import InteractiveApi
    from pi.app.modes.interactive.commands.registry import Handler

NOT_LOADED = "MCP support is not loaded in this session (--no-mcp or -ne); start pi without them to use MCP servers."


async def cmd_mcp(api: InteractiveApi, args: str) -> None:
    text = f"/mcp {args}".rstrip()
    if await api.session.run_extension_command(text):
        return
    global_file = api.agent_dir / "mcp.json"
    if not global_file.is_file() and not (api.session.cwd / ".pi" / "mcp.json").is_file():
        api.show_status(f"No MCP servers configured. Add them to {api.agent_dir}/mcp.json or .pi/mcp.json.")
    else:
        api.show_warning(NOT_LOADED)


HANDLERS: dict[str, Handler] = {"mcp": cmd_mcp}

__all__ = ["HANDLERS", "NOT_LOADED", "cmd_mcp"]
