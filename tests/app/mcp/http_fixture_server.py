"""The fixture's streamable HTTP variant: `python http_fixture_server.py <port>`."""

from __future__ import annotations

import sys

from mcp.server.fastmcp import FastMCP

server = FastMCP("web", host="127.0.0.1", port=int(sys.argv[1]), log_level="INFO")


@server.tool(description="Add two numbers")
def add(a: int, b: int) -> int:
    return a + b


if __name__ == "__main__":
    server.run("streamable-http")
