"""A small MCP server for the tests, run as `python fixture_server.py` (stdio)."""

from __future__ import annotations

import os
import sys

from mcp.server.fastmcp import Context, FastMCP

server = FastMCP("fixture", instructions="Fixture server.\nSecond line.")


@server.tool(name="a-b", description="First tool with a dash")
def a_dash_b() -> str:
    return "dash"


@server.tool(name="a_b", description="First tool with an underscore")
def a_under_b() -> str:
    return "under"


@server.tool(description="Echo the text back")
def echo(text: str) -> str:
    return f"echo: {text}"


@server.tool(description="Return a long text")
def long_text(size: int) -> str:
    return "".join(f"line {i:06d}\n" for i in range(size // 12 + 1))[:size]


@server.tool(description="Report the value of an environment variable")
def env_value(name: str) -> str:
    return os.environ.get(name, "<unset>")


@server.tool(description="Exit the server process in the middle of the call")
def die() -> str:
    sys.stderr.write("fixture server exiting on purpose\n")
    sys.stderr.flush()
    os._exit(3)


@server.tool(description="Never answer")
async def hang(ctx: Context) -> str:  # type: ignore[type-arg]
    import asyncio

    await asyncio.Event().wait()
    return "never"


@server.tool(description="Add a tool named extra and announce the change")
async def grow(ctx: Context) -> str:  # type: ignore[type-arg]
    server.add_tool(lambda: "extra!", name="extra", description="Added later")
    server.remove_tool("a-b")
    await ctx.session.send_tool_list_changed()
    return "grown"


@server.tool(description="Send a log message")
async def log_something(ctx: Context) -> str:  # type: ignore[type-arg]
    await ctx.info("first line\nsecond line")
    return "logged"


@server.tool(description="Start a child process in the server's process group and return its pid")
def spawn_child() -> int:
    import subprocess

    return subprocess.Popen(["sleep", "60"]).pid


@server.tool(description="Return the server's process id")
def server_pid() -> int:
    return os.getpid()


@server.resource("file:///notes.txt", name="notes", mime_type="text/plain")
def notes() -> str:
    return "the notes"


@server.resource("ui://widget", name="widget", mime_type="text/html;profile=mcp-app")
def widget() -> str:
    return "<html></html>"


if __name__ == "__main__":
    if os.environ.get("FIXTURE_FAIL"):
        sys.stderr.write("cannot start: missing token\n")
        sys.exit(2)
    server.run("stdio")
